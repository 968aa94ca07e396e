"""Stage 4 as the pipeline runs it, Hugging Face's `Tokenizer::post_process`: truncation (which
leaves room for the special tokens the post-processor adds), the post-processor, then padding,
each recorded as a step when the encode is traced (`TruncateStep`, `PostProcessStep`, `PadStep`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..encoding import Encoding
from ..errors import InvalidInput
from ..pipeline_steps import PadStep, PostProcessStep, TruncateStep
from ..steps import Trace, describe
from .base import post_process
from .truncation import PaddingParams, TruncationParams, pad, truncate_encodings


def added_tokens(processor: Any, is_pair: bool) -> int:
    """How many tokens `processor` adds to one text (or a pair): 0 without one, or for one of
    the older kind, which does not say."""
    counter = getattr(processor, "added_tokens", None)
    return counter(is_pair) if callable(counter) else 0


def check_room(truncation: TruncationParams | None, processor: Any) -> None:
    """InvalidInput when the windows of `truncation` cannot overlap by its stride once the
    processor's special tokens have their room (Hugging Face refuses such a tokenizer too)."""
    if truncation is None:
        return
    added = added_tokens(processor, False)
    if truncation.max_length - added < truncation.stride:
        raise InvalidInput(
            f"truncation stride ({truncation.stride}) must be at most "
            f"max_length ({truncation.max_length}) minus the "
            f"{added} special tokens the post-processor adds"
        )


def post_process_stage(
    first: Encoding,
    second: Encoding | None,
    processor: Any,
    add_special_tokens: bool,
    truncation: TruncationParams | None,
    padding: PaddingParams | None,
    trace: Trace | None,
) -> Encoding:
    """The one encoding of `first` (and `second`): truncated (in place), post-processed and
    padded, as the settings say."""
    if truncation is not None:
        added = added_tokens(processor, second is not None) if add_special_tokens else 0
        _truncate(truncation, first, second, added, trace)
    enc = post_process(processor, first, second, add_special_tokens)
    if trace is not None:
        trace.append(
            PostProcessStep(
                tokens=tuple(
                    zip(
                        enc.tokens,
                        enc.ids,
                        (s for s, _ in enc.offsets),
                        (e for _, e in enc.offsets),
                        map(bool, enc.special_tokens_mask),
                    )
                ),
                processor=describe(processor if add_special_tokens else None),
            )
        )
    if padding is not None:
        _pad(padding, enc, trace)
    return enc


def _truncate(
    params: TruncationParams,
    first: Encoding,
    second: Encoding | None,
    added: int,
    trace: Trace | None,
) -> None:
    """Cut the sequences (in place) to leave room for the `added` tokens of the processor."""
    max_length = params.max_length
    if added:
        if params.max_length < added:
            raise InvalidInput(
                f"truncation max_length ({params.max_length}) is shorter than "
                f"the {added} special tokens the post-processor adds"
            )
        params = dataclasses.replace(params, max_length=params.max_length - added)
    before = tuple(len(e) for e in (first, second) if e is not None)
    truncate_encodings(first, second, params)
    if trace is not None:
        kept = [e for e in (first, second) if e is not None]
        trace.append(
            TruncateStep(
                max_length=max_length,
                room=params.max_length,
                stride=params.stride,
                strategy=params.strategy,
                direction=params.direction,
                lengths=before,
                kept=tuple(len(e) for e in kept),
                overflowing=tuple(tuple(tuple(o.tokens) for o in e.overflowing) for e in kept),
            )
        )


def _pad(params: PaddingParams, enc: Encoding, trace: Trace | None) -> None:
    before = len(enc)
    target = params.target(before)
    pad(enc, target, params)
    if trace is not None:
        trace.append(
            PadStep(
                length=target,
                direction=params.direction,
                pad_token=params.pad_token,
                pad_id=params.pad_id,
                added=len(enc) - before,
            )
        )

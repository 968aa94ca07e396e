"""The steps a `Tokenizer.trace` records, one kind per stage of the pipeline: normalize,
pre_tokenize, model, truncate, post_process and pad. Each is a frozen, serialisable value (see
`steps.py`); the visualiser's pipeline panel draws them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .normalized import NormalizedString
from .steps import Step, register_step


@register_step
@dataclass(frozen=True)
class NormalizeStep(Step):
    """Stage 1: the text before and after normalisation, and each output character's
    span in the original text."""

    kind: ClassVar[str] = "normalize"
    input: str
    output: str
    alignments: tuple[tuple[int, int], ...]
    normalizer: str


@register_step
@dataclass(frozen=True)
class PreTokenizeStep(Step):
    """Stage 2: the pieces as `(text, start, end)`, offsets in the original text."""

    kind: ClassVar[str] = "pre_tokenize"
    pieces: tuple[tuple[str, int, int], ...]
    pre_tokenizer: str


@register_step
@dataclass(frozen=True)
class ModelStep(Step):
    """Stage 3: the model's tokens as `(token, id, start, end, word_id)`. The id is None where
    the model gives none (a rule tokeniser: the pipeline numbers its tokens afterwards)."""

    kind: ClassVar[str] = "model"
    tokens: tuple[tuple[str, int | None, int, int, int | None], ...]
    model: str


@register_step
@dataclass(frozen=True)
class PostProcessStep(Step):
    """Stage 4: the final tokens as `(token, id, start, end, special)`."""

    kind: ClassVar[str] = "post_process"
    tokens: tuple[tuple[str, int, int, int, bool], ...]
    processor: str


@register_step
@dataclass(frozen=True)
class TruncateStep(Step):
    """Before stage 4: each sequence cut to fit `max_length` (`room` of it is left for the
    model's tokens, the rest for the post-processor's special tokens). `lengths` and `kept` are
    the sequences' lengths before and after; `overflowing` the tokens of the windows cut off."""

    kind: ClassVar[str] = "truncate"
    max_length: int
    room: int
    stride: int
    strategy: str
    direction: str
    lengths: tuple[int, ...]
    kept: tuple[int, ...]
    overflowing: tuple[tuple[tuple[str, ...], ...], ...]


@register_step
@dataclass(frozen=True)
class PadStep(Step):
    """After stage 4: `added` copies of `pad_token` put on the `direction` side, up to `length`."""

    kind: ClassVar[str] = "pad"
    length: int
    direction: str
    pad_token: str
    pad_id: int
    added: int


def normalize_step(text: str, segments: list[NormalizedString], name: str) -> NormalizeStep:
    """The normalise step of `segments` (the normalised stretches of `text`)."""
    return NormalizeStep(
        input=text,
        output="".join(seg.normalized for seg in segments),
        alignments=tuple(a for seg in segments for a in seg.alignments),
        normalizer=name,
    )


def pre_tokenize_step(pieces: list[NormalizedString], name: str) -> PreTokenizeStep:
    """The pre-tokenise step of `pieces`, offsets in the original text."""
    return PreTokenizeStep(
        pieces=tuple((p.normalized, *p.span(0, len(p))) for p in pieces), pre_tokenizer=name
    )

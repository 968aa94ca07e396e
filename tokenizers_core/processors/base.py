"""What every post-processor shares: the bounds on what one may add, encodings merged and wrapped
in special tokens, and `post_process`, which runs a processor as Hugging Face's
`Tokenizer::post_process` does.

Special tokens get offsets (0, 0), no word id and special-tokens mask 1. Offsets stay
characters of each sequence's own text: merging shifts nothing.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..encoding import Encoding, Token
from ..errors import InvalidInput

MAX_ADDED_TOKENS = 1_000  # ids a post-processor may add to one text (or a pair)
MAX_SEQUENCE_COPIES = 4  # times a template may hold $A (or $B)
MAX_SPECIAL_TOKENS = 1_000  # special tokens a TemplateProcessing may declare
MAX_PROCESSORS = 64  # processors in a Sequence, nested ones counted


def _check_added(added: int, what: str) -> None:
    """InvalidInput when a post-processor would add more than `MAX_ADDED_TOKENS` ids.

    >>> _check_added(200_000, "its single template")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: post_processor: its single template adds 200,000 tokens...
    """
    if added > MAX_ADDED_TOKENS:
        raise InvalidInput(
            f"post_processor: {what} adds {added:,} tokens to a text; a post-processor may add "
            f"at most {MAX_ADDED_TOKENS:,} (real tokenizers add a handful)"
        )


# ---- encodings: merging and wrapping ----------------------------------------------------------
def merge(encodings: Iterable[Encoding]) -> Encoding:
    """One encoding from several, end to end (Hugging Face's `Encoding::merge`): offsets stay
    as they are (characters of each sequence's own text), and overflowing windows combine
    with everything else, so "[CLS] A [SEP]" with A overflowing into A2 also gives
    "[CLS] A2 [SEP]".

    >>> a = Encoding(ids=[1], tokens=["a"], offsets=[(0, 1)], word_ids=[0], attention_mask=[1],
    ...              special_tokens_mask=[0], type_ids=[0])
    >>> merge([a, a]).tokens
    ['a', 'a']
    """
    out = Encoding()
    for encoding in encodings:
        _merge_with(out, encoding)
    return out


def _merge_with(self: Encoding, pair: Encoding) -> None:
    """`self += pair`, overflowing windows included (Rust's `merge_with`, in its order)."""
    overflowing: list[Encoding] = []
    for mine in self.overflowing:  # each of our windows with the pair ...
        combined = copy_encoding(mine)
        _merge_with(combined, pair)
        overflowing.append(combined)
        for theirs in pair.overflowing:  # ... and with each of its windows
            combined = copy_encoding(mine)
            _merge_with(combined, theirs)
            overflowing.append(combined)
    for theirs in pair.overflowing:  # ourselves with each of its windows
        combined = copy_encoding(self)
        _merge_with(combined, theirs)
        overflowing.append(combined)
    self.ids += pair.ids
    self.type_ids += pair.type_ids
    self.tokens += pair.tokens
    self.word_ids += pair.word_ids
    self.offsets += pair.offsets
    self.special_tokens_mask += pair.special_tokens_mask
    self.attention_mask += pair.attention_mask
    self.overflowing = overflowing


def copy_encoding(e: Encoding) -> Encoding:
    """A copy whose lists (and overflowing windows) can be changed without touching `e`."""
    return Encoding(
        ids=list(e.ids),
        tokens=list(e.tokens),
        offsets=list(e.offsets),
        word_ids=list(e.word_ids),
        attention_mask=list(e.attention_mask),
        special_tokens_mask=list(e.special_tokens_mask),
        type_ids=list(e.type_ids),
        overflowing=[copy_encoding(o) for o in e.overflowing],
    )


def _specials(ids: list[int], tokens: list[str], type_id: int) -> Encoding:
    """The encoding of special tokens: offsets (0, 0), no word, mask 1."""
    n = len(ids)
    return Encoding(
        ids=list(ids),
        tokens=list(tokens),
        offsets=[(0, 0)] * n,
        word_ids=[None] * n,
        attention_mask=[1] * n,
        special_tokens_mask=[1] * n,
        type_ids=[type_id] * n,
    )


def _wrap(
    encoding: Encoding,
    before: Encoding | None,
    after: Encoding | None,
    type_ids: list[int] | None = None,
) -> Encoding:
    """`before + encoding + after` without its overflowing (each window is wrapped by itself)."""
    body = Encoding(
        ids=encoding.ids,
        tokens=encoding.tokens,
        offsets=encoding.offsets,
        word_ids=encoding.word_ids,
        attention_mask=encoding.attention_mask,
        special_tokens_mask=encoding.special_tokens_mask,
        type_ids=encoding.type_ids if type_ids is None else type_ids,
    )
    return merge([e for e in (before, body, after) if e is not None])


def _wrapped(
    encoding: Encoding, before: Encoding, after: Encoding, type_id: int | None
) -> Encoding:
    """`before + encoding + after`, the sequence taking `type_id` (None: keeping its own): what
    a template such as "[CLS] $A [SEP]" makes of one sequence without overflowing windows
    (`post_process` checks it equals the general path in
    tests/core/pipeline/test_hf_processors.py)."""
    n = len(encoding.ids)
    own = encoding.type_ids if type_id is None else [type_id] * n
    return Encoding(
        ids=before.ids + encoding.ids + after.ids,
        tokens=before.tokens + encoding.tokens + after.tokens,
        offsets=before.offsets + encoding.offsets + after.offsets,
        word_ids=before.word_ids + encoding.word_ids + after.word_ids,
        attention_mask=before.attention_mask + encoding.attention_mask + after.attention_mask,
        special_tokens_mask=(
            before.special_tokens_mask + encoding.special_tokens_mask + after.special_tokens_mask
        ),
        type_ids=before.type_ids + own + after.type_ids,
    )


def post_process(
    processor: Any, encoding: Encoding, pair: Encoding | None, add_special_tokens: bool = True
) -> Encoding:
    """Stage 4 as Hugging Face's `Tokenizer::post_process` runs it (after truncation, before
    padding): without a processor the sequences are joined; with one, each sequence's type ids
    are set to its index (0 or 1), the processor runs, and the results are merged."""
    encodings = [encoding] if pair is None else [encoding, pair]
    if processor is None:
        return merge(encodings) if pair is not None else encoding
    around = getattr(processor, "single_around", None)
    if pair is None and add_special_tokens and not encoding.overflowing and around is not None:
        parts = around()
        if parts is not None:  # the common case, in one pass
            return _wrapped(encoding, *parts)
    for i, e in enumerate(encodings):
        e.type_ids = [i] * len(e.ids)
    if hasattr(processor, "process_encodings"):
        return merge(processor.process_encodings(encodings, add_special_tokens))
    # A processor of the older, token-list kind (`process(tokens, pair) -> (tokens, type_ids)`).
    if not add_special_tokens:
        return merge(encodings)
    tokens, type_ids = processor.process(
        encoding.token_list(), pair.token_list() if pair is not None else None
    )
    out = Encoding.from_tokens(tokens)
    out.type_ids = list(type_ids)
    return out


class _TokenListProcessing:
    """`process(tokens, pair) -> (tokens, type_ids)` over `Token` lists, for callers that have
    no `Encoding` (the processor's own work is `process_encodings`)."""

    def process(
        self, tokens: list[Token], pair: list[Token] | None
    ) -> tuple[list[Token], list[int]]:
        first = Encoding.from_tokens(tokens, 0)
        second = Encoding.from_tokens(pair, 1) if pair is not None else None
        out = post_process(self, first, second, True)
        return out.token_list(), list(out.type_ids)


# ---- the options the processors share -------------------------------------------------------
def _describe(p: Any) -> str:
    fn = getattr(p, "describe", None)
    return fn() if callable(fn) else type(p).__name__


def _token_and_id(value: Any, what: str) -> tuple[str, int]:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not isinstance(value[0], str)
        or not isinstance(value[1], int)
        or isinstance(value[1], bool)
        or value[1] < 0
    ):
        raise InvalidInput(f"{what} must be [token, id] (a string and a non-negative integer)")
    return (value[0], value[1])


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{what} must be true or false")
    return value

"""The fast path of pipelines whose pre-tokenizer only cuts the text: the same tokens, without a
`NormalizedString` per piece.

BERT's pre-tokenizer, `Whitespace` and `WhitespaceSplit` change no character: each piece is a
stretch `normalized[start:end]` of a normalised segment. So the model can read the stretch as a
plain string, and a token at `[a, b)` of the piece has the original offsets
`segment.span(start + a, start + b)`, which is what the piece's own `span(a, b)` gives. `Tokenizer`
uses `spans_of` and `encoding_of` instead of `split_pieces` + `into_encoding` when nothing is
being traced (the trace, and the step views, run the general path); tests check that both give
the same `Encoding` (tests/core/pre_tokenizers/test_split_fast.py).
"""

from __future__ import annotations

from typing import Any, Callable

from ..encoding import Encoding
from ..normalized import NormalizedString
from .basic import BertPreTokenizer, Whitespace, WhitespaceSplit
from .stage import model_encoding

Spans = Callable[[str], list[tuple[int, int]]]
Word = tuple[tuple[Any, ...], tuple[str, ...], tuple[tuple[int, int], ...]]

MAX_WORDS_SEEN = 200_000  # words whose tokens a tokenizer keeps (then it forgets them all)

_CUT_ONLY = (BertPreTokenizer, Whitespace, WhitespaceSplit)


def spans_of(pre_tokenizer: Any) -> Spans | None:
    """A function text -> its pieces as (start, end), for a pre-tokenizer that only cuts the
    text; None for any other (then the general pipeline runs).

    >>> spans_of(BertPreTokenizer())("Hi, you")
    [(0, 2), (2, 3), (4, 7)]
    """
    return pre_tokenizer.spans if type(pre_tokenizer) in _CUT_ONLY else None


def encoding_of(
    model: Any,
    segments: list[NormalizedString],
    added: dict[int, int],
    spans: Spans,
    seen: dict[str, Word],
    type_id: int,
    local_ids: dict[str, int],
) -> Encoding:
    """The model's tokens of normalised `segments` (those whose index is in `added` are added
    tokens, one token each), each other segment cut by `spans` and each word tokenised once
    (`seen`, the caller's: word -> `tokens_of` it). Offsets are characters of the original
    text, through the segment's alignment. A model of rules gives no ids: they are given by
    first appearance, in `local_ids`, as `into_encoding` does."""
    ids: list[int | None] = []
    values: list[str] = []
    offsets: list[tuple[int, int]] = []
    word_ids: list[int | None] = []
    word = 0
    for i, seg in enumerate(segments):
        if i in added:  # an added token, whole
            ids.append(added[i])
            values.append(seg.normalized)
            offsets.append(seg.span(0, len(seg)))
            word_ids.append(word)
            word += 1
            continue
        text = seg.normalized
        # Offsets in the original text: a shift while `seg` is aligned character to character
        # with it, else through its alignment.
        span = None if seg.is_identity else seg.span
        shift = seg.span(0, 0)[0]
        for start, end in spans(text):
            piece = text[start:end]
            hit = seen.get(piece)
            if hit is None:
                if len(seen) >= MAX_WORDS_SEEN:
                    seen.clear()
                hit = seen[piece] = tokens_of(model, piece)
            w_ids, w_values, w_offsets = hit
            if len(w_ids) == 1:  # most words: one token
                ids.append(w_ids[0])
                values.append(w_values[0])
                offsets.append((shift + start, shift + end) if span is None else span(start, end))
                word_ids.append(word)
            else:
                ids.extend(w_ids)
                values.extend(w_values)
                if span is None:
                    at = shift + start
                    offsets.extend([(at + a, at + b) for a, b in w_offsets])
                else:
                    offsets.extend([span(start + a, start + b) for a, b in w_offsets])
                word_ids.extend([word] * len(w_ids))
            word += 1
    return model_encoding(ids, values, offsets, word_ids, type_id, local_ids)


def tokens_of(model: Any, word: str) -> Word:
    """(ids, tokens, (start, end) in `word`) of one word, as the model tokenises it."""
    found = model.tokenize(word)
    return (
        tuple(id_ for _v, id_, _s, _e in found),
        tuple(v for v, _i, _s, _e in found),
        tuple((s, e) for _v, _i, s, e in found),
    )

"""The plain byte-level pipelines' fast path: the same tokens, without per-piece bookkeeping.

GPT-2, Llama 3, Qwen and many others are: no normaliser, a regex split (Split(regex, isolated)
then ByteLevel(use_regex=False), or ByteLevel with its own regex), and a byte-level BPE. There
every piece is a plain stretch of the text, so a token's offsets are the piece's start plus the
characters its bytes came from, and a piece seen before has the same tokens again. `Tokenizer`
uses `pieces_of` and `encoding_of` instead of building a `NormalizedString` per piece when the
pipeline is of this shape and nothing is being traced; tests check both ways give the same
`Encoding` (tests/core/models/test_byte_level_fast.py).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ..encoding import Encoding
from ..hf_regex import find_spans
from ..normalized import NormalizedString
from ..user_regex import held
from .basic import HF_BYTE_LEVEL_RE, ByteLevel, Sequence, match_spans, to_byte_level
from .stage import model_encoding

Splitter = Callable[[str], list[str]]
Piece = tuple[tuple[Any, ...], tuple[str, ...], tuple[tuple[int, int], ...]]

MAX_PIECES_SEEN = 200_000  # pieces whose tokens a tokenizer keeps (then it forgets them all)


def pieces_of(pre_tokenizer: Any) -> Splitter | None:
    """A function text -> its pieces, which tile the text (each starts where the one before
    ended), for a plain byte-level pre-tokenizer; None when `pre_tokenizer` is of another shape,
    or drops text (Split's "removed"): then the general pipeline runs."""
    members = (
        list(pre_tokenizer.pre_tokenizers) if type(pre_tokenizer) is Sequence else [pre_tokenizer]
    )
    last = members[-1]
    if type(last) is not ByteLevel or last.add_prefix_space:
        return None
    if len(members) == 1 and last.use_regex:
        return functools.partial(
            _tiles, HF_BYTE_LEVEL_RE, lambda text: match_spans(HF_BYTE_LEVEL_RE, text)
        )
    if len(members) != 2 or last.use_regex:
        return None
    from .hf import Split, find_matches, merge_by_behavior  # lazy: keeps the package import light

    if type(members[0]) is Split:
        split = members[0]
        if split.behavior == "removed":
            return None
        if split.behavior == "isolated" and not split.invert:  # Llama 3, Qwen, ...
            return functools.partial(
                _tiles, split._compiled, functools.partial(_isolated, split._compiled)
            )
        return functools.partial(
            _tiles,
            None,
            lambda text: merge_by_behavior(
                find_matches(split._compiled, text, split.invert), split.behavior
            ),
        )
    return None


def _tiles(compiled: Any, spans: Callable[[str], list[tuple[int, int]]], text: str) -> list[str]:
    """The non-empty pieces of `text`. When the pattern's matches alone tile the text (the
    usual case: such patterns match every character), `findall` gives them directly; else the
    pieces come from `spans`.

    >>> import regex
    >>> _tiles(regex.compile(r"\\w+|\\W+"), None, "ab, c")
    ['ab', ', ', 'c']
    """
    if compiled is not None and not compiled.groups:
        parts = compiled.findall(text, **held(compiled))
        if sum(map(len, parts)) == len(text) and "" not in parts:
            return parts
    return [text[start:end] for start, end in spans(text) if start < end]


def encoding_of(
    model: Any,
    segments: list[NormalizedString],
    added: dict[int, int],
    split: Splitter,
    seen: dict[str, Piece],
    type_id: int,
) -> Encoding | None:
    """The model's tokens of a text cut at its added tokens: `segments`, of which those whose
    index is in `added` are added tokens (with the id it gives), each other one split by `split`
    and each piece tokenised once (`seen`, the caller's: piece -> `tokens_of` it). Offsets are
    characters of the original text: a piece's own offsets shifted by where the piece starts.
    None when a segment is not a plain stretch of the text (the general pipeline runs then)."""
    if not all(seg.is_identity for seg in segments):
        return None
    ids: list[int] = []
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
        shift = seg.span(0, 0)[0]
        for piece in split(seg.normalized):  # the pieces tile the segment
            hit = seen.get(piece)
            if hit is None:
                if len(seen) >= MAX_PIECES_SEEN:
                    seen.clear()
                hit = seen[piece] = tokens_of(model, piece)
            p_ids, p_values, p_offsets = hit
            if len(p_ids) == 1:  # most pieces: one token
                ids.append(p_ids[0])
                values.append(p_values[0])
                offsets.append((shift + p_offsets[0][0], shift + p_offsets[0][1]))
                word_ids.append(word)
            else:
                ids.extend(p_ids)
                values.extend(p_values)
                offsets.extend([(shift + a, shift + b) for a, b in p_offsets])
                word_ids.extend([word] * len(p_ids))
            shift += len(piece)
            word += 1
    return model_encoding(ids, values, offsets, word_ids, type_id)


def tokens_of(model: Any, piece: str) -> Piece:
    """(ids, tokens, offsets in `piece`) of one piece: the model runs on its byte-level spelling,
    and a token holding part of a character gets that character's span (as `to_byte_level`
    aligns each byte to its character)."""
    spelled = to_byte_level(NormalizedString(piece))
    found = model.tokenize(spelled.normalized)
    ids = tuple(id_ for _v, id_, _s, _e in found)
    values = tuple(v for v, _i, _s, _e in found)
    offsets = tuple(spelled.span(s, e) for _v, _i, s, e in found)
    return ids, values, offsets


def _isolated(compiled: Any, text: str) -> list[tuple[int, int]]:
    """Split(pattern, "isolated")'s pieces: every match and every stretch between matches,
    matches found as Oniguruma finds them (`hf_regex.find_spans`).

    >>> import regex
    >>> _isolated(regex.compile(r"\\d+"), "ab12c3")
    [(0, 2), (2, 4), (4, 5), (5, 6)]
    """
    out: list[tuple[int, int]] = []
    prev = 0
    for start, end in find_spans(compiled, text):
        if prev < start:
            out.append((prev, start))
        if start < end:
            out.append((start, end))
        prev = end
    if prev < len(text):
        out.append((prev, len(text)))
    return out

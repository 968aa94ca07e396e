"""The Unigram Viterbi search, fast path: the best segmentation of a text as (start, end, id).

One function for both engines it is proved against: sentencepiece (`unigram_model.cc`,
`EncodeOptimized`) adds and compares scores as 32-bit floats, Hugging Face `tokenizers`
(`models/unigram/model.rs`, `encode_optimized`) as 64-bit floats; `float32=` chooses. The
step-by-step version the views show is `Unigram.viterbi_steps`, which tests prove equal to this.

The trie is the models' own: nested dicts keyed by character, a piece's end holding its id
`node[""] = id`; `scores[id]` is the score the search adds for that piece.

>>> trie = {"a": {"": 1, "b": {"": 3}}, "b": {"": 2}}
>>> viterbi(trie, [0.0, -1.0, -1.0, -1.5], "abxa", unk_id=0, unk_score=-11.0)
[(0, 2, 3), (2, 3, 0), (3, 4, 1)]
"""

from __future__ import annotations

import itertools
import math
import operator
from array import array
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from ...errors import InvalidInput
from .lattice import f32


def viterbi(
    trie: dict[str, Any],
    scores: list[float],
    text: str,
    *,
    unk_id: int | None,
    unk_score: float,
    float32: bool = False,
    max_piece_length: int | None = None,
) -> list[tuple[int, int, int]]:
    """The best path through `text`'s lattice as (start, end, id), left to right.

    Run "forward" as both engines' optimised encoders do: from each start i, walk the trie and
    relax every end j it reaches (best score ending at j = best[i] + the piece's score); a
    character no piece of length 1 covers adds an unknown node scoring `unk_score`. Ties keep
    the earlier start (a candidate must be strictly greater).

    With `float32`, sentencepiece 0.2.3's arithmetic (`EncodeOptimized`): scores and sums are
    32-bit floats (`float + float`, rounded before they are compared), and once the best score
    at a start passes +-100,000 every kept score from there on is shifted by it (its
    `kScoreResetThreshold`: on a long text the sums would otherwise lose their low bits), which
    changes how later sums round. Hugging Face adds 64-bit floats and never shifts.
    `max_piece_length` (the longest piece, in characters) bounds how far ahead that shift looks.
    Raises ValueError when an unknown node is needed and `unk_id` is None.
    """
    n = len(text)
    best = [0.0] * (n + 1)  # best score of a path ending at each position
    back = [-1] * (n + 1)  # where that path's last piece starts (-1: no path yet)
    ids = [0] * (n + 1)  # and that piece's id
    rounded = array("f", [0.0]) if float32 else None  # storing into it rounds to 32 bits
    ahead = max(max_piece_length or n, 1)  # no piece reaches further than this past its start
    low, high = (-_RESET_AT, _RESET_AT) if float32 else (-math.inf, math.inf)  # see below
    for i in range(n):
        here = best[i]
        if here < low or here > high:  # (sentencepiece shifts scores past +-100,000)
            _shift_scores(best, back, i, min(n, i + ahead))
            here = best[i]  # (0.0)
        node = trie
        has_single = False
        j = i
        while j < n:
            child = node.get(text[j])
            if child is None:
                break
            node = child
            j += 1
            pid = node.get("")
            if pid is None:
                continue
            cand = here + scores[pid]
            # (rounding is monotonic: only a sum that beats the best unrounded can after it)
            if back[j] < 0 or cand > best[j]:
                if rounded is not None:  # (what _stored does, inline: this runs per relax)
                    rounded[0] = cand
                    cand = rounded[0]
                if back[j] < 0 or cand > best[j]:
                    best[j], back[j], ids[j] = cand, i, pid
            if j == i + 1:
                has_single = True
        if not has_single:  # no piece covers text[i]: an unknown node
            cand = here + unk_score
            if rounded is not None:  # (as above: `_stored`, inline)
                rounded[0] = cand
                cand = rounded[0]
            _relax_unknown(best, back, ids, i, cand, unk_id, text)
    return _backtrack(back, ids)


_RESET_AT = 100000.0  # sentencepiece's kScoreResetThreshold


def _shift_scores(best: list[float], back: list[int], start: int, last: int) -> None:
    """Subtract best[start] from the kept scores of start..last that have a path, in 32-bit
    floats, so best[start] becomes 0 (sentencepiece's score reset; see `viterbi`). `last` is at
    or past the furthest end relaxed so far: sentencepiece shifts up to that end, and the
    positions past it have no path yet, so they are left alone either way.

    >>> best, back = [0.0, -100001.0, -100003.0, 0.0], [-1, 0, 0, -1]
    >>> _shift_scores(best, back, 1, 3); best
    [0.0, 0.0, -2.0, 0.0]
    """
    offset = best[start]
    for k in range(start, last + 1):
        if k == start or back[k] >= 0:
            best[k] = f32(best[k] - offset)


def _stored(total: float, rounded: array | None) -> float:
    """`total` as the best-score table keeps it: rounded to a 32-bit float when `rounded` is a
    one-slot `array("f")` (sentencepiece's `float best_path_score`), else as it is.

    >>> _stored(0.1, array("f", [0.0])), _stored(0.1, None)
    (0.10000000149011612, 0.1)
    """
    if rounded is None:
        return total
    rounded[0] = total  # (a float array stores 32 bits: this rounds, and overflows to inf)
    return rounded[0]


def _relax_unknown(
    best: list[float],
    back: list[int],
    ids: list[int],
    i: int,
    cand: float,
    unk_id: int | None,
    text: str,
) -> None:
    """Offer the unknown node text[i:i+1] scoring `cand` as the best path ending at i + 1."""
    if back[i + 1] < 0 or cand > best[i + 1]:
        if unk_id is None:
            raise InvalidInput(f"no piece covers {text[i]!r} and this Unigram model has no unk_id")
        best[i + 1], back[i + 1], ids[i + 1] = cand, i, unk_id


def backtrack(back: Sequence[int], end: int | None = None) -> Iterator[tuple[int, int]]:
    """The best path read off its back-pointers, right to left: from `end` (by default the last
    position), each piece as (start, end), `back[e]` being where the piece ending at e starts.
    The one backtrack of the Viterbi searches (this module's, `Unigram.viterbi_steps`, the
    trainer's in `train_loops.py`, the checker's replay); the textbook page keeps its own loop.

    >>> list(backtrack([-1, 0, 0, 2]))
    [(2, 3), (0, 2)]
    """
    end = len(back) - 1 if end is None else end
    while end > 0:
        start = back[end]
        yield start, end
        end = start


def _backtrack(back: list[int], ids: list[int]) -> list[tuple[int, int, int]]:
    """The path as (start, end, id), left to right.

    >>> _backtrack([-1, 0, 0, 2], [0, 5, 6, 7])
    [(0, 2, 6), (2, 3, 7)]
    """
    return [(start, end, ids[end]) for start, end in backtrack(back)][::-1]


# ---- the search word by word, each word's best path kept -----------------------------------------

WHITESPACE = "\u2581"  # sentencepiece's whitespace mark ▁
KEPT_LENGTH = 256  # a longer segment is searched, not kept (as Hugging Face's word cache)
P = TypeVar("P")  # what `segment_paths` keeps per segment: its path, in any form


def whitespace_segments(text: str, mark: str = WHITESPACE) -> list[str]:
    """`text` cut before every whitespace mark but one at its very start: the segments, in order,
    joined back make `text`.

    >>> whitespace_segments("▁the▁cat▁▁sat"), whitespace_segments("ab▁c"), whitespace_segments("")
    (['▁the', '▁cat', '▁', '▁sat'], ['ab', '▁c'], [])
    """
    first, *rest = text.split(mark)
    return ([first] if first else []) + [mark + part for part in rest]


def crosses_no_mark(pieces: Iterable[str], mark: str = WHITESPACE) -> bool:
    """True when no piece holds the whitespace mark anywhere but at its start: then no piece
    of a lattice can cover a mark it does not start at, so every path of a text passes through
    each position where a mark stands (what `by_segment` relies on).

    >>> crosses_no_mark(["▁the", "▁", "cat"]), crosses_no_mark(["the▁", "cat"])
    (True, False)
    """
    return all(mark not in piece[1:] for piece in pieces)


def shifted_spans(path: Sequence[tuple[int, int, int]], pos: int) -> list[tuple[int, int, int]]:
    """(start, end, id) spans moved `pos` characters right.

    >>> shifted_spans([(0, 2, 7)], 3)
    [(3, 5, 7)]
    """
    return [(start + pos, end + pos, pid) for start, end, pid in path]


def least_margin(trie: dict[str, Any], scores: list[float], text: str, unk_score: float) -> float:
    """The least gap, over the positions of `text` that more than one piece ends at, between
    the best and the next best candidate score of a path ending there (`viterbi`'s relaxation,
    in exact 64-bit sums from 0); infinity when no position has a choice. The certificate
    `by_segment` checks, not a search: it returns no path.

    >>> trie = {"a": {"": 1, "b": {"": 3}}, "b": {"": 2}}
    >>> least_margin(trie, [0.0, -1.0, -1.0, -1.5], "ab", -11.0)
    0.5
    """
    n = len(text)
    best = [-math.inf] * (n + 1)
    second = [-math.inf] * (n + 1)
    best[0] = 0.0
    for i in range(n):
        node: dict[str, Any] | None = trie
        j, has_single = i, False
        while j < n and node is not None and (node := node.get(text[j])) is not None:
            j += 1
            pid = node.get("")
            if pid is not None:
                _offer(best, second, j, best[i] + scores[pid])
                has_single = has_single or j == i + 1
        if not has_single:
            _offer(best, second, i + 1, best[i] + unk_score)
    return min((b - s for b, s in zip(best, second)), default=math.inf)


def _offer(best: list[float], second: list[float], j: int, cand: float) -> None:
    """Keep the two largest candidates offered at position j."""
    if cand > best[j]:
        best[j], second[j] = cand, best[j]
    elif cand > second[j]:
        second[j] = cand


def by_segment(
    search: Callable[[str], list[tuple[int, int, int]]],
    margin: Callable[[str], float],
    text: str,
    cache: dict[str, tuple[float, tuple[tuple[int, int, int], ...]]],
    cache_size: int,
    tolerance: float,
) -> list[tuple[int, int, int]] | None:
    """The best path of `text` as (start, end, id) spans: the concatenation of `search`'s best
    path of each `whitespace_segments` segment, moved to where the segment starts; None when
    `segment_paths` declines.

    >>> trie = {"▁": {"": 1, "a": {"": 2}}, "a": {"": 3}}
    >>> search = lambda t: viterbi(trie, [0.0, -2.0, -1.0, -2.0], t, unk_id=0, unk_score=-12.0)
    >>> by_segment(search, lambda t: 1.0, "a▁a▁a", {}, 10, 0.01)
    [(0, 1, 3), (1, 3, 2), (3, 5, 2)]
    >>> by_segment(search, lambda t: 0.0, "a▁a▁a", {}, 10, 0.01) is None
    True
    """
    found = segment_paths(lambda s: tuple(search(s)), margin, text, cache, cache_size, tolerance)
    if found is None:
        return None
    segments, paths = found
    out: list[tuple[int, int, int]] = []
    for pos, path in zip(segment_starts(segments), paths):
        out.extend(shifted_spans(path, pos) if pos else path)
    return out


def segment_paths(
    search: Callable[[str], P],
    margin: Callable[[str], float],
    text: str,
    cache: dict[str, tuple[float, P]],
    cache_size: int,
    tolerance: float,
) -> tuple[list[str], list[P]] | None:
    """The `whitespace_segments` of `text` and `search`'s best path of each, as `search`
    gives it (kept, so not to be changed). Each segment's (margin per character, path) is kept
    in `cache` (emptied when it holds `cache_size`; a segment longer than KEPT_LENGTH is not
    kept). None when a segment's `margin` is not above `tolerance` per character: search the
    whole text.

    Why the segments' paths make the text's best path, when `crosses_no_mark` holds for the
    model's pieces: every path passes through each mark's position and its score is the sum of
    its segments', so the best path is made of each segment's best path. But `search` starts a
    segment from 0 and the whole text's search from the running total, and sums are rounded:
    two paths whose exact sums tie ("." + "......" and "......" + ".") or nearly do may
    compare the other way. So `margin(segment)` is the least gap, over the segment's
    positions, between the best and the next best candidate (exact sums from 0); the caller's
    `tolerance` bounds, per character, how far rounding at the text's largest running total
    can move two sums apart. A gap above it decides every comparison the same way from any
    start. (The gap is kept divided by the segment's length, and compared with `tolerance`
    made larger by a part in 10^12: more than that division's rounding.)

    >>> segment_paths(len, lambda t: 1.0, "ab▁c▁ab", {}, 10, 0.01)
    (['ab', '▁c', '▁ab'], [2, 2, 3])
    """
    segments = whitespace_segments(text)
    kept = list(map(cache.get, segments))
    if None in kept:
        for i, segment in enumerate(segments):
            if kept[i] is None:
                kept[i] = entry = (margin(segment) / len(segment), search(segment))
                if len(segment) <= KEPT_LENGTH:
                    if len(cache) >= cache_size:
                        cache.clear()
                    cache[segment] = entry
    # a near tie: search the whole text
    if kept and min(map(_GAP, kept)) <= tolerance * ROUNDING_SLACK:  # type: ignore[arg-type]
        return None
    return segments, list(map(_PATH, kept))  # type: ignore[arg-type]


def segment_starts(segments: list[str]) -> list[int]:
    """Where each segment starts in the text they make.

    >>> segment_starts(["ab", "▁c", "▁ab"])
    [0, 2, 4]
    """
    return [0, *itertools.accumulate(map(len, segments[:-1]))]


ROUNDING_SLACK = 1.0 + 1e-12  # (see `segment_paths`)
_GAP, _PATH = operator.itemgetter(0), operator.itemgetter(1)  # of a kept (gap, path)

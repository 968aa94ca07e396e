"""Slow, textbook trainers and encoders with the classic mistakes as switches.

The checker names a mistake only when replaying it reproduces what the student gave: these
functions are the seed's pseudocode, recounting everything at every merge, with one switch per
classic mistake. They are for small corpora and a few hundred merges (the checker caps them);
the real trainers live in `models/`.

>>> words = [(("l", "o", "w", "</w>"), 5), (("l", "o", "w", "e", "r", "</w>"), 2)]
>>> textbook_merges(words, 2)
[('l', 'o'), ('lo', 'w')]
"""
from __future__ import annotations

from typing import Callable, Iterable, Sequence

Sequences = Sequence[tuple[tuple[str, ...], int]]


def count_pairs(seqs: Sequences, weighted: bool = True) -> dict[tuple[str, str], int]:
    """Adjacent pair counts, weighted by each sequence's frequency (or not: `weighted=False`,
    the mistake of counting each distinct word once). Keys keep first-seen order, as a Python
    dict does, which is what `max(counts, key=counts.get)` breaks ties by.

    >>> count_pairs([(("a", "b", "a", "b"), 3)])
    {('a', 'b'): 6, ('b', 'a'): 3}
    >>> count_pairs([(("a", "b", "a", "b"), 3)], weighted=False)
    {('a', 'b'): 2, ('b', 'a'): 1}
    """
    counts: dict[tuple[str, str], int] = {}
    for symbols, freq in seqs:
        w = freq if weighted else 1
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + w
    return counts


def merge_pair(symbols: tuple[str, ...], pair: tuple[str, str], new: str) -> tuple[str, ...]:
    """Replace each occurrence of `pair` by `new`, left to right, without overlap.

    >>> merge_pair(("a", "a", "a"), ("a", "a"), "aa")
    ('aa', 'a')
    """
    out: list[str] = []
    i, n = 0, len(symbols)
    while i < n:
        if i + 1 < n and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
            out.append(new)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def textbook_merges(seqs: Sequences, n: int, *, weighted: bool = True, ties: str = "ids",
                    score: str = "count", join: Callable[[str, str], str] | None = None,
                    ) -> list[tuple[str, str]]:
    """Up to `n` merges, recounting every pair at every step (seed 000's `bpe_train`).

    `ties="ids"` is the project's rule: among the best, the smallest (id(left), id(right)), ids
    given to the starting symbols in code-point order and then to merged symbols in creation
    order. `ties="dict"` is `max(counts, key=counts.get)`: the first pair counted wins.
    `score="likelihood"` is WordPiece's count(ab) / (count(a) * count(b)) (exactly, then the
    higher count, then ids); `join` makes the new symbol (WordPiece drops the `##` of the right
    part).
    """
    join = join or (lambda a, b: a + b)
    seqs = [(tuple(s), f) for s, f in seqs]
    ids: dict[str, int] = {}
    for s in sorted({x for symbols, _f in seqs for x in symbols}):
        ids[s] = len(ids)
    merges: list[tuple[str, str]] = []
    while len(merges) < n:
        counts = count_pairs(seqs, weighted)
        if not counts:
            break
        best = _pick(counts, seqs, ids, ties, score, weighted)
        new = join(*best)
        ids.setdefault(new, len(ids))
        seqs = [(merge_pair(s, best, new), f) for s, f in seqs]
        merges.append(best)
    return merges


def _pick(counts: dict[tuple[str, str], int], seqs: Sequences, ids: dict[str, int], ties: str,
          score: str, weighted: bool) -> tuple[str, str]:
    if score == "count":
        if ties == "dict":
            return max(counts, key=counts.__getitem__)
        return min(counts, key=lambda p: (-counts[p], ids[p[0]], ids[p[1]]))
    freq: dict[str, int] = {}
    for symbols, f in seqs:
        for s in symbols:
            freq[s] = freq.get(s, 0) + (f if weighted else 1)
    best = None
    for p, c in counts.items():
        if best is None or _better(c, freq[p[0]] * freq[p[1]], ids[p[0]], ids[p[1]], best):
            best = (c, freq[p[0]] * freq[p[1]], ids[p[0]], ids[p[1]], p)
    return best[4]


def _better(c: int, d: int, a: int, b: int, best: tuple) -> bool:
    bc, bd, ba, bb, _p = best
    if c * bd != bc * d:                       # c/d vs bc/bd, exactly
        return c * bd > bc * d
    if c != bc:
        return c > bc
    return (a, b) < (ba, bb)


# ---- encoding ------------------------------------------------------------------------------
def encode_by_count(symbols: Iterable[str], rank: Callable[[str, str], int | None]) -> list[str]:
    """The mistake of encoding by count: repeatedly merge the known pair that occurs most often
    in the word (the first seen on a tie), instead of the one learned first (the lowest rank).

    >>> ranks = {("b", "a"): 0, ("a", "b"): 1}
    >>> encode_by_count(list("abab"), lambda a, b: ranks.get((a, b)))
    ['ab', 'ab']
    """
    parts = list(symbols)
    while len(parts) > 1:
        counts: dict[tuple[str, str], int] = {}
        for pair in zip(parts, parts[1:]):
            if rank(*pair) is not None:
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
        best = max(counts, key=counts.__getitem__)
        parts = list(merge_pair(tuple(parts), best, best[0] + best[1]))
    return parts


def viterbi(text: str, scores: dict[str, float], unk_score: float) -> list[tuple[int, int, bool]]:
    """Seed 000's `unigram_encode`, with an unknown node for a character no piece covers
    (scoring `unk_score`): the best path as (start, end, unknown), earliest start on a tie.

    sentencepiece scores an unknown character `min(score) - 10`; `unk_score=0` is the mistake of
    leaving the penalty out.

    >>> viterbi("xy", {"xy": -8.0, "y": -3.0}, unk_score=-18.0)
    [(0, 2, False)]
    >>> viterbi("xy", {"xy": -8.0, "y": -3.0}, unk_score=0.0)
    [(0, 1, True), (1, 2, False)]
    """
    n = len(text)
    longest = max((len(p) for p in scores), default=1)
    best = [0.0] + [float("-inf")] * n
    back: list[tuple[int, bool]] = [(-1, False)] * (n + 1)
    for i in range(1, n + 1):
        for j in range(max(0, i - longest), i):
            piece = text[j:i]
            if piece in scores:
                cand, unk = best[j] + scores[piece], False
            elif i == j + 1 and text[j] not in scores:
                cand, unk = best[j] + unk_score, True
            else:
                continue
            if cand > best[i]:
                best[i], back[i] = cand, (j, unk)
    out = []
    end = n
    while end > 0:
        start, unk = back[end]
        out.append((start, end, unk))
        end = start
    return out[::-1]

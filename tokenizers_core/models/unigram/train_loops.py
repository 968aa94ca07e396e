"""The inner loops of Unigram training (`trainer.py`), kept small: substring counts for the seed,
forward-backward over a word's lattice, Viterbi and the second-best split of a piece.

A word's lattice is a list of edges (start, end, piece index), sorted by start; the index
`unk` (one past the pieces) is an uncovered character.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from ..sentencepiece_common import SPACE
from .viterbi import backtrack


def substring_counts(words: list[str], freqs: list[int], max_len: int) -> Counter[str]:
    """How often each substring of 2..max_len characters occurs (word frequency included).

    >>> sorted(substring_counts(["abc"], [2], 2).items())
    [('ab', 2), ('bc', 2)]

    Words are grouped by frequency so the counting itself runs inside `Counter`.
    """
    by_freq: dict[int, list[str]] = {}
    for w, f in zip(words, freqs):
        by_freq.setdefault(f, []).append(w)
    counts: Counter[str] = Counter()
    for f, group in by_freq.items():
        c = Counter(
            w[i:j]
            for w in group
            for i in range(len(w))
            for j in range(i + 2, min(len(w), i + max_len) + 1)
        )
        if f == 1:
            counts.update(c)
        else:
            for sub, k in c.items():
                counts[sub] += k * f
    return counts


def suffix_tree_order(piece: str) -> bytes:
    """The key that sorts substrings as sentencepiece's suffix tree lists its nodes (esaxx
    closes a node when the scan of the sorted suffixes passes its last one): by code point,
    except that a string comes after every longer string it begins.

    >>> sorted(["ab", "a", "abc", "b"], key=suffix_tree_order)
    ['abc', 'ab', 'a', 'b']
    """
    return piece.encode("utf-32-be", "surrogatepass") + b"\xff"


def plain_word_piece(piece: str) -> bool:
    """A quick yes for the common valid piece: ASCII letters, optionally after "▁"."""
    body = piece[1:] if piece[0] == SPACE else piece
    return body.isascii() and body.isalpha()


def forward_backward(
    n: int,
    edges: list[tuple[int, int, int]],
    probs: list[float],
    freq: int,
    expected: list[float],
    expectations: bool = True,
) -> float:
    """log Z of one word's lattice (Z = the summed probability of all its segmentations); adds
    freq x P(piece used at that place) to `expected`.

    Works with probabilities, not logs, for speed: a word of up to 20 characters cannot
    underflow a double. Longer ones go to the log-space version.
    """
    if n > 20:
        return forward_backward_log(n, edges, probs, freq, expected, expectations)
    alpha = [0.0] * (n + 1)
    alpha[0] = 1.0
    for s, e, pid in edges:  # edges are sorted by start
        alpha[e] += alpha[s] * probs[pid]
    z = alpha[n]
    if z <= 0.0:
        return forward_backward_log(n, edges, probs, freq, expected, expectations)
    if expectations:
        # backward, right to left: beta[e] is complete when an edge ending at e is reached,
        # so each edge's posterior alpha[s] * p * beta[e] / Z is added on the way
        beta = [0.0] * (n + 1)
        beta[n] = 1.0
        k = freq / z
        for s, e, pid in reversed(edges):
            x = probs[pid] * beta[e]
            beta[s] += x
            expected[pid] += k * alpha[s] * x
    return math.log(z)


def forward_backward_log(
    n: int,
    edges: list[tuple[int, int, int]],
    probs: list[float],
    freq: int,
    expected: list[float],
    expectations: bool = True,
) -> float:
    """The same in log space (for very long words)."""
    neg = -math.inf
    logs = {pid: (math.log(probs[pid]) if probs[pid] > 0 else neg) for _s, _e, pid in edges}
    alpha = [neg] * (n + 1)
    alpha[0] = 0.0
    for s, e, pid in edges:
        alpha[e] = lse(alpha[e], alpha[s] + logs[pid])
    beta = [neg] * (n + 1)
    beta[n] = 0.0
    for s, e, pid in reversed(edges):
        beta[s] = lse(beta[s], logs[pid] + beta[e])
    z = alpha[n]
    if z == neg:
        return -1e30
    if expectations:
        for s, e, pid in edges:
            expected[pid] += freq * math.exp(alpha[s] + logs[pid] + beta[e] - z)
    return z


def lse(a: float, b: float) -> float:
    if a < b:
        a, b = b, a
    if b == -math.inf:
        return a
    return a + math.log1p(math.exp(b - a))


def viterbi(
    n: int, edges: list[tuple[int, int, int]], logp: list[float], unk: int, unk_score: float
) -> list[int]:
    """The best path's piece indices (the unknown pseudo piece `unk` scores `unk_score`)."""
    best = [-math.inf] * (n + 1)
    best[0] = 0.0
    back, ids = [0] * (n + 1), [0] * (n + 1)  # the best piece ending at each position
    for s, e, pid in edges:
        cand = best[s] + (unk_score if pid == unk else logp[pid])
        if cand > best[e]:
            best[e] = cand
            back[e], ids[e] = s, pid
    return [ids[e] for _s, e in backtrack(back)]


def second_best(
    n: int,
    edges: list[tuple[int, int, int]],
    own: int,
    logp: list[float],
    unk: int,
    unk_score: float,
) -> tuple[float, list[int]] | None:
    """The best segmentation of a piece (its lattice `edges`) into two or more pieces:
    (score, piece indices), or None when there is none. Dropped pieces score -inf."""
    best = [-math.inf] * (n + 1)
    best[0] = 0.0
    back, ids = [0] * (n + 1), [-1] * (n + 1)  # the best piece ending at each position
    for s, e, pid in edges:
        if pid == own:
            continue
        cand = best[s] + (unk_score if pid == unk else logp[pid])
        if cand > best[e]:
            best[e] = cand
            back[e], ids[e] = s, pid
    if best[n] == -math.inf:
        return None
    return best[n], [ids[e] for _s, e in backtrack(back)][::-1]


def lattice_edges(text: str, trie: dict[str, Any], unk: int | None) -> list[tuple[int, int, int]]:
    """Every piece of the trie found in `text` as (start, end, piece index), by start; with
    `unk` given, a one-character edge of that index where no piece covers a character."""
    edges: list[tuple[int, int, int]] = []
    n = len(text)
    for i in range(n):
        node = trie
        single = False
        j = i
        while j < n:
            child = node.get(text[j])
            if child is None:
                break
            node = child
            j += 1
            pid = node.get("")
            if pid is not None:
                edges.append((i, j, pid))
                if j == i + 1:
                    single = True
        if not single and unk is not None:
            edges.append((i, i + 1, unk))
    return edges

"""The Unigram Viterbi search, fast path: the best segmentation of a text as (start, end, id).

One function for both engines it is proved against: sentencepiece (`unigram_model.cc`,
`EncodeOptimized`) adds and compares scores as 32-bit floats, Hugging Face `tokenizers`
(`models/unigram/model.rs`, `encode_optimized`) as 64-bit floats; `float32=` chooses. The
step-by-step version the views show is `Unigram.viterbi_steps`, which tests prove equal to this.

The trie is the models' own: nested dicts keyed by character, a piece's end holding
`node[""] = (id, score, user_defined)`.

>>> trie = {"a": {"": (1, -1.0, False), "b": {"": (3, -1.5, False)}}, "b": {"": (2, -1.0, False)}}
>>> viterbi(trie, "abxa", unk_id=0, unk_score=-11.0)
[(0, 2, 3), (2, 3, 0), (3, 4, 1)]
"""

from __future__ import annotations

from array import array
from typing import Any

from ...errors import InvalidInput
from .lattice import f32


def viterbi(
    trie: dict[str, Any], text: str, *, unk_id: int | None, unk_score: float, float32: bool = False
) -> list[tuple[int, int, int]]:
    """The best path through `text`'s lattice as (start, end, id), left to right.

    Run "forward" as both engines' optimised encoders do: from each start i, walk the trie and
    relax every end j it reaches (best score ending at j = best[i] + the piece's score); a
    character no piece of length 1 covers adds an unknown node scoring `unk_score`. Ties keep
    the earlier start. With `float32`, every sum is rounded to a 32-bit float before it is kept.
    Raises ValueError when an unknown node is needed and `unk_id` is None.
    """
    n = len(text)
    best = [0.0] * (n + 1)  # best score of a path ending at each position
    back = [-1] * (n + 1)  # where that path's last piece starts (-1: no path yet)
    ids = [0] * (n + 1)  # and that piece's id
    rounded = array("f", [0.0]) if float32 else None  # storing into it rounds to 32 bits
    for i in range(n):
        here = best[i]
        node = trie
        has_single = False
        j = i
        while j < n:
            child = node.get(text[j])
            if child is None:
                break
            node = child
            j += 1
            entry = node.get("")
            if entry is None:
                continue
            cand = here + entry[1]
            # the rounding only matters when the double sum beats the best so far (cheap path)
            if back[j] < 0 or cand > best[j]:
                if rounded is not None:
                    rounded[0] = cand
                    cand = rounded[0]
                if back[j] < 0 or cand > best[j]:
                    best[j], back[j], ids[j] = cand, i, entry[0]
            if j == i + 1:
                has_single = True
        if not has_single:
            cand = f32(here + unk_score) if float32 else here + unk_score
            _relax_unknown(best, back, ids, i, cand, unk_id, text)
    return _backtrack(back, ids)


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


def _backtrack(back: list[int], ids: list[int]) -> list[tuple[int, int, int]]:
    """Follow the back pointers from the last position: the path as (start, end, id).

    >>> _backtrack([-1, 0, 0, 2], [0, 5, 6, 7])
    [(0, 2, 6), (2, 3, 7)]
    """
    out: list[tuple[int, int, int]] = []
    end = len(back) - 1
    while end > 0:
        out.append((back[end], end, ids[end]))
        end = back[end]
    out.reverse()
    return out

"""Unigram segmentation as the textbook writes it: Viterbi over the lattice of a text.

    best[0] = 0
    for i in 1 .. N:                      # advance the end position
        for every piece text[j:i]:        # every start j, the earliest first
            candidate = best[j] + score(piece)
        best[i] = the largest candidate; back[i] = its start (the earliest on a tie)
    walk back[] from N to 0: the pieces of the best split, right to left

A character no piece covers is an `<unk>` node scoring `min(score) - 10` (sentencepiece's
kUnkPenalty); sums are rounded to 32-bit floats as sentencepiece's C++ rounds them
(`src/unigram_model.cc`, `Lattice::Viterbi`). It yields one `ViterbiStep` per end position, then one
`ViterbiBacktrackStep` per piece of the best path, as the fast engine, `Unigram.viterbi_steps` (and
`Unigram.encode_spans`, its trie walk) in `models/unigram/model.py`, is proven to do by
tests/core/models/test_textbook.py. `pieces` are (piece, score) by id, `types` their sentencepiece
types (by default "<unk>" is the unknown piece, every other a normal one); only normal pieces are
matched: it does not cover user-defined pieces (scored by length), nor byte fallback, which
sentencepiece applies after the search. Slow on purpose: every start is tried for every end (no
trie).

The classic mistake is a switch: `unk_score=0.0` leaves the penalty out, so `<unk>` is cheap.

>>> pieces = [("<unk>", 0.0), ("▁", -3.5), ("c", -4.0), ("a", -4.0), ("t", -4.0), ("s", -3.0),
...           ("▁cat", -2.0), ("▁cats", -9.0)]
>>> [s.piece for s in unigram_viterbi("▁cats", pieces) if s.kind == "viterbi_backtrack"]
['s', '▁cat']
"""

from __future__ import annotations

from typing import Iterator, Sequence

from ..models.unigram.model import (
    NORMAL,
    UNK_PENALTY,
    UNKNOWN,
    ViterbiBacktrackStep,
    ViterbiStep,
    f32,
)
from . import code_of, marked_line

UNK = "<unk>"


def unigram_viterbi(
    text: str,
    pieces: Sequence[tuple[str, float]],
    *,
    types: Sequence[int] | None = None,
    unk_score: float | None = None,
) -> Iterator[ViterbiStep | ViterbiBacktrackStep]:
    types = types or [UNKNOWN if p == UNK else NORMAL for p, _s in pieces]
    unk_id = types.index(UNKNOWN)  # the unknown piece's id <- start
    vocab = {}  # piece -> (id, score)
    for pid, (piece, score) in reversed(list(enumerate(pieces))):
        if types[pid] == NORMAL:  # (the first id of a repeated piece)
            vocab[piece] = (pid, f32(score))
    if unk_score is None:  # <unk> costs 10 more than the worst
        unk_score = f32(min(s for _i, s in vocab.values()) - UNK_PENALTY)
    best, back, ids = [0.0] * (len(text) + 1), [0] * (len(text) + 1), [0] * (len(text) + 1)
    for i in range(1, len(text) + 1):  # advance the end position
        candidates = []
        for j in range(i):  # every start, the earliest first
            piece = text[j:i]
            if piece in vocab:  # a piece: best[j] + its score
                pid, score = vocab[piece]
            elif j == i - 1 and text[j] not in vocab:  # no piece covers text[j]: <unk>
                pid, score = unk_id, unk_score
            else:
                continue
            candidates.append((j, piece, pid, score, f32(best[j] + score)))
        winner = max(range(len(candidates)), key=lambda k: (candidates[k][4], -k))
        best[i], back[i], ids[i] = (
            candidates[winner][4],
            candidates[winner][0],
            candidates[winner][2],
        )
        yield ViterbiStep(
            i, tuple(candidates), winner, best[i], back[i], ids[i] == unk_id
        )  # <- fill
    path: tuple[str, ...] = ()
    end = len(text)
    while end > 0:  # follow the back-pointers
        start = back[end]
        path += (text[start:end],)
        yield ViterbiBacktrackStep(
            end,
            start,
            text[start:end],
            ids[end],  # <- backtrack
            float(best[end] - best[start]),
            path,
        )
        end = start
    return  # the pieces, read left to right <- stop


CODE = code_of(unigram_viterbi)


def line_of(step: ViterbiStep | ViterbiBacktrackStep | None, *, finished: bool = False) -> int:
    """The line of CODE a state stands for: the empty lattice (`step` None), filling best[i]
    (a `viterbi` step), following a back-pointer (`viterbi_backtrack`), or the split read off
    (`finished`).

    >>> CODE[line_of(None, finished=True) - 1].split("#")[1].strip()
    'the pieces, read left to right <- stop'
    """
    if finished:
        return marked_line(CODE, "stop")
    if step is None:
        return marked_line(CODE, "start")
    return marked_line(CODE, "fill" if step.kind == "viterbi" else "backtrack")

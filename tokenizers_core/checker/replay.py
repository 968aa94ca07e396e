"""The checker's replays: the textbook modules (`tokenizers_core/textbook/`) run with one classic
mistake switched on, so that a mistake is named only when replaying it reproduces what the
student gave. They recount everything at every step: small corpora and a few hundred merges
only (`checker.MAX_REPLAY_MERGES` and `REPLAY_BUDGET` cap them).

>>> words = [(("l", "o", "w", "</w>"), 5), (("l", "o", "w", "e", "r", "</w>"), 2)]
>>> textbook_merges(words, 2)
[('l', 'o'), ('lo', 'w')]
"""

from __future__ import annotations

from itertools import islice
from typing import Callable, Sequence

from ..models.bpe.model import UNK
from ..models.unigram.model import ViterbiStep
from ..models.unigram.viterbi import backtrack
from ..textbook.bpe_encode import bpe_encode
from ..textbook.bpe_train import bpe_train, merge
from ..textbook.unigram_viterbi import unigram_viterbi
from ..textbook.wordpiece_train import wordpiece_train

Sequences = Sequence[tuple[tuple[str, ...], int]]
UNLIMITED = 1 << 62  # a vocabulary size that never stops a replay


def textbook_merges(
    seqs: Sequences,
    n: int,
    *,
    weighted: bool = True,
    ties: str = "ids",
    score: str = "count",
    join: Callable[[str, str], str] | None = None,
) -> list[tuple[str, str]]:
    """Up to `n` merges of the textbook trainer on a word table of (symbols, frequency).

    Without `join`, BPE (`textbook.bpe_train`, with its `weighted` and `ties` switches); with
    `join` (how two symbols make one: WordPiece's drops the right side's prefix), WordPiece
    (`textbook.wordpiece_train`, `score` "likelihood" or the mistake "count").
    """
    return list(islice(_pairs(seqs, weighted, ties, score, join), n))


def agreement(
    seqs: Sequences,
    theirs: Sequence[tuple[str, str]],
    n: int,
    *,
    weighted: bool = True,
    ties: str = "ids",
    score: str = "count",
    join: Callable[[str, str], str] | None = None,
) -> int:
    """How many of `theirs` the replay (as `textbook_merges`) gives in a row from the first,
    looking at most `n` far; it stops at the first difference, so a mistake that parts early
    costs little.

    >>> words = [(("l", "o", "w", "</w>"), 5), (("l", "o", "w", "e", "r", "</w>"), 2)]
    >>> agreement(words, [("l", "o"), ("lo", "w"), ("x", "y")], 10)
    2
    """
    agree = 0
    for ours, their in zip(islice(_pairs(seqs, weighted, ties, score, join), n), theirs):
        if ours != their:
            break
        agree += 1
    return agree


def _pairs(seqs: Sequences, weighted: bool, ties: str, score: str, join):
    """The replay's merges, one at a time (see `textbook_merges`)."""
    table = dict(seqs)
    if join is None:
        return (s.pair for s in bpe_train(table, UNLIMITED, weighted=weighted, ties=ties))
    cut = len("0123456789") - len(join("", "0123456789"))  # the prefix `join` cuts off
    return (
        s.pair
        for s in wordpiece_train(table, UNLIMITED, prefix="#" * cut, special_tokens=(), score=score)
    )


def encode_by_count(symbols: Sequence[str], rank: Callable[[str, str], int | None]) -> list[str]:
    """The mistake of encoding by count (`textbook.bpe_encode(order="count")`): merge the known
    pair occurring most often in the word, not the one learned first.

    >>> ranks = {("b", "a"): 0, ("a", "b"): 1}
    >>> encode_by_count(list("abab"), lambda a, b: ranks.get((a, b)))
    ['ab', 'ab']
    """
    last = None
    for last in bpe_encode(list(symbols), rank, order="count"):
        pass
    if last is None:
        return list(symbols)
    left, right = last.parts[last.chosen : last.chosen + 2]  # the last step merges every occurrence
    return list(merge(last.parts, (left, right), last.merged))


def viterbi(text: str, scores: dict[str, float], unk_score: float) -> list[tuple[int, int, bool]]:
    """The best path of `textbook.unigram_viterbi` as (start, end, unknown), left to right, an
    unknown character scoring `unk_score` (sentencepiece: the lowest score minus 10; the
    mistake leaves the penalty out, `unk_score=0`).

    >>> viterbi("xy", {"xy": -8.0, "y": -3.0}, unk_score=-18.0)
    [(0, 2, False)]
    >>> viterbi("xy", {"xy": -8.0, "y": -3.0}, unk_score=0.0)
    [(0, 1, True), (1, 2, False)]
    """
    back, unknown = [0], [False]  # where the best piece ending at i starts; is it <unk>
    for s in unigram_viterbi(text, [(UNK, 0.0), *scores.items()], unk_score=unk_score):
        if not isinstance(s, ViterbiStep):
            break  # best[1..N] are filled: follow the back-pointers
        back.append(s.back)
        unknown.append(s.unknown)
    return [(start, end, unknown[end]) for start, end in backtrack(back)][::-1]

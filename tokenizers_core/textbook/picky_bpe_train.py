"""Picky BPE training as the textbook writes it (Chizhov et al., EMNLP 2024, arXiv 2409.04599):
BPE's count -> pick -> merge -> record, then a check of the two merged tokens. A token the merge
used up -- its Intersection over Self, IoS(x | x1x2) = f(x1x2) / f(x), above the threshold tau --
is removed: split back into its parts wherever it is left, its id freed for one more merge.

The loop is `bpe_train`'s (its `get_stats`, `merge` and tie-break), recounting the pairs and the
token frequencies at every step. `models/bpe/picky.py` states the rule in full and where we follow
the authors' code (pchizhov/picky_bpe); its `PickyBpeTrainer` (the incremental `BpeTrainer` with
removals) is proved equal to this loop step by step, and this loop equal to the authors' trainer
merge by merge on three corpora (their choices among tied pairs replayed through `ties`), by
tests/core/models/test_picky_bpe.py.

`ties` is "ids" (the house rule) or a function given the tied pairs (in tie-break order) that
returns the one to merge: how a recorded run is replayed.

>>> words = {("a", "b", "c"): 5, ("a", "b", "d"): 1}
>>> steps = picky_bpe_train(words, 6, threshold=0.8)
>>> [(s.new_symbol, [(r[0], round(r[1], 2)) for r in s.removed], s.restored) for s in steps]
[('ab', [], False), ('abc', [('ab', 0.83)], False), ('ab', [], True)]
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Iterator, Mapping

from ..models.bpe.model import BpeMergeStep
from ..models.bpe.picky import PickyBpeMergeStep, Removal, ios_of
from . import code_of, marked_line
from .common import (
    Pair,
    Table,
    Ties,
    bpe_step,
    fields_of,
    get_stats,
    initial_ids,
    merge,
    pick,
    word_table,
)


def picky_bpe_train(
    words: Mapping[tuple[str, ...], int],
    vocab_size: int,
    *,
    threshold: float,
    alphabet: Iterable[str] = (),
    special_tokens: Iterable[str] = (),
    min_frequency: int = 0,
    ties: Ties = "ids",
) -> Iterator[PickyBpeMergeStep]:
    table = word_table(words)  # each word as its symbols <- start
    ids = initial_ids(special_tokens, alphabet, table)  # specials, then symbols by code point
    atomic = set(ids)  # the alphabet is never removed
    parts: dict[str, Pair] = {}  # what each merged token was made of
    removed: set[str] = set()  # the tokens removed (their ids freed)
    index = 0
    while len(ids) - len(removed) < vocab_size:
        counts = get_stats(table)  # count every adjacent pair <- count
        pair = pick(counts, ids, ties) if counts else None  # the most frequent pair <- pick
        if pair is None or counts[pair] < min_frequency:
            return  # no pair left to merge <- stop
        new = pair[0] + pair[1]
        merged = [(merge(w, pair, new), f) for w, f in table]  # merge it everywhere <- merge
        made = occurrences(merged)[new] - occurrences(table)[new]  # how many it made
        restored = new in removed
        ids.setdefault(new, len(ids))  # a new token gets the next id, a removed one its own
        parts.setdefault(new, pair)
        removed.discard(new)
        step = bpe_step(index, pair, counts, new, ids, table, merged)  # (bpe_train's fields)
        table, ios, gone = merged, [], []
        for x in dict.fromkeys(pair):  # each part, the left one first <- ios
            value = ios_of(made, occurrences(table)[x])  # IoS: the share of x used up
            ios.append(value)
            if value > threshold and x not in atomic:  # used up: remove it <- remove
                removed.add(x)
                split = split_of(x, parts, removed, atomic)
                table = [(respell(w, x, split), f) for w, f in table]
                gone.append((x, value, ids[x], split))
        size = len(ids) - len(removed)  # the tokens present now
        yield record(step, made, ios, gone, restored, size)  # the merge, the removals <- record
        index += 1


def occurrences(table: Table) -> Counter[str]:
    """How often each token occurs in the table, weighted by word frequency.

    >>> occurrences([(("ab", "c", "ab"), 2)])
    Counter({'ab': 4, 'c': 2})
    """
    out: Counter[str] = Counter()
    for word, freq in table:
        for token in word:
            out[token] += freq
    return out


def split_of(x: str, parts: dict[str, Pair], removed: set[str], atomic: set[str]) -> tuple:
    """What a removed token stands for: its two parts, each split again if removed too.

    >>> split_of("abc", {"ab": ("a", "b"), "abc": ("ab", "c")}, {"ab", "abc"}, {"a", "b", "c"})
    ('a', 'b', 'c')
    """
    if x in atomic or x not in removed:
        return (x,)
    left, right = parts[x]
    return split_of(left, parts, removed, atomic) + split_of(right, parts, removed, atomic)


def respell(word: tuple[str, ...], x: str, split: tuple[str, ...]) -> tuple[str, ...]:
    """The word with every `x` replaced by `split`.

    >>> respell(("ab", "c", "ab"), "ab", ("a", "b"))
    ('a', 'b', 'c', 'a', 'b')
    """
    out: list[str] = []
    for token in word:
        out.extend(split if token == x else (token,))
    return tuple(out)


def record(
    step: BpeMergeStep, made: int, ios: list[float], gone: list[Removal], restored: bool, size: int
) -> PickyBpeMergeStep:
    """The step of one merge: `bpe_train`'s fields and Picky BPE's five."""
    return PickyBpeMergeStep(
        **fields_of(step), merged=made, ios=tuple(ios), removed=tuple(gone), restored=restored,
        vocab_after=size,
    )  # fmt: skip


CODE = code_of(picky_bpe_train)


def line_of(step: PickyBpeMergeStep | None, *, finished: bool = False) -> int:
    """The line of CODE a state stands for: before any merge the word table, a merge that
    removed a token its `remove` line, any other its `merge` line, the end the stop.

    >>> CODE[line_of(None) - 1].split("#")[1].strip()
    'each word as its symbols <- start'
    """
    if finished:
        return marked_line(CODE, "stop")
    if step is None:
        return marked_line(CODE, "start")
    return marked_line(CODE, "remove" if step.removed else "merge")

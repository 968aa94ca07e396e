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
from typing import Callable, Iterable, Iterator, Mapping

from ..models.bpe.picky import PickyBpeMergeStep, Removal, ios_of
from . import code_of, marked_line
from .bpe_train import SHOWN_TIES, SHOWN_WORDS, by_ids, get_stats, merge, pick

Pair = tuple[str, str]
Table = list[tuple[tuple[str, ...], int]]


def picky_bpe_train(
    words: Mapping[tuple[str, ...], int],
    vocab_size: int,
    *,
    threshold: float,
    alphabet: Iterable[str] = (),
    special_tokens: Iterable[str] = (),
    min_frequency: int = 0,
    ties: str | Callable[[list[Pair]], Pair] = "ids",
) -> Iterator[PickyBpeMergeStep]:
    table = [(tuple(w), f) for w, f in words.items()]  # each word as its symbols <- start
    ids: dict[str, int] = {}  # ids: special tokens, then the alphabet in code-point order
    for symbol in [*special_tokens, *sorted({*alphabet, *(s for w, _f in table for s in w)})]:
        ids.setdefault(symbol, len(ids))
    atomic = set(ids)  # the alphabet is never removed
    parts: dict[str, Pair] = {}  # what each merged token was made of
    removed: set[str] = set()  # the tokens removed (their ids freed)
    index = 0
    while len(ids) - len(removed) < vocab_size:
        counts = get_stats(table)  # count every adjacent pair <- count
        pair = choose(counts, ids, ties) if counts else None  # the most frequent pair <- pick
        if pair is None or counts[pair] < min_frequency:
            return  # no pair left to merge <- stop
        new = pair[0] + pair[1]
        merged = [(merge(w, pair, new), f) for w, f in table]  # merge it everywhere <- merge
        made = occurrences(merged)[new] - occurrences(table)[new]  # how many it made
        restored = new in removed
        ids.setdefault(new, len(ids))  # a new token gets the next id, a removed one its own
        parts.setdefault(new, pair)
        removed.discard(new)
        changed = ["".join(a) for (a, _f), (b, _g) in zip(table, merged) if a != b]
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
        step = record(index, pair, counts, ids, changed, made, ios, gone, restored, size)
        yield step  # record the merge and the removals <- record
        index += 1


def choose(counts: dict[Pair, int], ids: dict[str, int], ties) -> Pair:
    """The pair to merge: `bpe_train.pick` (ties "ids"), or, given a function, the pair it picks
    among the tied best (in tie-break order).

    >>> choose({("a", "b"): 2, ("b", "c"): 2}, {"a": 0, "b": 1, "c": 2}, lambda tied: tied[-1])
    ('b', 'c')
    """
    if not callable(ties):
        return pick(counts, ids, ties)
    best = max(counts.values())
    return ties(by_ids([p for p, n in counts.items() if n == best], ids))


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
    index: int,
    pair: Pair,
    counts: dict[Pair, int],
    ids: dict[str, int],
    changed: list[str],
    made: int,
    ios: list[float],
    gone: list[Removal],
    restored: bool,
    size: int,
) -> PickyBpeMergeStep:
    """The step of one merge: `bpe_train`'s fields (the ties and the changed words shown as
    the fast engine shows them) and Picky BPE's five."""
    new = pair[0] + pair[1]
    tied = by_ids([p for p in counts if counts[p] == counts[pair] and p != pair], ids)
    return PickyBpeMergeStep(
        index, pair, counts[pair], new, ids[new], tuple(tied[:SHOWN_TIES]),
        len(tied[:SHOWN_TIES]), len(tied) > SHOWN_TIES, tuple(changed[:SHOWN_WORDS]),
        len(changed), made, tuple(ios), tuple(gone), restored, size,
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

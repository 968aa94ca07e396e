"""What the BPE loops of the textbook share: the word table, the ids, the pair counts, the
tie-break, the merge, and the step a merge records.

`bpe_train`, `picky_bpe_train`, `superbpe_train` and `parity_bpe_train` are one loop, count ->
pick -> merge -> record, with a rule of their own added; these are its parts, written once (as
karpathy/minbpe's `base.py` holds the `get_stats` and `merge` its trainers share). The rule they
state: the highest count wins; on a tie the smallest (id(left), id(right)), ids going to the
special tokens, then to the alphabet in code-point order, then to merged symbols in creation
order (Hugging Face's BpeTrainer).

>>> table = word_table({("a", "b", "a", "b"): 3})
>>> counts = get_stats(table)
>>> pair = pick(counts, initial_ids([], (), table))
>>> pair, merge(table[0][0], pair, "ab")
(('a', 'b'), ('ab', 'ab'))
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Callable, Iterable, Mapping, Union

from ..errors import InvalidInput
from ..models.bpe.model import BpeMergeStep

SHOWN_TIES = 6  # as the fast engine: the first six tied pairs, the first twelve words
SHOWN_WORDS = 12

Pair = tuple[str, str]
Table = list[tuple[tuple[str, ...], int]]  # each word as its symbols, with its frequency
Ties = Union[str, Callable[[list[Pair]], Pair]]  # a rule's name, or a function that picks


def word_table(words: Mapping[Any, int]) -> Table:
    """Each word as the tuple of its symbols (a str: one symbol per character), with its count.

    >>> word_table({"ab": 2, ("c", "</w>"): 1})
    [(('a', 'b'), 2), (('c', '</w>'), 1)]
    """
    return [(tuple(word), freq) for word, freq in words.items()]


def tokens_of(table: Table) -> int:
    """How many tokens a word table takes: each word's symbols, times its frequency.

    >>> tokens_of([(("ab", "c"), 3), (("d",), 1)])
    7
    """
    return sum(len(word) * freq for word, freq in table)


def initial_ids(special_tokens: Iterable[str], alphabet: Iterable[str], *tables: Table) -> dict:
    """Ids for the special tokens, then for every symbol of the alphabet and the tables, in
    code-point order.

    >>> initial_ids(["<s>"], ["Ġ"], [(("b", "a"), 1)], [(("c",), 1)])
    {'<s>': 0, 'a': 1, 'b': 2, 'c': 3, 'Ġ': 4}
    """
    symbols = {*alphabet, *(s for table in tables for word, _f in table for s in word)}
    ids: dict[str, int] = {}
    for symbol in [*special_tokens, *sorted(symbols)]:
        ids.setdefault(symbol, len(ids))
    return ids


def get_stats(table: Table, weighted: bool = True) -> dict[Pair, int]:
    """Adjacent pair counts, each word counting its frequency (or once: `weighted=False`, the
    mistake of counting each distinct word once). Keys keep first-seen order.

    >>> get_stats([(("a", "b", "a", "b"), 3)])
    {('a', 'b'): 6, ('b', 'a'): 3}
    >>> get_stats([(("a", "b", "a", "b"), 3)], weighted=False)
    {('a', 'b'): 2, ('b', 'a'): 1}
    """
    counts: dict[Pair, int] = {}
    for word, freq in table:
        for pair in zip(word, word[1:]):
            counts[pair] = counts.get(pair, 0) + (freq if weighted else 1)
    return counts


def pick(counts: dict[Pair, int], ids: dict[str, int], ties: Ties = "ids") -> Pair:
    """The pair to merge: the highest count, on a tie the smallest (id(left), id(right)).
    `ties="dict"` is the mistake of taking the first pair counted (`max(counts, key=counts.get)`);
    `"max_strings"` the rule of parity-aware BPE's reference code, the largest (left, right) as
    strings (`max(stats, key=lambda x: (stats[x][l], x))`); a function is given the tied best
    pairs in tie-break order and returns one (how a recorded run is replayed).

    >>> ids = {"a": 0, "b": 1, "c": 2}
    >>> counts = {("b", "c"): 2, ("a", "b"): 2}
    >>> pick(counts, ids), pick(counts, ids, ties="dict"), pick(counts, ids, ties="max_strings")
    (('a', 'b'), ('b', 'c'), ('b', 'c'))
    >>> pick(counts, ids, lambda tied: tied[-1])
    ('b', 'c')
    """
    if callable(ties):
        best = max(counts.values())
        return ties(by_ids([p for p, n in counts.items() if n == best], ids))
    if ties == "dict":
        return max(counts, key=counts.__getitem__)
    if ties == "max_strings":
        return max(counts, key=lambda p: (counts[p], p))
    if ties != "ids":
        raise InvalidInput(f"ties must be 'ids', 'dict' or 'max_strings', not {ties!r}")
    return min(counts, key=lambda p: (-counts[p], ids[p[0]], ids[p[1]]))


def by_ids(pairs: list[Pair], ids: dict[str, int]) -> list[Pair]:
    """The pairs in tie-break order (by (id(left), id(right)))."""
    return sorted(pairs, key=lambda p: (ids[p[0]], ids[p[1]]))


def merge(word: tuple[str, ...], pair: Pair, new: str) -> tuple[str, ...]:
    """Replace each occurrence of `pair` by `new`, left to right, without overlap.

    >>> merge(("a", "a", "a"), ("a", "a"), "aa")
    ('aa', 'a')
    """
    out: list[str] = []
    i = 0
    while i < len(word):
        if word[i] == pair[0] and word[i + 1 : i + 2] == pair[1:]:
            out.append(new)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def bpe_step(
    index: int,
    pair: Pair,
    counts: dict[Pair, int],
    new: str,
    ids: dict[str, int],
    table: Table,
    merged: Table,
) -> BpeMergeStep:
    """The step of one merge, `table` before it and `merged` after: the pair, its count, the new
    symbol and its id, the pairs that tied with it and the words it changed (as many as the
    fast engine shows, and how many there were)."""
    changed = ["".join(a) for (a, _f), (b, _g) in zip(table, merged) if a != b]
    tied = by_ids([p for p in counts if counts[p] == counts[pair] and p != pair], ids)
    return BpeMergeStep(
        index, pair, counts[pair], new, ids[new], tuple(tied[:SHOWN_TIES]),
        len(tied[:SHOWN_TIES]), len(tied) > SHOWN_TIES, tuple(changed[:SHOWN_WORDS]),
        len(changed),
    )  # fmt: skip


def fields_of(step: BpeMergeStep) -> dict[str, Any]:
    """A merge step's fields by name: what a variant's step adds its own fields to."""
    return {f.name: getattr(step, f.name) for f in fields(BpeMergeStep)}

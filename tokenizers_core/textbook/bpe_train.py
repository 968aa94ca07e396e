"""BPE training as the textbook writes it: count -> pick -> merge -> record, recounting every
pair at every merge.

The loop of karpathy/minbpe's `basic.py` (`get_stats`, `max`, `merge`), run over a word table
(each word as its symbols, with its frequency) and with the tie-break stated, not left to dict
order: the highest count wins; on a tie the smallest (id(left), id(right)), ids going to the
special tokens, then to the alphabet in code-point order, then to merged symbols in creation
order (Hugging Face's BpeTrainer; docs/ARCHITECTURE.md). The fast engine, `models/bpe/trainer.py`'s
`BpeTrainer` (incremental counts, a heap), is proven equal to it step by step, every field of
every `BpeMergeStep`, by tests/core/models/test_textbook.py.

It is slow on purpose: each merge recounts the whole table. Use it on small corpora (the
checker caps its replays). It covers the "bpe" and "byte_bpe" variants (give the word table
of `bpe_word_table` / `byte_bpe_word_table`, and for "byte_bpe" the 256-symbol alphabet);
not "sentencepiece_bpe", whose own rules are in `models/bpe/sentencepiece_trainer.py`, nor the rare
merge that makes a symbol string already made another way (the fast engine then keeps
Hugging Face's bookkeeping, which a recount does not reproduce). `tied` lists every tie
exactly (the first six), where the fast engine's bounded heap walk may list fewer.

The classic mistakes are switches: `weighted=False` counts each distinct word once,
`ties="dict"` lets the first pair counted win a tie (`max(counts, key=counts.get)`).

>>> words = {("l", "o", "w", "</w>"): 5, ("l", "o", "w", "e", "r", "</w>"): 2}
>>> [(s.pair, s.count, s.new_id) for s in bpe_train(words, vocab_size=8)]
[(('l', 'o'), 7, 6), (('lo', 'w'), 7, 7)]
"""

from __future__ import annotations

from typing import Iterable, Iterator, Mapping

from ..errors import InvalidInput
from ..models.bpe.model import BpeMergeStep
from . import code_of, marked_line

SHOWN_TIES = 6  # as the fast engine: the first six tied pairs, the first twelve words
SHOWN_WORDS = 12

Pair = tuple[str, str]


def bpe_train(
    words: Mapping[tuple[str, ...], int],
    vocab_size: int,
    *,
    alphabet: Iterable[str] = (),
    special_tokens: Iterable[str] = (),
    min_frequency: int = 0,
    weighted: bool = True,
    ties: str = "ids",
) -> Iterator[BpeMergeStep]:
    table = [
        (tuple(word), freq) for word, freq in words.items()
    ]  # each word as its symbols <- start
    names = ["".join(word) for word, _freq in table]  # (the words as the views name them)
    ids: dict[str, int] = {}  # ids: special tokens, then the alphabet
    for symbol in [*special_tokens, *sorted({*alphabet, *(s for w, _f in table for s in w)})]:
        ids.setdefault(symbol, len(ids))  # ... in code-point order
    index = 0
    while True:
        counts = get_stats(table, weighted)  # count every adjacent pair <- count
        pair = pick(counts, ids, ties) if counts else None  # the most frequent pair <- pick
        if len(ids) >= vocab_size or pair is None or counts[pair] < min_frequency:
            return  # full, or no pair left to merge <- stop
        new = pair[0] + pair[1]  # the new symbol, spelled out
        merged = [
            (merge(word, pair, new), freq) for word, freq in table
        ]  # merge it everywhere <- merge
        changed = [n for n, (a, _f), (b, _g) in zip(names, table, merged) if a != b]
        tied = by_ids([p for p in counts if counts[p] == counts[pair] and p != pair], ids)
        ids.setdefault(new, len(ids))  # the new symbol gets the next id
        yield BpeMergeStep(
            index,
            pair,
            counts[pair],
            new,
            ids[new],  # record the merge <- record
            tuple(tied[:SHOWN_TIES]),
            len(tied[:SHOWN_TIES]),
            len(tied) > SHOWN_TIES,
            tuple(changed[:SHOWN_WORDS]),
            len(changed),
        )
        table = merged
        index += 1


def get_stats(table: list[tuple[tuple[str, ...], int]], weighted: bool = True) -> dict[Pair, int]:
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


def pick(counts: dict[Pair, int], ids: dict[str, int], ties: str = "ids") -> Pair:
    """The pair to merge: the highest count, on a tie the smallest (id(left), id(right));
    `ties="dict"` is the mistake of taking the first pair counted (`max(counts, key=counts.get)`).

    >>> ids = {"a": 0, "b": 1, "c": 2}
    >>> counts = {("b", "c"): 2, ("a", "b"): 2}
    >>> pick(counts, ids), pick(counts, ids, ties="dict")
    (('a', 'b'), ('b', 'c'))
    """
    if ties == "dict":
        return max(counts, key=counts.__getitem__)
    if ties != "ids":
        raise InvalidInput(f"ties must be 'ids' or 'dict', not {ties!r}")
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


CODE = code_of(bpe_train)


def line_of(step: BpeMergeStep | None, *, finished: bool = False) -> int:
    """The line of CODE a state stands for: before any merge (`step` None) the word table,
    a merge its `merge` line, and the end of training (`finished`) the stop.

    >>> CODE[line_of(None) - 1].split("#")[1].strip()
    'each word as its symbols <- start'
    """
    if finished:
        return marked_line(CODE, "stop")
    return marked_line(CODE, "start" if step is None else "merge")

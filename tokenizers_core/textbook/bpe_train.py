"""BPE training as the textbook writes it: count -> pick -> merge -> record, recounting every
pair at every merge.

The loop of karpathy/minbpe's `basic.py` (`get_stats`, `max`, `merge`), run over a word table
(each word as its symbols, with its frequency) and with the tie-break stated, not left to dict
order: the highest count wins; on a tie the smallest (id(left), id(right)), ids going to the
special tokens, then to the alphabet in code-point order, then to merged symbols in creation
order (Hugging Face's BpeTrainer; docs/ARCHITECTURE.md). The fast engine, `models/bpe/trainer.py`'s
`BpeTrainer` (incremental counts, a heap), is proven equal to it step by step, every field of
every `BpeMergeStep`, by tests/core/models/test_textbook.py. Its parts (`get_stats`, `pick`,
`merge`, `bpe_step`) are in `common.py`, which the other BPE loops share.

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

from ..models.bpe.model import BpeMergeStep
from . import code_of, marked_line
from .common import (  # the parts every BPE loop shares (kept importable from here)
    SHOWN_TIES,
    SHOWN_WORDS,
    Pair,
    bpe_step,
    by_ids,
    get_stats,
    initial_ids,
    merge,
    pick,
    word_table,
)

__all__ = ["SHOWN_TIES", "SHOWN_WORDS", "Pair", "bpe_train", "by_ids", "get_stats", "merge", "pick"]


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
    table = word_table(words)  # each word as its symbols <- start
    ids = initial_ids(special_tokens, alphabet, table)  # specials, then symbols by code point
    index = 0
    while True:
        counts = get_stats(table, weighted)  # count every adjacent pair <- count
        pair = pick(counts, ids, ties) if counts else None  # the most frequent pair <- pick
        if len(ids) >= vocab_size or pair is None or counts[pair] < min_frequency:
            return  # full, or no pair left to merge <- stop
        new = pair[0] + pair[1]  # the new symbol, spelled out
        merged = [(merge(w, pair, new), f) for w, f in table]  # merge it everywhere <- merge
        ids.setdefault(new, len(ids))  # the new symbol gets the next id
        yield bpe_step(index, pair, counts, new, ids, table, merged)  # record the merge <- record
        table = merged
        index += 1


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

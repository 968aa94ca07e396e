"""SuperBPE training as the textbook writes it (Liu et al. 2025, arXiv 2503.13423): BPE's
count -> pick -> merge -> record, run twice. First on the words (byte-level BPE up to the
transition vocabulary size t), then on whole chunks of text that are no longer split on
whitespace, after replaying the merges learned so far on them; from there a merge may join words
into a superword token.

The loop is `bpe_train`'s (its `get_stats`, `pick` and `merge`, the same tie-break), with the
two stages as a `for` and the stage-2 rules of the authors' trainer as one filter (`allowed`:
at most four words to a token, no colon followed by a space). `models/bpe/superbpe.py` explains
the stage-2 pre-tokenisation and what differs from the authors' fork; its `SuperBpeTrainer` (two
incremental `BpeTrainer`s) is proved equal to this loop step by step by
tests/core/models/test_superbpe.py. Like `bpe_train`, it does not reproduce the fast engine's
bookkeeping after a merge that makes a symbol string already made another way.

A golden example, worked by hand: "of the", "of the", "of a". Stage 1 (t = 259, the 256 bytes and
three merges) sees the words "of" x3, "Ġthe" x2, "Ġa" x1: (o, f) 3 first, then a tie at 2 among
(Ġ, t), (t, h), (h, e), won by the smallest ids, (h, e) (h < t < Ġ in code-point order), then
(t, he) (t < Ġ). Stage 2 sees the chunks "ofĠthe" x2 and "ofĠa" x1, replayed to (of, Ġ, the) and
(of, Ġ, a): (of, Ġ) occurs 3 times and merges first, then (ofĠ, the) 2 -- two superwords.

>>> from tokenizers_core.byte_level import BYTE_TO_CHAR
>>> words = {("o", "f"): 3, ("Ġ", "t", "h", "e"): 2, ("Ġ", "a"): 1}
>>> chunks = {("o", "f", "Ġ", "t", "h", "e"): 2, ("o", "f", "Ġ", "a"): 1}
>>> steps = superbpe_train(words, chunks, 261, transition=259, alphabet=BYTE_TO_CHAR.values())
>>> [(s.new_symbol, s.count, s.after_transition, s.superword) for s in steps][2:]
[('the', 2, False, False), ('ofĠ', 3, True, True), ('ofĠthe', 2, True, True)]
"""

from __future__ import annotations

from typing import Iterable, Iterator, Mapping

from ..models.bpe.superbpe import MAX_WORDS, SuperBpeMergeStep, allowed, is_superword, word_count
from . import code_of, marked_line
from .common import (
    Pair,
    Table,
    bpe_step,
    fields_of,
    get_stats,
    initial_ids,
    merge,
    pick,
    word_table,
)


def superbpe_train(
    words: Mapping[tuple[str, ...], int],
    chunks: Mapping[tuple[str, ...], int],
    vocab_size: int,
    *,
    transition: int,
    alphabet: Iterable[str] = (),
    special_tokens: Iterable[str] = (),
    min_frequency: int = 0,
    max_words: int | None = MAX_WORDS,
    colon_rule: bool = True,
) -> Iterator[SuperBpeMergeStep]:
    table = word_table(words)  # stage 1: the words <- start
    ids = initial_ids(special_tokens, alphabet, table, word_table(chunks))  # then code points
    made: list[Pair] = []  # the merges so far, in order
    for stage2, limit in ((False, transition), (True, vocab_size)):
        if stage2:  # stage 2: whole chunks, the merges so far replayed on them <- transition
            table = [(replay(tuple(c), made), f) for c, f in chunks.items()]
        while len(ids) < limit:
            counts = get_stats(table)  # count every adjacent pair <- count
            if stage2:  # no token of too many words, nor one with ": "
                counts = allowed_only(counts, max_words, colon_rule)
            pair = pick(counts, ids) if counts else None  # the most frequent pair <- pick
            if pair is None or counts[pair] < min_frequency:
                break  # no pair left to merge: on to the next stage <- stop
            new = pair[0] + pair[1]
            merged = [(merge(w, pair, new), f) for w, f in table]  # merge it everywhere <- merge
            ids.setdefault(new, len(ids))  # the new symbol gets the next id
            yield record(len(made), pair, counts, new, ids, table, merged, stage2)  # <- record
            made.append(pair)
            table = merged


def allowed_only(counts: dict[Pair, int], max_words: int | None, colon_rule: bool) -> dict:
    """The pairs stage 2 may merge (`models.bpe.superbpe.allowed`), with their counts.

    >>> allowed_only({("a:", "Ġb"): 5, ("a", "Ġb"): 2}, 4, True)
    {('a', 'Ġb'): 2}
    """
    return {p: n for p, n in counts.items() if allowed(p[0] + p[1], max_words, colon_rule)}


def replay(chunk: tuple[str, ...], merges: list[Pair]) -> tuple[str, ...]:
    """A chunk as the merges, applied in order, each everywhere, leave it.

    >>> replay(("o", "f", "Ġ", "t", "h", "e"), [("o", "f"), ("h", "e"), ("t", "he")])
    ('of', 'Ġ', 'the')
    """
    for pair in merges:
        chunk = merge(chunk, pair, pair[0] + pair[1])
    return chunk


def record(
    index: int,
    pair: Pair,
    counts: dict[Pair, int],
    new: str,
    ids: dict[str, int],
    table: Table,
    merged: Table,
    stage2: bool,
) -> SuperBpeMergeStep:
    """The step of one merge: `bpe_train`'s fields (`common.bpe_step`) and SuperBPE's three."""
    return SuperBpeMergeStep(
        **fields_of(bpe_step(index, pair, counts, new, ids, table, merged)),
        after_transition=stage2,
        superword=is_superword(new),
        n_words=word_count(new),
    )


CODE = code_of(superbpe_train)


def line_of(step: SuperBpeMergeStep | None, *, finished: bool = False) -> int:
    """The line of CODE a state stands for: before any merge the word table, a merge its
    `merge` line, and the end of training (`finished`) the stop. (The `transition` line is
    the one a view marks between the last stage-1 merge and the first of stage 2.)

    >>> CODE[line_of(None) - 1].split("#")[1].strip()
    'stage 1: the words <- start'
    """
    if finished:
        return marked_line(CODE, "stop")
    if step is None:
        return marked_line(CODE, "start")
    return marked_line(CODE, "merge")

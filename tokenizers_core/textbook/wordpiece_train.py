"""WordPiece training as the textbook writes it: merge the pair with the best likelihood score,
recounting every pair and every symbol at every merge.

    score(a, b) = count(ab) / (count(a) * count(b))

Each word starts as its first character and `##`-prefixed continuations (`spell`); merging
`a` + `##b` makes `ab`, `##a` + `##b` makes `##ab`. Scores are compared exactly, as fractions;
on a tie the higher pair count wins, then the smallest (id(left), id(right)), ids going to the
special tokens, then to the starting symbols in code-point order, then to new symbols in
creation order (docs/ARCHITECTURE.md). This is the recipe of Hugging Face's course (chapter
6, "WordPiece tokenization") with the tie-break stated. The fast engine, `WordPieceTrainer` in
`models/wordpiece/trainer.py` (incremental counts, a bounded-staleness heap), is proven equal to
it step by step, every field of every `WordPieceMergeStep`, by tests/core/models/test_textbook.py.

Slow on purpose (a full recount per merge): for small corpora; the checker caps its replays.
The classic mistake is a switch: `score="count"` lets the most frequent pair win, as BPE does.

>>> words = {spell("hug"): 10, spell("pug"): 5, spell("pun"): 12, spell("bun"): 4, spell("hugs"): 5}
>>> step = next(wordpiece_train(words, vocab_size=30))
>>> step.pair, step.new_symbol, (step.count, step.freq_left, step.freq_right)
(('##g', '##s'), '##gs', (5, 20, 5))
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Iterator, Mapping

from ..errors import InvalidInput
from ..models.wordpiece.model import DEFAULT_SPECIAL_TOKENS
from ..models.wordpiece.trainer import WordPieceMergeStep
from . import code_of, marked_line
from .bpe_train import merge

SHOWN_TIES = 5  # as the fast engine

Pair = tuple[str, str]


def wordpiece_train(
    words: Mapping[tuple[str, ...], int],
    vocab_size: int,
    *,
    prefix: str = "##",
    special_tokens: Iterable[str] = DEFAULT_SPECIAL_TOKENS,
    min_frequency: int = 0,
    score: str = "likelihood",
) -> Iterator[WordPieceMergeStep]:
    table = [
        (tuple(w), f) for w, f in words.items() if w and f > 0
    ]  # each word as its symbols <- start
    ids: dict[str, int] = {}  # ids: special tokens, then symbols
    for symbol in [*special_tokens, *sorted({s for w, _f in table for s in w})]:
        ids.setdefault(symbol, len(ids))  # ... in code-point order
    index = 1
    while True:
        pairs, symbols = count(table)  # count pairs and symbols <- count
        pairs = {p: c for p, c in pairs.items() if c >= min_frequency}
        if len(ids) >= vocab_size or not pairs:
            return  # full, or no pair left <- stop
        rank = ranker(pairs, symbols, ids, score)  # score(a, b), then count, then ids
        best = max(pairs, key=rank)  # the best pair wins <- pick
        new = best[0] + best[1][len(prefix) :]  # a + ##b -> ab, ##a + ##b -> ##ab
        merged = [(merge(w, best, new), f) for w, f in table]  # merge it everywhere <- merge
        ids.setdefault(new, len(ids))  # the new symbol gets the next id
        yield record(
            index,
            best,
            new,
            pairs,
            symbols,
            ids,
            rank,  # record the merge <- record
            sum(a != b for (a, _f), (b, _g) in zip(table, merged)),
        )
        table = merged
        index += 1


def spell(word: str, prefix: str = "##") -> tuple[str, ...]:
    """A word as WordPiece training starts it: the first character as is, the others with the
    continuation prefix.

    >>> spell("hug")
    ('h', '##u', '##g')
    """
    return (word[0], *[prefix + c for c in word[1:]]) if word else ()


def count(table: list[tuple[tuple[str, ...], int]]) -> tuple[dict[Pair, int], dict[str, int]]:
    """Adjacent pair counts and symbol counts, each word counting its frequency.

    >>> count([(("h", "##u", "##g"), 10)])
    ({('h', '##u'): 10, ('##u', '##g'): 10}, {'h': 10, '##u': 10, '##g': 10})
    """
    pairs: dict[Pair, int] = {}
    symbols: dict[str, int] = {}
    for word, freq in table:
        for symbol in word:
            symbols[symbol] = symbols.get(symbol, 0) + freq
        for pair in zip(word, word[1:]):
            pairs[pair] = pairs.get(pair, 0) + freq
    return pairs, symbols


def ranker(
    pairs: dict[Pair, int], symbols: dict[str, int], ids: dict[str, int], score: str = "likelihood"
):
    """A sort key, larger is better: the exact score count(ab) / (count(a) * count(b)), then the
    count, then the smaller ids; `score="count"` (BPE's rule, the mistake here) skips the score.

    >>> key = ranker({("x", "z"): 7, ("t", "h"): 500}, {"x": 10, "z": 8, "t": 1000, "h": 800},
    ...              {"h": 0, "t": 1, "x": 2, "z": 3})
    >>> max([("x", "z"), ("t", "h")], key=key)          # LeetLLM's example: 7/80 beats 500/800000
    ('x', 'z')
    """
    if score == "count":
        return lambda p: (pairs[p], -ids[p[0]], -ids[p[1]])
    if score != "likelihood":
        raise InvalidInput(f"score must be 'likelihood' or 'count', not {score!r}")
    return lambda p: (
        Fraction(pairs[p], symbols[p[0]] * symbols[p[1]]),
        pairs[p],
        -ids[p[0]],
        -ids[p[1]],
    )


def record(
    index: int,
    best: Pair,
    new: str,
    pairs: dict[Pair, int],
    symbols: dict[str, int],
    ids: dict[str, int],
    rank,
    changed: int,
) -> WordPieceMergeStep:
    """The step: the merge, its counts and score, what plain BPE would merge instead, and the
    pairs with the same score (by count, symbol counts, ids: as the fast engine lists them)."""
    c, fl, fr = pairs[best], symbols[best[0]], symbols[best[1]]
    bpe = max(pairs, key=ranker(pairs, symbols, ids, "count"))
    ties = sorted(
        (pairs[p], symbols[p[0]], symbols[p[1]], ids[p[0]], ids[p[1]], p)
        for p in pairs
        if p != best and rank(p)[0] == rank(best)[0]
    )
    return WordPieceMergeStep(
        index,
        best,
        new,
        c,
        fl,
        fr,
        c / (fl * fr),
        bpe,
        pairs[bpe],
        tuple(t[-1] for t in ties[:SHOWN_TIES]),
        changed,
        len(ids),
    )


CODE = code_of(wordpiece_train)


def line_of(step: WordPieceMergeStep | None, *, finished: bool = False) -> int:
    """The line of CODE a state stands for: the words spelled (`step` None), a merge, or the
    end of training (`finished`).

    >>> CODE[line_of(None, finished=True) - 1].split("#")[1].strip()
    'full, or no pair left <- stop'
    """
    if finished:
        return marked_line(CODE, "stop")
    return marked_line(CODE, "start" if step is None else "merge")

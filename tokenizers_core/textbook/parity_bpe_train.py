"""Parity-aware BPE training as the textbook writes it: measure -> pick the language -> count ->
pick the pair -> merge -> record, recounting everything at every merge.

Foroutan et al. 2025 (arXiv 2508.04796): "At every merge step, Parity-aware BPE maximizes the
compression gain of the currently worst-compressed language". Each language has a training
text and a text of a parallel development set (the same content in every language). Before
each merge, every dev text is measured under the merges so far; the worst-compressed language
is the one whose dev text takes the most tokens (`measure="tokens"`, the reference code's rule),
or has the fewest bytes per token (`measure="rate"`); its own training pair counts choose the
pair, which is then merged in every language. `models/bpe/parity.py` has the details, the
options (ties, the hybrid's `global_merges`, the moving window) and where the reference code
differs; its `ParityBpeTrainer` (incremental counts, a heap per language) is proven equal to
this loop step by step, every field of every `ParityMergeStep`, by
tests/core/models/test_parity_bpe.py.

Slow on purpose: each merge recounts every language's pairs and dev tokens. Use it on small
corpora. Word tables map each word, as its symbols, to its frequency (for byte-level BPE, the
words of `byte_bpe_words` spelled one symbol per character).

>>> train = {"en": {("a", "b"): 3, ("b",): 1}, "xx": {("c", "d"): 2, ("a", "b"): 1}}
>>> [(s.language, s.pair, s.tokens) for s in parity_bpe_train(train, train, 6)]
[('en', ('a', 'b'), (7, 6)), ('xx', ('c', 'd'), (4, 5))]

Before the first merge "en" takes 7 tokens and "xx" 6: "en" is worse, and its most frequent
pair is ("a", "b") (3 times). Merged everywhere, "en" takes 4 and "xx" 5, so "xx" is now worse,
and its best pair is ("c", "d").
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable, Iterator, Mapping, Sequence

from ..errors import InvalidInput
from ..models.bpe.parity import ParityMergeStep, gini
from . import code_of, marked_line
from .common import Pair, Table, get_stats, initial_ids, merge, pick, tokens_of, word_table


def parity_bpe_train(
    train: Mapping[str, Mapping[Any, int]],
    dev: Mapping[str, Mapping[Any, int]],
    vocab_size: int,
    *,
    alphabet: Iterable[str] = (),
    special_tokens: Iterable[str] = (),
    min_frequency: int = 0,
    ties: str = "ids",
    measure: str = "tokens",
    global_merges: int = 0,
    window: int = 0,
    alpha: int = 2,
    dev_sizes: Mapping[str, int] | None = None,
) -> Iterator[ParityMergeStep]:
    if ties not in ("ids", "max_strings"):  # bpe_train's rule, or the reference code's
        raise InvalidInput(f"ties must be 'ids' or 'max_strings', not {ties!r}")
    languages = tuple(train)  # in the order given, which breaks ties
    tables = {lang: word_table(train[lang]) for lang in languages}  # words as symbols <- start
    devs = {lang: word_table(dev[lang]) for lang in languages}  # and each dev text's words
    sizes = [(dev_sizes or {}).get(lang, tokens_of(devs[lang])) for lang in languages]
    ids = initial_ids(special_tokens, alphabet, *tables.values(), *devs.values())  # as bpe_train
    floor = max(min_frequency, 1)  # a pair must occur this often to be merged
    chosen: list[int] = []  # the languages picked so far (for the moving window)
    index = 0
    while True:
        tokens = [tokens_of(devs[lang]) for lang in languages]  # each dev text in tokens <- measure
        if index < global_merges:  # the hybrid's first merges: all languages' counts summed
            language, counts = -1, get_stats([w for lang in languages for w in tables[lang]])
        else:
            worst_first = rank(tokens, sizes, measure, chosen, window, alpha)  # the worst first
            for language in worst_first:  # pick the worst-compressed language <- language
                counts = get_stats(tables[languages[language]])  # its pair counts <- count
                if counts and max(counts.values()) >= floor:
                    break  # (a language with no pair left passes to the next worst)
        pair = pick(counts, ids, ties) if counts else None  # its best pair <- pick
        if len(ids) >= vocab_size or pair is None or counts[pair] < floor:
            return  # full, or no pair left to merge <- stop
        new = pair[0] + pair[1]  # the new symbol, spelled out
        for lang in languages:  # merge it in every language <- merge
            tables[lang] = [(merge(word, pair, new), freq) for word, freq in tables[lang]]
            devs[lang] = [(merge(word, pair, new), freq) for word, freq in devs[lang]]
        ids.setdefault(new, len(ids))  # the new symbol gets the next id
        yield record(index, pair, counts, ids, language, tokens, devs, sizes, measure)  # <- record
        if language >= 0:
            chosen.append(language)  # (remembered for the moving window)
        index += 1


def rank(
    tokens: Sequence[int],
    sizes: Sequence[int],
    measure: str,
    chosen: Sequence[int],
    window: int = 0,
    alpha: int = 2,
) -> list[int]:
    """The languages (indices), worst-compressed first: the most tokens (`measure="tokens"`) or
    the fewest bytes per token (`"rate"`); a tie goes to the language listed first. With a moving
    `window`, a language picked in more than `alpha / n` of the last `window` merges goes last.

    >>> rank([5, 9, 9], [10, 10, 10], "tokens", [])
    [1, 2, 0]
    >>> rank([5, 9, 9], [10, 10, 10], "tokens", [1, 1, 1, 0], window=4, alpha=1)
    [2, 0, 1]
    """
    if measure not in ("tokens", "rate"):
        raise InvalidInput(f"measure must be 'tokens' or 'rate', not {measure!r}")
    n = len(tokens)
    if measure == "tokens":
        worst = sorted(range(n), key=lambda i: -tokens[i])
    else:
        worst = sorted(range(n), key=lambda i: Fraction(sizes[i], max(tokens[i], 1)))
    recent = list(chosen[-window:]) if window else []
    overused = [i for i in worst if window and recent.count(i) / window > alpha / n]
    return [i for i in worst if i not in overused] + overused


def rates_of(sizes: Sequence[int], tokens: Sequence[int]) -> tuple[float, ...]:
    """Each language's compression rate: its dev text's size (UTF-8 bytes) per token."""
    return tuple(size / n if n else 0.0 for size, n in zip(sizes, tokens))


def record(
    index: int,
    pair: Pair,
    counts: dict[Pair, int],
    ids: dict[str, int],
    language: int,
    tokens: list[int],
    devs: Mapping[str, Table],
    sizes: Sequence[int],
    measure: str,
) -> ParityMergeStep:
    """The step of one merge: the pair, the language that chose it (-1: all of them, the
    hybrid's first merges), every dev text's tokens before it, and the Gini after it."""
    languages = tuple(devs)
    after = [tokens_of(devs[lang]) for lang in languages]  # the dev texts after the merge
    new = pair[0] + pair[1]
    return ParityMergeStep(
        index=index, pair=pair, count=counts[pair], new_symbol=new, new_id=ids[new],
        language=languages[language] if language >= 0 else "", languages=languages,
        tokens=tuple(tokens), rates=rates_of(sizes, tokens), measure=measure,
        gini=gini(after if measure == "tokens" else rates_of(sizes, after)),
    )  # fmt: skip


CODE = code_of(parity_bpe_train)


def line_of(step: ParityMergeStep | None, *, finished: bool = False) -> int:
    """The line of CODE a state stands for: before any merge the word tables, a merge the line
    that picks its language, and the end of training the stop.

    >>> CODE[line_of(None) - 1].split("#")[1].strip()
    'words as symbols <- start'
    """
    if finished:
        return marked_line(CODE, "stop")
    return marked_line(CODE, "start" if step is None else "language")

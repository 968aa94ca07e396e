"""Counts: a corpus's pre-token counts as a first-class, mergeable thing.

Every trainer that trains on word counts (bpe, byte_bpe, sentencepiece_bpe, wordpiece) starts the
same way: split the corpus into pre-tokens and count them. `count` does that step on its own, on a
stream (no ceiling but memory), on N processes for files, and returns a `Counts` that records
the rules it was made under (`under.py`). `Counts.save` writes the versioned counts file
(`counts_file.py`), `merge_counts` adds the counts of shards up (the same counts as the shards
counted together), and `tc.train(algorithm, counts=...)` trains from them with exactly the
merges training on the text gives.

    counts = tc.count(algorithm="byte_bpe", files=["big.txt"], processes=2)
    counts.save("big.counts")
    tok = tc.train("byte_bpe", counts=tc.load_counts("big.counts"), vocab_size=10_000)

>>> c = count(["low low lower", "newest"], "bpe")
>>> list(c.items())
[('low', 2), ('lower', 1), ('newest', 1)]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Sequence

from ...errors import InvalidInput
from ...models.bpe.words import _lines
from .counts_file import Counts, merge
from .shards import chunks, count_files
from .under import COUNTED_ALGORITHMS, CountedUnder, chunk_counter, counted_under

__all__ = [
    "COUNTED_ALGORITHMS",
    "CountedUnder",
    "Counts",
    "count",
    "counted_under",
    "merge_counts",
]


def count(
    lines: Iterable[str] | None = None,
    algorithm: str = "byte_bpe",
    *,
    files: Sequence[str | Path] | str | Path | None = None,
    processes: int = 1,
    min_frequency: int = 0,
    **options: Any,
) -> Counts:
    """The pre-token counts of a corpus for `algorithm`'s trainer (with its counting options:
    byte_bpe `pattern`, wordpiece `lowercase`), from `lines` (any iterable of str, read as it
    comes) or from `files` (paths, read as streams in blocks and counted on `processes`
    processes). Pre-tokens seen fewer than `min_frequency` times are left out (the counts say
    so, and such counts do not merge). Raises InvalidInput for bad input."""
    under = counted_under(algorithm, **options)
    if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
        raise InvalidInput("processes must be a whole number >= 1")
    if isinstance(min_frequency, bool) or not isinstance(min_frequency, int) or min_frequency < 0:
        raise InvalidInput("min_frequency must be a whole number >= 0")
    if (lines is None) == (files is None):
        raise InvalidInput("give the corpus as lines or as files, one of the two")
    if files is not None:
        paths = [str(files)] if isinstance(files, (str, Path)) else [str(p) for p in files]
        counts = count_files(paths, under, processes)
        if not len(counts):
            raise InvalidInput("the corpus is empty: give at least one line of text")
    else:
        words: dict[str, int] = {}
        add = chunk_counter(under)
        for chunk in chunks(_lines(lines)):  # type: ignore[arg-type]
            add(words, chunk)
        counts = Counts.from_words(words, under)
    return counts.pruned(min_frequency)


def merge_counts(parts: Iterable[Counts], *, min_frequency: int = 0) -> Counts:
    """The sum of counts of shards (see `counts_file.merge`)."""
    return merge(parts, min_frequency=min_frequency)

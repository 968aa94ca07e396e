"""A model's tokens of one piece as columns: what `Model.tokenize` gives as one
(token, id, start, end) tuple a token, for the models that give their tokens by the thousand.

A Unigram line has as many tokens as a short page; its ▁-segments repeat (`segment_paths`
keeps each one's tokens), so a line's tokens are its segments' columns joined by C-level
chains instead of one tuple a token. `into_encoding` reads the columns as they are
(`NormalizedString.spans` takes starts and ends).

>>> word = TokenColumns.of([("▁a", 7, 0, 2), ("b", 8, 2, 3)], 3)
>>> both = joined([0, 3], [word, word])
>>> both.values, both.ids, both.starts, both.ends
(['▁a', 'b', '▁a', 'b'], [7, 8, 7, 8], [0, 2, 3, 5], [2, 3, 5, 6])
>>> joined([0, 3], [word, word]).tokens()[1:3]
[('b', 8, 2, 3), ('▁a', 7, 3, 5)]
"""

from __future__ import annotations

import itertools
import operator
from typing import Any, NamedTuple, Sequence


class TokenColumns(NamedTuple):
    """A piece's tokens, column by column; starts and ends are characters of the piece.
    `lengths`: each token's length when the tokens cover the piece end to end (the first
    starts at 0, each starts where the one before ends, the last ends at the piece's end), else
    None (byte tokens share their character's span)."""

    values: Sequence[str]
    ids: Sequence[int]
    starts: Sequence[int]
    ends: Sequence[int]
    lengths: Sequence[int] | None = None

    @classmethod
    def of(cls, tokens: Sequence[tuple[str, int, int, int]], length: int) -> "TokenColumns":
        """The columns of (token, id, start, end) tuples of a piece `length` long, each kept
        as a tuple.

        >>> TokenColumns.of([("a", 1, 0, 1), ("b", 2, 1, 3)], 3).lengths
        (1, 2)
        >>> TokenColumns.of([("<0xC3>", 3, 0, 1), ("<0xA9>", 4, 0, 1)], 1).lengths is None
        True
        """
        if not tokens:
            return cls((), (), (), (), () if length == 0 else None)
        values, ids, starts, ends = zip(*tokens)
        lengths = None
        if starts[0] == 0 and starts[1:] == ends[:-1] and ends[-1] == length:
            lengths = tuple(map(operator.sub, ends, starts))
        return cls(values, ids, starts, ends, lengths)

    def tokens(self) -> list[tuple[str, int, int, int]]:
        """Back to one (token, id, start, end) tuple a token."""
        return list(zip(self.values, self.ids, self.starts, self.ends))


_VALUES, _IDS, _STARTS, _ENDS, _LENGTHS = (operator.itemgetter(i) for i in range(5))
_chained = itertools.chain.from_iterable


def joined(positions: Sequence[int], parts: Sequence[tuple[Any, ...]]) -> TokenColumns:
    """The columns of consecutive parts of a piece, each starting at its position (each
    `TokenColumns`, or its fields as a plain tuple), as one: each
    part's starts and ends moved to where it starts. When every part covers itself end to end,
    so does the whole: its ends are the running sum of the lengths, its starts the ends moved
    one along, with no Python step per part."""
    values = list(_chained(map(_VALUES, parts)))
    ids = list(_chained(map(_IDS, parts)))
    if None not in map(_LENGTHS, parts):
        lengths = list(_chained(map(_LENGTHS, parts)))
        ends = list(itertools.accumulate(lengths))
        return TokenColumns(values, ids, [0, *ends[:-1]] if ends else [], ends, lengths)
    starts: list[int] = []
    ends = []
    for pos, part in zip(positions, parts):
        starts.extend(map(pos.__add__, _STARTS(part)))
        ends.extend(map(pos.__add__, _ENDS(part)))
    return TokenColumns(values, ids, starts, ends)

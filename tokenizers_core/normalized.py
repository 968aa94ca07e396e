"""`NormalizedString`: text that remembers where each of its characters came from.

Normalisers change text (NFKC turns "ﬁ" into "fi", lowercasing turns "İ" into "i̇", BERT's cleaner
drops control characters), yet offsets must point into the text the user typed. So every stage
works on a `NormalizedString`: the current text plus, for each of its characters, the span
`(start, end)` of the **original** text it came from. A token covering characters `[a, b)` of the
normalised text then has original offsets `span(a, b)`.

>>> s = NormalizedString("ﬁne").transform([(0, 1, "fi"), (1, 3, "ne")])
>>> s.normalized, s.alignments
('fine', [(0, 1), (0, 1), (1, 2), (2, 3)])
>>> s.span(0, 2)        # "fi" came from original[0:1], the ligature
(0, 1)

The identity case (nothing changed the text, the common fast path) stores no per-character list.
"""

from __future__ import annotations

import operator
from typing import Callable, Iterable, Sequence

_first, _second = operator.itemgetter(0), operator.itemgetter(1)  # of a span

UNIT_SPANS_KEPT = 1 << 16  # the (i, i + 1) spans made once and shared, for i below this
_unit_spans: list[tuple[int, int]] = []


def unit_spans(start: int, end: int) -> list[tuple[int, int]]:
    """[(start, start + 1), ..., (end - 1, end)]: the alignment of characters that each came
    from the original character at their place. Every normaliser's alignment starts from these,
    one a character: the tuples are made once (up to UNIT_SPANS_KEPT) and shared, so a list of
    them is a copy of pointers.

    >>> unit_spans(3, 5), unit_spans(2, 2)
    ([(3, 4), (4, 5)], [])
    """
    if end > UNIT_SPANS_KEPT:
        return list(zip(range(start, end), range(start + 1, end + 1)))
    if end > len(_unit_spans):  # grown to the next power of two (a thread sees it whole)
        have, grown = len(_unit_spans), min(UNIT_SPANS_KEPT, 1 << (end - 1).bit_length())
        _unit_spans.extend(zip(range(have, grown), range(have + 1, grown + 1)))
    return _unit_spans[start:end]


class NormalizedString:
    """The normalised text, the original text, and the alignment between them."""

    __slots__ = ("original", "normalized", "_align", "_shift", "_ordered")

    def __init__(
        self,
        text: str,
        *,
        _normalized: str | None = None,
        _align: list[tuple[int, int]] | None = None,
        _shift: int = 0,
        _ordered: bool = False,
    ) -> None:
        self.original = text
        self.normalized = text if _normalized is None else _normalized
        # None means "identity": normalized[i] came from original[_shift + i].
        self._align = _align
        self._shift = _shift
        # True when the spans' starts and ends never go down from one character to the next
        # (known from how the alignment was made; False when not known): then a range's
        # span is its first character's start and its last one's end.
        self._ordered = _align is None or _ordered

    # ---- reading ------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.normalized)

    def __str__(self) -> str:
        return self.normalized

    def __repr__(self) -> str:
        return f"NormalizedString({self.normalized!r}, original span {self.span(0, len(self))})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, NormalizedString)
            and self.normalized == other.normalized
            and self.original == other.original
            and self.alignments == other.alignments
        )

    @property
    def is_identity(self) -> bool:
        """True when each character is the original character at the same (shifted) place."""
        return self._align is None

    def plain_shift(self) -> int | None:
        """Where the text starts in the original when each character came from the one
        original character at the same shifted place (it may have changed: lowercasing keeps
        this), so `span(a, b)` is `(shift + a, shift + b)`; None when characters moved.

        >>> NormalizedString("Ab").transform([(0, 1, "a"), (1, 2, "b")]).plain_shift()
        0
        >>> NormalizedString("ﬁ").transform([(0, 1, "fi")]).plain_shift() is None
        True
        """
        if self._align is None:
            return self._shift
        n = len(self._align)
        s = self._align[0][0] if n else self._shift
        return s if self._align == unit_spans(s, s + n) else None

    @property
    def alignments(self) -> list[tuple[int, int]]:
        """For each normalised character, its span in the original text."""
        if self._align is None:
            s = self._shift
            n = len(self.normalized)
            return unit_spans(s, s + n)
        return list(self._align)

    def char_span(self, i: int) -> tuple[int, int]:
        """Original span of normalised character i."""
        if self._align is None:
            return (self._shift + i, self._shift + i + 1)
        return self._align[i]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Original offsets of `normalized[start:end]`.

        An empty range maps to an empty span at the nearest original position.
        """
        n = len(self.normalized)
        if not 0 <= start <= end <= n:
            raise ValueError(f"range {start}:{end} is outside a string of length {n}")
        if self._align is None:
            return (self._shift + start, self._shift + end)
        if start == end:
            if start < n:
                pos = self._align[start][0]
            elif n:
                pos = self._align[n - 1][1]
            else:
                pos = self._shift
            return (pos, pos)
        first = self._align[start]
        last = self._align[end - 1]
        # Characters map monotonically, but several output characters can share one source span
        # (NFD of "é"), so take the extremes of both ends.
        return (min(first[0], last[0]), max(first[1], last[1]))

    def spans(self, starts: Sequence[int], ends: Sequence[int]) -> list[tuple[int, int]]:
        """`span(start, end)` of each non-empty range, given as its starts and its ends.

        >>> NormalizedString("ﬁne").transform([(0, 1, "fi"), (1, 3, "ne")]).spans([0, 1], [1, 3])
        [(0, 1), (0, 2)]
        """
        return list(zip(*self.span_columns(starts, ends)))

    def span_columns(
        self, starts: Sequence[int], ends: Sequence[int]
    ) -> tuple[list[int], list[int]]:
        """`spans` as two columns, the starts and the ends, in one pass each (a piece's tokens:
        a line can hold thousands).

        >>> NormalizedString("ﬁne").transform([(0, 1, "fi"), (1, 3, "ne")]).span_columns(
        ...     [0, 1], [1, 3])
        ([0, 0], [1, 2])
        """
        if self._align is None:
            shift = self._shift
            return list(map(shift.__add__, starts)), list(map(shift.__add__, ends))
        if not self._in_range(starts, ends):
            spans = list(map(self.span, starts, ends))  # (empty, or out of range)
            return list(map(_first, spans)), list(map(_second, spans))
        align = self._align
        if self._ordered:  # the first character's start and the last one's end
            return [align[start][0] for start in starts], [align[end - 1][1] for end in ends]
        # Offsets in the original text: the extremes of the range's first and last characters
        # (several characters may share a source span, as `span` says).
        return (
            [min(align[s][0], align[e - 1][0]) for s, e in zip(starts, ends)],
            [max(align[s][1], align[e - 1][1]) for s, e in zip(starts, ends)],
        )

    def _in_range(self, starts: Sequence[int], ends: Sequence[int]) -> bool:
        """Whether every range is non-empty and inside the string (and there is one)."""
        if not starts:
            return False
        return all(map(operator.lt, starts, ends)) and min(starts) >= 0 and max(ends) <= len(self)

    # ---- building new strings -----------------------------------------------------------
    def slice(self, start: int, end: int) -> "NormalizedString":
        """The characters `[start, end)`, keeping their alignment to the original."""
        if self._align is None:
            return NormalizedString(
                self.original, _normalized=self.normalized[start:end], _shift=self._shift + start
            )
        return NormalizedString(
            self.original,
            _normalized=self.normalized[start:end],
            _align=self._align[start:end],
            _shift=self.span(start, start)[0],
            _ordered=self._ordered,
        )

    def transform(self, segments: Iterable[tuple[int, int, str]]) -> "NormalizedString":
        """Rewrite the text segment by segment.

        `segments` is a list of `(start, end, replacement)` in normalised coordinates, in order,
        covering the text without gaps. A replacement of the same length maps character to
        character; otherwise every replacement character maps to the whole source span (so the
        two characters of NFKC("ﬁ") both point at the ligature). An empty replacement deletes.
        """
        parts: list[str] = []
        align: list[tuple[int, int]] = []
        pos = 0
        for start, end, out in segments:
            if start != pos or end < start:
                raise ValueError(f"segments must cover the text in order (gap or overlap at {pos})")
            pos = end
            if not out:
                continue
            parts.append(out)
            if len(out) == end - start:
                if self._align is None:
                    s = self._shift
                    align += unit_spans(s + start, s + end)
                else:
                    align.extend(self._align[start:end])
            else:
                align.extend([self.span(start, end)] * len(out))
        if pos != len(self.normalized):
            raise ValueError("segments must cover the whole text")
        text = "".join(parts)
        if text == self.normalized and len(align) == len(self.normalized):
            if self._align is None or align == self._align:
                return self
        # From the identity, every segment's characters map inside its own source range, and
        # the ranges follow each other: the alignment is ordered. (From another alignment it
        # may not be: a character inserted between the two halves of "ﬁ" maps before the end
        # of the "f" before it.)
        return NormalizedString(
            self.original,
            _normalized=text,
            _align=align,
            _shift=self.span(0, 0)[0],
            _ordered=self._align is None,
        )

    def map_chars(self, fn: Callable[[str], str]) -> "NormalizedString":
        """Replace each character c by fn(c) (which may be longer, shorter or empty).

        >>> NormalizedString("İa").map_chars(str.lower).alignments
        [(0, 1), (0, 1), (1, 2)]
        """
        text = self.normalized
        outs = [fn(c) for c in text]
        if all(o == c for o, c in zip(outs, text)):
            return self
        return self.transform((i, i + 1, o) for i, o in enumerate(outs))

    def filter(self, keep: Callable[[str], bool]) -> "NormalizedString":
        """Drop the characters for which keep(c) is false."""
        return self.map_chars(lambda c: c if keep(c) else "")

    def prepend(self, prefix: str) -> "NormalizedString":
        """Add `prefix` in front; its characters align with the first character's span
        (as Hugging Face does for Metaspace's "▁"), or an empty span if the text is empty."""
        if not prefix:
            return self
        first = self.char_span(0) if self.normalized else self.span(0, 0)
        return NormalizedString(
            self.original,
            _normalized=prefix + self.normalized,
            _align=[first] * len(prefix) + self.alignments,
            _shift=first[0],
            _ordered=self._ordered,  # (the prefix maps to the first character's span)
        )

"""A normaliser that works character by character, run as one `str.translate`.

BERT's normaliser (clean the text, space out CJK ideographs, NFD and drop the non-spacing
marks, lowercase) rewrites each character on its own, with two exceptions: NFD reorders runs
of combining marks, and lowercasing a capital sigma looks at its neighbours. So on a text
whose characters are all "local" (no sigma; each character's NFD holds only starters and
non-spacing marks, which are dropped, so no reordering survives), the normalised text is the
concatenation of each character normalised alone, and each output character comes from the
one input character it was made from. `CharTable` keeps that per-character answer (asked of the
normaliser itself, one character at a time) and applies it to a whole text at once;
`BertNormalizer.normalize` uses it and tests prove it equal to the general path
(tests/core/normalizers/test_char_table.py).
"""

from __future__ import annotations

import unicodedata
from itertools import chain, repeat
from typing import Callable

from ..normalized import NormalizedString, unit_spans

MAX_CHARS = 50_000  # characters a table learns (texts with others go the general way)


class CharTable:
    """Each character's output under `normalize_char` (a function str -> str for one
    character), and whether the character is local (see the module docstring).

    >>> table = CharTable(lambda c: c.lower() if c != "x" else "", lambda c: c != "Σ")
    >>> ns = table.normalize(NormalizedString("AxB"))
    >>> ns.normalized, ns.alignments
    ('ab', [(0, 1), (2, 3)])
    >>> table.normalize(NormalizedString("ΣA")) is None
    True
    """

    def __init__(self, normalize_char: Callable[[str], str], is_local: Callable[[str], bool]):
        self._normalize_char = normalize_char
        self._is_local = is_local
        self._out: dict[int, str] = {}  # code point -> output (for str.translate)
        self._local: set[str] = set()
        self._other: set[str] = set()

    def normalize(self, ns: NormalizedString) -> NormalizedString | None:
        """`ns` normalised character by character; None when `ns` has moved characters already
        or holds a character that is not local (the general path runs then)."""
        if not ns.is_identity:
            return None
        text = ns.normalized
        chars = set(text)
        if not chars <= self._local and not self._learn(chars - self._local):
            return None
        out = text.translate(self._out)
        if out == text:
            return ns
        shift = ns.span(0, 0)[0]
        if len(out) == len(text) and all(len(self._out[ord(c)]) == 1 for c in chars):
            # one for one: still aligned character to character
            return NormalizedString(ns.original, _normalized=out, _shift=shift)
        out_len = map(len, map(self._out.__getitem__, map(ord, text)))
        # Offsets in the original text: each output character keeps its source character's span
        # (each span repeated as many times as its character's output is long, at C speed).
        spans = unit_spans(shift, shift + len(text))
        align = list(chain.from_iterable(map(repeat, spans, out_len)))
        return NormalizedString(
            ns.original, _normalized=out, _align=align, _shift=shift, _ordered=True
        )  # (each character's span repeated: in order)

    def _learn(self, chars: set[str]) -> bool:
        """Add `chars` to the table; False if one of them is not local."""
        if chars & self._other or len(self._local) > MAX_CHARS:
            return False  # (a full table only grows no more: threads may be reading it)
        for c in chars:
            if not self._is_local(c):
                if len(self._other) < MAX_CHARS:
                    self._other.add(c)
                return False
            self._out[ord(c)] = self._normalize_char(c)
            self._local.add(c)
        return True


def nfd_stays_in_place(c: str, dropped: Callable[[str], bool]) -> bool:
    """True when NFD of `c` is starters and marks that `dropped` says go: what is left,
    canonical reordering cannot have moved.

    >>> is_mn = lambda d: unicodedata.category(d) == "Mn"
    >>> nfd_stays_in_place("é", is_mn), nfd_stays_in_place("\\U0001d165", is_mn)
    (True, False)
    """
    return all(unicodedata.combining(d) == 0 or dropped(d) for d in unicodedata.normalize("NFD", c))

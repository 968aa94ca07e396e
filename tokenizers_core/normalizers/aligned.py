"""What every normaliser shares: edits applied with their alignment kept, so that each
normalised character still knows the span of the original text it came from (offsets stay
characters of the input), the bound on how long a normaliser may make a text, and the
`NormalizerBase` base class."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Callable

import regex

from ..errors import InvalidInput
from ..normalized import NormalizedString
from .unicode_forms import Edit

# ---- how long a normaliser may make a text ---------------------------------------------------
# Real normalisers make a text a little longer at most: NFKC and NFKD spell one character as up
# to 18 (U+FDFA, the ligature "ﷺ", is a whole phrase), sentencepiece's precompiled charsmaps are
# NFKC plus short rules (the same 18), BertNormalizer puts a space on each side of a CJK
# ideograph (3), Lowercase writes "İ" as 2, Prepend adds one "▁", Replace " " -> "▁" keeps
# the length. Every real chain stays within 18 per character plus a prepended "▁", so a text
# may grow to GROWTH = 20 times the original characters it covers (counted over the whole chain,
# not per member), or to FLOOR = 100,000 characters, whichever is more: the floor lets short
# texts through any real chain, and keeps the bound a size (a hundred thousand characters
# normalise in milliseconds) rather than a ratio for them. (A chain that spells out ligatures and
# then spells characters as UTF-8 bytes, NFKC then the ByteLevel normaliser, could reach 36 on a
# text of nothing but "ﷺ"; no real tokenizer has that chain, and such a text stays inside the
# floor up to 2,777 characters.) A hostile chain grows exponentially (20 x `Replace "a" -> "aa"`
# makes 4 characters into 4,194,304): it is refused when it would pass the bound, before the
# longer text is built.
GROWTH = 20
FLOOR = 100_000


class NormalizedTooLong(InvalidInput):
    """A normaliser would make a text longer than `max_length` allows. `where` is the member's
    place in its Sequence(s), outermost first (1-based).

    >>> print(NormalizedTooLong("Replace('a' -> 'aa')", 4, 131_072,
    ...                         (15,)))  # doctest: +NORMALIZE_WHITESPACE
    the normalizer Replace('a' -> 'aa'), member 15 of the Sequence, would make this 4-character text
    131,072 characters long; a normalizer may make a text at most 20 times longer (or 100,000
    characters)
    """

    def __init__(
        self, normalizer: str, source_length: int, length: int, where: tuple[int, ...] = ()
    ) -> None:
        self.normalizer = normalizer
        self.source_length = source_length
        self.length = length
        self.where = where
        place = ""
        if where:
            place = ", " + " of ".join(f"member {i}" for i in reversed(where)) + " of the Sequence,"
        super().__init__(
            f"the normalizer {normalizer}{place} would make this {source_length:,}-character "
            f"text {length:,} characters long; a normalizer may make a text at most {GROWTH} "
            f"times longer (or {FLOOR:,} characters)"
        )

    def within(self, member: int) -> "NormalizedTooLong":
        """The same failure, said of member `member` of a Sequence."""
        return NormalizedTooLong(
            self.normalizer, self.source_length, self.length, (member, *self.where)
        )


def max_length(ns: NormalizedString) -> int:
    """The longest a normaliser may make `ns`: GROWTH times the original characters it covers,
    or FLOOR characters, whichever is more.

    >>> max_length(NormalizedString("abcd")), max_length(NormalizedString("a" * 10_000))
    (100000, 200000)
    """
    start, end = ns.span(0, len(ns))
    return max(GROWTH * (end - start), FLOOR)


def check_length(normalizer: Any, ns: NormalizedString, length: int) -> None:
    """Raise `NormalizedTooLong` when `normalizer` would make `ns` (a text it was given)
    `length` characters long, past `max_length(ns)`. Call it before building the longer text.

    >>> from tokenizers_core.normalizers import Replace
    >>> check_length(Replace("a", "aa"), NormalizedString("abcd"),
    ...              131_072)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.normalizers.aligned.NormalizedTooLong: the normalizer Replace('a' -> 'aa') would
    make this 4-character text 131,072 characters long; a normalizer may make a text at most 20
    times longer (or 100,000 characters)
    """
    if length > max_length(ns):
        start, end = ns.span(0, len(ns))
        raise NormalizedTooLong(_describe(normalizer), end - start, length)


def _describe(normalizer: Any, width: int = 80) -> str:
    """The normaliser's description for a message, cut to `width` characters (a Replace of a
    megabyte describes itself in a megabyte).

    >>> from tokenizers_core.normalizers import Replace
    >>> _describe(Replace("a", "b" * 1000), width=30)
    "Replace('a' -> 'bbbbbbbbbb...)"
    """
    describe = getattr(normalizer, "describe", None)
    text = describe() if callable(describe) else type(normalizer).__name__
    return text if len(text) <= width else text[: width - 4] + "...)"


def _edited_length(text: str, edits: list[Edit]) -> int:
    """The length of `text` once `edits` are applied.

    >>> _edited_length("abc", [(0, 1, "xyz", None), (2, 3, "", None)])
    4
    """
    return len(text) + sum(len(out) - (end - start) for start, end, out, _ in edits)


# ---- shared helpers -----------------------------------------------------------------------
def checked_input(ns: Any) -> NormalizedString:
    if not isinstance(ns, NormalizedString):
        raise InvalidInput(
            "normalize() takes a NormalizedString; use normalize_str() for plain text"
        )
    return ns


def apply_edits(ns: NormalizedString, edits: Iterable[Edit], by: Any = None) -> NormalizedString:
    """Apply `edits` (in order, not overlapping; the text between them stays as it is) and
    carry the alignments to the original text along. With `by` (the normaliser applying
    them), a result longer than `max_length` is refused first (`check_length`).

    Unlike `NormalizedString.transform`, an edit says where its output characters came from,
    so a same-length rewrite that is not character by character (NFD of "a" + U+0301 + U+0323
    puts the dot below first) is not mistaken for one.

    >>> apply_edits(NormalizedString("abc"), [(0, 2, "ba", [1, 0])]).alignments
    [(1, 2), (0, 1), (2, 3)]
    >>> apply_edits(NormalizedString("abc"), [(1, 3, "x", None)]).alignments
    [(0, 1), (1, 3)]
    """
    text = ns.normalized
    edits = list(edits)
    if by is not None:
        check_length(by, ns, _edited_length(text, edits))
    if ns.is_identity and all(
        end - start == len(out)
        and (
            sources is None
            and len(out) == 1
            or sources is not None
            and list(sources) == list(range(start, end))
        )
        for start, end, out, sources in edits
    ):
        # every edit is character for character: the result is still aligned one to one
        if not edits:
            return ns
        pieces: list[str] = []
        pos = 0
        for start, end, out, _ in edits:
            pieces += [text[pos:start], out]
            pos = end
        pieces.append(text[pos:])
        return NormalizedString(ns.original, _normalized="".join(pieces), _shift=ns.span(0, 0)[0])
    source = ns.alignments
    parts: list[str] = []
    align: list[tuple[int, int]] = []
    pos = 0
    for start, end, out, sources in edits:
        if start < pos or end < start:
            raise ValueError(f"edits must be in order and not overlap (at {start})")
        parts.append(text[pos:start])  # unchanged: character to character
        align.extend(source[pos:start])
        parts.append(out)
        if sources is None:
            align.extend([ns.span(start, end)] * len(out))
        else:
            align.extend(source[i] for i in sources)
        pos = end
    if pos == 0 and not parts:
        return ns
    parts.append(text[pos:])
    align.extend(source[pos:])
    # Offsets in the original text: `align` is built from ns's own spans, edit by edit.
    return NormalizedString(
        ns.original, _normalized="".join(parts), _align=align, _shift=ns.span(0, 0)[0]
    )


def same_length(ns: NormalizedString, text: str) -> NormalizedString:
    """`text` replaces ns's text character for character (same length, same alignments)."""
    if text == ns.normalized:
        return ns
    if ns.is_identity:  # still character for character with the original: no list needed
        return NormalizedString(ns.original, _normalized=text, _shift=ns.span(0, 0)[0])
    return NormalizedString(
        ns.original, _normalized=text, _align=ns.alignments, _shift=ns.span(0, 0)[0]
    )


def map_chars(
    ns: NormalizedString, candidates: regex.Pattern[str], fn: Callable[[str], str], by: Any = None
) -> NormalizedString:
    """Replace each character c that `candidates` matches by fn(c) ("" drops it). With `by`
    (the normaliser), a result longer than `max_length` is refused before it is built.

    `candidates` must match single characters. Changes of one character for one are a
    `str.translate` that keeps the alignments; each character of a longer replacement maps to
    the replaced character's span.

    >>> map_chars(NormalizedString("a-b"), regex.compile("-"), lambda c: "").alignments
    [(0, 1), (2, 3)]
    >>> map_chars(NormalizedString("a-b"), regex.compile("-"), lambda c: "<>").alignments
    [(0, 1), (1, 2), (1, 2), (2, 3)]
    """
    text = ns.normalized
    found = candidates.findall(text, concurrent=False)
    table: dict[str, str] = {c: fn(c) for c in set(found)}
    one_for_one = {c: out for c, out in table.items() if len(out) == 1 and out != c}
    others = {c: out for c, out in table.items() if len(out) != 1}
    if one_for_one:
        swaps = str.maketrans(one_for_one)
        ns = same_length(ns, text.translate(swaps))
    if not others:
        return ns
    if by is not None and any(len(out) > 1 for out in others.values()):
        check_length(by, ns, len(text) + sum(len(others[c]) - 1 for c in found if c in others))
    replacements = str.maketrans(others)
    new_text = ns.normalized.translate(replacements)
    if sum(c in others for c in found) * 64 < len(text):  # a few changes: edit in place
        return apply_edits(
            ns,
            [
                (m.start(), m.end(), others[c], [m.start()] * len(others[c]))
                for m in candidates.finditer(text, concurrent=False)
                if (c := m.group()) in others
            ],
        )
    if not any(others.values()):  # deletions only
        align = [span for span, c in zip(ns.alignments, text) if c not in others]
    else:  # many: one pass over the text
        align = []
        for span, c in zip(ns.alignments, text):
            if c in others:
                align.extend([span] * len(others[c]))
            else:
                align.append(span)
    # Offsets in the original text: each output character keeps its source character's span.
    return NormalizedString(
        ns.original, _normalized=new_text, _align=align, _shift=ns.span(0, 0)[0]
    )


class NormalizerBase:
    """What every normaliser shares: `normalize_str` and a default `describe`."""

    def normalize(self, ns: NormalizedString) -> NormalizedString:  # pragma: no cover
        raise NotImplementedError

    def describe(self) -> str:
        return type(self).__name__

    def to_hf_config(self) -> dict[str, Any]:
        """This normaliser as a `tokenizer.json` "normalizer" entry (as Hugging Face writes it).

        >>> from tokenizers_core.normalizers import NFKC
        >>> NFKC().to_hf_config()
        {'type': 'NFKC'}
        """
        return {"type": type(self).__name__}

    def normalize_str(self, text: str) -> str:
        """Normalise plain text (no alignment).

        >>> from tokenizers_core.normalizers import Lowercase
        >>> Lowercase().normalize_str("HeLLo")
        'hello'
        """
        if not isinstance(text, str):
            raise InvalidInput("normalize_str() takes a string")
        return self.normalize(NormalizedString(text)).normalized

"""The normalisers written out here (the package re-exports them with `hf.py`'s).

Normalisers are the first pipeline stage, with Hugging Face `tokenizers` semantics.

A normaliser rewrites the text before it is split (Unicode normal forms, lowercasing, accent
stripping, BERT's cleaning) and keeps, for every output character, the span of the **original**
text it came from, so token offsets still point into what the user typed. Each one has
`normalize(NormalizedString) -> NormalizedString`, `describe() -> str` and, for plain text,
`normalize_str(str) -> str`.

>>> NFKC().normalize_str("ﬁne ①")
'fine 1'
>>> ns = NFKC().normalize(NormalizedString("ﬁne"))
>>> ns.normalized, ns.alignments            # both "f" and "i" come from the ligature
('fine', [(0, 1), (0, 1), (1, 2), (2, 3)])
>>> NFC().normalize(NormalizedString("e\\u0301")).alignments   # "é" from the "e", as HF
[(0, 1)]
>>> BertNormalizer().normalize_str("Héllo\\tWörld 中文")
'hello world  中  文 '
>>> Sequence([NFD(), StripAccents(), Lowercase()]).describe()
'Sequence[NFD, StripAccents, Lowercase]'

Where Hugging Face's behaviour is surprising we follow it and say so: `StripAccents` removes
every combining mark (spacing ones too, such as Devanagari vowel signs) while `BertNormalizer`
removes only non-spacing ones; BERT's cleaner keeps a few recent format characters Hugging Face's
tables do not know; `Lowercase` works character by character (no final-sigma rule); through the
reordering of marks in NFD and the composition in NFC, each character's source is assigned as
Hugging Face assigns it (a composed "é" comes from the "e"; every character `Replace` writes from
the last character of its match). Unicode data come from Python's `unicodedata`, so characters
newer than its Unicode version can differ.

`from_hf_config` builds a normaliser from the "normalizer" entry of a Hugging Face
`tokenizer.json`; it and the normalisers only such files use (`Precompiled`, `Nmt`, `ByteLevel`)
are in `normalizers/hf.py`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from collections.abc import Sequence as SequenceType
from dataclasses import dataclass, field
from typing import Any, Callable

import regex

from ..errors import InvalidInput
from ..hf_regex import find_spans
from ..normalized import NormalizedString
from .aligned import (
    FLOOR,
    GROWTH,
    NormalizedTooLong,
    NormalizerBase,
    apply_edits,
    check_length,
    checked_input,
    map_chars,
    max_length,
    same_length,
)
from .char_table import CharTable, nfd_stays_in_place
from .unicode_forms import Form, form_edits

__all__ = [
    "NFC",
    "NFD",
    "NFKC",
    "NFKD",
    "Lowercase",
    "StripAccents",
    "Strip",
    "Replace",
    "BertNormalizer",
    "Prepend",
    "Sequence",
    "NormalizedTooLong",
    "GROWTH",
    "FLOOR",
    "max_length",
    "check_length",
]


# ---- Unicode normal forms (the aligned edits: unicode_forms.py) -------------------------
def _normalize_form(ns: NormalizedString, form: Form, by: Any) -> NormalizedString:
    text = checked_input(ns).normalized
    if text.isascii() or unicodedata.is_normalized(form, text):
        return ns  # the fast path: nothing to do
    return apply_edits(ns, form_edits(form, text), by=by)  # at most 18 times longer


@dataclass(frozen=True)
class NFC(NormalizerBase):
    """Canonical composition: "e" + U+0301 -> "é" (aligned to the "e", as Hugging Face).

    >>> NFC().normalize(NormalizedString("cafe\\u0301")).alignments[-1]
    (3, 4)
    """

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        return _normalize_form(ns, "NFC", self)


@dataclass(frozen=True)
class NFD(NormalizerBase):
    """Canonical decomposition: "é" -> "e" + U+0301, both aligned to "é".

    >>> NFD().normalize(NormalizedString("é")).alignments
    [(0, 1), (0, 1)]
    """

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        return _normalize_form(ns, "NFD", self)


@dataclass(frozen=True)
class NFKC(NormalizerBase):
    """Compatibility composition: "ﬁ" -> "fi", "①" -> "1", full-width "Ａ" -> "A".

    >>> NFKC().normalize_str("ＡＢＣ１２３")
    'ABC123'
    """

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        return _normalize_form(ns, "NFKC", self)


@dataclass(frozen=True)
class NFKD(NormalizerBase):
    """Compatibility decomposition: "ﬁ" -> "fi", "é" -> "e" + U+0301.

    >>> [hex(ord(c)) for c in NFKD().normalize_str("ǆ")]
    ['0x64', '0x7a', '0x30c']
    """

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        return _normalize_form(ns, "NFKD", self)


# ---- lowercase and accents ----------------------------------------------------------------
# Only "İ" (U+0130) lowercases to more than one character ("i" + U+0307). Python's str.lower()
# gives "Σ" the context-dependent final form "ς"; Hugging Face lowercases character by character
# ("σ" always), so these two are handled one at a time and everything else in bulk.
_LOWER_ONE_BY_ONE = regex.compile("[\u0130\u03a3]")
_LOWER_ONE_BY_ONE_SPLIT = regex.compile("([\u0130\u03a3])")


def _lower_bulk(text: str) -> str:
    """Lowercase all but "İ" and "Σ" (left for `map_chars`); same length as `text`.

    >>> _lower_bulk("AΣİB")
    'aΣİb'
    """
    # runs and single special characters alternate
    parts = _LOWER_ONE_BY_ONE_SPLIT.split(text, concurrent=False)
    return "".join(part if i % 2 else part.lower() for i, part in enumerate(parts))


@dataclass(frozen=True)
class Lowercase(NormalizerBase):
    """Lowercase each character on its own (Unicode full case mapping, no context rules).

    >>> Lowercase().normalize(NormalizedString("İx")).alignments   # "i̇" has two characters
    [(0, 1), (0, 1), (1, 2)]
    >>> Lowercase().normalize_str("ΟΔΟΣ")                          # no final sigma, as HF
    'οδοσ'
    """

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        text = checked_input(ns).normalized
        lowered = text.lower()
        if lowered == text:
            return ns
        if len(lowered) == len(text) and "\u03a3" not in text:
            return same_length(ns, lowered)  # the common case: one for one
        return map_chars(same_length(ns, _lower_bulk(text)), _LOWER_ONE_BY_ONE, str.lower, by=self)


# Hugging Face strips accents with two different predicates, which we follow:
# - the StripAccents normaliser drops every combining mark (General_Category M: Mn, Mc and Me,
#   so Devanagari vowel signs go too), by a Unicode 9 table that also has two Vedic signs since
#   recategorised as letters;
# - BertNormalizer drops only non-spacing marks (Mn), by an older table that still has U+1734
#   as Mn.
# Neither table knows the marks added since. These lists (for Python's Unicode 14 database) are
# what Hugging Face tokenizers 0.23.3 keeps although our database calls them marks; they were
# read off by running it over every code point, and tests/core/normalizers/test_normalizers.py
# checks them.
def _code_points(ranges: str) -> frozenset[str]:
    """'0041-0043 0061' -> {'A', 'B', 'C', 'a'}."""
    out: set[str] = set()
    for item in ranges.split():
        first, _, last = item.partition("-")
        out.update(map(chr, range(int(first, 16), int(last or first, 16) + 1)))
    return frozenset(out)


_MARKS_UNKNOWN_TO_HF = _code_points(
    "07FD 0898-089F 08CA-08D3 09FE 0AFA-0AFF 0B55 0C04 0C3C 0D00 0D3B-0D3C 0D81 0EBA 1715 180F "
    "1ABF-1ACE 1CF7 1DF6-1DFA A82C A8FF 10D24-10D27 10EAB-10EAC 10F46-10F50 10F82-10F85 11070 "
    "11073-11074 110C2 11145-11146 111C9 111CE-111CF 1133B 1145E 1182C-1183A 11930-11935 "
    "11937-11938 1193B-1193E 11940 11942-11943 119D1-119D7 119DA-119E0 119E4 11A01-11A0A "
    "11A33-11A39 11A3B-11A3E 11A47 11A51-11A5B 11A8A-11A99 11D31-11D36 11D3A 11D3C-11D3D "
    "11D3F-11D45 11D47 11D8A-11D8E 11D90-11D91 11D93-11D97 11EF3-11EF6 16F4F 16F7F-16F87 16FE4 "
    "16FF0-16FF1 1CF00-1CF2D 1CF30-1CF46 1E130-1E136 1E2AE 1E2EC-1E2EF"
)
_NONSPACING_UNKNOWN_TO_HF = _code_points(
    "07FD 0898-089F 08CA-08E1 09FE 0AFA-0AFF 0B55 0C04 0C3C 0D00 0D3B-0D3C 0D81 0EBA 180F "
    "1885-1886 1ABF-1ACE 1DF6-1DFB A82C A8C5 A8FF A9BD 10D24-10D27 10EAB-10EAC 10F46-10F50 "
    "10F82-10F85 11070 11073-11074 110C2 111C9 111CF 1123E 1133B 11438-1143F 11442-11444 11446 "
    "1145E 1182F-11837 11839-1183A 1193B-1193C 1193E 11943 119D4-119D7 119DA-119DB 119E0 "
    "11A01-11A0A 11A33-11A38 11A3B-11A3E 11A47 11A51-11A56 11A59-11A5B 11A8A-11A96 11A98-11A99 "
    "11C30-11C36 11C38-11C3D 11C3F 11C92-11CA7 11CAA-11CB0 11CB2-11CB3 11CB5-11CB6 11D31-11D36 "
    "11D3A 11D3C-11D3D 11D3F-11D45 11D47 11D90-11D91 11D95 11D97 11EF3-11EF4 16F4F 16FE4 "
    "1CF00-1CF2D 1CF30-1CF46 1E000-1E006 1E008-1E018 1E01B-1E021 1E023-1E024 1E026-1E02A "
    "1E130-1E136 1E2AE 1E2EC-1E2EF 1E944-1E94A"
)
_HF_EXTRA_MARKS = "\u1cf2\u1cf3"
_HF_EXTRA_NONSPACING = "\u1734"
_MARK_CANDIDATES = regex.compile(r"[\p{M}" + _HF_EXTRA_MARKS + "]")


def _is_combining_mark(c: str) -> bool:
    """Whether Hugging Face's StripAccents drops `c`.

    >>> _is_combining_mark("\\u0301"), _is_combining_mark("\\u093e"), _is_combining_mark("e")
    (True, True, False)
    """
    if c in _MARKS_UNKNOWN_TO_HF:
        return False
    return unicodedata.category(c)[0] == "M" or c in _HF_EXTRA_MARKS


def _is_nonspacing_mark(c: str) -> bool:
    """Whether BertNormalizer's accent stripping drops `c`.

    >>> _is_nonspacing_mark("\\u0301"), _is_nonspacing_mark("\\u093e")
    (True, False)
    """
    if c in _NONSPACING_UNKNOWN_TO_HF:
        return False
    return unicodedata.category(c) == "Mn" or c == _HF_EXTRA_NONSPACING


def _drop_marks(ns: NormalizedString, is_mark: Callable[[str], bool]) -> NormalizedString:
    if ns.normalized.isascii():
        return ns
    return map_chars(ns, _MARK_CANDIDATES, lambda c: "" if is_mark(c) else c)


@dataclass(frozen=True)
class StripAccents(NormalizerBase):
    """Drop combining marks. Accents are only separate characters after NFD, so use
    `Sequence([NFD(), StripAccents()])` (as Hugging Face expects).

    Following Hugging Face exactly, this drops every mark, not only the non-spacing ones (Mn):
    spacing marks (Mc) such as Devanagari vowel signs go too ("का" -> "क").

    >>> StripAccents().normalize_str("e\\u0301te\\u0301")
    'ete'
    >>> StripAccents().normalize_str("été")        # precomposed: nothing to strip
    'été'
    """

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        return _drop_marks(checked_input(ns), _is_combining_mark)


# ---- whitespace -----------------------------------------------------------------------------
# Unicode's White_Space property (Rust's char::is_whitespace, which Hugging Face uses). Python's
# str.isspace() also counts U+001C..U+001F, which Hugging Face does not strip.
WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


@dataclass(frozen=True)
class Strip(NormalizerBase):
    """Remove leading (`left`) and trailing (`right`) Unicode whitespace.

    >>> ns = Strip().normalize(NormalizedString("  hi\\u3000"))
    >>> ns.normalized, ns.span(0, len(ns))
    ('hi', (2, 4))
    """

    left: bool = True
    right: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.left, bool) or not isinstance(self.right, bool):
            raise InvalidInput("Strip(left=..., right=...) takes booleans")

    def to_hf_config(self) -> dict[str, Any]:
        return {"type": "Strip", "strip_left": self.left, "strip_right": self.right}

    def describe(self) -> str:
        if self.left and self.right:
            return "Strip"
        return f"Strip({'left' if self.left else 'right' if self.right else 'nothing'})"

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        text = checked_input(ns).normalized
        start, end = 0, len(text)
        if self.left:
            while start < end and text[start] in WHITESPACE:
                start += 1
        if self.right:
            while end > start and text[end - 1] in WHITESPACE:
                end -= 1
        if (start, end) == (0, len(text)):
            return ns
        return ns.slice(start, end)


# ---- replace --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Replace(NormalizerBase):
    """Replace every match of `pattern` by `content`, left to right, without overlaps.

    A plain string pattern is literal (as in Hugging Face); pass a compiled `regex` (or `re`)
    pattern for a regular expression (matches found as Oniguruma finds them, see
    `hf_regex.find_spans`). As in Hugging Face, every replacement character comes from the
    **last** character of its match (an empty match: from the character before it). An empty
    string pattern matches between every two characters (as Hugging Face's); nothing is
    replaced in empty text.

    >>> ns = Replace(" ", "▁").normalize(NormalizedString("a b"))
    >>> ns.normalized, ns.alignments
    ('a▁b', [(0, 1), (1, 2), (2, 3)])
    >>> Replace("ab", "xyz").normalize(NormalizedString("cab")).alignments
    [(0, 1), (2, 3), (2, 3), (2, 3)]
    >>> Replace(regex.compile(r"\\s+"), " ").normalize_str("a \\n\\t b")
    'a b'
    """

    pattern: Any
    content: str
    # the regex as tokenizer.json spells it (before `hf_regex.compile_hf` adapted it), if known
    source: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.content, str):
            raise InvalidInput("Replace content must be a string")
        if not isinstance(self.pattern, str) and not callable(
            getattr(self.pattern, "finditer", None)
        ):
            raise InvalidInput(
                "Replace pattern must be a string (matched literally) or a "
                "compiled regex pattern, e.g. regex.compile(r'\\s+')"
            )

    def describe(self) -> str:
        if isinstance(self.pattern, str):
            return f"Replace({self.pattern!r} -> {self.content!r})"
        return f"Replace(/{self.source or self.pattern.pattern}/ -> {self.content!r})"

    def to_hf_config(self) -> dict[str, Any]:
        if isinstance(self.pattern, str):
            pattern = {"String": self.pattern}
        else:
            pattern = {"Regex": self.source or self.pattern.pattern}
        return {"type": "Replace", "pattern": pattern, "content": self.content}

    def _matches(self, text: str) -> Iterable[tuple[int, int]]:
        if not isinstance(self.pattern, str) or not self.pattern:
            # an empty string is an empty regex to Hugging Face: it matches between characters
            return find_spans(self.pattern or _EMPTY, text)
        return _literal_matches(text, self.pattern)

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        text = checked_input(ns).normalized
        if not text:
            return ns
        n = len(self.content)
        if isinstance(self.pattern, str) and len(self.pattern) == 1 == n:
            # one character for another: each keeps its own span (the common " " -> "▁")
            return same_length(ns, text.replace(self.pattern, self.content))
        # The matches first: their number gives the length of the result, which must stay
        # within the bound (see `max_length`) before anything longer is built.
        spans = list(self._matches(text))
        check_length(self, ns, len(text) + sum(n - (end - start) for start, end in spans))
        # Offsets, as Hugging Face's NormalizedString::replace: each replacement character
        # comes from the last matched character (the one before an empty match).
        return apply_edits(
            ns,
            [
                (start, end, self.content, [max(end - 1, 0)] * n if end > 0 else None)
                for start, end in spans
            ],
        )


_EMPTY = regex.compile("")


def _literal_matches(text: str, literal: str) -> Iterable[tuple[int, int]]:
    """Non-overlapping occurrences of `literal`, left to right.

    >>> list(_literal_matches("aaaa", "aa"))
    [(0, 2), (2, 4)]
    """
    if not literal:
        return
    i = text.find(literal)
    while i >= 0:
        yield i, i + len(literal)
        i = text.find(literal, i + len(literal))


# ---- BERT -------------------------------------------------------------------------------
# Format characters (Cf) added after the Unicode version of Hugging Face's category table: it
# does not see them as control characters, so BERT's cleaner keeps them.
_CF_UNKNOWN_TO_HF = frozenset(
    "\u0890\u0891\u08e2\U000110cd" + "".join(map(chr, range(0x13430, 0x13440)))
)
_CLEAN_CANDIDATES = regex.compile(
    "[\x00-\x1f\x7f-\x9f\ufffd\\p{Cf}\\p{Co}\\p{Cs}" + "".join(sorted(WHITESPACE - {" "})) + "]"
)
# The "CJK Unified Ideographs" blocks of Hugging Face's (and Google BERT's) is_chinese_char.
# Hangul, Hiragana and Katakana are not in them: those scripts put spaces between words.
CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)
_CJK = regex.compile("[" + "".join(f"\\U{a:08X}-\\U{b:08X}" for a, b in CJK_RANGES) + "]")


def _clean_char(c: str) -> str:
    """BERT's cleaning of one character: "" drops it, " " for whitespace, else itself.

    >>> _clean_char("\\x00"), _clean_char("\\t"), _clean_char("\\u200b"), _clean_char("\\xa0")
    ('', ' ', '', ' ')
    """
    if c in "\t\n\r":  # control characters, but counted as whitespace
        return " "
    category = unicodedata.category(c)
    if (
        c in "\x00\ufffd"
        or category in ("Cc", "Co", "Cs")
        or (category == "Cf" and c not in _CF_UNKNOWN_TO_HF)
    ):
        return ""
    return " " if c in WHITESPACE else c


def _clean_text(ns: NormalizedString) -> NormalizedString:
    """Drop NUL, U+FFFD and control/format/private-use characters; other whitespace -> " "."""
    return map_chars(ns, _CLEAN_CANDIDATES, _clean_char)


def _space_cjk(ns: NormalizedString, by: Any = None) -> NormalizedString:
    """Put a space on each side of every CJK ideograph; all three characters map to it."""
    if ns.normalized.isascii():
        return ns
    return map_chars(ns, _CJK, lambda c: f" {c} ", by=by)


@dataclass(frozen=True)
class BertNormalizer(NormalizerBase):
    """BERT's normaliser, exactly as Hugging Face's, in this order:

    1. `clean_text`: drop NUL, U+FFFD and control characters (Cc, Cf, Co; tab, newline and
       carriage return count as whitespace instead), and turn every whitespace into " ";
    2. `handle_chinese_chars`: put spaces around each CJK ideograph (so each becomes a word);
    3. `strip_accents` (None: do it when lowercasing): NFD, then drop the non-spacing marks
       (Mn only, unlike `StripAccents`: Devanagari vowel signs stay);
    4. `lowercase`.

    >>> BertNormalizer().normalize_str("Crème\\x00 Brûlée\\u200b")
    'creme brulee'
    >>> BertNormalizer(lowercase=False).normalize_str("Crème")   # strip_accents follows lowercase
    'Crème'
    >>> BertNormalizer().describe()
    'BertNormalizer(clean_text, handle_chinese_chars, strip_accents, lowercase)'
    """

    clean_text: bool = True
    handle_chinese_chars: bool = True
    strip_accents: bool | None = None
    lowercase: bool = True

    def __post_init__(self) -> None:
        for name in ("clean_text", "handle_chinese_chars", "lowercase"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInput(f"BertNormalizer {name} must be True or False")
        if self.strip_accents is not None and not isinstance(self.strip_accents, bool):
            raise InvalidInput(
                "BertNormalizer strip_accents must be True, False or None "
                "(None: strip accents when lowercasing)"
            )

    def to_hf_config(self) -> dict[str, Any]:
        return {
            "type": "BertNormalizer",
            "clean_text": self.clean_text,
            "handle_chinese_chars": self.handle_chinese_chars,
            "strip_accents": self.strip_accents,
            "lowercase": self.lowercase,
        }

    @property
    def strips_accents(self) -> bool:
        """The effective accent setting: `strip_accents`, or `lowercase` when it is None."""
        return self.lowercase if self.strip_accents is None else self.strip_accents

    def describe(self) -> str:
        steps = [
            name
            for name, on in (
                ("clean_text", self.clean_text),
                ("handle_chinese_chars", self.handle_chinese_chars),
                ("strip_accents", self.strips_accents),
                ("lowercase", self.lowercase),
            )
            if on
        ]
        return f"BertNormalizer({', '.join(steps)})"

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        fast = _bert_table(self).normalize(checked_input(ns))
        if fast is not None:  # every character on its own (`char_table`)
            check_length(self, ns, len(fast))
            return fast
        return self._normalize_each_step(ns)

    def _is_local(self, c: str) -> bool:
        """Whether `c` normalises the same alone as in any text (`char_table`): not a capital
        sigma (lowercased by context), and with accents stripped, nothing NFD may reorder."""
        if self.lowercase and c == "\u03a3":
            return False
        return not self.strips_accents or nfd_stays_in_place(c, _is_nonspacing_mark)

    def _normalize_each_step(self, ns: NormalizedString) -> NormalizedString:
        """The four steps in turn, on the whole text."""
        checked_input(ns)
        given = ns
        if self.clean_text:
            ns = _clean_text(ns)
        if self.handle_chinese_chars:
            ns = _space_cjk(ns, by=self)  # 3 characters for each ideograph
        if self.strips_accents:
            ns = _drop_marks(NFD().normalize(ns), _is_nonspacing_mark)
        if self.lowercase:
            ns = Lowercase().normalize(ns)
        check_length(self, given, len(ns))
        return ns


_BERT_TABLES: dict[BertNormalizer, CharTable] = {}  # one per setting of the four options


def _bert_table(normalizer: BertNormalizer) -> CharTable:
    """The character table of `normalizer`'s settings, made on first use."""
    table = _BERT_TABLES.get(normalizer)
    if table is None:
        table = _BERT_TABLES[normalizer] = CharTable(
            lambda c: normalizer._normalize_each_step(NormalizedString(c)).normalized,
            normalizer._is_local,
        )
    return table


# ---- prepend and sequence ------------------------------------------------------------------
@dataclass(frozen=True)
class Prepend(NormalizerBase):
    """Put `prepend` in front of non-empty text (Hugging Face's Prepend, used with "▁");
    its characters align with the first character.

    >>> Prepend("▁").normalize(NormalizedString("hi")).alignments
    [(0, 1), (0, 1), (1, 2)]
    """

    prepend: str

    def __post_init__(self) -> None:
        if not isinstance(self.prepend, str):
            raise InvalidInput("Prepend takes a string")

    def describe(self) -> str:
        return f"Prepend({self.prepend!r})"

    def to_hf_config(self) -> dict[str, Any]:
        return {"type": "Prepend", "prepend": self.prepend}

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        if not len(checked_input(ns)):
            return ns
        check_length(self, ns, len(ns) + len(self.prepend))
        return ns.prepend(self.prepend)


@dataclass(frozen=True)
class Sequence(NormalizerBase):
    """Apply normalisers one after the other; alignments compose. The text may grow to
    `max_length` of the text the Sequence was given, over the whole chain: each member that
    can grow a text checks before it builds, and the length is checked after each member (so
    a member of any kind is bounded too); a failure names the member.

    >>> Sequence([NFD(), StripAccents(), Lowercase()]).normalize_str("Ünïcödé")
    'unicode'
    >>> Sequence([Replace("a", "aa")] * 20).normalize_str("aaaa")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.normalizers.aligned.NormalizedTooLong: the normalizer Replace('a' -> 'aa'),
    member 15 of the Sequence, would make this 4-character text 131,072 characters long; a
    normalizer may make a text at most 20 times longer (or 100,000 characters)
    """

    normalizers: SequenceType[Any] = field(default=())  # a list or tuple, kept as a tuple

    def __post_init__(self) -> None:
        if isinstance(self.normalizers, (str, bytes)) or not isinstance(self.normalizers, Iterable):
            raise InvalidInput("Sequence takes a list of normalizers")
        items = tuple(self.normalizers)
        for item in items:
            if not callable(getattr(item, "normalize", None)):
                raise InvalidInput(
                    f"Sequence item {item!r} is not a normalizer (it has no normalize method)"
                )
        object.__setattr__(self, "normalizers", items)

    def describe(self) -> str:
        names = ", ".join(
            getattr(n, "describe", lambda n=n: type(n).__name__)() for n in self.normalizers
        )
        return f"Sequence[{names}]"

    def to_hf_config(self) -> dict[str, Any]:
        return {"type": "Sequence", "normalizers": [hf_config_of(n) for n in self.normalizers]}

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        given = checked_input(ns)
        for member, normalizer in enumerate(self.normalizers, 1):
            try:
                ns = normalizer.normalize(ns)
                check_length(normalizer, given, len(ns))
            except NormalizedTooLong as err:
                raise err.within(member) from None
        return ns


# ---- Hugging Face's tokenizer.json ------------------------------------------------------------
def hf_config_of(normalizer: Any) -> dict[str, Any]:
    """`normalizer.to_hf_config()`, or a `ValueError` naming what tokenizer.json cannot hold."""
    to_config = getattr(normalizer, "to_hf_config", None)
    if to_config is None:
        raise InvalidInput(f"the normalizer {type(normalizer).__name__} has no tokenizer.json form")
    return to_config()

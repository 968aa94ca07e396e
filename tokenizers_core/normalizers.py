"""Normalisers: the first pipeline stage, with Hugging Face `tokenizers` semantics.

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
>>> NFC().normalize(NormalizedString("e\\u0301")).alignments   # "é" covers "e" + accent
[(0, 2)]
>>> BertNormalizer().normalize_str("Héllo\\tWörld 中文")
'hello world  中  文 '
>>> Sequence([NFD(), StripAccents(), Lowercase()]).describe()
'Sequence[NFD, StripAccents, Lowercase]'

Where Hugging Face's behaviour is surprising we follow it and say so: `StripAccents` removes
every combining mark (spacing ones too, such as Devanagari vowel signs), BERT's cleaner keeps a
few recent format characters its tables do not know, and `Lowercase` works character by character
(no final-sigma rule). Unicode data come from Python's `unicodedata`, so characters newer than
its Unicode version (or than Hugging Face's tables) can differ.
"""
from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass, field
from collections.abc import Iterable
from typing import Any, Callable

import regex

from .normalized import NormalizedString

__all__ = [
    "NFC", "NFD", "NFKC", "NFKD", "Lowercase", "StripAccents", "Strip", "Replace",
    "BertNormalizer", "Prepend", "Sequence",
]

# A segment rewrites normalized[start:end] as `out`. `sources` says where each character of
# `out` came from: None for "the whole span start:end" (how "é" from "e" + U+0301 gets the span of
# both), else one index into the normalized text per output character.
Segment = tuple[int, int, str, "range | list[int] | None"]


# ---- shared helpers -----------------------------------------------------------------------
def _checked(ns: Any) -> NormalizedString:
    if not isinstance(ns, NormalizedString):
        raise ValueError("normalize() takes a NormalizedString; "
                         "use normalize_str() for plain text")
    return ns


def _rebuild(ns: NormalizedString, segments: Iterable[Segment]) -> NormalizedString:
    """Apply `segments` (in order, covering the text) and carry the alignments along.

    Unlike `NormalizedString.transform`, a segment says where its output characters came from,
    so a same-length rewrite that is not character by character (NFD of "a" + U+0301 + U+0323
    puts the dot below first) is not mistaken for one.

    >>> _rebuild(NormalizedString("ab"), [(0, 2, "ba", [1, 0])]).alignments
    [(1, 2), (0, 1)]
    >>> _rebuild(NormalizedString("ab"), [(0, 2, "c", None)]).alignments
    [(0, 2)]
    """
    source = ns.alignments
    parts: list[str] = []
    align: list[tuple[int, int]] = []
    pos = 0
    for start, end, out, sources in segments:
        if start != pos or end < start:
            raise ValueError(f"segments must cover the text in order (gap or overlap at {pos})")
        pos = end
        parts.append(out)
        if sources is None:
            align.extend([ns.span(start, end)] * len(out))
        elif isinstance(sources, range):
            align.extend(source[sources.start:sources.stop])
        else:
            align.extend(source[i] for i in sources)
    if pos != len(ns):
        raise ValueError("segments must cover the whole text")
    text = "".join(parts)
    if text == ns.normalized and align == source:
        return ns
    # Offsets in the original text: `align` is built from ns's own spans, segment by segment.
    return NormalizedString(ns.original, _normalized=text, _align=align,
                            _shift=ns.span(0, 0)[0])


def _char_class(code_points: Iterable[int]) -> str:
    """The inside of a regex character class for these code points, as ranges.

    >>> _char_class([0x41, 0x42, 0x43, 0x61])
    '\\\\U00000041-\\\\U00000043\\\\U00000061'
    """
    ranges: list[list[int]] = []
    for cp in sorted(set(code_points)):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return "".join(f"\\U{a:08X}" if a == b else f"\\U{a:08X}-\\U{b:08X}" for a, b in ranges)


class _Normalizer:
    """What every normaliser shares: `normalize_str` and a default `describe`."""

    def normalize(self, ns: NormalizedString) -> NormalizedString:  # pragma: no cover
        raise NotImplementedError

    def describe(self) -> str:
        return type(self).__name__

    def normalize_str(self, text: str) -> str:
        """Normalise plain text (no alignment).

        >>> Lowercase().normalize_str("HeLLo")
        'hello'
        """
        if not isinstance(text, str):
            raise ValueError("normalize_str() takes a string")
        return self.normalize(NormalizedString(text)).normalized


# ---- Unicode normal forms -----------------------------------------------------------------
# Each form is computed chunk by chunk. A chunk starts at a character before which the text has
# a normalisation boundary (UAX #15 "hasBoundaryBefore"): nothing before it can reorder or
# compose with it or with anything after it. That holds when its (full) decomposition starts with
# a character of canonical combining class 0 (reordering never crosses such a character; it
# blocks all later marks from composing with earlier starters) and, for the composing forms,
# that character cannot itself compose with a preceding starter (it is never the second half of
# a canonical pair, nor a Hangul vowel or trailing consonant jamo). Then
# normalize(chunk + rest) == normalize(chunk) + normalize(rest), so each chunk's output
# characters can be aligned to that chunk's span in the input.

_HANGUL_SYLLABLES = range(0xAC00, 0xD7A4)
_HANGUL_V_AND_T = [*range(0x1161, 0x1176), *range(0x11A8, 0x11C3)]  # compose with a preceding L/LV


@functools.lru_cache(maxsize=1)
def _unicode_candidates() -> tuple[frozenset[int], frozenset[int]]:
    """(code points that may matter to some normal form, code points that can compose with a
    preceding starter). Every other code point is its own normal form in all four forms and is
    a boundary. Computed once, on first use (a scan of the Unicode database, ~0.2 s)."""
    decomposition, combining = unicodedata.decomposition, unicodedata.combining
    candidates: set[int] = set(_HANGUL_SYLLABLES)
    backward: set[int] = set(_HANGUL_V_AND_T)
    for cp in range(0x110000):
        c = chr(cp)
        dec = decomposition(c)
        if dec or combining(c):
            candidates.add(cp)
        if dec and not dec.startswith("<"):
            parts = dec.split()
            if len(parts) == 2:          # a canonical pair: its second half composes backward
                backward.add(int(parts[1], 16))
    candidates |= backward
    return frozenset(candidates), frozenset(backward)


@functools.lru_cache(maxsize=4)
def _chunk_pattern(form: str) -> regex.Pattern:
    """A regex whose matches are the chunks of `form` that may change: a boundary character
    followed by the characters that have no boundary before them, or one character that
    normalises to something else on its own. Text between matches is left as it is."""
    candidates, backward = _unicode_candidates()
    composing = form in ("NFC", "NFKC")
    decomposed = {"NFC": "NFD", "NFKC": "NFKD"}.get(form, form)
    no_boundary: list[int] = []
    changes: list[int] = []
    for cp in candidates:
        c = chr(cp)
        first = unicodedata.normalize(decomposed, c)[0]
        if unicodedata.combining(first) or (composing and ord(first) in backward):
            no_boundary.append(cp)
        if unicodedata.normalize(form, c) != c:
            changes.append(cp)
    return regex.compile(f"(?s).?[{_char_class(no_boundary)}]+|[{_char_class(changes)}]")


def _align_chunk(form: str, chunk: str, out: str, start: int) -> list[Segment]:
    """Segments for one chunk: character by character when its characters normalise on their
    own (NFD of "é" -> "e" + U+0301, both from "é"); otherwise, when characters compose or marks
    are reordered, every output character maps to the whole chunk, so a token never splits what
    the user typed as one letter ("e" + U+0301 -> "é" from both; NFD of "â" + U+0323 puts the dot
    below before the circumflex, and all three characters map to both source characters)."""
    pieces = [unicodedata.normalize(form, c) for c in chunk] if len(chunk) > 1 else [out]
    if "".join(pieces) == out:
        return [(start + i, start + i + 1, p, [start + i] * len(p)) for i, p in enumerate(pieces)]
    return [(start, start + len(chunk), out, None)]


def _normalize_form(ns: NormalizedString, form: str) -> NormalizedString:
    text = _checked(ns).normalized
    if text.isascii() or unicodedata.is_normalized(form, text):
        return ns                                   # the fast path: nothing to do
    segments: list[Segment] = []
    pos = 0
    for m in _chunk_pattern(form).finditer(text):
        chunk = m.group()
        out = unicodedata.normalize(form, chunk)
        if out == chunk:
            continue                                # stays inside the unchanged run
        start, end = m.span()
        if start > pos:
            segments.append((pos, start, text[pos:start], range(pos, start)))
        segments.extend(_align_chunk(form, chunk, out, start))
        pos = end
    if pos < len(text):
        segments.append((pos, len(text), text[pos:], range(pos, len(text))))
    return _rebuild(ns, segments)


@dataclass(frozen=True)
class NFC(_Normalizer):
    """Canonical composition: "e" + U+0301 -> "é" (aligned to both source characters).

    >>> NFC().normalize(NormalizedString("cafe\\u0301")).alignments[-1]
    (3, 5)
    """

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        return _normalize_form(ns, "NFC")


@dataclass(frozen=True)
class NFD(_Normalizer):
    """Canonical decomposition: "é" -> "e" + U+0301, both aligned to "é".

    >>> NFD().normalize(NormalizedString("é")).alignments
    [(0, 1), (0, 1)]
    """

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        return _normalize_form(ns, "NFD")


@dataclass(frozen=True)
class NFKC(_Normalizer):
    """Compatibility composition: "ﬁ" -> "fi", "①" -> "1", full-width "Ａ" -> "A".

    >>> NFKC().normalize_str("ＡＢＣ１２３")
    'ABC123'
    """

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        return _normalize_form(ns, "NFKC")


@dataclass(frozen=True)
class NFKD(_Normalizer):
    """Compatibility decomposition: "ﬁ" -> "fi", "é" -> "e" + U+0301.

    >>> [hex(ord(c)) for c in NFKD().normalize_str("ǆ")]
    ['0x64', '0x7a', '0x30c']
    """

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        return _normalize_form(ns, "NFKD")


# ---- lowercase and accents ----------------------------------------------------------------
# Only "İ" (U+0130) lowercases to more than one character ("i" + U+0307). Python's str.lower()
# gives "Σ" the context-dependent final form "ς"; Hugging Face lowercases character by character
# ("σ" always), so these two are handled one at a time and everything else in bulk.
_LOWER_ONE_BY_ONE = regex.compile("[\u0130\u03a3]")


@dataclass(frozen=True)
class Lowercase(_Normalizer):
    """Lowercase each character on its own (Unicode full case mapping, no context rules).

    >>> Lowercase().normalize(NormalizedString("İx")).alignments   # "i̇" has two characters
    [(0, 1), (0, 1), (1, 2)]
    >>> Lowercase().normalize_str("ΟΔΟΣ")                          # no final sigma, as HF
    'οδοσ'
    """

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        text = _checked(ns).normalized
        lowered = text.lower()
        if lowered == text:
            return ns
        if len(lowered) == len(text) and "\u03a3" not in text:
            return ns.transform([(0, len(text), lowered)])   # same length: char to char
        segments: list[tuple[int, int, str]] = []
        pos = 0
        for m in _LOWER_ONE_BY_ONE.finditer(text):
            i = m.start()
            if i > pos:
                segments.append((pos, i, text[pos:i].lower()))
            segments.append((i, i + 1, m.group().lower()))
            pos = i + 1
        if pos < len(text):
            segments.append((pos, len(text), text[pos:].lower()))
        return ns.transform(segments)


# Hugging Face strips accents with two different predicates, which we follow:
# - the StripAccents normaliser drops every combining mark (General_Category M: Mn, Mc and Me,
#   so Devanagari vowel signs go too), by a Unicode 9 table that also has two Vedic signs since
#   recategorised as letters;
# - BertNormalizer drops only non-spacing marks (Mn), by a table that still has U+1734 as Mn.
_HF_EXTRA_MARKS = "\u1cf2\u1cf3"
_HF_EXTRA_NONSPACING = "\u1734"
_MARK_CANDIDATES = regex.compile(r"[\p{M}" + _HF_EXTRA_MARKS + "]+")


def _is_combining_mark(c: str) -> bool:
    """Whether Hugging Face's StripAccents drops `c`.

    >>> _is_combining_mark("\\u0301"), _is_combining_mark("\\u093e"), _is_combining_mark("e")
    (True, True, False)
    """
    return unicodedata.category(c)[0] == "M" or c in _HF_EXTRA_MARKS


def _is_nonspacing_mark(c: str) -> bool:
    """Whether BertNormalizer's accent stripping drops `c`.

    >>> _is_nonspacing_mark("\\u0301"), _is_nonspacing_mark("\\u093e")
    (True, False)
    """
    return unicodedata.category(c) == "Mn" or c == _HF_EXTRA_NONSPACING


def _drop_marks(ns: NormalizedString, is_mark: Callable[[str], bool]) -> NormalizedString:
    text = ns.normalized
    if text.isascii():
        return ns
    segments: list[tuple[int, int, str]] = []
    pos = 0
    for m in _MARK_CANDIDATES.finditer(text):
        start, end = m.span()
        if start > pos:
            segments.append((pos, start, text[pos:start]))
        segments.extend((i, i + 1, "" if is_mark(text[i]) else text[i])
                        for i in range(start, end))
        pos = end
    if not segments:
        return ns
    if pos < len(text):
        segments.append((pos, len(text), text[pos:]))
    return ns.transform(segments)


@dataclass(frozen=True)
class StripAccents(_Normalizer):
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
        return _drop_marks(_checked(ns), _is_combining_mark)


# ---- whitespace -----------------------------------------------------------------------------
# Unicode's White_Space property (Rust's char::is_whitespace, which Hugging Face uses). Python's
# str.isspace() also counts U+001C..U+001F, which Hugging Face does not strip.
WHITESPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
                       "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


@dataclass(frozen=True)
class Strip(_Normalizer):
    """Remove leading (`left`) and trailing (`right`) Unicode whitespace.

    >>> ns = Strip().normalize(NormalizedString("  hi\\u3000"))
    >>> ns.normalized, ns.span(0, len(ns))
    ('hi', (2, 4))
    """

    left: bool = True
    right: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.left, bool) or not isinstance(self.right, bool):
            raise ValueError("Strip(left=..., right=...) takes booleans")

    def describe(self) -> str:
        if self.left and self.right:
            return "Strip"
        return f"Strip({'left' if self.left else 'right' if self.right else 'nothing'})"

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        text = _checked(ns).normalized
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
class Replace(_Normalizer):
    """Replace every match of `pattern` by `content`, left to right, without overlaps.

    A plain string pattern is literal (as in Hugging Face); pass a compiled `regex` (or `re`)
    pattern for a regular expression. Replacement characters map to the whole matched span,
    except that a same-length replacement maps character to character. An empty string pattern
    matches nothing; nothing is replaced in empty text.

    >>> ns = Replace(" ", "▁").normalize(NormalizedString("a b"))
    >>> ns.normalized, ns.alignments
    ('a▁b', [(0, 1), (1, 2), (2, 3)])
    >>> Replace(regex.compile(r"\\s+"), " ").normalize_str("a \\n\\t b")
    'a b'
    """

    pattern: Any
    content: str

    def __post_init__(self) -> None:
        if not isinstance(self.content, str):
            raise ValueError("Replace content must be a string")
        if not isinstance(self.pattern, str) and not callable(getattr(self.pattern,
                                                                      "finditer", None)):
            raise ValueError("Replace pattern must be a string (matched literally) or a "
                             "compiled regex pattern, e.g. regex.compile(r'\\s+')")

    def describe(self) -> str:
        if isinstance(self.pattern, str):
            return f"Replace({self.pattern!r} -> {self.content!r})"
        return f"Replace(/{self.pattern.pattern}/ -> {self.content!r})"

    def _matches(self, text: str) -> Iterable[tuple[int, int]]:
        if not isinstance(self.pattern, str):
            return (m.span() for m in self.pattern.finditer(text))
        return _literal_matches(text, self.pattern)

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        text = _checked(ns).normalized
        segments: list[tuple[int, int, str]] = []
        pos = 0
        if text:
            for start, end in self._matches(text):
                if start > pos:
                    segments.append((pos, start, text[pos:start]))
                segments.append((start, end, self.content))
                pos = end
        if not segments:
            return ns
        if pos < len(text):
            segments.append((pos, len(text), text[pos:]))
        return ns.transform(segments)


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
_CF_UNKNOWN_TO_HF = frozenset("\u0890\u0891\u08e2\U000110cd" +
                              "".join(map(chr, range(0x13430, 0x13440))))
_CLEAN_CANDIDATES = regex.compile(
    "[\x00-\x1f\x7f-\x9f\ufffd\\p{Cf}\\p{Co}\\p{Cs}"
    + "".join(sorted(WHITESPACE - {" "})) + "]+")
# The "CJK Unified Ideographs" blocks of Hugging Face's (and Google BERT's) is_chinese_char.
# Hangul, Hiragana and Katakana are not in them: those scripts put spaces between words.
_CJK_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
               (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))
_CJK = regex.compile("[" + "".join(f"\\U{a:08X}-\\U{b:08X}" for a, b in _CJK_RANGES) + "]")


def _clean_char(c: str) -> str:
    """BERT's cleaning of one character: "" drops it, " " for whitespace, else itself.

    >>> _clean_char("\\x00"), _clean_char("\\t"), _clean_char("\\u200b"), _clean_char("\\xa0")
    ('', ' ', '', ' ')
    """
    if c in "\t\n\r":                   # control characters, but counted as whitespace
        return " "
    category = unicodedata.category(c)
    if c in "\x00\ufffd" or category in ("Cc", "Co", "Cs") or (
            category == "Cf" and c not in _CF_UNKNOWN_TO_HF):
        return ""
    return " " if c in WHITESPACE else c


def _clean_text(ns: NormalizedString) -> NormalizedString:
    """Drop NUL, U+FFFD and control/format/private-use characters; other whitespace -> " "."""
    text = ns.normalized
    segments: list[tuple[int, int, str]] = []
    pos = 0
    for m in _CLEAN_CANDIDATES.finditer(text):
        start, end = m.span()
        if start > pos:
            segments.append((pos, start, text[pos:start]))
        segments.extend((i, i + 1, _clean_char(text[i])) for i in range(start, end))
        pos = end
    if not segments:
        return ns
    if pos < len(text):
        segments.append((pos, len(text), text[pos:]))
    return ns.transform(segments)


def _space_cjk(ns: NormalizedString) -> NormalizedString:
    """Put a space on each side of every CJK ideograph; all three characters map to it."""
    text = ns.normalized
    segments: list[tuple[int, int, str]] = []
    pos = 0
    for m in _CJK.finditer(text):
        i = m.start()
        if i > pos:
            segments.append((pos, i, text[pos:i]))
        segments.append((i, i + 1, f" {m.group()} "))
        pos = i + 1
    if not segments:
        return ns
    if pos < len(text):
        segments.append((pos, len(text), text[pos:]))
    return ns.transform(segments)


@dataclass(frozen=True)
class BertNormalizer(_Normalizer):
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
                raise ValueError(f"BertNormalizer {name} must be True or False")
        if self.strip_accents is not None and not isinstance(self.strip_accents, bool):
            raise ValueError("BertNormalizer strip_accents must be True, False or None "
                             "(None: strip accents when lowercasing)")

    @property
    def strips_accents(self) -> bool:
        """The effective accent setting: `strip_accents`, or `lowercase` when it is None."""
        return self.lowercase if self.strip_accents is None else self.strip_accents

    def describe(self) -> str:
        steps = [name for name, on in (("clean_text", self.clean_text),
                                       ("handle_chinese_chars", self.handle_chinese_chars),
                                       ("strip_accents", self.strips_accents),
                                       ("lowercase", self.lowercase)) if on]
        return f"BertNormalizer({', '.join(steps)})"

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        _checked(ns)
        if self.clean_text:
            ns = _clean_text(ns)
        if self.handle_chinese_chars:
            ns = _space_cjk(ns)
        if self.strips_accents:
            ns = _drop_marks(NFD().normalize(ns), _is_nonspacing_mark)
        if self.lowercase:
            ns = Lowercase().normalize(ns)
        return ns


# ---- prepend and sequence ------------------------------------------------------------------
@dataclass(frozen=True)
class Prepend(_Normalizer):
    """Put `prepend` in front of non-empty text (Hugging Face's Prepend, used with "▁");
    its characters align with the first character.

    >>> Prepend("▁").normalize(NormalizedString("hi")).alignments
    [(0, 1), (0, 1), (1, 2)]
    """

    prepend: str

    def __post_init__(self) -> None:
        if not isinstance(self.prepend, str):
            raise ValueError("Prepend takes a string")

    def describe(self) -> str:
        return f"Prepend({self.prepend!r})"

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        return _checked(ns).prepend(self.prepend) if len(ns) else ns


@dataclass(frozen=True)
class Sequence(_Normalizer):
    """Apply normalisers one after the other; alignments compose.

    >>> Sequence([NFD(), StripAccents(), Lowercase()]).normalize_str("Ünïcödé")
    'unicode'
    """

    normalizers: tuple[Any, ...] = field(default=())

    def __post_init__(self) -> None:
        if isinstance(self.normalizers, (str, bytes)) or not isinstance(
                self.normalizers, Iterable):
            raise ValueError("Sequence takes a list of normalizers")
        items = tuple(self.normalizers)
        for item in items:
            if not callable(getattr(item, "normalize", None)):
                raise ValueError(f"Sequence item {item!r} is not a normalizer "
                                 "(it has no normalize method)")
        object.__setattr__(self, "normalizers", items)

    def describe(self) -> str:
        names = ", ".join(getattr(n, "describe", lambda n=n: type(n).__name__)()
                          for n in self.normalizers)
        return f"Sequence[{names}]"

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        _checked(ns)
        for normalizer in self.normalizers:
            ns = normalizer.normalize(ns)
        return ns

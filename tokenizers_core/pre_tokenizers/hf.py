r"""The pre-tokenizers of Hugging Face `tokenizer.json` files beyond the classic ones, and the
reader of that JSON's "pre_tokenizer" entry. `tokenizers_core.pre_tokenizers` re-exports them.

All of them cut text the way Hugging Face's `NormalizedString::split(pattern, behavior)` does:
the pattern cuts the text into matches and the gaps between them (`hf_regex.find_matches`), then
the **behavior** says what becomes of each match:

- "removed": matches dropped, gaps kept;
- "isolated": every match and every gap a piece of its own;
- "merged_with_previous": a match is glued to the piece before it;
- "merged_with_next": a match is glued to the piece after it;
- "contiguous": consecutive matches form one piece (and so do consecutive gaps).

>>> Split(" ", "merged_with_next").pre_tokenize_str("a b  c")
[('a', (0, 1)), (' b', (1, 3)), (' ', (3, 4)), (' c', (4, 6))]
>>> Digits().pre_tokenize_str("a123b4")
[('a', (0, 1)), ('123', (1, 4)), ('b', (4, 5)), ('4', (5, 6))]
>>> Punctuation().pre_tokenize_str("hi!?")
[('hi', (0, 2)), ('!', (2, 3)), ('?', (3, 4))]

Empty pieces are never kept. Regex patterns are Hugging Face's (Oniguruma, Ruby syntax) run
with the `regex` module; see `hf_regex`.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Any, Callable

import regex

from ..errors import InvalidInput
from ..hf_config import from_entry
from ..hf_regex import char_matches, compile_hf, find_matches
from ..normalized import NormalizedString
from ..normalizers.hf import pattern_from_hf
from .basic import (
    BertPreTokenizer,
    ByteLevel,
    Metaspace,
    PreTokenizerBase,
    Sequence,
    Whitespace,
    WhitespaceSplit,
    is_bert_punctuation,
)

__all__ = [
    "BEHAVIORS",
    "BEHAVIOR_JSON",
    "CharDelimiterSplit",
    "Digits",
    "FixedLength",
    "Punctuation",
    "Split",
    "UnicodeScripts",
    "from_hf_config",
    "split_by_behavior",
]

BEHAVIORS = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")
# how tokenizer.json spells them (serde's names of SplitDelimiterBehavior)
BEHAVIOR_JSON = {
    "Removed": "removed",
    "Isolated": "isolated",
    "MergedWithPrevious": "merged_with_previous",
    "MergedWithNext": "merged_with_next",
    "Contiguous": "contiguous",
}
_JSON_BEHAVIOR = {ours: theirs for theirs, ours in BEHAVIOR_JSON.items()}
Matches = list[tuple[tuple[int, int], bool]]


def _check_behavior(behavior: Any, who: str) -> str:
    if behavior not in BEHAVIORS:
        raise InvalidInput(
            f"{who}: unknown behavior {behavior!r}; choose one of {', '.join(BEHAVIORS)}"
        )
    return behavior


def merge_by_behavior(matches: Matches, behavior: str) -> list[tuple[int, int]]:
    """The spans of the pieces `behavior` makes of `matches` (`((start, end), is_match)`,
    covering the text in order), as Hugging Face's `NormalizedString::split`.

    >>> m = [((0, 1), False), ((1, 2), True), ((2, 3), True), ((3, 4), False)]
    >>> merge_by_behavior(m, "merged_with_previous")
    [(0, 2), (2, 3), (3, 4)]
    >>> merge_by_behavior(m, "merged_with_next")
    [(0, 1), (1, 2), (2, 4)]
    >>> merge_by_behavior(m, "contiguous")
    [(0, 1), (1, 3), (3, 4)]
    """
    if behavior == "removed":
        return [span for span, is_match in matches if not is_match]
    if behavior == "isolated":
        return [span for span, _ in matches]
    out: list[list[int]] = []
    previous = False
    if behavior == "merged_with_next":
        for (start, end), is_match in reversed(matches):
            if is_match and not previous and out:
                out[-1][0] = start  # glue the match to the piece after it
            else:
                out.append([start, end])
            previous = is_match
        return [(s, e) for s, e in reversed(out)]
    for (start, end), is_match in matches:
        if behavior == "contiguous":
            glue = is_match == previous
        else:  # merged_with_previous
            glue = is_match and not previous
        if glue and out:
            out[-1][1] = end
        else:
            out.append([start, end])
        previous = is_match
    return [(s, e) for s, e in out]


def split_by_behavior(
    text: NormalizedString, matches: Matches, behavior: str
) -> list[NormalizedString]:
    """The non-empty pieces of `text`, each still aligned to the original text."""
    return [
        text.slice(start, end) for start, end in merge_by_behavior(matches, behavior) if start < end
    ]


class Split(PreTokenizerBase):
    r"""Hugging Face's `Split`: cut on a pattern, a literal string or (`is_regex`) a regex.

    With `invert`, the pattern matches the pieces instead of the delimiters (the flags are
    flipped before `behavior` applies).

    >>> Split(r"\d", "removed", is_regex=True).pre_tokenize_str("a1b")
    [('a', (0, 1)), ('b', (2, 3))]
    >>> Split(r"\w+", "removed", invert=True, is_regex=True).pre_tokenize_str("hi, you")
    [('hi', (0, 2)), ('you', (4, 7))]
    """

    def __init__(
        self, pattern: str, behavior: str, invert: bool = False, *, is_regex: bool = False
    ) -> None:
        self.pattern = pattern
        self.is_regex = bool(is_regex)
        self.behavior = _check_behavior(behavior, "Split")
        if not isinstance(invert, bool):
            raise InvalidInput(f"Split: invert must be true or false, not {invert!r}")
        self.invert = invert
        self._compiled = compile_hf(pattern, literal=not is_regex)

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        matches = find_matches(self._compiled, text.normalized, self.invert)
        return split_by_behavior(text, matches, self.behavior)

    def describe(self) -> str:
        shown = f"/{self.pattern}/" if self.is_regex else repr(self.pattern)
        return f"Split ({shown}, {self.behavior}{', inverted' if self.invert else ''})"

    def to_hf_config(self) -> dict[str, Any]:
        return {
            "type": "Split",
            "pattern": {"Regex" if self.is_regex else "String": self.pattern},
            "behavior": _JSON_BEHAVIOR[self.behavior],
            "invert": self.invert,
        }


class _CharSplit(PreTokenizerBase):
    """Split on the characters a predicate picks, with a behavior."""

    behavior = "isolated"

    def _is_match(self, c: str) -> bool:  # pragma: no cover
        raise NotImplementedError

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        return split_by_behavior(text, char_matches(self._is_match, text.normalized), self.behavior)


class Punctuation(_CharSplit):
    """Hugging Face's `Punctuation`: cut on every punctuation character (ASCII punctuation or
    Unicode P*, by Unicode 8.0's tables, as `BertPreTokenizer`), "isolated" by default.

    >>> Punctuation("merged_with_previous").pre_tokenize_str("Hey! you?")
    [('Hey!', (0, 4)), (' you?', (4, 9))]
    """

    def __init__(self, behavior: str = "isolated") -> None:
        self.behavior = _check_behavior(behavior, "Punctuation")

    def _is_match(self, c: str) -> bool:
        return is_bert_punctuation(c)

    def describe(self) -> str:
        return f"Punctuation ({self.behavior})"

    def to_hf_config(self) -> dict[str, Any]:
        return {"type": "Punctuation", "behavior": _JSON_BEHAVIOR[self.behavior]}


def _is_numeric(c: str) -> bool:
    """Rust's `char::is_numeric`: general category Nd, Nl or No (not Python's `isnumeric`,
    which also takes ideographs such as "三")."""
    return unicodedata.category(c) in ("Nd", "Nl", "No")


class Digits(_CharSplit):
    """Hugging Face's `Digits`: numbers (Unicode Nd, Nl, No) apart from the rest; each digit
    apart with `individual_digits`.

    >>> Digits(individual_digits=True).pre_tokenize_str("a12")
    [('a', (0, 1)), ('1', (1, 2)), ('2', (2, 3))]
    """

    def __init__(self, individual_digits: bool = False) -> None:
        if not isinstance(individual_digits, bool):
            raise InvalidInput(
                f"Digits: individual_digits must be true or false, not {individual_digits!r}"
            )
        self.individual_digits = individual_digits
        self.behavior = "isolated" if individual_digits else "contiguous"

    def _is_match(self, c: str) -> bool:
        return _is_numeric(c)

    def describe(self) -> str:
        return "Digits" + (" (individual)" if self.individual_digits else "")

    def to_hf_config(self) -> dict[str, Any]:
        return {"type": "Digits", "individual_digits": self.individual_digits}


class CharDelimiterSplit(_CharSplit):
    """Hugging Face's `CharDelimiterSplit`: cut on one character, which is removed.

    >>> CharDelimiterSplit("|").pre_tokenize_str("a|b||c")
    [('a', (0, 1)), ('b', (2, 3)), ('c', (5, 6))]
    """

    behavior = "removed"

    def __init__(self, delimiter: str) -> None:
        if not isinstance(delimiter, str) or len(delimiter) != 1:
            raise InvalidInput(
                f"CharDelimiterSplit: the delimiter must be one character, not {delimiter!r}"
            )
        self.delimiter = delimiter

    def _is_match(self, c: str) -> bool:
        return c == self.delimiter

    def describe(self) -> str:
        return f"CharDelimiterSplit ({self.delimiter!r})"

    def to_hf_config(self) -> dict[str, Any]:
        return {"type": "CharDelimiterSplit", "delimiter": self.delimiter}


class FixedLength(PreTokenizerBase):
    """Hugging Face's `FixedLength`: pieces of `length` characters (the last may be shorter).

    >>> FixedLength(3).pre_tokenize_str("abcdefg")
    [('abc', (0, 3)), ('def', (3, 6)), ('g', (6, 7))]
    """

    def __init__(self, length: int = 5) -> None:
        if not isinstance(length, int) or isinstance(length, bool) or length < 1:
            raise InvalidInput(f"FixedLength: length must be a whole number >= 1, not {length!r}")
        self.length = length

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        return [
            text.slice(i, min(i + self.length, len(text))) for i in range(0, len(text), self.length)
        ]

    def to_hf_config(self) -> dict[str, Any]:
        return {"type": "FixedLength", "length": self.length}

    def describe(self) -> str:
        return f"FixedLength ({self.length})"


# ---- UnicodeScripts ------------------------------------------------------------------------------
# The scripts of Hugging Face's table (sentencepiece's, Unicode 9.0). A character assigned
# since is "Any" there, like the space: it never starts a new piece. Those characters (for
# Python's Unicode 14 database), and the few whose script has changed since, were read off by
# running tokenizers 0.23.3 over every code point;
# tests/core/pre_tokenizers/test_hf_pre_tokenizers.py checks.
_SCRIPTS = (
    "Adlam Ahom AnatolianHieroglyphs Arabic Armenian Avestan Balinese Bamum BassaVah Batak "
    "Bengali Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid CanadianAboriginal Carian "
    "CaucasianAlbanian Chakma Cham Cherokee Common Coptic Cuneiform Cypriot Cyrillic Deseret "
    "Devanagari Duployan EgyptianHieroglyphs Elbasan Ethiopic Georgian Glagolitic Gothic "
    "Grantha Greek Gujarati Gurmukhi Han Hangul Hanunoo Hatran Hebrew Hiragana ImperialAramaic "
    "Inherited InscriptionalPahlavi InscriptionalParthian Javanese Kaithi Kannada Katakana "
    "KayahLi Kharoshthi Khmer Khojki Khudawadi Lao Latin Lepcha Limbu LinearA LinearB Lisu "
    "Lycian Lydian Mahajani Malayalam Mandaic Manichaean Marchen MeeteiMayek MendeKikakui "
    "MeroiticCursive MeroiticHieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean "
    "NewTaiLue Newa Nko Ogham OlChiki OldHungarian OldItalic OldNorthArabian OldPermic "
    "OldPersian OldSouthArabian OldTurkic Oriya Osage Osmanya PahawhHmong Palmyrene PauCinHau "
    "PhagsPa Phoenician PsalterPahlavi Rejang Runic Samaritan Saurashtra Sharada Shavian "
    "Siddham SignWriting Sinhala SoraSompeng Sundanese SylotiNagri Syriac Tagalog Tagbanwa "
    "TaiLe TaiTham TaiViet Takri Tamil Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta "
    "Ugaritic Vai WarangCiti Yi"
).split()
_UNKNOWN_TO_HF = frozenset(
    chr(cp)
    for item in (
        "0560 0588 05EF 061D 07FD-07FF 0860-086A 0870-088E 0890-0891 0898-089F 08B5 08BE-08D3 "
        "09FC-09FE 0A76 0AFA-0AFF 0B55 0C04 0C3C 0C5D 0C77 0C84 0CDD 0D00 0D04 0D3B-0D3C 0D81 0E86 "
        "0E89 0E8C 0E8E-0E93 0E98 0EA0 0EA8-0EA9 0EAC 0EBA 170D 1715 171F 180F 1878 1ABF-1ACE 1B4C "
        "1B7D-1B7E 1C90-1CBA 1CBD-1CBF 1CF7 1CFA 1DF6-1DFA 20BF-20C0 23FF 2B97 2BBA-2BBC 2BC9 "
        "2BD2-2BEB 2BF0-2BFF 2C2F 2C5F 2E45-2E5D 312E-312F 31BB-31BF 32FF 4DB6-4DBF 9FD6-9FFF A7AF "
        "A7B8-A7CA A7D0-A7D1 A7D3 A7D5-A7D9 A7F2-A7F6 A82C A8FE-A8FF AB66-AB6B FBC2 FD40-FD4F FDCF "
        "FDFE-FDFF 1019C 1032D-1032F 10780-10785 10787-107B0 107B2-107BA 10A34-10A35 10A48 "
        "11070-11075 110C2 110CD 11144-11147 111CE-111CF 1133B 1145A 1145E-11461 116B8-116B9 1171A "
        "11740-11746 11AB0-11ABF 11FB0 11FC0-11FF1 11FFF 13430-13438 16F45-16F4A 16F4F 16F7F-16F87 "
        "16FE2-16FE3 16FF0-16FF1 187ED-187F7 18AF3-18AFF 18D00-18D08 1AFF0-1AFF3 1AFF5-1AFFB "
        "1AFFD-1AFFE 1B002-1B122 1B150-1B152 1B164-1B167 1CF00-1CF2D 1CF30-1CF46 1CF50-1CFC3 "
        "1D1E9-1D1EA 1D2E0-1D2F3 1D372-1D378 1DF00-1DF1E 1E7E0-1E7E6 1E7E8-1E7EB 1E7ED-1E7EE "
        "1E7F0-1E7FE 1E94B 1EC71-1ECB4 1ED01-1ED3D 1F10D-1F10F 1F12F 1F16C-1F16F 1F1AD 1F260-1F265 "
        "1F6D3-1F6D7 1F6DD-1F6DF 1F6F7-1F6FC 1F7D5-1F7D8 1F7E0-1F7EB 1F7F0 1F8B0-1F8B1 1F900-1F90F "
        "1F91F 1F928-1F92F 1F931-1F932 1F93F 1F94C-1F94F 1F95F-1F97F 1F992-1F9BF 1F9C1-1FA53 "
        "1FA60-1FA6D 1FA70-1FA74 1FA78-1FA7C 1FA80-1FA86 1FA90-1FAAC 1FAB0-1FABA 1FAC0-1FAC5 "
        "1FAD0-1FAD9 1FAE0-1FAE7 1FAF0-1FAF6 1FB00-1FB92 1FB94-1FBCA 1FBF0-1FBF9 2A6D7-2A6DF "
        "2B735-2B738 2CEB0-2EBE0 30000-3134A"
    ).split()
    for cp in range(
        int(item.partition("-")[0], 16),
        int(item.partition("-")[2] or item.partition("-")[0], 16) + 1,
    )
)
_SCRIPT_CHANGED = {
    "\u0589": "Common",
    "\u061c": "Common",
    "\u0953": "Devanagari",
    "\u0954": "Devanagari",
}


@functools.cache
def _script_re() -> regex.Pattern[str]:
    """One named group per script (compiled on first use: it costs milliseconds at import)."""
    return regex.compile("|".join(f"(?P<{name}>\\p{{Script={name}}})" for name in _SCRIPTS))


@functools.lru_cache(maxsize=1 << 16)
def script_of(c: str) -> str:
    """The script Hugging Face's `UnicodeScripts` gives `c` ("Any" never cuts): Hiragana,
    Katakana and U+30FC count as Han, the space as Any.

    >>> script_of("a"), script_of("カ"), script_of(" "), script_of("1")
    ('Latin', 'Han', 'Any', 'Common')
    """
    if c == " ":
        return "Any"
    if c == "\u30fc":
        return "Han"
    if c in _UNKNOWN_TO_HF:
        return "Any"
    if c in _SCRIPT_CHANGED:
        return _SCRIPT_CHANGED[c]
    m = _script_re().match(c, concurrent=False)
    script = (m.lastgroup if m else None) or "Any"  # (a match always names its group)
    return "Han" if script in ("Hiragana", "Katakana") else script


class UnicodeScripts(PreTokenizerBase):
    """Hugging Face's `UnicodeScripts`: a new piece wherever the script changes (spaces and
    characters of no known script belong to the piece before them).

    As in Hugging Face, pieces start at the first character that has a script, so spaces at
    the start of the text are dropped:

    >>> UnicodeScripts().pre_tokenize_str(" abc日本語 def")
    [('abc', (1, 4)), ('日本語 ', (4, 8)), ('def', (8, 11))]
    """

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        cuts = []
        last = None
        for i, c in enumerate(text.normalized):
            script = script_of(c)
            if script != "Any" and last != "Any" and last != script:
                cuts.append(i)
            if script != "Any":
                last = script
        cuts.append(len(text))
        return [text.slice(a, b) for a, b in zip(cuts, cuts[1:]) if a < b]

    def describe(self) -> str:
        return "UnicodeScripts"


# ---- Hugging Face's tokenizer.json --------------------------------------------------------------
def _bool(config: dict[str, Any], key: str, default: Any) -> Any:
    value = config.get(key, default)
    if not isinstance(value, bool):
        raise InvalidInput(f"{key} must be true or false, not {value!r}")
    return value


def _required(config: dict[str, Any], key: str) -> Any:
    if key not in config:
        raise InvalidInput(f"it has no {key!r}")
    return config[key]


def _behavior(config: dict[str, Any], default: str | None = None) -> str:
    value = config.get("behavior", default) if default else _required(config, "behavior")
    if value not in BEHAVIOR_JSON:
        raise InvalidInput(f"unknown behavior {value!r}; choose one of {', '.join(BEHAVIOR_JSON)}")
    return BEHAVIOR_JSON[value]


def _metaspace(config: dict[str, Any]) -> Metaspace:
    replacement = _required(config, "replacement")
    scheme = config.get("prepend_scheme", "always")
    add_prefix_space = config.get("add_prefix_space")
    if add_prefix_space is False and scheme != "never":  # the legacy option, read as HF does
        raise InvalidInput("add_prefix_space does not match declared prepend_scheme")
    return Metaspace(replacement, prepend_scheme=scheme, split=_bool(config, "split", True))


def _split(config: dict[str, Any]) -> Split:
    text, is_regex = pattern_from_hf(_required(config, "pattern"))
    return Split(text, _behavior(config), _bool(config, "invert", False), is_regex=is_regex)


_BUILDERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "ByteLevel": lambda c: ByteLevel(
        add_prefix_space=_bool(c, "add_prefix_space", True),
        trim_offsets=_bool(c, "trim_offsets", True),
        use_regex=_bool(c, "use_regex", True),
    ),
    "Split": _split,
    "Metaspace": _metaspace,
    "Whitespace": lambda c: Whitespace(),
    "WhitespaceSplit": lambda c: WhitespaceSplit(),
    "BertPreTokenizer": lambda c: BertPreTokenizer(),
    "Punctuation": lambda c: Punctuation(_behavior(c, "Isolated")),
    "Digits": lambda c: Digits(_bool(c, "individual_digits", False)),
    "CharDelimiterSplit": lambda c: CharDelimiterSplit(_required(c, "delimiter")),
    "UnicodeScripts": lambda c: UnicodeScripts(),
    "FixedLength": lambda c: FixedLength(c.get("length", 5)),
    "Sequence": lambda c: _sequence(c),
}
SUPPORTED = list(_BUILDERS)


def _sequence(config: dict[str, Any]) -> Sequence:
    items = _required(config, "pretokenizers")
    if not isinstance(items, list):
        raise InvalidInput("pretokenizers must be a list")
    return Sequence([from_hf_config(item) for item in items])


def from_hf_config(config: dict[str, Any] | None) -> Any:
    """The pre-tokenizer a `tokenizer.json` "pre_tokenizer" entry describes (None for null).

    >>> from_hf_config({"type": "Sequence", "pretokenizers": [
    ...     {"type": "WhitespaceSplit"}, {"type": "Digits", "individual_digits": True}]})
    Sequence [WhitespaceSplit, Digits (individual)]

    An unknown type or a bad option raises `ValueError` naming the pre-tokenizer.
    """
    return from_entry(config, "pre_tokenizer", _BUILDERS)

"""llama.cpp's WordPiece pre-processing (WPM, `tokenizer.ggml.model` "bert"), as a normaliser
and a pre-tokenizer of our own.

llama.cpp does not run BERT's normaliser: `llm_tokenizer_wpm_session::preprocess` in
`src/llama-vocab.cpp` walks the code points once, with the tables of `src/unicode.cpp`
(`unicode_cpt_flags_from_cpt`, `unicode_cpts_normalize_nfd`, `unicode_tolower`), which
`scripts/gen-unicode-data.py` builds from UnicodeData.txt. Per code point, in this order:

1. with `strip_accents`, "NFD" keeps only the **first** code point of the character's
   canonical decomposition (`unicode_cpts_normalize_nfd`): "é" becomes "e", and a Hangul
   syllable becomes its leading consonant alone ("한" -> "ᄒ", the vowel and final jamo go);
2. Unicode White_Space (`\\x0b`, `\\x0c`, U+0085, U+00A0, ... as well as space, tab and line
   breaks) ends the word;
3. NUL, U+FFFD and every other C* character (Cc, Cf, Co, Cs) are dropped;
4. with `strip_accents`, every mark (Mn, **Mc** and Me) is dropped: spacing marks such as the
   Devanagari vowel signs go too ("का" -> "क"), where BERT drops only Mn;
5. with `lowercase`, UnicodeData's one-code-point lowercase mapping ("İ" -> "i", never two
   code points);
6. punctuation (P*), an ASCII symbol ($ + < = > ^ ` | ~) or a CJK ideograph (BERT's ranges)
   is a word of its own; anything else joins the word.

`WpmNormalizer` does steps 1-5 (a word-ending character becomes " "), `WpmPreTokenizer`
steps 2 and 6. The flags are read from Python's `unicodedata` with llama.cpp's rules, so code
points newer than Python's Unicode version are ordinary characters here (the one thing not
reproduced). The two options come from `tokenizer.ggml.normalizer.lowercase` and
`.strip_accents` (both default on; `strip_accents` follows `lowercase`), as llama.cpp reads
them.

>>> WpmNormalizer().normalize_str("Crème\\x0bBRÛLÉE 한국")
'creme brulee ᄒᄀ'
>>> [piece for piece, _ in WpmPreTokenizer().pre_tokenize_str("a,b$c€d 中文")]
['a', ',', 'b', '$', 'c€d', '中', '文']
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from typing import Any

import regex

from ..errors import InvalidInput
from ..normalized import NormalizedString
from ..normalizers import BertNormalizer
from ..normalizers.aligned import NormalizerBase, checked_input, map_chars
from ..normalizers.basic import CJK_RANGES, WHITESPACE
from ..pre_tokenizers import BertPreTokenizer
from ..pre_tokenizers.basic import PreTokenizerBase

# WHITESPACE and CJK_RANGES are the BERT normaliser's: llama.cpp's gen-unicode-data.py lists the
# same White_Space set, and its `is_chinese_char` has BERT's ranges.

# the ASCII symbols (S*, below 0x7F) that llama.cpp isolates like punctuation
ASCII_SYMBOLS = "$+<=>^`|~"
# characters every step leaves as they are: space, digits, ASCII punctuation, a-z
_CANDIDATES = regex.compile(r"[^ !-@\[-~]")


def first_of_nfd(c: str) -> str:
    """The first code point of `c`'s canonical decomposition (llama.cpp's "NFD").

    >>> first_of_nfd("é"), first_of_nfd("한"), first_of_nfd("a")
    ('e', 'ᄒ', 'a')
    """
    return unicodedata.normalize("NFD", c)[0]


def simple_lower(c: str) -> str:
    """UnicodeData's lowercase mapping of one code point (one code point, never more).

    >>> simple_lower("A"), simple_lower("İ"), simple_lower("Σ")
    ('a', 'i', 'σ')
    """
    low = c.lower()
    return low if len(low) == 1 else "i" if c == "\u0130" else c


def is_control(c: str) -> bool:
    """llama.cpp's CONTROL flag: categories Cc, Cf, Co and Cs (not Cn, which it calls
    undefined and keeps).

    >>> is_control("\\x01"), is_control("\\u200d"), is_control("\\U000e01f0")
    (True, True, False)
    """
    return unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs")


def is_mark(c: str) -> bool:
    """llama.cpp's accent mark: any M* (Mn, Mc, Me)."""
    return unicodedata.category(c)[0] == "M"


def is_cjk(c: str) -> bool:
    """llama.cpp's `is_chinese_char`."""
    cp = ord(c)
    return any(first <= cp <= last for first, last in CJK_RANGES)


def is_own_word(c: str) -> bool:
    """Whether llama.cpp makes `c` a word of its own: punctuation, an ASCII symbol, a CJK
    ideograph.

    >>> [is_own_word(c) for c in "«$€中a"]
    [True, True, False, True, False]
    """
    return unicodedata.category(c)[0] == "P" or c in ASCII_SYMBOLS or is_cjk(c)


def _char_class(code_points: list[int]) -> str:
    """'[...]' of these code points, as ranges."""
    parts: list[str] = []
    start = prev = -2
    for cp in [*code_points, -1]:
        if cp == prev + 1:
            prev = cp
            continue
        if start >= 0:
            parts.append(f"\\U{start:08X}" + (f"-\\U{prev:08X}" if prev > start else ""))
        start = prev = cp
    return "[" + "".join(parts) + "]"


@functools.cache
def _pieces_pattern() -> regex.Pattern[str]:
    """A word-ending run is skipped; a character that is a word of its own is a piece; a run of
    anything else is a piece. Built once from `unicodedata` (about a tenth of a second)."""
    own = sorted(
        {cp for cp in range(0x110000) if unicodedata.category(chr(cp))[0] == "P"}
        | {ord(c) for c in ASCII_SYMBOLS}
        | {cp for first, last in CJK_RANGES for cp in range(first, last + 1)}
    )
    own_class = _char_class(own)
    space_class = _char_class(sorted(map(ord, WHITESPACE)))
    return regex.compile(f"{own_class}|[^{own_class[1:-1]}{space_class[1:-1]}]+")


@dataclass(frozen=True)
class WpmNormalizer(NormalizerBase):
    """llama.cpp's WPM pre-processing, steps 1-5 (see the module): first code point of the
    NFD, word-ending white space -> " ", controls dropped, marks dropped, one-code-point
    lowercase. Offsets stay characters of the original text (each output character keeps the
    span of the character it came from).

    >>> WpmNormalizer().normalize_str("का\\u200dÅ\\x00")
    'कa'
    >>> WpmNormalizer(lowercase=False, strip_accents=False).normalize_str("Éa\\x0b")
    'Éa '
    """

    lowercase: bool = True
    strip_accents: bool = True

    def __post_init__(self) -> None:
        for name in ("lowercase", "strip_accents"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInput(f"WpmNormalizer {name} must be True or False")

    def char(self, c: str) -> str:
        """What the steps make of one character ("" drops it)."""
        if self.strip_accents:
            c = first_of_nfd(c)
        if c in WHITESPACE:
            return " "
        if c in "\x00\ufffd" or is_control(c) or (self.strip_accents and is_mark(c)):
            return ""
        return simple_lower(c) if self.lowercase else c

    def normalize(self, ns: NormalizedString) -> NormalizedString:
        return map_chars(checked_input(ns), _CANDIDATES, self.char, by=self)

    def describe(self) -> str:
        steps = ["first code point of NFD"] if self.strip_accents else []
        steps.append("white space -> ' '")
        steps.append("drop controls" + (" and marks" if self.strip_accents else ""))
        if self.lowercase:
            steps.append("lowercase")
        return f"llama.cpp WPM ({', '.join(steps)})"

    def to_hf_config(self) -> dict[str, Any]:
        """The nearest tokenizer.json form, BERT's normaliser (which differs on Hangul,
        spacing marks, vertical tab and the like: tokenizer.json cannot say llama.cpp's)."""
        return BertNormalizer(
            lowercase=self.lowercase, strip_accents=self.strip_accents
        ).to_hf_config()


class WpmPreTokenizer(PreTokenizerBase):
    """llama.cpp's WPM pre-processing, steps 2 and 6: white space ends a word, and each
    punctuation character, ASCII symbol or CJK ideograph is a word of its own.

    >>> WpmPreTokenizer().pre_tokenize_str("x\\x0by.")
    [('x', (0, 1)), ('y', (2, 3)), ('.', (3, 4))]
    """

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        return [
            text.slice(m.start(), m.end())
            for m in _pieces_pattern().finditer(text.normalized, concurrent=False)
        ]

    def describe(self) -> str:
        return "llama.cpp WPM (split on white space; punctuation, ASCII symbols, CJK alone)"

    def to_hf_config(self) -> dict[str, Any]:
        """The nearest tokenizer.json form, BERT's pre-tokenizer."""
        return BertPreTokenizer().to_hf_config()

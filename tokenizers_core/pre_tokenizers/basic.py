r"""The pre-tokenizers written out here (the package re-exports them with `hf.py`'s).

Pre-tokenizers are stage 2 of the pipeline, where text is cut into pieces ("words").

A pre-tokenizer has `split(NormalizedString) -> list[NormalizedString]`. Every piece is made with
`NormalizedString.slice` or `.transform`, so it still knows which characters of the **original**
text it came from: `piece.span(0, len(piece))` are its offsets (character positions, end
exclusive). `pre_tokenize_str(text)` gives `[(piece, (start, end)), ...]` like Hugging Face's
method of the same name:

>>> Whitespace().pre_tokenize_str("Hi, you!")
[('Hi', (0, 2)), (',', (2, 3)), ('you', (4, 7)), ('!', (7, 8))]
>>> ByteLevel().pre_tokenize_str("Hi you")
[('Hi', (0, 2)), ('Ġyou', (2, 6))]

What each one is, and whose rules it follows:

- `Whitespace`: `\w+|[^\w\s]+`, Hugging Face's `Whitespace` (its `\w` is Unicode's word class:
  Alphabetic, marks, decimal digits, connector punctuation, join controls; the `regex` module's
  `\w` is the same set, and `\s` is the White_Space property in both).
- `WhitespaceSplit`: runs of non-whitespace (Hugging Face's `WhitespaceSplit`).
- `BertPreTokenizer`: split on whitespace, then isolate every punctuation character (ASCII
  punctuation or Unicode category P*), Hugging Face's `BertPreTokenizer`.
- `Regex`: the pieces are the matches of a pattern, tiktoken-style (`regex.findall`), with the
  presets "gpt2" (r50k_base, p50k), "cl100k" and "o200k" being tiktoken's own pattern strings;
  or any user pattern, compiled and run with a time limit (errors become `ValueError`).
- `ByteLevel`: Hugging Face's GPT-2 byte-level pre-tokenizer: optional prefix space, the GPT-2
  regex, then every UTF-8 byte shown as one character of the GPT-2 byte-to-unicode table
  ("Ġ" is the space byte).
- `Metaspace`: SentencePiece-style: spaces become "▁", a "▁" is prepended, and the text is cut
  before each "▁" (Hugging Face's `Metaspace`).
- `Sequence`: several pre-tokenizers in a row, each applied to every piece of the previous one.

**The GPT-2 pattern, Hugging Face vs tiktoken.** Hugging Face's ByteLevel
(`tokenizers/src/pre_tokenizers/byte_level.rs`) compiles the pattern of OpenAI's original GPT-2
`encoder.py` with Oniguruma::

    's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+

tiktoken 0.14 (`tiktoken_ext/openai_public.py`, `r50k_pat_str`) ships a rewritten form, which
its comment calls "equivalent, but executes faster"::

    '(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s

The rewrite touches only whitespace: (1) `\s++$` takes a whitespace run that reaches the end of
the text in one possessive step, where GPT-2's `\s+(?!\S)` reaches the same match by
backtracking; (2) the last resort is a single `\s`, not `\s+`. The last resort only fires for a
whitespace run of length one followed by a non-space that ` ?\p{L}+` etc. cannot take (a tab or
newline before a word: "a\tb"); for a longer run `\s+(?!\S)` has already taken all but the last
character, so `\s` and `\s+` match the same single character. So at the end of the text both give
one piece for all trailing whitespace ("a  \n" -> "a", "  \n"), and inside the text both give
"all but the last whitespace character" then the last one (as a space prefix of the next word, or
alone): "a   b" -> "a", "  ", " b". (tiktoken's Rust runs the pattern with fancy-regex, where `$`
is only the end of the text; in Python's `regex`, `$` also matches before a final "\n", but
after the possessive `\s++` has eaten that "\n" this cannot change a match.)

We found no text on which the two patterns differ: the tests compare them on every string of up
to 5 characters over an alphabet with one character of each class (space, tab, newline, letter,
digit, apostrophe, punctuation; up to 8 characters when this was written: 6.7 million strings),
on Hypothesis-generated whitespace-heavy strings, and `ByteLevel` against Hugging Face and
`Regex("gpt2")` against tiktoken on the 33 UDHR languages and botchan
(`tests/core/pre_tokenizers/test_pre_tokenizers.py`). `ByteLevel` uses Hugging Face's own string
(`HF_BYTE_LEVEL_PATTERN`), `Regex("gpt2")` tiktoken's (`GPT2_PATTERN`), both run with the `regex`
module, whose `\s`, `\w`, `\p{L}`, `\p{N}` are the same properties as Oniguruma's and Rust's.
What differs is only the Unicode version of the tables: a character assigned recently (say
U+323B0, a CJK Extension J ideograph of Unicode 17) is a letter to `regex` and unassigned to
Hugging Face's older tables. For BERT's punctuation, whose Hugging Face tables are Unicode 8.0's,
we reproduce the old tables exactly (see `is_bert_punctuation`).

Hugging Face's `Split` (every behavior, `invert`), `Punctuation`, `Digits`, `CharDelimiterSplit`,
`UnicodeScripts`, `FixedLength` and the reader of tokenizer.json's "pre_tokenizer"
(`from_hf_config`) are in `pre_tokenizers/hf.py`. `ByteLevel`'s offset trimming belongs after the
model (`ByteLevel.trim_offsets_of`), not here.
"""

from __future__ import annotations

from typing import Any, Iterable
from typing import Sequence as SequenceType

import regex

from ..byte_level import BYTE_TO_CHAR, bytes_to_unicode, to_byte_level, unicode_to_bytes  # noqa: F401
from ..errors import InvalidInput
from ..hf_regex import translate
from ..normalized import NormalizedString
from ..steps import describe
from ..user_regex import TimedPattern, compile_pattern, match_spans

# ---- tiktoken's patterns, verbatim from tiktoken 0.14.0 tiktoken_ext/openai_public.py ------------
GPT2_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
)
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
# Meta's Llama 3 pattern (from its public tokenizer code): cl100k's alternatives, no possessives.
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"""
    r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
# p50k_base uses r50k's pattern (tiktoken); Llama 4 uses o200k's.
PRESETS: dict[str, str] = {
    "gpt2": GPT2_PATTERN,
    "r50k": GPT2_PATTERN,
    "p50k": GPT2_PATTERN,
    "cl100k": CL100K_PATTERN,
    "o200k": O200K_PATTERN,
    "llama3": LLAMA3_PATTERN,
}

# Hugging Face's ByteLevel pattern (byte_level.rs), which is OpenAI's original GPT-2 pattern.
HF_BYTE_LEVEL_PATTERN = (
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
)

WHITESPACE_PATTERN = r"\w+|[^\w\s]+"

_PRESET_RE = {name: regex.compile(p) for name, p in PRESETS.items()}
HF_BYTE_LEVEL_RE = regex.compile(HF_BYTE_LEVEL_PATTERN)
_WHITESPACE_RE = regex.compile(WHITESPACE_PATTERN)
_SPACE_RE = regex.compile(r"\s")
_NON_SPACE_RE = regex.compile(r"\S+")  # \s is the White_Space property
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# Hugging Face decides "Unicode punctuation" with the Rust crate unicode_categories 0.1.1, whose
# tables are Unicode 8.0's. To give the same pieces we use today's P* (the `regex` module's
# tables) minus the punctuation assigned since 8.0, plus U+166D and U+111C9, which were
# punctuation then and are a symbol and a mark now. (Checked code point by code point against
# tokenizers 0.23.3 in tests/core/pre_tokenizers/test_pre_tokenizers.py.)
_PUNCT_SINCE_UNICODE_8 = (
    "\u061d\u09fd\u0a76\u0c77\u0c84\u1b4e-\u1b4f\u1b7d-\u1b7f\u2e43-\u2e4f\u2e52-\u2e5d"
    "\U00010d6e\U00010ead\U00010ed0\U00010f55-\U00010f59\U00010f86-\U00010f89"
    "\U000113d4-\U000113d5\U000113d7-\U000113d8\U0001144b-\U0001144f\U0001145a-\U0001145b"
    "\U0001145d\U00011660-\U0001166c\U000116b9\U0001183b\U00011944-\U00011946\U000119e2"
    "\U00011a3f-\U00011a46\U00011a9a-\U00011a9c\U00011a9e-\U00011aa2\U00011b00-\U00011b09"
    "\U00011be1\U00011c41-\U00011c45\U00011c70-\U00011c71\U00011ef7-\U00011ef8"
    "\U00011f43-\U00011f4f\U00011fff\U00012ff1-\U00012ff2\U00016d6d-\U00016d6f"
    "\U00016e97-\U00016e9a\U00016fe2\U0001e5ff\U0001e95e-\U0001e95f"
)
_UNICODE_PUNCT_RE = regex.compile(rf"(?V1)[[\p{{P}}--[{_PUNCT_SINCE_UNICODE_8}]]\u166d\U000111c9]")
_BERT_PUNCT_SET = (
    rf"[[\p{{P}}--[{_PUNCT_SINCE_UNICODE_8}]]\u166d\U000111c9"
    + "".join(regex.escape(c) for c in sorted(_ASCII_PUNCT))
    + "]"
)
# BERT's pieces in one pass: a punctuation character alone, or a run of the other non-spaces
_BERT_PIECE_RE = regex.compile(rf"(?V1)[\S--{_BERT_PUNCT_SET}]+|{_BERT_PUNCT_SET}")
_BEHAVIORS = ("removed", "isolated")


# ---- shared helpers --------------------------------------------------------------------------
def _slices(text: NormalizedString, spans: Iterable[tuple[int, int]]) -> list[NormalizedString]:
    """The non-empty pieces `text[start:end]`, each still aligned to the original text."""
    return [text.slice(start, end) for start, end in spans if start < end]


def _with_gaps(spans: list[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """Matches plus the gaps between them, in order ("isolated" behaviour).

    >>> _with_gaps([(1, 2), (4, 4), (4, 5)], 7)
    [(0, 1), (1, 2), (2, 4), (4, 4), (4, 5), (5, 7)]
    """
    out: list[tuple[int, int]] = []
    prev = 0
    for start, end in spans:
        if start > prev:
            out.append((prev, start))
        out.append((start, end))
        prev = end
    if prev < length:
        out.append((prev, length))
    return out


class PreTokenizerBase:
    """What every pre-tokenizer shares: `pre_tokenize_str` on top of `split`."""

    def split(self, text: NormalizedString) -> list[NormalizedString]:  # pragma: no cover
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover
        return type(self).__name__

    def to_hf_config(self) -> dict:
        """This pre-tokenizer as a `tokenizer.json` "pre_tokenizer" entry (as Hugging Face
        writes it).

        >>> Whitespace().to_hf_config()
        {'type': 'Whitespace'}
        """
        return {"type": type(self).__name__}

    def pre_tokenize_str(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """The pieces of `text` with their offsets in it (like Hugging Face's method)."""
        return [(p.normalized, p.span(0, len(p))) for p in self.split(NormalizedString(text))]

    def __repr__(self) -> str:
        return self.describe()


# ---- the pre-tokenizers ----------------------------------------------------------------------
class Whitespace(PreTokenizerBase):
    r"""Runs of word characters, and runs of other non-space characters: `\w+|[^\w\s]+`.

    >>> Whitespace().pre_tokenize_str("don't stop")
    [('don', (0, 3)), ("'", (3, 4)), ('t', (4, 5)), ('stop', (6, 10))]
    """

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        return _slices(text, self.spans(text.normalized))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The pieces of `text` as (start, end): `split` without building them."""
        return match_spans(_WHITESPACE_RE, text)

    def describe(self) -> str:
        return f"Whitespace ({WHITESPACE_PATTERN})"


class WhitespaceSplit(PreTokenizerBase):
    """Split on whitespace only: every run of non-space characters is a piece.

    >>> WhitespaceSplit().pre_tokenize_str("don't  stop!")
    [("don't", (0, 5)), ('stop!', (7, 12))]
    """

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        return _slices(text, self.spans(text.normalized))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The pieces of `text` as (start, end): `split` without building them."""
        return match_spans(_NON_SPACE_RE, text)

    def describe(self) -> str:
        return "WhitespaceSplit"


def is_bert_punctuation(c: str) -> bool:
    """BERT's punctuation: ASCII punctuation (which includes `$`, `+`, `^`, ...) or Unicode P*
    (as of Unicode 8.0, like Hugging Face; see `_PUNCT_SINCE_UNICODE_8`).

    >>> [is_bert_punctuation(c) for c in "$,«a"]
    [True, True, True, False]
    """
    return c in _ASCII_PUNCT or _UNICODE_PUNCT_RE.match(c, concurrent=False) is not None


class BertPreTokenizer(PreTokenizerBase):
    """Split on whitespace, then make every punctuation character a piece of its own.

    >>> BertPreTokenizer().pre_tokenize_str("Hey!! (ok)")
    [('Hey', (0, 3)), ('!', (3, 4)), ('!', (4, 5)), ('(', (6, 7)), ('ok', (7, 9)), (')', (9, 10))]
    """

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        return _slices(text, self.spans(text.normalized))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The pieces of `text` as (start, end): each whitespace-separated word cut before and
        after every punctuation character (`is_bert_punctuation`), in one regex pass.

        >>> BertPreTokenizer().spans("ok, (x)")
        [(0, 2), (2, 3), (4, 5), (5, 6), (6, 7)]
        """
        return [m.span() for m in _BERT_PIECE_RE.finditer(text, concurrent=False)]

    def describe(self) -> str:
        return "BertPreTokenizer"


class Regex(PreTokenizerBase):
    r"""Pieces from a regular expression, run with the `regex` module.

    `pattern_or_preset` is a preset name ("gpt2" = r50k_base, "cl100k", "o200k": tiktoken's exact
    patterns, see `PRESETS`) or a pattern of your own. A preset name wins: to match the literal
    text "gpt2", write `(?:gpt2)`.

    `behavior` says what becomes a piece:

    - "removed" (the default, tiktoken's semantics: `regex.findall`): only the matches; the text
      between matches is dropped. The presets match every character, so nothing is lost.
    - "isolated" (Hugging Face `Split(..., behavior="isolated")`): the matches and the gaps between
      them, so the pieces cover the whole text.

    Zero-width matches never make a piece; with "isolated" they still cut the text, so `(?=[A-Z])`
    splits before capitals. A user pattern runs with `timeout` seconds for the whole text (None:
    no limit); exceeding it raises `ValueError`. The presets are trusted and run without a limit.

    >>> Regex("gpt2").pre_tokenize_str("Hello world!!")
    [('Hello', (0, 5)), (' world', (5, 11)), ('!!', (11, 13))]
    >>> Regex(r"\d+").pre_tokenize_str("a12b3")
    [('12', (1, 3)), ('3', (4, 5))]
    >>> Regex(r"\d+", behavior="isolated").pre_tokenize_str("a12b3")
    [('a', (0, 1)), ('12', (1, 3)), ('b', (3, 4)), ('3', (4, 5))]
    """

    def __init__(
        self, pattern_or_preset: str, timeout: float | None = 0.5, behavior: str = "removed"
    ) -> None:
        if behavior not in _BEHAVIORS:
            raise InvalidInput(f"unknown behavior {behavior!r}; choose 'removed' or 'isolated'")
        if timeout is not None and not timeout > 0:
            raise InvalidInput("timeout must be a positive number of seconds (or None)")
        self.behavior = behavior
        if isinstance(pattern_or_preset, str) and pattern_or_preset in PRESETS:
            self.preset: str | None = pattern_or_preset
            self.pattern = PRESETS[pattern_or_preset]
            self._compiled: Any = _PRESET_RE[pattern_or_preset]
        else:
            self.preset = None
            self.pattern = pattern_or_preset
            self._compiled = TimedPattern(compile_pattern(pattern_or_preset), timeout=timeout)

    @property
    def timeout(self) -> float | None:
        """The time limit of a user pattern (None: none; the presets are trusted)."""
        return getattr(self._compiled, "timeout", None)

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        spans = match_spans(self._compiled, text.normalized)
        if self.behavior == "isolated":
            spans = _with_gaps(spans, len(text))
        return _slices(text, spans)

    def to_hf_config(self) -> dict:
        """Hugging Face's equivalent: `Split` on the pattern, inverted (the matches are the
        pieces) for "removed", as is for "isolated". Hugging Face runs it with Oniguruma, which
        reads `X{1,3}+` as a repeat of `X{1,3}`, so a possessive counted repeat is written as
        an atomic group (`hf_regex.translate`)."""
        return {
            "type": "Split",
            "pattern": {"Regex": translate(self.pattern, to_oniguruma=True)},
            "behavior": "Removed" if self.behavior == "removed" else "Isolated",
            "invert": self.behavior == "removed",
        }

    def describe(self) -> str:
        if self.preset is not None:
            return f"Regex (preset {self.preset})"
        suffix = ", isolated" if self.behavior == "isolated" else ""
        return f"Regex ({self.pattern}{suffix})"


class ByteLevel(PreTokenizerBase):
    """Hugging Face's byte-level pre-tokenizer (GPT-2, RoBERTa).

    1. `add_prefix_space`: put a space in front unless the text starts with one, so the first
       word looks like every other word (" Hello" rather than "Hello"); the added space is
       aligned with the first character.
    2. `use_regex`: split with the GPT-2 pattern (`HF_BYTE_LEVEL_PATTERN`); otherwise one piece.
    3. Spell every UTF-8 byte of a piece as its `bytes_to_unicode` character ("é" -> "Ã©"); each
       byte character keeps the span of the character it came from.

    `trim_offsets` is a post-processing option (Hugging Face's ByteLevel post-processor moves a
    token's offsets past its leading/trailing "Ġ"); it is stored and used by `trim_offsets_of`.

    >>> ByteLevel(add_prefix_space=True).pre_tokenize_str("Hé  you")
    [('ĠHÃ©', (0, 2)), ('Ġ', (2, 3)), ('Ġyou', (3, 7))]
    """

    def __init__(
        self, add_prefix_space: bool = False, use_regex: bool = True, trim_offsets: bool = True
    ) -> None:
        self.add_prefix_space = bool(add_prefix_space)
        self.use_regex = bool(use_regex)
        self.trim_offsets = bool(trim_offsets)

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        if not len(text):
            return []
        if self.add_prefix_space and not text.normalized.startswith(" "):
            text = text.prepend(" ")
        if self.use_regex:
            pieces = _slices(text, match_spans(HF_BYTE_LEVEL_RE, text.normalized))
        else:
            pieces = [text]
        return [to_byte_level(p) for p in pieces]

    def to_hf_config(self) -> dict:
        return {
            "type": "ByteLevel",
            "add_prefix_space": self.add_prefix_space,
            "trim_offsets": self.trim_offsets,
            "use_regex": self.use_regex,
        }

    def trim_offsets_of(
        self, token: str, offsets: tuple[int, int], is_first: bool
    ) -> tuple[int, int]:
        """Hugging Face's offset trimming for one byte-level token (a no-op if not trim_offsets).

        Leading and trailing "Ġ" (or whitespace) are moved out of the offsets, except the one
        prefix space this pre-tokenizer added in front of the first token.

        >>> ByteLevel().trim_offsets_of("Ġyou", (2, 6), is_first=False)
        (3, 6)
        """
        if not self.trim_offsets:
            return offsets
        start, end = offsets
        lead = _count_spaces(token)
        trail = _count_spaces(token[::-1])
        if lead and is_first and self.add_prefix_space and lead == 1:
            lead = 0
        if lead:
            start = min(start + lead, end)
        if trail and end >= trail:
            end = max(end - trail, start)
        return (start, end)

    def describe(self) -> str:
        opts = []
        if self.add_prefix_space:
            opts.append("add_prefix_space")
        if not self.use_regex:
            opts.append("no regex")
        return "ByteLevel" + (f" ({', '.join(opts)})" if opts else "")


def _count_spaces(token: str) -> int:
    """How many leading characters of `token` are "Ġ" or whitespace."""
    n = 0
    for c in token:
        if c != BYTE_TO_CHAR[32] and not _SPACE_RE.match(c, concurrent=False):
            break
        n += 1
    return n


class Metaspace(PreTokenizerBase):
    """SentencePiece's view of spaces, as Hugging Face's `Metaspace`.

    Every space (U+0020 only) becomes `replacement`; then, by `prepend_scheme`, a `replacement`
    is put in front ("always"; "first": only for the piece at the start of the original text;
    "never") unless the text already starts with one; with `split`, the text is cut before each
    `replacement`, which stays at the start of its piece. The prepended "▁" is aligned with the
    first character.

    >>> Metaspace().pre_tokenize_str("Hey  you")
    [('▁Hey', (0, 3)), ('▁', (3, 4)), ('▁you', (4, 8))]
    """

    _SCHEMES = ("always", "first", "never")

    def __init__(
        self, replacement: str = "▁", prepend_scheme: str = "always", split: bool = True
    ) -> None:
        if not isinstance(replacement, str) or len(replacement) != 1:
            raise InvalidInput("the Metaspace replacement must be exactly one character")
        if prepend_scheme not in self._SCHEMES:
            raise InvalidInput(
                f"unknown prepend_scheme {prepend_scheme!r}; choose 'always', 'first' or 'never'"
            )
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split_pieces = bool(split)

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        if not len(text):
            return []
        rep = self.replacement
        if " " in text.normalized:  # same length: alignment stays character by character
            text = text.transform([(0, len(text), text.normalized.replace(" ", rep))])
        if self._prepends(text):
            text = text.prepend(rep)
        if not self.split_pieces:
            return [text]
        s = text.normalized
        starts = [0] + [i for i in range(1, len(s)) if s[i] == rep]
        return _slices(text, zip(starts, starts[1:] + [len(s)]))

    def _prepends(self, text: NormalizedString) -> bool:
        if text.normalized.startswith(self.replacement) or self.prepend_scheme == "never":
            return False
        # "first": only the piece that begins the original text (Hugging Face checks the
        # piece's original start offset).
        return self.prepend_scheme == "always" or text.span(0, 0)[0] == 0

    def describe(self) -> str:
        return f"Metaspace ({self.replacement}, prepend {self.prepend_scheme})"

    def to_hf_config(self) -> dict:
        return {
            "type": "Metaspace",
            "replacement": self.replacement,
            "prepend_scheme": self.prepend_scheme,
            "split": self.split_pieces,
        }


class Sequence(PreTokenizerBase):
    """Pre-tokenizers in a row: each one splits every piece the previous one produced.

    >>> Sequence([WhitespaceSplit(), ByteLevel()]).pre_tokenize_str("a b")
    [('a', (0, 1)), ('b', (2, 3))]
    """

    def __init__(self, pre_tokenizers: SequenceType[Any]) -> None:
        items = list(pre_tokenizers)  # anything with a `split` (duck-typed, checked here)
        for p in items:
            if isinstance(p, (str, bytes)) or not callable(getattr(p, "split", None)):
                raise InvalidInput(f"{p!r} is not a pre-tokenizer (it has no split method)")
        self.pre_tokenizers = tuple(items)

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        pieces = [text] if len(text) else []
        for pre in self.pre_tokenizers:
            pieces = [out for piece in pieces for out in pre.split(piece)]
        return pieces

    def describe(self) -> str:
        return "Sequence [" + ", ".join(describe(p) for p in self.pre_tokenizers) + "]"

    def to_hf_config(self) -> dict:
        configs = []
        for p in self.pre_tokenizers:
            if not callable(getattr(p, "to_hf_config", None)):
                raise InvalidInput(
                    f"the pre-tokenizer {type(p).__name__} has no tokenizer.json form"
                )
            configs.append(p.to_hf_config())
        return {"type": "Sequence", "pretokenizers": configs}


__all__ = [
    "BertPreTokenizer",
    "ByteLevel",
    "CL100K_PATTERN",
    "GPT2_PATTERN",
    "HF_BYTE_LEVEL_PATTERN",
    "Metaspace",
    "O200K_PATTERN",
    "PRESETS",
    "Regex",
    "Sequence",
    "Whitespace",
    "WhitespaceSplit",
    "bytes_to_unicode",
    "compile_pattern",
    "is_bert_punctuation",
    "match_spans",
    "to_byte_level",
    "unicode_to_bytes",
]

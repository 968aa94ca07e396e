r"""Rule tokenisers: characters, words, sentences, a regex of your own. No training, no vocabulary.

They are the scaffolding the subword methods reuse (normalise -> pre-tokenise -> model), with
the simplest possible model at stage 3:

- `char_tokenizer()`: every Unicode code point is a token; its id is the code point (`ord`).
- `word_tokenizer()`: words and punctuation, by the regex `WORD_PATTERN` (below).
- `sentence_tokenizer()`: sentences, by `split_sentences` (below).
- `regex_tokenizer(pattern)`: the matches of a user's pattern (the visualiser's "custom regex").

These have no fixed vocabulary: except for `char`, the model returns the id None and the pipeline
numbers distinct tokens by first appearance ("the" is 0 if it comes first, and stays 0).

>>> char_tokenizer().encode("hé!").ids
[104, 233, 33]
>>> word_tokenizer().encode("I don't know, do you?").tokens
['I', "don't", 'know', ',', 'do', 'you', '?']
>>> sentence_tokenizer().encode("Dr. Who arrived. Then he left.").tokens
['Dr. Who arrived.', 'Then he left.']

**Words.** A word is a run of letters, marks and digits (any script), which may contain an
apostrophe (' or ’) between two such characters: "don't", "O’Brien", "l'homme" are one word
each (we keep contractions whole, as a reader sees them; Hugging Face's `Whitespace` would
give "don", "'", "t"). Han ideographs (Chinese characters, Japanese kanji) are one token
each, as BERT does, because those scripts write no spaces and a whole clause would otherwise be
one "word". Every other non-space character (punctuation, symbols, emoji) is a token of its
own. Whitespace is never a token. Not handled: word segmentation of Thai, Lao, Khmer or Japanese
kana runs (they stay whole runs), hyphenated words ("well-known" is three tokens).
"""

from __future__ import annotations

import regex

from ..decoders import Fuse
from ..errors import InvalidInput
from ..normalized import NormalizedString
from ..pipeline import Tokenizer
from ..pre_tokenizers import PreTokenizerBase, Regex


# ---- models: stage 3 for rule tokenisers ---------------------------------------------------------
class CharModel:
    """Every code point is a token, and its id is the code point.

    >>> CharModel().tokenize("a€")
    [('a', 97, 0, 1), ('€', 8364, 1, 2)]
    """

    def tokenize(self, piece: str) -> list[tuple[str, int | None, int, int]]:
        return [(c, ord(c), i, i + 1) for i, c in enumerate(piece)]

    def id_to_token(self, id: int) -> str | None:
        if isinstance(id, int) and 0 <= id <= 0x10FFFF:
            return chr(id)
        return None

    def token_to_id(self, token: str) -> int | None:
        return ord(token) if isinstance(token, str) and len(token) == 1 else None

    def get_vocab_size(self) -> int:
        return 0  # no fixed vocabulary (every code point is allowed)

    def describe(self) -> str:
        return "characters (id = code point)"


class PieceModel:
    """Each pre-tokenised piece is one token, without a vocabulary id (None).

    The pipeline then numbers distinct tokens by first appearance. `id_to_token` knows nothing:
    these ids are local to one encoding.

    >>> PieceModel("words").tokenize("hello")
    [('hello', None, 0, 5)]
    """

    def __init__(self, unit: str = "pieces") -> None:
        self.unit = unit

    def tokenize(self, piece: str) -> list[tuple[str, int | None, int, int]]:
        return [(piece, None, 0, len(piece))] if piece else []

    def id_to_token(self, id: int) -> str | None:
        return None

    def token_to_id(self, token: str) -> int | None:
        return None

    def get_vocab_size(self) -> int:
        return 0

    def describe(self) -> str:
        return f"{self.unit} (ids by first appearance)"


# ---- characters ------------------------------------------------------------------------------
def char_tokenizer() -> Tokenizer:
    """Every code point is a token (spaces and newlines too); id = code point.

    A character made of several code points ("é" written as e + U+0301, a flag emoji) is several
    tokens: this is code points, not grapheme clusters.

    >>> char_tokenizer().encode("a b").tokens
    ['a', ' ', 'b']
    """
    return Tokenizer(CharModel(), decoder=Fuse(), name="char", algorithm="char")


# ---- words -----------------------------------------------------------------------------------
_WORD_CHAR = r"[\p{L}\p{M}\p{N}\p{Join_Control}--\p{Han}]"  # (V1 syntax: set difference)
WORD_PATTERN = (
    r"(?V1)"
    r"\p{Han}\p{M}*"  # one Han character (kanji) with its marks
    rf"|{_WORD_CHAR}+(?:['’]{_WORD_CHAR}+)*"  # a word; apostrophes inside are allowed
    r"|\S"  # any other non-space character on its own
)
_WORD_RE = regex.compile(WORD_PATTERN)


class WordSplit(PreTokenizerBase):
    """Pre-tokenizer of the word tokeniser: the matches of `WORD_PATTERN`.

    >>> WordSplit().pre_tokenize_str("It's 你好!")
    [("It's", (0, 4)), ('你', (5, 6)), ('好', (6, 7)), ('!', (7, 8))]
    """

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        return [text.slice(*m.span()) for m in _WORD_RE.finditer(text.normalized, concurrent=False)]

    def describe(self) -> str:
        return (
            "words (letters/digits with inner apostrophes; each Han character; each other symbol)"
        )


def word_tokenizer() -> Tokenizer:
    """Words and single punctuation characters (the rules are in the module docstring).

    >>> word_tokenizer().encode("Cost: $3.50 (approx.)").tokens
    ['Cost', ':', '$', '3', '.', '50', '(', 'approx', '.', ')']
    """
    return Tokenizer(
        PieceModel("words"),
        pre_tokenizer=WordSplit(),
        decoder=Fuse(),
        name="word",
        algorithm="word",
    )


# ---- sentences -------------------------------------------------------------------------------
# Sentence-ending punctuation of the scripts in our corpora: . ! ? … and doubled forms, CJK
# full-width 。！？, Arabic ؟ and Urdu ۔, Devanagari danda । ॥, Armenian ։, Ethiopic ። ፧.
_TERMINATORS_RE = regex.compile(r"[.!?…‼⁇⁈⁉。！？｡؟۔।॥։።፧]+")
_NO_SPACE_NEEDED = frozenset("。！？｡")  # CJK: the next sentence follows directly
_CLOSERS = frozenset("\"'”’»›)]}」』）】〕〉》")  # closing quotes and brackets
_OPENERS = "\"'“‘«‹([{¿¡「『（【"
_LINE_BREAK = r"(?:\r\n|[\n\r\v\f\x85\u2028\u2029])"
_BREAK_RE = {
    "line": regex.compile(_LINE_BREAK),
    "paragraph": regex.compile(rf"{_LINE_BREAK}(?:[^\S\n\r\v\f\x85\u2028\u2029]*{_LINE_BREAK})+"),
}
_SPACE_RE = regex.compile(r"\s")
_DOTTED_RE = regex.compile(r"(?:\p{L}\.)+\p{L}")  # U.S, e.g, Ph.D (without the last dot)

# Abbreviations, lower-cased, without their final dot. Three kinds:
# titles and Latin/short forms that (almost) never end a sentence ...
ABBREVIATIONS_NEVER_FINAL = frozenset(
    {
        "mr",
        "mrs",
        "ms",
        "mx",
        "dr",
        "prof",
        "rev",
        "fr",
        "st",
        "sgt",
        "capt",
        "lt",
        "col",
        "gen",
        "gov",
        "sen",
        "rep",
        "pres",
        "hon",
        "mt",
        "messrs",
        "mme",
        "mlle",
        "e.g",
        "i.e",
        "eg",
        "ie",
        "vs",
        "cf",
        "viz",
        "approx",
        "ca",
        "u.s",
        "u.k",
        "u.n",
        "e.u",
    }
)
# ... ones that end a sentence when the next word starts with a capital letter ...
ABBREVIATIONS_MAYBE_FINAL = frozenset(
    {
        "etc",
        "a.m",
        "p.m",
        "inc",
        "ltd",
        "co",
        "corp",
        "jr",
        "sr",
        "bros",
        "al",
        "esq",
        "ph.d",
        "b.c",
        "a.d",
    }
)
# ... and ones that stand before a number ("No. 5", "p. 12") but are ordinary words otherwise.
ABBREVIATIONS_BEFORE_NUMBER = frozenset(
    {
        "no",
        "nos",
        "vol",
        "p",
        "pp",
        "art",
        "fig",
        "ch",
        "sec",
        "op",
        "nr",
    }
)


def split_sentences(text: str, *, newlines: str = "line") -> list[tuple[int, int]]:
    """Sentence spans `(start, end)` of `text`, without the whitespace between sentences.

    A sentence ends after a run of . ! ? (or … 。 ؟ । ...) plus any closing quotes and brackets,
    when the run is followed by whitespace (CJK 。！？ need none), except:

    - after an abbreviation (`ABBREVIATIONS_*`: "Dr.", "e.g.", "U.S." never end a sentence;
      "etc.", "p.m." do when the next word is capitalised; "No." before a number doesn't)
      or a single capital letter (an initial: "J. K. Rowling");
    - in a number or a dotted word (no space after the dot: "3.14", "U.S.A."),
    - after an ellipsis ("..." or "…") or a quoted "!"/"?" when the next word is lower-case
      ("Wait... what?", '"Stop!" she said').

    `newlines="line"` (the default): every line break also ends a sentence (a heading, a list
    item); `"paragraph"`: only a blank line does, single line breaks are spaces (hard-wrapped
    prose).

    >>> t = 'Dr. Smith paid $3.14 at 5 p.m. Then he left... Why? He said "Stop." So we did.'
    >>> [t[a:b] for a, b in split_sentences(t)]
    ['Dr. Smith paid $3.14 at 5 p.m.', 'Then he left...', 'Why?', 'He said "Stop."', 'So we did.']
    >>> t = "Wait... what? See e.g. the U.S. map.\\nNext line"
    >>> [t[a:b] for a, b in split_sentences(t)]
    ['Wait... what?', 'See e.g. the U.S. map.', 'Next line']
    >>> split_sentences("  one. two  ")
    [(2, 6), (7, 10)]

    Not handled: abbreviations outside the lists (an unknown "approx." style word followed by
    a capital letter ends a sentence), sentence-final initials ("plan B. Then" stays one),
    languages whose sentences end without punctuation (Thai).
    """
    if newlines not in _BREAK_RE:
        raise InvalidInput(f"unknown newlines mode {newlines!r}; choose 'line' or 'paragraph'")
    spans: list[tuple[int, int]] = []
    for seg_start, seg_end in _segments(text, _BREAK_RE[newlines]):
        start = seg_start
        for end in _sentence_ends(text, seg_start, seg_end):
            spans.append(_strip(text, start, end))
            start = end
        spans.append(_strip(text, start, seg_end))
    return [(a, b) for a, b in spans if a < b]


def _segments(text: str, break_re: "regex.Pattern[str]") -> list[tuple[int, int]]:
    """The stretches of text between breaks (line or paragraph breaks)."""
    out, start = [], 0
    for m in break_re.finditer(text, concurrent=False):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return out


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    """`(start, end)` moved inwards past whitespace."""
    while start < end and _SPACE_RE.match(text[start], concurrent=False):
        start += 1
    while end > start and _SPACE_RE.match(text[end - 1], concurrent=False):
        end -= 1
    return (start, end)


def _sentence_ends(text: str, seg_start: int, seg_end: int) -> list[int]:
    """Positions (after the terminator and its closers) where a sentence ends in a segment."""
    ends = []
    for m in _TERMINATORS_RE.finditer(text, seg_start, seg_end, concurrent=False):
        end = m.end()
        while end < seg_end and text[end] in _CLOSERS:
            end += 1
        if _is_sentence_end(text, seg_start, seg_end, m.start(), m.end(), end):
            ends.append(end)
    return ends


def _is_sentence_end(
    text: str, seg_start: int, seg_end: int, run_start: int, run_end: int, end: int
) -> bool:
    """Does the terminator run `text[run_start:run_end]` (closers up to `end`) end a sentence?"""
    run = text[run_start:run_end]
    if end < seg_end and not _SPACE_RE.match(text[end], concurrent=False):
        return run[-1] in _NO_SPACE_NEEDED  # "3.14", "U.S.A": no space, no end
    nxt = _next_char(text, end, seg_end)
    if nxt is None:
        return True  # the end of the segment
    if "…" in run or (len(run) > 1 and set(run) == {"."}):
        return not nxt.islower()  # "Wait... what?" goes on
    if run != ".":
        return not (end > run_end and nxt.islower())  # '"Stop!" she said' goes on
    word = _word_before(text, seg_start, run_start)
    return not _is_abbreviation(word, nxt)


def _next_char(text: str, pos: int, seg_end: int) -> str | None:
    while pos < seg_end and _SPACE_RE.match(text[pos], concurrent=False):
        pos += 1
    return text[pos] if pos < seg_end else None


def _word_before(text: str, seg_start: int, pos: int) -> str:
    """The non-space run just before `pos`, without opening quotes or brackets."""
    start = pos
    while start > seg_start and not _SPACE_RE.match(text[start - 1], concurrent=False):
        start -= 1
    return text[start:pos].lstrip(_OPENERS)


def _is_abbreviation(word: str, next_char: str) -> bool:
    """Is `word` + "." an abbreviation here (so the dot does not end the sentence)?

    >>> _is_abbreviation("Dr", "W"), _is_abbreviation("etc", "T"), _is_abbreviation("etc", "a")
    (True, False, True)
    >>> _is_abbreviation("No", "5"), _is_abbreviation("no", "T"), _is_abbreviation("J", "K")
    (True, False, True)
    """
    key = word.lower()
    if key in ABBREVIATIONS_NEVER_FINAL:
        return True
    if key in ABBREVIATIONS_MAYBE_FINAL or _DOTTED_RE.fullmatch(word, concurrent=False):
        return not next_char.isupper()
    if key in ABBREVIATIONS_BEFORE_NUMBER:
        return next_char.isdigit()
    return len(word) == 1 and word.isupper()  # an initial: "J. K. Rowling"


class SentenceSplit(PreTokenizerBase):
    """Pre-tokenizer of the sentence tokeniser: the spans of `split_sentences`.

    >>> SentenceSplit().pre_tokenize_str("Hi. Bye!")
    [('Hi.', (0, 3)), ('Bye!', (4, 8))]
    """

    def __init__(self, newlines: str = "line") -> None:
        if newlines not in _BREAK_RE:
            raise InvalidInput(f"unknown newlines mode {newlines!r}; choose 'line' or 'paragraph'")
        self.newlines = newlines

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        return [
            text.slice(a, b) for a, b in split_sentences(text.normalized, newlines=self.newlines)
        ]

    def describe(self) -> str:
        return f"sentences (. ! ? with abbreviation guards; breaks: {self.newlines})"


def sentence_tokenizer(newlines: str = "line") -> Tokenizer:
    """Sentences as tokens (see `split_sentences`); ids by first appearance.

    >>> sentence_tokenizer().encode("Hi. Hi. Bye.").ids
    [0, 0, 1]
    """
    return Tokenizer(
        PieceModel("sentences"),
        pre_tokenizer=SentenceSplit(newlines),
        decoder=Fuse(),
        name="sentence",
        algorithm="sentence",
    )


# ---- a regex of your own ---------------------------------------------------------------------
def regex_tokenizer(pattern: str, timeout: float | None = 0.5) -> Tokenizer:
    r"""Tokens are the matches of `pattern` (text between matches is dropped).

    A pattern that does not compile raises `ValueError` now; one that takes longer than
    `timeout` seconds on a text raises `ValueError` when encoding. A preset name ("gpt2",
    "cl100k", "o200k") means tiktoken's pattern (see `pre_tokenizers.Regex`).

    >>> regex_tokenizer(r"[A-Z][a-z]*").encode("HelloWorld Hi").tokens
    ['Hello', 'World', 'Hi']
    """
    return Tokenizer(
        PieceModel("matches"),
        pre_tokenizer=Regex(pattern, timeout=timeout),
        decoder=Fuse(),
        name="regex",
        algorithm="regex",
    )


__all__ = [
    "ABBREVIATIONS_BEFORE_NUMBER",
    "ABBREVIATIONS_MAYBE_FINAL",
    "ABBREVIATIONS_NEVER_FINAL",
    "CharModel",
    "PieceModel",
    "SentenceSplit",
    "WORD_PATTERN",
    "WordSplit",
    "char_tokenizer",
    "regex_tokenizer",
    "sentence_tokenizer",
    "split_sentences",
    "word_tokenizer",
]

"""How a tokeniser spells numbers: token counts for the integers 0-9999, a few decimals and
formats, and the digit grouping it uses, found from its own behaviour.

Arithmetic depends on it: cl100k cuts digits into groups of up to three from the left (its
pre-tokeniser pattern has `\\p{N}{1,3}`), so 1234567 is 123|456|7 and the groups do not line up
with thousands; Llama 2 and Mistral's sentencepiece models split every digit; GPT-2 (r50k) has
no rule at all and spells numbers with whatever chunks its merges learned (Singh & Strouse 2024,
"Tokenization counts: the impact of tokenization on arithmetic in frontier LLMs").

The grouping is read from how the tokeniser splits probe numbers of 1 to 12 digits: the digits
each token covers (a token that covers none, such as sentencepiece's lone "▁", is left out), in
order. Then, in this order:

- every token covers one digit: "single digits";
- for some k, every probe is cut at each k-th digit counted from the left (or the right) and no
  token spans such a cut: "up to k digits, left to right" (or "right to left");
- every probe is one token: "every number is one token, however long" (a word-level tokeniser);
- every integer with at most N digits (N >= 2, of 0-9999) is one token, but longer ones follow
  no such rule: "whole numbers up to N digits in the vocabulary";
- otherwise "learned chunks (no rule)".

The pre-tokeniser's own pattern is quoted where one is known: the alternatives of its regular
expressions that match a digit (`digit_rules`).

Each number is encoded alone; special tokens a post-processor adds ([CLS], <|begin_of_text|>)
are not counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from ..pre_tokenizers import HF_BYTE_LEVEL_PATTERN

INTEGERS = 10_000  # the heatmap's numbers: 0 .. 9999
FORMATS = (  # (what it is, how it is written)
    ("pi to two places", "3.14"),
    ("a small decimal", "0.001"),
    ("thousands separators", "1,000,000"),
    ("a percentage", "12.5%"),
    ("a negative number", "-42"),
    ("scientific notation", "1e10"),
    ("an ISO date", "2024-03-15"),
    ("a phone-like number", "+1 555-0142"),
    ("a price", "$1,299.99"),
)


@dataclass(frozen=True)
class Grouping:
    kind: str  # "single", "left_to_right", "right_to_left", "whole", "learned"
    size: int  # k digits a group (left/right), N digits (whole; 0: any), 1 (single),
    #                    0 (learned)
    name: str  # in words, e.g. "up to 3 digits, left to right"
    example: str  # a probe as the tokeniser cuts it, e.g. "123|456|7"
    rules: tuple[str, ...]  # the pre-tokeniser's alternatives that match a digit

    def sentence(self) -> str:
        """The grouping as a sentence for people."""
        where = (
            f" Its pre-tokeniser's rule for digits: {', '.join(self.rules)}." if self.rules else ""
        )
        return f"Digit grouping: {self.name}. 1234567890 is cut {self.example}.{where}"

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "size": self.size,
            "name": self.name,
            "example": self.example,
            "rules": list(self.rules),
            "sentence": self.sentence(),
        }


@dataclass(frozen=True)
class FormatRow:
    label: str
    text: str
    tokens: tuple[str, ...]  # each token's surface in the text (what its offsets cover)
    ids: tuple[int, ...]

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "text": self.text,
            "count": len(self.ids),
            "tokens": list(self.tokens),
            "ids": list(self.ids),
        }


@dataclass(frozen=True)
class NumberReport:
    counts: tuple[int, ...]  # tokens of each integer 0 .. 9999
    grouping: Grouping
    formats: tuple[FormatRow, ...]

    def histogram(self) -> dict[int, int]:
        """How many of the integers take each number of tokens."""
        out: dict[int, int] = {}
        for c in self.counts:
            out[c] = out.get(c, 0) + 1
        return dict(sorted(out.items()))

    def to_dict(self) -> dict:
        return {
            "counts": list(self.counts),
            "histogram": self.histogram(),
            "grouping": self.grouping.to_dict(),
            "formats": [f.to_dict() for f in self.formats],
        }


def _ordinary(tok, text: str) -> list[tuple[int, tuple[int, int]]]:
    """(id, offsets) of the ordinary tokens of `text` (special tokens left out)."""
    enc = tok.encode(text)
    return [(i, o) for i, o, s in zip(enc.ids, enc.offsets, enc.special_tokens_mask) if not s]


def digit_chunks(tok, digits: str) -> tuple[int, ...]:
    """How many digits each token of `digits` covers, in order (tokens covering none left out).

    >>> import tokenizers_core as tc
    >>> digit_chunks(tc.load("cl100k_base"), "1234567")
    (3, 3, 1)
    """
    chunks = []
    for _id, (s, e) in _ordinary(tok, digits):
        n = sum(1 for c in digits[s:e] if c.isdigit())
        if n:
            chunks.append(n)
    return tuple(chunks)


def integer_token_counts(tok, stop: int = INTEGERS) -> list[int]:
    """The ordinary tokens of each integer 0 .. stop-1, written in plain decimal."""
    return [len(_ordinary(tok, str(n))) for n in range(stop)]


def _probes() -> list[str]:
    """Numbers of 1 to 12 digits: three with pseudo-random digits, 99..9 and 10..0 of each
    length. The grouping is read from these.

    >>> _probes()[:5]
    ['2', '8', '6', '9', '1']
    """
    out, x = [], 2024
    for length in range(1, 13):
        for _ in range(3):
            digits = []
            for _ in range(length):
                x = (x * 1103515245 + 12345) % 2**31  # a fixed linear congruential walk
                digits.append(str(x // 65536 % 10))
            out.append("".join(digits))
        out += ["9" * length, "1" + "0" * (length - 1)]
    return out


def _cuts(chunks: tuple[int, ...]) -> set[int]:
    cuts, pos = set(), 0
    for n in chunks:
        pos += n
        cuts.add(pos)
    return cuts


def _keeps_groups(chunks: tuple[int, ...], k: int, from_right: bool) -> bool:
    """Are the digits cut at every k-th digit (from the left or right), never across one?"""
    length = sum(chunks)
    grid = (
        {length - j for j in range(0, length, k)}
        if from_right
        else set(range(k, length + 1, k)) | {length}
    )
    grid.discard(0)
    return grid <= _cuts(chunks) and max(chunks) <= k


def _group_rule(chunks_of: dict[str, tuple[int, ...]]) -> tuple[str, int] | None:
    """("left_to_right" | "right_to_left", k) for the smallest k every probe keeps, or None."""
    longest = max(sum(c) for c in chunks_of.values())
    for k in range(1, longest):
        for kind, from_right in (("left_to_right", False), ("right_to_left", True)):
            if all(_keeps_groups(c, k, from_right) for c in chunks_of.values()):
                return kind, k
    return None


def _whole_digits(whole: list[bool]) -> int:
    """The largest N such that every integer of at most N digits is one token."""
    n = 0
    while 10 ** (n + 1) <= len(whole) and all(whole[: 10 ** (n + 1)]):
        n += 1
    return n


def _shown(digits: str, chunks: tuple[int, ...]) -> str:
    parts, pos = [], 0
    for n in chunks:
        parts.append(digits[pos : pos + n])
        pos += n
    return "|".join(parts)


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a regular expression (escapes, classes and groups kept).

    >>> _alternatives(r"a(b|c)|[|x]|\\|y")
    ['a(b|c)', '[|x]', '\\\\|y']
    """
    out, depth, in_class, start, i = [], 0, False, 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]":
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    out.append(pattern[start:])
    return out


def _patterns(pre_tokenizer) -> list[str]:
    """The regular expressions of a pre-tokeniser and the ones it wraps."""
    if pre_tokenizer is None:
        return []
    found = []
    pattern = getattr(pre_tokenizer, "pattern", None)
    if isinstance(pattern, str) and getattr(pre_tokenizer, "is_regex", True):
        found.append(pattern)
    if getattr(pre_tokenizer, "use_regex", False):  # ByteLevel's own GPT-2 pattern
        found.append(HF_BYTE_LEVEL_PATTERN)
    for inner in getattr(pre_tokenizer, "pre_tokenizers", ()) or ():
        found += _patterns(inner)
    return found


def digit_rules(tok) -> tuple[str, ...]:
    """The alternatives of the pre-tokeniser's patterns that match a run of digits, e.g.
    ('\\\\p{N}{1,3}',) for o200k; empty when it has no pattern (sentencepiece, WordPiece).

    >>> import tokenizers_core as tc
    >>> digit_rules(tc.load("o200k_base"))
    ('\\\\p{N}{1,3}',)
    """
    rules = []
    for pattern in _patterns(getattr(tok, "pre_tokenizer", None)):
        for alt in _alternatives(pattern):
            try:
                if regex.match(alt, "7") and alt not in rules:
                    rules.append(alt)
            except regex.error:
                continue
    return tuple(rules)


def detect_grouping(tok, counts: list[int] | None = None) -> Grouping:
    """The digit grouping `tok` uses, in words (the rules are in the module docstring)."""
    chunks_of = {p: digit_chunks(tok, p) for p in _probes()}
    example = _shown("1234567890", digit_chunks(tok, "1234567890"))
    rules = digit_rules(tok)
    if all(len(c) == 1 for c in chunks_of.values()):  # a word-level tokeniser
        return Grouping("whole", 0, "every number is one token, however long", example, rules)
    rule = _group_rule(chunks_of)
    if rule and rule[1] == 1:
        return Grouping("single", 1, "single digits", example, rules)
    if rule:
        kind, k = rule
        way = "left to right" if kind == "left_to_right" else "right to left"
        return Grouping(kind, k, f"up to {k} digits, {way}", example, rules)
    if counts is None:
        counts = integer_token_counts(tok)
    n = _whole_digits(_whole_flags(tok, counts))
    if n >= 2:
        return Grouping(
            "whole",
            n,
            f"whole numbers up to {n} digits in the vocabulary, longer ones in learned chunks",
            example,
            rules,
        )
    return Grouping("learned", 0, "learned chunks (no rule)", example, rules)


def _whole_flags(tok, counts: list[int]) -> list[bool]:
    """Which integers are one digit-carrying token; only those of one or two tokens (a lone
    "▁" may come first) need encoding again."""
    return [c <= 2 and digit_chunks(tok, str(n)) == (len(str(n)),) for n, c in enumerate(counts)]


def number_report(tok) -> NumberReport:
    """The heatmap's counts, the grouping and the formats table of one tokeniser."""
    counts = integer_token_counts(tok)
    formats = []
    for label, text in FORMATS:
        tokens = _ordinary(tok, text)
        formats.append(
            FormatRow(
                label, text, tuple(text[s:e] for _i, (s, e) in tokens), tuple(i for i, _o in tokens)
            )
        )
    return NumberReport(tuple(counts), detect_grouping(tok, counts), tuple(formats))

"""What a count is counted under: the training algorithm's normaliser, pre-tokeniser, pattern,
special tokens split out and word form, and the function that counts a chunk of lines so.

Two counts add up only when they were made under the same rules, and a trainer may start from a
count only when the count was made as the trainer would have made it from the text: so every
counts file records its `CountedUnder`, as a hash (`signature`) and in words (`describe`).

>>> under = counted_under("byte_bpe", pattern="gpt2")
>>> under.pre_tokenizer
'Split on the pattern, then ByteLevel'
>>> under.word_form
"the pre-token's UTF-8 bytes, each one symbol (GPT-2's byte-to-unicode alphabet)"
>>> counter = chunk_counter(under)
>>> words = {}
>>> counter(words, ["hi hi", "hi"])
>>> words
{'hi': 2, ' hi': 1}
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import asdict, dataclass
from itertools import chain
from typing import Any, Callable, Iterable

from ...errors import InvalidInput
from ...models.bpe.model import ASCII_PATTERNS, END_OF_WORD
from ...models.bpe.sentencepiece_trainer import line_sentences
from ...models.bpe.words import _pattern_for, splitter
from ...models.sentencepiece_common import split_words
from ...pre_tokenizers import PRESETS, WHITESPACE_PATTERN
from ..bert import add_text_words

# the algorithms that train on word counts, and so can start from a counts file
COUNTED_ALGORITHMS = ("bpe", "byte_bpe", "sentencepiece_bpe", "wordpiece")


@dataclass(frozen=True)
class CountedUnder:
    """The rules a count was made under. Equal rules <=> equal `signature`."""

    algorithm: str
    normalizer: str
    pre_tokenizer: str
    pattern: str | None  # the regex the pre-tokeniser splits on, spelled out (None: none)
    special_tokens_split: tuple[str, ...]  # matched whole and left out of the count
    word_form: str  # how the trainer spells a counted pre-token

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "special_tokens_split": list(self.special_tokens_split)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CountedUnder":
        try:
            return cls(
                algorithm=str(data["algorithm"]),
                normalizer=str(data["normalizer"]),
                pre_tokenizer=str(data["pre_tokenizer"]),
                pattern=None if data["pattern"] is None else str(data["pattern"]),
                special_tokens_split=tuple(map(str, data["special_tokens_split"])),
                word_form=str(data["word_form"]),
            )
        except (KeyError, TypeError) as exc:
            raise InvalidInput(f"the counts file's rules are incomplete ({exc})") from None

    @property
    def signature(self) -> str:
        """sha256 of the rules as canonical JSON: two counts add up when these are equal."""
        blob = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def describe(self) -> str:
        """The rules in words, one clause each."""
        pattern = "no pattern" if self.pattern is None else f"the pattern {self.pattern}"
        specials = ", ".join(self.special_tokens_split) if self.special_tokens_split else "none"
        return (
            f"{self.algorithm}: normaliser {self.normalizer}; pre-tokeniser {self.pre_tokenizer} "
            f"({pattern}); special tokens split out: {specials}; words spelled as {self.word_form}"
        )


def counted_under(algorithm: str, **options: Any) -> CountedUnder:
    """The rules `algorithm`'s trainer counts words under, given its options (byte_bpe:
    `pattern`, a preset name or a regex, default "gpt2"; wordpiece: `lowercase`, default True).
    Raises InvalidInput for an algorithm that does not train on word counts, or an option it
    does not count under."""
    if algorithm not in COUNTED_ALGORITHMS:
        raise InvalidInput(
            f"{algorithm!r} does not train on word counts; counts are made for: "
            + ", ".join(COUNTED_ALGORITHMS)
        )
    allowed = (
        {"pattern"}
        if algorithm == "byte_bpe"
        else {"lowercase"}
        if algorithm == "wordpiece"
        else set()
    )
    unknown = set(options) - allowed
    if unknown:
        takes = ", ".join(sorted(allowed)) or "no options"
        raise InvalidInput(f"{algorithm} counts take {takes}, not {', '.join(sorted(unknown))}")
    if algorithm == "bpe":
        return CountedUnder(
            "bpe", "none", "Whitespace", WHITESPACE_PATTERN, (), f"characters, then {END_OF_WORD}"
        )
    if algorithm == "byte_bpe":
        return CountedUnder(
            "byte_bpe",
            "none",
            "Split on the pattern, then ByteLevel",
            _pattern_for(options.get("pattern", "gpt2")),
            (),
            "the pre-token's UTF-8 bytes, each one symbol (GPT-2's byte-to-unicode alphabet)",
        )
    if algorithm == "sentencepiece_bpe":
        return CountedUnder(
            "sentencepiece_bpe",
            "sentencepiece's identity rule (spaces squeezed, a leading ▁, every space ▁; <unk>, "
            "<s> and </s> a boundary; lines over 4,192 bytes or holding ▅ left out)",
            "sentencepiece's SplitIntoWords (cut before each ▁)",
            None,
            (),
            "characters; those outside the alphabet (character_coverage 1.0) become <unk>",
        )
    lowercase = options.get("lowercase", True)
    if not isinstance(lowercase, bool):
        raise InvalidInput("lowercase must be true or false")
    return CountedUnder(
        "wordpiece",
        f"BertNormalizer(clean_text, handle_chinese_chars, lowercase={lowercase})",
        "BertPreTokenizer",
        None,
        (),
        "characters, ## before each one after the first",
    )


def differences(a: CountedUnder, b: CountedUnder) -> list[tuple[str, str, str]]:
    """(field, a's value, b's value) where two sets of rules differ, patterns by preset name.

    >>> differences(counted_under("byte_bpe"), counted_under("byte_bpe", pattern="cl100k"))
    [('pattern', 'gpt2', 'cl100k')]
    """
    shown_a, shown_b = _shown(a), _shown(b)
    return [(k, shown_a[k], shown_b[k]) for k in shown_a if shown_a[k] != shown_b[k]]


def _shown(under: CountedUnder) -> dict[str, str]:
    data = under.to_dict()
    data["pattern"] = "none" if under.pattern is None else preset_of(under)
    data["special_tokens_split"] = ", ".join(under.special_tokens_split) or "none"
    return {k: str(v) for k, v in data.items()}


def lowercase_of(under: CountedUnder) -> bool:
    """wordpiece: whether the count was lowercased (it is part of the normaliser's name)."""
    return under.normalizer.endswith("lowercase=True)")


def preset_of(under: CountedUnder) -> str:
    """byte_bpe: the preset name whose regex the count used, else the regex itself."""
    for name, pattern in PRESETS.items():
        if pattern == under.pattern:
            return name
    return under.pattern or ""


ChunkCounter = Callable[[dict[str, int], Iterable[str]], None]


def chunk_counter(under: CountedUnder) -> ChunkCounter:
    """A function (words, lines) that adds the pre-tokens of `lines` to the counts `words` in
    place, exactly as the trainer counts them on the whole corpus (each trainer's count is a sum
    over lines, so the chunks of a corpus add up to the whole)."""
    if under.algorithm == "sentencepiece_bpe":
        return _add_sentence_words
    if under.algorithm == "wordpiece":
        lowercase = lowercase_of(under)
        return lambda words, lines: add_text_words(words, " ".join(lines), lowercase=lowercase)
    if under.algorithm == "bpe":
        findall = splitter(WHITESPACE_PATTERN, "whitespace")
    else:
        name = preset_of(under)
        findall = splitter(under.pattern or "", name if name in ASCII_PATTERNS else None)

    def count(words: dict[str, int], lines: Iterable[str]) -> None:
        for piece, n in Counter(chain.from_iterable(map(findall, lines))).items():
            if piece:
                words[piece] = words.get(piece, 0) + n

    return count


def _add_sentence_words(words: dict[str, int], lines: Iterable[str]) -> None:
    """sentencepiece_bpe: the words of each line's sentences (`line_sentences`, `split_words`)."""
    for line in lines:
        for sentence in line_sentences(line):
            for w in split_words(sentence):
                words[w] = words.get(w, 0) + 1

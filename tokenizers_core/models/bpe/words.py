"""BPE training's input: a corpus as lines, checked, and the word-frequency table the trainers
start from (`trainer.py`), for the textbook "bpe" (Whitespace words and "</w>") and "byte_bpe"
(regex pieces spelled in the GPT-2 byte-level alphabet); and the checks of the sizes asked for.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from itertools import chain
from typing import Any, Iterable, Iterator

import regex

from ...byte_level import str_to_byte_level
from ...errors import InvalidInput
from ...pre_tokenizers import PRESETS, WHITESPACE_PATTERN, compile_pattern
from .model import ASCII_PATTERNS, END_OF_WORD, MAX_VOCAB_SIZE

# ---- corpus -> word table ------------------------------------------------------------------------
# The trainers read any number of lines (no ceiling but memory; a trainer of word counts holds
# only the counts): the web app keeps the limit a deployment sets (TOKVIS_MAX_CORPUS_BYTES).


def _lines(lines: Iterable[str]) -> Iterator[str]:
    """The lines as they come, each checked on the way (a stream: never held whole); raises
    InvalidInput for one string, a line that is not a str, or a corpus with no text (at its
    end)."""
    if isinstance(lines, str):
        raise InvalidInput(
            "give the corpus as a list of lines (e.g. text.splitlines()), not one string"
        )
    any_text = False
    for line in lines:
        if not isinstance(line, str):
            raise InvalidInput("every line of the corpus must be a string")
        any_text = any_text or not line.isspace() and line != ""
        yield line
    if not any_text:
        raise InvalidInput("the corpus is empty: give at least one line of text")


def check_vocab_size(vocab_size: Any) -> int:
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise InvalidInput("vocab_size must be a whole number")
    if not 1 <= vocab_size <= MAX_VOCAB_SIZE:
        raise InvalidInput(f"vocab_size must be between 1 and {MAX_VOCAB_SIZE:,}")
    return vocab_size


def check_min_frequency(min_frequency: Any) -> int:
    if isinstance(min_frequency, bool) or not isinstance(min_frequency, int) or min_frequency < 0:
        raise InvalidInput("min_frequency must be a whole number >= 0")
    return min_frequency


def check_alphabet(vocab_size: int, alphabet_size: int, what: str) -> None:
    if vocab_size < alphabet_size:
        raise InvalidInput(
            f"vocab_size {vocab_size} is below the {alphabet_size} symbols this corpus "
            f"starts with ({what}); choose at least {alphabet_size}"
        )


def splitter(pattern: str, ascii_name: str | None):
    """A function line -> pieces: `re` with the ASCII pattern for ASCII lines, else `regex`."""
    findall = functools.partial(regex.compile(pattern).findall, concurrent=False)
    if ascii_name not in ASCII_PATTERNS:  # (None, or a preset without an ASCII spelling)
        return findall
    ascii_findall = re.compile(ASCII_PATTERNS[ascii_name]).findall
    return lambda line: ascii_findall(line) if line.isascii() else findall(line)


def bpe_word_table(lines: Iterable[str]) -> dict[tuple[str, ...], int]:
    """The textbook word table: Whitespace words, each as characters + "</w>", with counts.

    >>> bpe_word_table(["low low", "lower"])
    {('l', 'o', 'w', '</w>'): 2, ('l', 'o', 'w', 'e', 'r', '</w>'): 1}
    """
    return {(*word, END_OF_WORD): c for word, c in bpe_words(lines).items()}


def bpe_words(lines: Iterable[str]) -> Counter[str]:
    """The Whitespace words of the corpus, each as one str, with counts."""
    findall = splitter(WHITESPACE_PATTERN, "whitespace")
    return Counter(chain.from_iterable(map(findall, _lines(lines))))


def _pattern_for(pattern: str) -> str:
    if pattern in PRESETS:
        return PRESETS[pattern]
    if not isinstance(pattern, str) or not pattern:
        raise InvalidInput("pattern must be a preset name (gpt2, cl100k, o200k) or a regex")
    compile_pattern(pattern)
    return pattern


def byte_bpe_word_table(lines: Iterable[str], pattern: str = "gpt2") -> dict[tuple[str, ...], int]:
    """The GPT-2 word table: regex pieces, each as byte-level characters, with counts.

    >>> byte_bpe_word_table(["hi hi"])
    {('h', 'i'): 1, ('Ġ', 'h', 'i'): 1}
    """
    return {tuple(word): c for word, c in byte_bpe_words(lines, pattern).items()}


def byte_bpe_words(lines: Iterable[str], pattern: str) -> dict[str, int]:
    """`byte_bpe_word_table` with each word as one str (one symbol per character): faster."""
    findall = splitter(_pattern_for(pattern), pattern if pattern in ASCII_PATTERNS else None)
    counter: Counter[str] = Counter(chain.from_iterable(map(findall, _lines(lines))))
    return {str_to_byte_level(word): c for word, c in counter.items() if word}

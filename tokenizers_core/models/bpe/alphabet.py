"""The alphabet and the spelling of words that BPE training starts from, with Hugging Face's
`BpeTrainer` options (`tokenizers/src/models/bpe/trainer.rs`, `compute_alphabet` and
`tokenize_words`, tokenizers 0.23.3):

- **initial_alphabet**: characters always in the alphabet, seen in the corpus or not (a string
  longer than one character gives its first character, as the Python binding does);
- **limit_alphabet**: keep at most this many characters, the most frequent ones (counted in the
  words, weighted by word frequency; the initial alphabet counts as infinitely frequent). A
  character left out is dropped from the words, so training never sees it;
- **continuing_subword_prefix** ("##"): every kept character but a word's first is spelled
  with the prefix ("low" -> "l ##o ##w"), and a merge drops the right side's prefix;
- **end_of_word_suffix** ("</w>"): a word's last character carries the suffix ("w</w>").

Ids: the special tokens, then the kept characters in code-point order, then the prefixed and
suffixed spellings. Hugging Face numbers those last ones in the order its hash map of words
happens to list them, which changes from run to run (and so do its ties among them); we number
them in code-point order. `symbol_order` replays a given numbering (say, one read off a
Hugging Face vocabulary), which makes a run reproducible exactly.

>>> words, alphabet = spell_words({"low": 2, "lot": 1}, continuing_subword_prefix="##",
...                               end_of_word_suffix="</w>")
>>> words
{('l', '##o', '##w</w>'): 2, ('l', '##o', '##t</w>'): 1}
>>> alphabet
['l', 'o', 't', 'w', '##o', '##t</w>', '##w</w>']

Not handled: a prefix or suffix that makes two spellings of one string (a prefix that is itself
a character of the word, say) is taken as Hugging Face takes it, one symbol.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping

from ...errors import InvalidInput

OPTION_NAMES = (
    "limit_alphabet",
    "initial_alphabet",
    "continuing_subword_prefix",
    "end_of_word_suffix",
    "max_token_length",
)


def check_options(
    options: Mapping[str, Any], allowed: Iterable[str] = OPTION_NAMES
) -> dict[str, Any]:
    """The alphabet options with their values checked (ValueError names a bad one).

    >>> check_options({"initial_alphabet": ["ab", "c"], "limit_alphabet": 3})
    {'initial_alphabet': ['a', 'c'], 'limit_alphabet': 3}
    """
    allowed = tuple(allowed)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise InvalidInput(
            f"unknown option(s) {', '.join(unknown)}; the alphabet options here "
            f"are {', '.join(allowed)}"
        )
    out: dict[str, Any] = {}
    for name, value in options.items():
        if value is not None:
            out[name] = _checked(name, value)
    return out


def _checked(name: str, value: Any) -> Any:
    """One option's value, checked (and initial_alphabet cut to first characters)."""
    if name in ("initial_alphabet", "symbol_order"):
        if isinstance(value, str) or not all(isinstance(c, str) for c in value):
            raise InvalidInput(f"{name} must be a list of strings")
        return [c[0] for c in value if c] if name == "initial_alphabet" else list(value)
    if name in ("limit_alphabet", "max_token_length"):
        least = 0 if name == "limit_alphabet" else 1
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise InvalidInput(f"{name} must be a whole number of at least {least}")
        return value
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string")
    return value or None  # an empty prefix or suffix changes nothing


def character_counts(word_counts: Mapping[str, int]) -> Counter[str]:
    """How often each character occurs, weighted by word frequency.

    >>> character_counts({"aab": 2, "b": 1})
    Counter({'a': 4, 'b': 3})
    """
    counts: Counter[str] = Counter()
    for word, freq in word_counts.items():
        for char, n in Counter(word).items():
            counts[char] += n * freq
    return counts


def kept_characters(
    word_counts: Mapping[str, int],
    limit_alphabet: int | None = None,
    initial_alphabet: Iterable[str] = (),
) -> list[str]:
    """The alphabet in code-point order: the corpus's characters and the initial alphabet,
    less the rarest ones past `limit_alphabet`. On a tie at the cut the later code point goes
    first (Hugging Face sorts unstably there, so its choice varies).

    >>> kept_characters({"aab": 2, "cb": 1}, limit_alphabet=2)
    ['a', 'b']
    >>> kept_characters({"aab": 2, "cb": 1}, limit_alphabet=2, initial_alphabet=["z"])
    ['a', 'z']
    """
    initial = set(initial_alphabet)
    if limit_alphabet is None:
        chars = set(initial)
        for word in word_counts:
            chars.update(word)
        return sorted(chars)
    counts = character_counts(word_counts)
    chars = set(counts) | initial
    ranked = sorted(chars, key=lambda c: (c in initial, counts[c], -ord(c)))
    return sorted(ranked[max(0, len(ranked) - limit_alphabet) :])


def spell_words(
    word_counts: Mapping[str, int],
    *,
    known: Iterable[str] = (),
    limit_alphabet: int | None = None,
    initial_alphabet: Iterable[str] = (),
    continuing_subword_prefix: str | None = None,
    end_of_word_suffix: str | None = None,
    symbol_order: Iterable[str] | None = None,
) -> tuple[Mapping[str, int] | dict[tuple[str, ...], int], list[str]]:
    """The word table and the alphabet (initial symbols in id order) training starts from.

    `known` are symbols already in the vocabulary (the special tokens): as in Hugging Face, a
    character equal to one is kept whatever the limit. A word keeps its str form (one symbol a
    character) unless a prefix or suffix spells it as a tuple of symbols.
    """
    chars = kept_characters(word_counts, limit_alphabet, initial_alphabet)
    keep = set(chars) | set(known)
    prefix, suffix = continuing_subword_prefix or "", end_of_word_suffix or ""
    if not prefix and not suffix:
        if limit_alphabet is None:  # every character is kept
            return word_counts, chars
        return _without_dropped(word_counts, keep), chars
    words: dict[tuple[str, ...], int] = {}
    forms: set[str] = set()
    for word, freq in word_counts.items():
        last = len(word) - 1
        spelled = tuple(
            (prefix if i else "") + c + (suffix if i == last else "")
            for i, c in enumerate(word)
            if c in keep
        )
        forms.update(spelled)
        words[spelled] = words.get(spelled, 0) + freq
    return words, chars + _ordered(forms - keep, symbol_order)


def _without_dropped(word_counts: Mapping[str, int], keep: set[str]) -> Mapping[str, int]:
    """The words less the characters outside `keep` (words that become equal are merged)."""
    dropped = {c for word in word_counts for c in word} - keep
    if not dropped:
        return word_counts
    table = str.maketrans(dict.fromkeys(dropped))
    out: dict[str, int] = {}
    for word, freq in word_counts.items():
        word = word.translate(table)
        out[word] = out.get(word, 0) + freq
    return out


def _ordered(forms: set[str], symbol_order: Iterable[str] | None) -> list[str]:
    """The forms in code-point order, or those named in `symbol_order` first, in its order."""
    if symbol_order is None:
        return sorted(forms)
    given = [s for s in dict.fromkeys(symbol_order) if s in forms]
    return given + sorted(forms - set(given))

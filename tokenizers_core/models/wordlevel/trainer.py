"""WordLevel training: the vocabulary is the special tokens, then the most frequent words, as
Hugging Face's `WordLevelTrainer` (`tokenizers/src/models/wordlevel/trainer.rs`, 0.23.3) makes it.

1. sort the words by count, the most frequent first; on a tie, by the word itself (code-point
   order, which is Rust's byte order for UTF-8);
2. drop the words seen fewer than `min_frequency` times;
3. number the special tokens, then the words, and keep the first `vocab_size` of them.

>>> wordlevel_vocab({"the": 3, "cat": 1, "a": 3, "sat": 1}, vocab_size=4,
...                 special_tokens=["<unk>"])
{'<unk>': 0, 'a': 1, 'the': 2, 'cat': 3}

As in Hugging Face, a word equal to a special token takes the later id (the special token's id
is then unused), and a `vocab_size` below the number of special tokens keeps only the first ones.
"""

from __future__ import annotations

from itertools import chain, islice
from typing import Any, Iterable, Mapping

from ...errors import InvalidInput


def wordlevel_vocab(
    word_counts: Mapping[str, int],
    vocab_size: int,
    *,
    min_frequency: int = 0,
    special_tokens: Iterable[str] = (),
) -> dict[str, int]:
    """The trained vocabulary, word -> id (see the module docstring)."""
    vocab_size = _whole(vocab_size, "vocab_size", least=1)
    min_frequency = _whole(min_frequency, "min_frequency", least=0)
    specials = list(special_tokens) if not isinstance(special_tokens, str) else [special_tokens]
    if not all(isinstance(t, str) and t for t in specials):
        raise InvalidInput("special tokens must be non-empty strings")
    ranked = sorted(word_counts.items(), key=lambda wc: (-wc[1], wc[0]))
    words = (w for w, count in ranked if count >= min_frequency)
    entries = islice(chain(specials, words), vocab_size)
    return {token: i for i, token in enumerate(entries)}


def _whole(value: Any, name: str, *, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise InvalidInput(f"{name} must be a whole number of at least {least}")
    return value

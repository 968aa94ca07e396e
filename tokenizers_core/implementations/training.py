"""`tc.train(algorithm, lines, vocab_size, **options)`: the five algorithms this project trains,
each returning a whole `Tokenizer`.

>>> algorithms()
['bpe', 'byte_bpe', 'sentencepiece_bpe', 'wordpiece', 'unigram']
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from ..pipeline import Tokenizer
from .bert import train_wordpiece
from .bpe import train_bpe, train_byte_bpe, train_sentencepiece_bpe
from .unigram import train_unigram

# algorithm -> function(lines, vocab_size=..., **options) -> Tokenizer
_TRAINERS: dict[str, Callable[..., Tokenizer]] = {
    "bpe": train_bpe,
    "byte_bpe": train_byte_bpe,
    "sentencepiece_bpe": train_sentencepiece_bpe,
    "wordpiece": train_wordpiece,
    "unigram": train_unigram,
}


def algorithms() -> list[str]:
    """The algorithms `train` accepts."""
    return list(_TRAINERS)


def train(algorithm: str, lines: Iterable[str], vocab_size: int, **options: Any) -> Tokenizer:
    """Train a tokeniser with one of `algorithms()` on an iterable of lines."""
    if algorithm not in _TRAINERS:
        known = ", ".join(_TRAINERS) or "none yet"
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of: {known}")
    return _TRAINERS[algorithm](lines, vocab_size=vocab_size, **options)

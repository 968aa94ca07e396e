"""tokenizers_core: a stepwise, pure-Python tokenizer engine.

>>> import tokenizers_core as tc
>>> tc.load("char").encode("hi!").tokens
['h', 'i', '!']
"""
from __future__ import annotations

import importlib
from typing import Any, Iterable

from .checker import check  # noqa: F401  (tc.check: a student's implementation vs ours)
from .encoding import Encoding, Token
from .normalized import NormalizedString
from .pipeline import Tokenizer
from .pretrained import load
from .steps import Step, Trace, register_step, step_from_dict

# algorithm -> (module, function(lines, vocab_size=..., **options) -> Tokenizer)
_TRAINERS: dict[str, tuple[str, str]] = {
    "bpe": ("tokenizers_core.models.bpe_train", "train_bpe"),
    "byte_bpe": ("tokenizers_core.models.bpe_train", "train_byte_bpe"),
    "sentencepiece_bpe": ("tokenizers_core.models.bpe_sentencepiece", "train_sentencepiece_bpe"),
    "wordpiece": ("tokenizers_core.bert", "train_wordpiece"),
    "unigram": ("tokenizers_core.models.unigram_trainer", "train_unigram"),
}


def algorithms() -> list[str]:
    """The algorithms `train` accepts."""
    return list(_TRAINERS)


def train(algorithm: str, lines: Iterable[str], vocab_size: int, **options: Any) -> Tokenizer:
    """Train a tokeniser with one of `algorithms()` on an iterable of lines."""
    if algorithm not in _TRAINERS:
        known = ", ".join(_TRAINERS) or "none yet"
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of: {known}")
    module, fn = _TRAINERS[algorithm]
    return getattr(importlib.import_module(module), fn)(lines, vocab_size=vocab_size, **options)


__all__ = ["Encoding", "NormalizedString", "Step", "Token", "Tokenizer", "Trace", "algorithms",
           "load", "register_step", "step_from_dict", "train"]

"""The bundled tokenisers, by name, loaded lazily and cached.

Each entry of `_BUNDLED` says where the factory lives (module, function) and what the listing
shows without loading the vocabulary. A factory takes no arguments and returns a `Tokenizer`.
"""
from __future__ import annotations

import functools
import importlib
import os
from dataclasses import dataclass

from .pipeline import Tokenizer


@dataclass(frozen=True)
class Bundled:
    module: str
    factory: str
    algorithm: str
    vocab_size: int
    label: str


_BUNDLED: dict[str, Bundled] = {
    # rule tokenisers (no training, no fixed vocabulary)
    "char": Bundled("tokenizers_core.rules", "char_tokenizer", "char", 0, "Characters (code points)"),
    "word": Bundled("tokenizers_core.rules", "word_tokenizer", "word", 0, "Words and punctuation"),
    "sentence": Bundled("tokenizers_core.rules", "sentence_tokenizer", "sentence", 0, "Sentences"),
    # OpenAI's byte-level BPE encodings (helper B)
    "r50k_base": Bundled("tokenizers_core.openai_public", "r50k_base", "byte_bpe", 50257,
                         "GPT-2 (r50k_base, byte-level BPE)"),
    "cl100k_base": Bundled("tokenizers_core.openai_public", "cl100k_base", "byte_bpe", 100261,
                           "GPT-4 (cl100k_base, byte-level BPE)"),
    "o200k_base": Bundled("tokenizers_core.openai_public", "o200k_base", "byte_bpe", 200000,
                          "GPT-4o (o200k_base, byte-level BPE)"),
    "bert-base-uncased": Bundled("tokenizers_core.bert", "bert_base_uncased", "wordpiece", 30522,
                                 "BERT base uncased (WordPiece)"),
    "botchan_en_unigram_1000": Bundled("tokenizers_core.formats.sentencepiece_model", "botchan_en_unigram_1000",
                                       "unigram", 1000, "SentencePiece Unigram (Botchan, 1k)"),
    "botchan_en_bpe_1000": Bundled("tokenizers_core.formats.sentencepiece_model", "botchan_en_bpe_1000",
                                   "sentencepiece_bpe", 1000, "SentencePiece BPE (Botchan, 1k)"),
}

_ALIASES: dict[str, str] = {
    "gpt2": "r50k_base",
    "gpt-4": "cl100k_base",
    "gpt-4o": "o200k_base",
}


def canonical_name(name: str) -> str:
    """The bundled name behind an alias ("gpt-4" -> "cl100k_base"); other names unchanged."""
    return _ALIASES.get(name, name)


def bundled() -> dict[str, Bundled]:
    """Bundled tokenisers by canonical name (a copy), in listing order."""
    return dict(_BUNDLED)


def aliases_of(name: str) -> list[str]:
    return [a for a, n in _ALIASES.items() if n == name]


def is_bundled(name: str) -> bool:
    return canonical_name(name) in _BUNDLED


@functools.lru_cache(maxsize=None)
def _load_bundled(name: str) -> Tokenizer:
    entry = _BUNDLED[name]
    factory = getattr(importlib.import_module(entry.module), entry.factory)
    tok = factory()
    tok.name = name
    return tok


def load(name_or_path: str) -> Tokenizer:
    """A bundled tokeniser by name or alias, or a tokeniser file (see `_load_file`).

    Bundled tokenisers are cached: loading one twice returns the same object, so treat it as
    read-only.
    """
    if not isinstance(name_or_path, str) or not name_or_path:
        raise ValueError("give a tokeniser name (e.g. 'cl100k_base') or a path to a model file")
    name = canonical_name(name_or_path)
    if name in _BUNDLED:
        return _load_bundled(name)
    if os.path.exists(name_or_path):
        return _load_file(name_or_path)
    known = ", ".join(sorted([*_BUNDLED, *_ALIASES]))
    raise ValueError(f"unknown tokeniser {name_or_path!r}; bundled ones are: {known}")


_FILE_LOADERS: dict[str, tuple[str, str]] = {
    # file suffix -> (module, function taking the path)
    ".model": ("tokenizers_core.formats.sentencepiece_model", "load_sentencepiece"),
    ".txt": ("tokenizers_core.bert", "load_vocab_file"),   # a WordPiece vocab.txt
}


def _load_file(path: str) -> Tokenizer:
    for suffix, (module, fn) in _FILE_LOADERS.items():
        if path.endswith(suffix):
            return getattr(importlib.import_module(module), fn)(path)
    kinds = ", ".join(_FILE_LOADERS) or "none yet"
    raise ValueError(f"cannot load {path!r}: supported model files are: {kinds}")

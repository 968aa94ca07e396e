"""The bundled tokenisers, by name, loaded lazily and cached.

Each entry of `_BUNDLED` says where the factory lives (module, function) and what the listing
shows without loading the vocabulary. A factory takes no arguments and returns a `Tokenizer`.
"""
from __future__ import annotations

import functools
import importlib
import os
from dataclasses import dataclass
from typing import Any

from . import formats
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
    "char": Bundled("tokenizers_core.implementations.rules", "char_tokenizer", "char", 0, "Characters (code points)"),
    "word": Bundled("tokenizers_core.implementations.rules", "word_tokenizer", "word", 0, "Words and punctuation"),
    "sentence": Bundled("tokenizers_core.implementations.rules", "sentence_tokenizer", "sentence", 0, "Sentences"),
    # OpenAI's byte-level BPE encodings (helper B)
    "r50k_base": Bundled("tokenizers_core.implementations.openai_public", "r50k_base", "byte_bpe", 50257,
                         "GPT-2 (r50k_base, byte-level BPE)"),
    "cl100k_base": Bundled("tokenizers_core.implementations.openai_public", "cl100k_base", "byte_bpe", 100261,
                           "GPT-4 (cl100k_base, byte-level BPE)"),
    "o200k_base": Bundled("tokenizers_core.implementations.openai_public", "o200k_base", "byte_bpe", 200000,
                          "GPT-4o (o200k_base, byte-level BPE)"),
    "bert-base-uncased": Bundled("tokenizers_core.implementations.bert", "bert_base_uncased", "wordpiece", 30522,
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


def load(source: str | os.PathLike | bytes, *, format: str | None = None,
         pattern: str | None = None, special_tokens: dict[str, int] | None = None,
         **options: Any) -> Tokenizer:
    """A bundled tokeniser by name or alias, or a tokeniser file (a path or its bytes).

    A file's format is sniffed from its content (see `formats`): a Hugging Face tokenizer.json, a
    tiktoken ranks file (which needs `pattern`, a preset name or a regex, and takes
    `special_tokens` as {string: id}), a sentencepiece .model, a WordPiece vocab.txt, or BPE's
    vocab.json + merges.txt (a folder holding them, or a .zip of them). `format` names it
    instead ("hf_json", "tiktoken", "sentencepiece", "vocab_txt", "vocab_merges"); other
    `options` go to the format's reader (vocab.txt: `lowercase=`).

    Bundled tokenisers are cached: loading one twice returns the same object, so treat it as
    read-only.
    """
    if pattern is not None:
        options["pattern"] = pattern
    if special_tokens is not None:
        options["special_tokens"] = special_tokens
    if isinstance(source, (bytes, bytearray)):
        return formats.load_bytes(bytes(source), format=format, **options)
    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    if not isinstance(source, str) or not source:
        raise ValueError("give a tokeniser name (e.g. 'cl100k_base'), a path to a tokenizer "
                         "file or its bytes")
    name = canonical_name(source)
    if name in _BUNDLED and format is None and not options:
        return _load_bundled(name)
    if os.path.isfile(source):
        return _load_file(source, format, options)
    if os.path.isdir(source):
        return _load_folder(source, format, options)
    known = ", ".join(sorted([*_BUNDLED, *_ALIASES]))
    raise ValueError(f"unknown tokeniser {source!r}: not a file, and the bundled ones are: {known}")


def _load_folder(path: str, format: str | None, options: dict[str, Any]) -> Tokenizer:
    """A folder of vocab.json + merges.txt (or encoder.json + vocab.bpe)."""
    if format not in (None, "vocab_merges") or options:
        raise ValueError(f"{path} is a folder: only vocab.json + merges.txt load from a folder, "
                         "with no options")
    from .formats import vocab_merges  # lazy: keeps `import tokenizers_core` light
    try:
        pair = vocab_merges.read_folder(path)
        if pair is None:
            raise ValueError("it holds no vocab.json + merges.txt (nor encoder.json + "
                             "vocab.bpe); give the path of a tokenizer file instead")
        return vocab_merges.load_pair(*pair, name=os.path.basename(os.path.normpath(path)))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror}") from None
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _load_file(path: str, format: str | None, options: dict[str, Any]) -> Tokenizer:
    size = os.path.getsize(path)
    if size > formats.MAX_FILE_BYTES:
        raise ValueError(f"{path}: {size:,} bytes is more than a tokenizer file may be "
                         f"({formats.MAX_FILE_BYTES:,})")
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise ValueError(f"cannot read {path!r}: {exc.strerror}") from None
    try:
        return formats.load_bytes(data, format=format, name=os.path.basename(path), **options)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None

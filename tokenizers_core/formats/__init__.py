"""The tokenizer file formats other libraries use, one module per format.

| format          | module                   | what it is                                         |
|-----------------|--------------------------|----------------------------------------------------|
| `hf_json`       | `hf_json.py`             | Hugging Face `tokenizer.json` (the whole pipeline) |
| `tiktoken`      | `tiktoken_file.py`       | base64 token + rank per line (OpenAI, Llama 3/4)   |
| `sentencepiece` | `sentencepiece_model.py` | a sentencepiece `ModelProto` (`.model`)            |
| `vocab_txt`     | `vocab_txt.py`           | a WordPiece vocabulary, one token a line (BERT)    |
| `vocab_merges`  | `vocab_merges.py`        | BPE vocab.json + merges.txt, zipped (GPT-2, GPT-1) |
| `gguf`          | `gguf_tokenizer.py`      | a GGUF model's tokenizer metadata (llama.cpp)      |
| `model_folder`  | `model_folder.py`        | a model repository's tokenizer files (read only)   |
| `tekken`        | `tekken.py`              | Mistral's tekken.json (tiktoken ranks, read only)  |

`gguf_writer.py` writes a GGUF file. A model folder holds a repository's tokenizer.json +
tokenizer_config.json (+ chat_template.jinja), as a folder or a .zip.

Writing a format may lose part of a tokeniser (a `.tiktoken` holds no normaliser): `exactness.py`
says, for a tokeniser and a format, whether the file reproduces it and if not, what changes.

`load_bytes(data)` sniffs the format from the content, never from a file name (Mistral ships
`tokenizer.model.v3`, Llama 3 ships a tiktoken file named `tokenizer.model`):

>>> sniff(b'{"version": "1.0", "model": {"type": "BPE"}}')
'hf_json'
>>> sniff(b"IQ== 0\\nIg== 1\\n")
'tiktoken'
>>> sniff(b"[PAD]\\n[UNK]\\nthe\\n")
'vocab_txt'
>>> sniff(b'{"config": {"version": "v3"}, "vocab": [{"rank": 0, "token_bytes": "AA=="')
'tekken'

A folder that holds vocab.json + merges.txt loads too (`tc.load("gpt2-files/")`), and so does a
model's folder of tokenizer.json + tokenizer_config.json, which keeps its chat template.
"""

from __future__ import annotations

import codecs
import importlib
import re
from typing import Any

from .. import pipeline
from ..errors import InvalidInput
from .files import GGUF_MAGIC, MAX_FILE_BYTES, ZIP_MAGIC, TooLarge, gunzip, zip_files

# format -> its module: load_bytes(data, name=, **options) and dump_bytes(tok); each is imported
# on first use (importlib), so `import tokenizers_core` does not load five readers and writers
FORMATS: dict[str, str] = {
    "hf_json": "tokenizers_core.formats.hf_json",
    "tiktoken": "tokenizers_core.formats.tiktoken_file",
    "sentencepiece": "tokenizers_core.formats.sentencepiece_model",
    "vocab_txt": "tokenizers_core.formats.vocab_txt",
    "vocab_merges": "tokenizers_core.formats.vocab_merges",
    "gguf": "tokenizers_core.formats.gguf_tokenizer",  # llama.cpp's model files: metadata only
    "model_folder": "tokenizers_core.formats.model_folder",  # tokenizer.json + its config, zipped
    "tekken": "tokenizers_core.formats.tekken",  # Mistral's tekken.json (mistral-common)
}

_RANK_LINE = re.compile(rb"(?:[A-Za-z0-9+/]+={0,2}|=) \d+")  # "= 50256": the empty token


def sniff(data: bytes) -> str:
    """The format of a tokenizer file's bytes (ValueError when it is none we know). Its
    first 4,096 bytes decide (`data` may be only a file's first bytes, as the upload form
    sends them); a UTF-8 BOM in front of a JSON file is skipped, as `json.loads` skips it."""
    if data.startswith(GGUF_MAGIC):
        return "gguf"
    head = data[:SNIFF_BYTES]
    if head.removeprefix(UTF8_BOM).lstrip().startswith(b"{"):
        # a JSON object: a Tekken file has keys no tokenizer.json has
        return "tekken" if _tekken().looks_like_tekken(data) else "hf_json"
    if data.startswith(ZIP_MAGIC):  # a zip: of a model's folder, or of
        return _zip_format(data)  # vocab.json + merges.txt
    lines = [line for line in head.splitlines()[:-1] or head.splitlines() if line]
    if lines and all(_RANK_LINE.fullmatch(line) for line in lines[:20]):
        return "tiktoken"
    if _looks_like_protobuf(data):
        return "sentencepiece"
    text = utf8_head(head)
    if text is not None and text.strip() and "\x00" not in text:
        return "vocab_txt"
    raise InvalidInput(
        "not a tokenizer file we know: expected a Hugging Face tokenizer.json, a "
        "Mistral tekken.json, a tiktoken ranks file, a sentencepiece .model, a "
        "WordPiece vocab.txt, a .zip of vocab.json + merges.txt or of a model's "
        "tokenizer.json + tokenizer_config.json, or a GGUF model"
    )


SNIFF_BYTES = 4096
UTF8_BOM = b"\xef\xbb\xbf"


def utf8_head(head: bytes) -> str | None:
    """The text of a file's first bytes, None when they are not UTF-8. A cut may fall inside
    a character (its first 1-3 bytes end `head`): that character is left out, and the
    format's reader decodes the whole file.

    >>> "東".encode(), utf8_head(b"ab\\xe6\\x9d"), utf8_head(b"a\\xffb")
    (b'\\xe6\\x9d\\xb1', 'ab', None)
    """
    try:
        return codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return None


def _tekken() -> Any:
    return importlib.import_module(FORMATS["tekken"])


def _zip_format(data: bytes) -> str:
    """ "model_folder" for a zip holding a tokenizer.json, else "vocab_merges"."""
    folder = importlib.import_module(FORMATS["model_folder"])
    _archive, members = zip_files(data)
    return (
        "model_folder"
        if folder.holds_tokenizer_json([m.filename for m in members])
        else "vocab_merges"
    )


def load_gguf_path(path: str, name: str = "") -> Any:
    """A `Tokenizer` from a GGUF file of any size, reading only its metadata (`gguf.py`)."""
    return importlib.import_module(FORMATS["gguf"]).load_path(path, name=name)


def _looks_like_protobuf(data: bytes) -> bool:
    """A sentencepiece ModelProto starts with field 1 (a piece), wire type 2: byte 0x0A."""
    return len(data) > 2 and data[0] == 0x0A


def load_bytes(data: bytes, *, format: str | None = None, name: str = "", **options: Any) -> Any:
    """A `Tokenizer` from a tokenizer file's bytes (gzip-compressed is fine).

    `format` is one of `FORMATS` (sniffed when None); `options` go to the format's reader
    (tiktoken files need `pattern=` and take `special_tokens=`).
    """
    if not isinstance(data, (bytes, bytearray)):
        raise InvalidInput("a tokenizer file is bytes")
    data = gunzip(bytes(data))
    if format is None:
        format = sniff(data)
    if format not in FORMATS:
        raise InvalidInput(f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}")
    reader = importlib.import_module(FORMATS[format])
    return reader.load_bytes(data, name=name, **options)


# What `save` picks from a file name's extension.
EXTENSIONS: dict[str, str] = {
    ".json": "hf_json",
    ".tiktoken": "tiktoken",
    ".model": "sentencepiece",
    ".txt": "vocab_txt",
    ".zip": "vocab_merges",
    ".gguf": "gguf",
}


def format_for_path(path: str, format: str | None = None) -> str:
    """The format to write `path` in: `format` if given, else from the extension.

    >>> format_for_path("out/tokenizer.json"), format_for_path("x.bin", "tiktoken")
    ('hf_json', 'tiktoken')
    """
    if format is not None:
        if format not in FORMATS:
            raise InvalidInput(f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}")
        return format
    for ext, name in EXTENSIONS.items():
        if str(path).endswith(ext):
            return name
    raise InvalidInput(
        f"cannot tell the format from {str(path)!r}: use an extension "
        f"({', '.join(EXTENSIONS)}) or name the format ({', '.join(FORMATS)})"
    )


def dump_bytes(tok: Any, format: str) -> bytes:
    """The bytes of `tok` in `format` (ValueError, saying what does exist, when the format
    cannot hold it; `exactness.exactness` says what a file it can hold loses)."""
    if format not in FORMATS:
        raise InvalidInput(f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}")
    writer = importlib.import_module(FORMATS[format])
    if not hasattr(writer, "dump_bytes"):
        raise InvalidInput(f"saving as {format} is not supported yet")
    return writer.dump_bytes(tok)


def save(tok: Any, path: str, format: str | None = None) -> str:
    """Write `tok` to `path` (the format from the extension or named); returns the format."""
    format = format_for_path(path, format)
    data = dump_bytes(tok, format)
    try:
        with open(path, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise InvalidInput(f"cannot write {str(path)!r}: {exc.strerror}") from None
    return format


__all__ = [
    "EXTENSIONS",
    "FORMATS",
    "MAX_FILE_BYTES",
    "TooLarge",
    "ZIP_MAGIC",
    "dump_bytes",
    "format_for_path",
    "GGUF_MAGIC",
    "gunzip",
    "load_bytes",
    "load_gguf_path",
    "save",
    "sniff",
]


def _save(tok: Any, path: str, format: str | None = None) -> str:
    """`Tokenizer.save`: "vocab_merges" to a folder writes the two files there, else `save`."""
    if format == "vocab_merges" and not str(path).endswith(".zip"):
        _writer().save_vocab_merges(tok, str(path))
        return format
    return save(tok, path, format)


# The pipeline sits below this layer (the readers above build Tokenizers), so it cannot import
# it: `Tokenizer.save` and `Tokenizer.to_hf_json` reach the writers through this hand-over, which
# runs whenever formats/ is imported (`import tokenizers_core` always imports it).
pipeline.use_writers(save=_save, to_hf_json=lambda tok: _writer().to_hf_json(tok))


def _writer() -> Any:
    return importlib.import_module("tokenizers_core.formats.hf_json_writer")

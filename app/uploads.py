"""Uploaded tokenizer files: stored content-addressed in SQLite, parsed once, cached.

A user uploads a Hugging Face tokenizer.json, a tiktoken ranks file, a sentencepiece .model or
a WordPiece vocab.txt (gzipped is fine). The bytes, after gunzip, are stored once under their
sha256; the handle names the bytes and the load options:

    upload-<sha256[:16]>                 a file that needs no options (tokenizer.json, .model)
    upload-<sha256[:16]>-<8 hex>         the same bytes loaded with options (a ranks file's
                                         pattern and special tokens, a vocab.txt's casing)

so one file loaded two ways gives two handles, and any worker rebuilds a tokeniser from its
handle alone. A parsed tokeniser stays in an LRU bounded by memory (TOKVIS_TOKENIZER_CACHE_MB,
each weighed by `jobs.cache.tokenizer_bytes`): a Llama 3 tokenizer.json takes a second or two to
parse and is never parsed per request.

(`upload-<64 hex>` is the older lattice-view upload, a base64 text in the corpus store; it is
still read, so old permalinks keep working.)
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import zlib
from typing import Any, Callable

from fastapi import HTTPException, UploadFile
from starlette.concurrency import run_in_threadpool

import tokenizers_core as tc
from tokenizers_core import formats
from tokenizers_core.errors import InvalidInput
from tokenizers_core.formats import tiktoken_specials, vocab_merges
from tokenizers_core.pipeline import NormalizerRunner

from . import heap
from .jobs.cache import RunCache, tokenizer_bytes
from .store import CorpusStore, StoreFull, is_sha256

PREFIX = "upload-"
HANDLE = re.compile(r"upload-[0-9a-f]{16}(-[0-9a-f]{8})?")
PATTERN_PRESETS = ("llama3", "o200k", "cl100k", "p50k", "gpt2")  # offered for ranks files
FORMAT_LABELS = {
    "hf_json": "Hugging Face tokenizer.json",
    "tiktoken": "tiktoken ranks file",
    "sentencepiece": "sentencepiece .model",
    "vocab_txt": "WordPiece vocab.txt",
    "vocab_merges": "vocab.json + merges.txt (.zip)",
    "gguf": "GGUF model (llama.cpp): its metadata",
    "model_folder": "model folder (.zip with tokenizer.json)",
    "tekken": "Mistral Tekken JSON (tekken.json)",
}
# The options each format's reader takes; the upload form sends every field, the rest are ignored.
FORMAT_OPTIONS = {"tiktoken": ("pattern", "special_tokens"), "vocab_txt": ("lowercase",)}
_LEGACY_PREFIX = "sentencepiece-model:base64:"  # the lattice view's uploads before this module
_PARSE_ERRORS = (
    KeyError,
    TypeError,
    IndexError,
    AttributeError,
    RecursionError,
    OverflowError,
    UnicodeDecodeError,
)


# ---- reading the upload (the one place that checks sizes) ----------------------------------------
async def read_tokenizer_file(upload: UploadFile, limit: int) -> bytes:
    """The uploaded file's bytes, gunzipped; 413 over `limit` bytes (before or after gunzip)."""
    data = await upload.read(limit + 1)
    if data.startswith(formats.GGUF_MAGIC):
        return data[:limit]  # a GGUF model: the prefix up to its metadata's end is enough
    if len(data) > limit:
        raise HTTPException(
            413,
            f"the file is over the tokenizer upload limit of {limit:,} bytes "
            "(set TOKVIS_MAX_TOKENIZER_BYTES to change it)",
        )
    if not data:
        raise HTTPException(422, "the file is empty: choose a tokenizer file")
    try:
        return await run_in_threadpool(_unpacked, data, limit)
    except formats.TooLarge as exc:
        raise HTTPException(413, f"{exc} (the limit is TOKVIS_MAX_TOKENIZER_BYTES)") from None
    except ValueError as exc:  # a bad or truncated gzip
        raise HTTPException(422, str(exc)) from None


def _unpacked(data: bytes, limit: int) -> bytes:
    """`data` gunzipped; a zip is unzipped once to check its size against the limit too
    (TooLarge): the files either zip reader takes (a model folder's tokenizer.json, config and
    templates; vocab.json + merges.txt, which it finds by another rule) may not unzip to more
    than `limit` together, TOKVIS_MAX_TOKENIZER_BYTES as the docs say (the readers' own
    64 MiB cap is the library's, for files on disk). Reading it later says what else may be
    wrong with it."""
    from tokenizers_core.formats import model_folder

    data = formats.gunzip(data, limit)
    if data.startswith(formats.ZIP_MAGIC):
        for read_zip in (model_folder.read_zip, vocab_merges.read_zip):
            try:
                read_zip(data, limit)
            except formats.TooLarge:
                raise
            except ValueError:
                pass
    return data


# ---- what a file is, from its first bytes (the upload form asks before it sends the file) --------
SNIFF_BYTES = 4096  # `formats.sniff` reads no further than this
HEAD_BYTES = 65_536  # the form sends this much of a file: enough gzip for SNIFF_BYTES


def sniff_head(head: bytes) -> str | None:
    """The format of a tokenizer file from its first bytes (gunzipped as far as they go, when
    they are gzip), as `formats.sniff` decides it for the whole file; None when it is no
    tokenizer file we read.

    >>> import gzip
    >>> sniff_head(b'{"model": {"type": "BPE"'), sniff_head(gzip.compress(b"[UNK]\\nplay\\n")[:20])
    ('hf_json', 'vocab_txt')
    >>> sniff_head(b"\\xff\\xfe\\x00") is None
    True
    """
    if head[:2] == b"\x1f\x8b":
        try:  # a cut gzip stream decompresses as far as it goes; a bomb stops at the cap
            head = zlib.decompressobj(wbits=31).decompress(head, SNIFF_BYTES)
        except zlib.error:
            return None
    try:
        return formats.sniff(head[:SNIFF_BYTES])
    except ValueError:
        return None


# ---- the form's fields -----------------------------------------------------------------------------
def parse_special_tokens(raw: str | None) -> dict[str, int] | None:
    """Special tokens as a JSON object `{"<|endoftext|>": 100257}`, or one per line `TOKEN ID`.

    >>> parse_special_tokens('{"<s>": 1}'), parse_special_tokens("<s> 1\\n</s>  2")
    ({'<s>': 1}, {'<s>': 1, '</s>': 2})
    """
    if raw is None or not raw.strip():
        return None
    raw = raw.strip()
    if raw.startswith("{"):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InvalidInput(
                f"special tokens: not valid JSON ({exc.msg} at line {exc.lineno}, "
                f"column {exc.colno})"
            ) from None
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and k and isinstance(v, int) and not isinstance(v, bool) and v >= 0
            for k, v in value.items()
        ):
            raise InvalidInput(
                "special tokens: give a JSON object of token → id, such as "
                '{"<|endoftext|>": 100257}'
            )
        return value
    out: dict[str, int] = {}
    for number, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        token, _, rank = line.strip().rpartition(" ")
        # ("²" is a digit to isdigit and not to int; 5,000 digits are more than int() reads)
        if not token.strip() or not (rank.isascii() and rank.isdigit() and len(rank) < 19):
            raise InvalidInput(
                f"special tokens, line {number}: expected `TOKEN ID` (or a JSON "
                f"object), got {line.strip()[:40]!r}"
            )
        out[token.strip()] = int(rank)
    return out


def parse_lowercase(raw: str | bool | None) -> bool | None:
    """auto (None) / uncased (True) / cased (False), from a form or API field."""
    if raw is None or isinstance(raw, bool):
        return raw
    value = raw.strip().lower()
    if value in ("", "auto"):
        return None
    if value in ("true", "1", "yes", "on", "uncased", "lowercase"):
        return True
    if value in ("false", "0", "no", "off", "cased"):
        return False
    raise InvalidInput(f"lowercase must be auto, cased or uncased, got {raw!r}")


def model_family(tok: Any) -> str:
    """Which step-through view runs on a tokeniser's model: bpe, wordpiece, unigram or other."""
    from tokenizers_core.models.bpe.sentencepiece import SentencePieceBpe
    from tokenizers_core.models.wordpiece.model import WordPiece

    model = tok.model
    if hasattr(model, "viterbi_steps"):
        return "unigram"
    if isinstance(model, WordPiece):
        return "wordpiece"
    if hasattr(model, "encode_steps") or isinstance(model, SentencePieceBpe):
        return "bpe"
    return "other"


def ranks_file_options(data: bytes, options: dict[str, Any]) -> dict[str, Any]:
    """A ranks file's pattern and special tokens, the presets of the known encoding with as
    many ranks filling in what the user left to "from the rank count" (None). Given ones stay;
    `{}` (the "none" choice) stays none."""
    if options.get("pattern") and "special_tokens" in options:
        return options
    known = tiktoken_specials.suggest(tiktoken_specials.count_ranks(data))
    if known is None:
        return options
    return {
        "pattern": options.get("pattern") or known.pattern,
        "special_tokens": options.get("special_tokens", known.specials),
    }


def special_tokens_field(text: str, preset: str) -> dict[str, int] | str | None:
    """The special tokens a form asks for: its typed lines (they win), else the preset chosen:
    a name, "none" ({}), or "" for the preset the file's rank count suggests (None)."""
    typed = parse_special_tokens(text)
    if typed is not None:
        return typed
    preset = preset.strip()
    if preset in ("", "auto"):
        return None
    if preset == "none":
        return {}
    if preset not in tiktoken_specials.PRESETS:
        raise InvalidInput(
            f"unknown special-token preset {preset!r}; choose one of: "
            f"{', '.join(tiktoken_specials.PRESETS)}, or none"
        )
    return preset


class NeedsPattern(InvalidInput):
    """A ranks file was uploaded without its pattern; `sha256` names its stored bytes."""

    def __init__(self, sha256: str) -> None:
        super().__init__(
            "this is a tiktoken ranks file of a size no known encoding has, so it needs "
            f"its pre-tokenisation pattern (a preset: {', '.join(PATTERN_PRESETS)}; or a "
            "regex) and its special tokens, which the file does not hold"
        )
        self.sha256 = sha256


# ---- the store and the cache ----------------------------------------------------------------------
class UploadedTokenizers:
    """Stores uploaded tokenizer files and serves the parsed tokenisers from an LRU that keeps
    at most `max_bytes` of them (by `tokenizer_bytes`; the newest always stays)."""

    def __init__(
        self,
        store: CorpusStore,
        max_bytes: int = 1024 * 10**6,
        parser: Callable[[bytes, str, dict[str, Any]], tc.Tokenizer] | None = None,
        normalizer_runner: NormalizerRunner | None = None,
    ) -> None:
        self.store = store
        self.parser = parser or parse  # the server's: `Sandbox.parse`, in a child process
        # where the tokenisers' normaliser chains run (None: here); the server's:
        # `Sandbox.normalizer_runner`, in a child process
        self.normalizer_runner = normalizer_runner
        self._cache = RunCache(None, max_bytes)
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}  # one parse per handle at a time

    def add(
        self,
        data: bytes,
        *,
        name: str = "",
        filename: str = "",
        format: str | None = None,
        pattern: str | None = None,
        special_tokens: dict[str, int] | str | None = None,
        lowercase: bool | None = None,
    ) -> dict[str, Any]:
        """Parse `data` (already gunzipped) and store it; the stored row (with `handle`).

        `name` names it (and renames it when it was stored before); else `filename` does, if
        it is new. Raises ValueError naming the problem when the file does not load; nothing
        is stored then, and nothing stored before is touched."""
        try:
            sniffed = formats.sniff(data)
        except ValueError:
            if not format:
                raise
            sniffed = None
        fmt = format or sniffed
        if fmt not in formats.FORMATS:
            raise InvalidInput(
                f"unknown format {fmt!r}; choose one of: {', '.join(formats.FORMATS)}"
            )
        given = {
            "pattern": pattern or None,
            "special_tokens": special_tokens,
            "lowercase": lowercase,
        }
        options = {k: given[k] for k in FORMAT_OPTIONS.get(fmt, ()) if given[k] is not None}
        if fmt == "tiktoken":
            options = ranks_file_options(data, options)
            if not options.get("pattern"):
                # keep the bytes, so a form can ask for the pattern without a second upload
                raise NeedsPattern(self.store.put_file(data))
        tok = self.parser(data, fmt, options)
        if fmt == "gguf":  # keep the metadata, not the tensors the prefix reached
            data = data[: tok.gguf["metadata_bytes"]]
        if fmt == "vocab_txt":  # the casing chosen (from the vocab when not given)
            options["lowercase"] = bool(getattr(tok, "lowercase", lowercase))
        digest = hashlib.sha256(data).hexdigest()
        key = dict(options, **({"format": fmt} if fmt != sniffed else {}))
        handle = PREFIX + digest[:16]
        if key:
            handle += "-" + hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:8]
        info = {
            "handle": handle,
            "sha256": digest,
            "format": fmt,
            "name": (name.strip() or filename.strip())[:200],
            "options": options,
            "algorithm": tok.algorithm or fmt,
            "vocab_size": int(tok.vocab_size or 0),
            "family": model_family(tok),
        }
        self.store.put_file(data)
        self.store.put_tokenizer(info, rename=bool(name.strip()))
        self._remember(handle, tok)
        return self.store.get_tokenizer(handle) or info

    def get(self, handle: str) -> tc.Tokenizer | None:
        """The tokeniser behind a handle (parsed from the stored file on a cache miss), or None
        if no upload has this handle."""
        tok = self._cache.get(handle)
        if tok is not None:
            return tok
        with self._lock:
            building = self._building.setdefault(handle, threading.Lock())
        with building:  # a second request for the same handle waits for the first
            tok = self._cache.get(handle)
            if tok is not None:
                return tok
            tok = self._load(handle)
            if tok is not None:
                self._remember(handle, tok)
            with self._lock:
                self._building.pop(handle, None)
            return tok

    def info(self, handle: str) -> dict[str, Any] | None:
        return self.store.get_tokenizer(handle) if HANDLE.fullmatch(handle) else None

    def list(self) -> list[dict[str, Any]]:
        return self.store.list_tokenizers()

    def _load(self, handle: str) -> tc.Tokenizer | None:
        if HANDLE.fullmatch(handle):
            row = self.store.get_tokenizer(handle)
            data = self.store.get_file(row["sha256"]) if row else None
            if data is None:
                return None
            return self.parser(data, row["format"], row["options"])
        digest = handle[len(PREFIX) :]
        if handle.startswith(PREFIX) and is_sha256(digest):  # an older lattice upload
            stored = self.store.get(digest)
            if stored is None or not stored.startswith(_LEGACY_PREFIX):
                return None
            data = base64.b64decode(stored[len(_LEGACY_PREFIX) :])
            return self.parser(data, "sentencepiece", {})
        return None

    def _remember(self, handle: str, tok: tc.Tokenizer) -> None:
        tok.name = handle
        tok.normalizer_runner = self.normalizer_runner  # its chain: in the server's sandbox
        # As for the bundled OpenAI encodings, a special token's text in the input is ordinary
        # text unless the request allows it (`allowed_special`, the "special tokens" checkbox),
        # rather than tiktoken's error: the views show any text.
        if getattr(tok, "strict_special", False):
            tok.strict_special = False
        heap.settle()  # a big vocabulary that stays: keep the collector off it
        self._cache.put(handle, tok, tokenizer_bytes(tok))


def parse(data: bytes, fmt: str, options: dict[str, Any]) -> tc.Tokenizer:
    """`tc.load` on the bytes; any failure to read the file is an InvalidInput naming it. (The
    server runs this in a sandboxed child: `app.sandbox.Sandbox.parse`.)"""
    try:
        return tc.load(data, format=fmt, **options)
    except InvalidInput:
        raise
    # a reader should say InvalidInput; whatever else it lets through (a UnicodeDecodeError,
    # a KeyError of a hostile file) is still the file's fault: never a 500 for a file
    except (ValueError, *_PARSE_ERRORS) as exc:
        raise InvalidInput(
            f"cannot read this {FORMAT_LABELS.get(fmt, fmt)}: {type(exc).__name__}: {exc}"
        ) from None


# ---- one upload from the form or the API -----------------------------------------------------------
async def upload(
    uploads: UploadedTokenizers,
    limit: int,
    file: UploadFile | None,
    *,
    sha256: str = "",
    name: str = "",
    format: str = "",
    pattern: str = "",
    regex: str = "",
    special_tokens: str = "",
    special_preset: str = "",
    lowercase: str = "",
) -> dict[str, Any]:
    """Read, check and store one tokenizer file from form fields (`sha256`: a file stored
    earlier, when the form comes back for a ranks file's pattern). Raises HTTPException for
    the upload itself, ValueError (NeedsPattern among them) for the file's content."""
    filename = ""
    if file is not None and file.filename:
        data = await read_tokenizer_file(file, limit)
        filename = file.filename
    elif sha256:
        data = uploads.store.get_file(sha256) if is_sha256(sha256) else None
        if data is None:
            raise HTTPException(
                404, f"no stored tokenizer file has sha256 {sha256}: upload it again"
            )
    else:
        raise HTTPException(422, "choose a tokenizer file to upload")
    if format and format not in formats.FORMATS:
        raise InvalidInput(
            f"unknown format {format!r}; choose one of: {', '.join(formats.FORMATS)}"
        )
    # parsing a big file takes seconds: off the event loop, so other requests go on
    try:
        return await run_in_threadpool(
            uploads.add,
            data,
            name=name,
            filename=filename,
            format=format or None,
            pattern=regex.strip() or pattern.strip() or None,
            special_tokens=special_tokens_field(special_tokens, special_preset),
            lowercase=parse_lowercase(lowercase),
        )
    except StoreFull as exc:
        raise HTTPException(507, str(exc)) from None

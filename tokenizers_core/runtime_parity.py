"""Runtime parity: one tokenizer as each runtime would read it, on the same texts.

>>> import tokenizers_core as tc
>>> report = tc.parity("qwen3", ["Hello world", "e\\u0301"])
>>> report.runtimes
('tokenizers', 'transformers', 'llama.cpp')
>>> [row.same for row in report.rows]
[True, False]
>>> report.first_mismatch.runtimes, report.first_mismatch.rule
(('tokenizers', 'llama.cpp'), 'normaliser')

Each runtime's rules are the project's own readers of its files:

| runtime          | reads                                | here                                 |
|------------------|--------------------------------------|--------------------------------------|
| `tokenizers`     | the tokenizer.json as it is          | `formats.hf_json`                    |
| `transformers`   | the folder: tokenizer_config.json's  | `formats.model_folder` (`hf_classes`:|
|                  | class, its added tokens, flags       | the classes transformers 5 rebuilds) |
| `llama.cpp`      | the GGUF its converter writes        | `formats.gguf_writer`, read back by  |
|                  |                                      | `formats.gguf_tokenizer`             |
| `mistral-common` | a Tekken file                        | `formats.tekken`                     |
| `tiktoken`       | a ranks file / an OpenAI encoding    | `formats.tiktoken_file`              |

Only the runtimes that read the input are compared; `skipped` says why each other one is not
(a ranks file has no tokenizer_config for transformers; a GGUF is llama.cpp's alone). A file
that is not a tokenizer.json (a ranks file, a sentencepiece .model, a vocab.txt) is read by
`tokenizers` through its tokenizer.json export, as one converts it to use it there.

Each runtime encodes as its library does by default (`add_special_tokens=True`: the BOS a
post-processor adds): special tokens typed in a text are matched by Hugging Face and llama.cpp,
read as text by mistral-common and refused by tiktoken (an error for that runtime on that text,
which counts as a mismatch); `special=True` reads them as special tokens everywhere, `False` as
ordinary text (the `special` switch of every surface, `special_switch.py`).

The first text whose runtimes disagree is explained by the diff of the two tokenizers
(`diff.py`): the reference runtime (the input's own: tiktoken for a ranks file, mistral-common
for Tekken, transformers for a model folder, else tokenizers) against the first runtime that
differs from it, with the pipeline stage that makes them differ ("normaliser",
"pre-tokenizer split", "model", ...).

Not handled: transformers reading a GGUF (`gguf_file=`), a ranks file or a lone .model (it
converts them with its own class defaults); mistral-common's sentencepiece models.
"""

from __future__ import annotations

import functools
import io
import json
import os
import zipfile
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

from .decoders.wordpiece import _WORDPIECE_CLEANUP
from .diff import STAGES, Divergence, diff
from .errors import InvalidInput
from .formats import (
    GGUF_MAGIC,
    gguf_tokenizer,
    gguf_writer,
    gunzip,
    hf_json_writer,
    load_bytes,
    load_gguf_path,
    model_folder,
    sniff,
)
from .formats.model_folder import CONFIG, TOKENIZER, read_zip
from .formats.tekken import TekkenTokenizer
from .models import BPE
from .notebook import parity_html
from .pipeline import Tokenizer
from .pretrained import canonical_name, is_bundled, load
from .special_switch import special_options

RUNTIMES = ("tokenizers", "transformers", "llama.cpp", "mistral-common", "tiktoken")
WINDOW = 3  # tokens shown from the first differing one, each side

# a reader of a file's bytes in a format (`formats.load_bytes`; the server passes its sandbox's)
Parse = Callable[[bytes, str, dict[str, Any]], Any]


# ---- the runtimes' readings ---------------------------------------------------------------------
@dataclass(frozen=True)
class Readings:
    """The tokenizer each runtime reads from one input (`tokenizers`: runtime -> Tokenizer,
    the reference first), how each reads it (`how`: a sentence each), and why each other
    runtime is not there (`skipped`: runtime -> reason)."""

    label: str
    tokenizers: dict[str, Any]
    how: dict[str, str]
    skipped: dict[str, str]

    @property
    def reference(self) -> str:
        return next(iter(self.tokenizers))


def read_runtimes(
    source: Any, *, parse: Parse | None = None, label: str | None = None, **load_options: Any
) -> Readings:
    """Each runtime's reading of `source`: a bundled name, a path (a file or a model folder),
    a file's bytes, or a `Tokenizer`. `load_options` go to `tc.load` (a ranks file's
    `pattern`); `parse` reads a file's bytes (default: `formats.load_bytes`)."""

    parse = parse or _parse
    name = label or (source if isinstance(source, str) else getattr(source, "name", "") or "")
    if isinstance(source, Tokenizer):
        return _of_tokenizer(source, name, parse)
    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    if isinstance(source, str) and is_bundled(source) and not load_options:
        return _of_bundled(source)
    if isinstance(source, str) and os.path.isdir(source):
        files = _folder_files(source)
        if files is None:  # vocab.json + merges.txt: read as the rest of the formats
            return _of_tokenizer(load(source), name, parse)
        return _of_files(files, name, parse)
    if isinstance(source, str) and os.path.isfile(source):
        return _of_file(source, name, parse, load_options)
    if isinstance(source, (bytes, bytearray)):
        return _of_bytes(bytes(source), name, parse, load_options)
    return _of_tokenizer(load(source, **load_options), name, parse)  # load says what is wrong


def readings_of(files: dict[str, bytes], label: str, parse: Parse | None = None) -> Readings:
    """The readings of a model folder's files (by `model_folder.file_key`): what the web
    layer calls for an uploaded folder, its files read with its own `parse`."""
    return _of_files(files, label, parse or _parse)


@functools.lru_cache(maxsize=8)
def _of_bundled(name: str) -> Readings:
    """A bundled tokenizer's readings, built once (the bundled tokenizers are read-only)."""

    return _of_tokenizer(load(canonical_name(name)), name, _parse)


def _of_file(path: str, label: str, parse: Parse, load_options: dict[str, Any]) -> Readings:

    with open(path, "rb") as fh:
        gguf = fh.read(len(GGUF_MAGIC)) == GGUF_MAGIC
    if gguf:  # a model of gigabytes: only its metadata is read
        return _of_gguf(load_gguf_path(path, name=os.path.basename(path)), label)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise InvalidInput(f"cannot read {path!r}: {exc.strerror}") from None
    if _format(data) in ("hf_json", "model_folder"):
        return _of_bytes(data, label, parse, load_options)
    return _of_tokenizer(load(path, **load_options), label, parse)


def _of_bytes(data: bytes, label: str, parse: Parse, load_options: dict[str, Any]) -> Readings:

    data = gunzip(data)
    fmt = _format(data)
    if fmt == "hf_json" and not load_options:
        return _of_files({TOKENIZER: data}, label, parse)
    if fmt == "model_folder" and not load_options:
        return _of_files(read_zip(data), label, parse)
    tok = parse(data, fmt, load_options)
    return _of_gguf(tok, label) if fmt == "gguf" else _of_tokenizer(tok, label, parse)


def _of_files(files: dict[str, bytes], label: str, parse: Parse) -> Readings:
    """A tokenizer.json (+ tokenizer_config.json): tokenizers reads the file alone,
    transformers the folder, llama.cpp the GGUF converted from transformers' reading (as
    `convert_hf_to_gguf.py` reads the vocabulary through `AutoTokenizer`)."""

    if TOKENIZER not in files:
        raise InvalidInput("the folder holds no tokenizer.json: parity reads a model folder by it")
    plain = parse(files[TOKENIZER], "hf_json", {})
    folder = parse(_zipped(files), "model_folder", {})
    config = "with its tokenizer_config.json" if CONFIG in files else "with no tokenizer_config"
    # the reference first: a folder's is transformers, a lone tokenizer.json's tokenizers
    readings = (
        {"transformers": folder, "tokenizers": plain}
        if CONFIG in files
        else {"tokenizers": plain, "transformers": folder}
    )
    how = {
        "tokenizers": "the tokenizer.json as it is (Tokenizer.from_file)",
        "transformers": f"the folder, {config} (AutoTokenizer.from_pretrained)"
        + _rebuild_note(folder),
    }
    skipped = {
        "mistral-common": "not a Tekken file",
        "tiktoken": "not a tiktoken ranks file",
    }
    return _with_gguf(Readings(label, readings, how, skipped), folder)


def _of_tokenizer(tok: Any, label: str, parse: Parse) -> Readings:
    """A tokenizer object (a bundled one, a ranks file, a .model, a vocab.txt as loaded)."""

    readings: dict[str, Any] = {}
    how: dict[str, str] = {}
    skipped: dict[str, str] = {}
    own = _own_runtime(tok)
    if own is not None:
        readings[own] = tok
        how[own] = "the file by its own library's rules"
    if own == "tiktoken" or isinstance(tok, TekkenTokenizer) or getattr(tok, "proto", None):
        exported = _exported(tok, parse)
        if isinstance(exported, str):
            skipped["tokenizers"] = exported
        else:
            readings["tokenizers"] = exported
            how["tokenizers"] = "its tokenizer.json export (as converted for tokenizers)"
    elif getattr(tok, "class_rebuild", None) is not None:
        readings["transformers"] = tok
        how["transformers"] = "the model folder it was loaded from" + _rebuild_note(tok)
        skipped["tokenizers"] = (
            "loaded as transformers rebuilds the folder's class: give the folder's path to "
            "read its tokenizer.json as it is"
        )
    elif _has_hf_form(tok):
        readings["tokenizers"] = tok
        how["tokenizers"] = "its tokenizer.json as it is"
    else:
        skipped["tokenizers"] = f"{tok.name or 'this tokenizer'} has no tokenizer.json form"
    if "transformers" not in readings:
        plain = "tokenizers" in readings and not own and getattr(tok, "proto", None) is None
        folder = _config_reading(tok, parse) if plain else None
        if folder is not None:
            readings["transformers"] = folder
            how["transformers"] = "its tokenizer.json with its tokenizer_config" + _rebuild_note(
                folder
            )
        else:
            skipped["transformers"] = _why_not_transformers(tok, own)
    for runtime, why in (
        ("mistral-common", "not a Tekken file"),
        ("tiktoken", "not a tiktoken ranks file"),
    ):
        if runtime not in readings:
            skipped[runtime] = why
    gguf_of = readings.get("transformers", tok)
    return _with_gguf(Readings(label, readings, how, skipped), gguf_of)


def _of_gguf(tok: Any, label: str) -> Readings:
    """A GGUF model: llama.cpp's file, which no other runtime here reads."""
    why = "a GGUF holds llama.cpp's tokenizer; no other runtime here reads it"
    return Readings(
        label,
        {"llama.cpp": tok},
        {"llama.cpp": "the GGUF's tokenizer metadata by llama.cpp's rules"},
        {r: why for r in RUNTIMES if r != "llama.cpp"},
    )


def _with_gguf(readings: Readings, tok: Any) -> Readings:
    """`readings` with llama.cpp's: `tok` written as its converter writes a GGUF and read
    back by llama.cpp's rules (skipped, saying why, when it has no GGUF form)."""

    try:
        gguf = gguf_tokenizer.load_bytes(gguf_writer.dump_bytes(tok), name=readings.label)
    except (InvalidInput, ValueError, TypeError) as exc:
        why = str(exc) if str(exc).startswith("no GGUF form") else f"no GGUF form: {exc}"
        skipped = {**readings.skipped, "llama.cpp": why}
        return Readings(readings.label, readings.tokenizers, readings.how, _ordered(skipped))
    meta: dict[str, Any] = getattr(gguf, "gguf", {})  # the GGUF's model and pre names
    pre = meta.get("pre")
    how = {
        **readings.how,
        "llama.cpp": f"its GGUF conversion ({meta.get('model')}"
        + (f", pre {pre}" if pre else "")
        + ") by llama.cpp's rules",
    }
    return Readings(
        readings.label,
        {**readings.tokenizers, "llama.cpp": gguf},
        how,
        _ordered(readings.skipped),
    )


def _ordered(skipped: dict[str, str]) -> dict[str, str]:
    return {r: skipped[r] for r in RUNTIMES if r in skipped}


def _own_runtime(tok: Any) -> str | None:
    """The runtime whose own file `tok` is: mistral-common for Tekken, tiktoken for a ranks
    file or an OpenAI encoding; None for the Hugging Face style tokenizers."""

    if isinstance(tok, TekkenTokenizer):
        return "mistral-common"
    if hasattr(tok, "strict_special"):
        return "tiktoken"
    return None


def _why_not_transformers(tok: Any, own: str | None) -> str:
    if own == "tiktoken":
        return (
            "a ranks file has no tokenizer_config: transformers would convert it to a "
            "tokenizer.json"
        )
    if own == "mistral-common":
        return "transformers reads a Tekken file only through mistral-common"
    if getattr(tok, "proto", None) is not None:
        return (
            "a .model alone: transformers converts it by the class its tokenizer_config "
            "names; give the model folder"
        )
    return "no tokenizer.json with a tokenizer_config to read"


def _exported(tok: Any, parse: Parse) -> Any:
    """`tok` read back from its tokenizer.json export, or why it has none (a str)."""

    try:
        return parse(hf_json_writer.dump_bytes(tok), "hf_json", {})
    except InvalidInput as exc:
        return f"no tokenizer.json form: {exc}"


def _has_hf_form(tok: Any) -> bool:

    return type(tok) is Tokenizer and tok.algorithm not in ("char", "word", "sentence")


def _config_reading(tok: Any, parse: Parse) -> Any:
    """transformers' reading of `tok`'s tokenizer.json beside its tokenizer_config (the
    bundled Qwen3 carries one), or of the tokenizer.json alone (truncation and padding off)."""

    try:
        files = {TOKENIZER: hf_json_writer.dump_bytes(tok)}
    except InvalidInput:
        return None
    config = getattr(tok, "tokenizer_config", None)
    if isinstance(config, dict):
        files[CONFIG] = json.dumps(config).encode()
    return parse(_zipped(files), "model_folder", {})


def _rebuild_note(tok: Any) -> str:
    rebuild = getattr(tok, "class_rebuild", None)
    if rebuild is None:
        return ""
    if not rebuild.followed:
        return f"; {rebuild.name} is read as the file (not rebuilt here)"
    return f"; rebuilt as {rebuild.name}" if rebuild.changes else f"; as {rebuild.name}"


def _folder_files(path: str) -> dict[str, bytes] | None:
    """A model folder's tokenizer files (by `file_key`), or None when it has no tokenizer.json."""

    names = os.listdir(path)
    if not model_folder.holds_tokenizer_json(names):
        return None
    files = {}
    for name in names:
        full = os.path.join(path, name)
        key = model_folder.file_key(name)
        if key is not None and os.path.isfile(full):
            with open(full, "rb") as fh:
                files[key] = fh.read()
    return files


def _zipped(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        for key, data in files.items():
            zf.writestr(key, data)
    return out.getvalue()


def _format(data: bytes) -> str:

    return sniff(data)


def _parse(data: bytes, fmt: str, options: dict[str, Any]) -> Any:

    return load_bytes(data, format=fmt, **options)


# ---- the report ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    """One text: each runtime's ids and tokens (None where the runtime refused the text, with
    its reason in `errors`), whether all agree (`same`), and what each decodes its ids to,
    special tokens skipped (`decoded`; `round_trip`: whether that is the text)."""

    index: int
    text: str
    ids: dict[str, list[int] | None]
    tokens: dict[str, list[str] | None]
    errors: dict[str, str] = field(default_factory=dict)
    decoded: dict[str, str | None] = field(default_factory=dict)
    # each runtime's Encoding (offsets, special tokens mask), for views that draw the tokens
    encodings: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def round_trip(self) -> dict[str, bool]:
        return {r: text == self.text for r, text in self.decoded.items()}

    @property
    def same(self) -> bool:
        return not self.errors and len({tuple(v or ()) for v in self.ids.values()}) <= 1

    def differing(self) -> list[str]:
        """The runtimes whose ids differ from the first runtime's (the reference)."""
        first = next(iter(self.ids.values()), None)
        return [r for r, v in self.ids.items() if v != first or r in self.errors]

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "text": self.text,
            "ids": dict(self.ids),
            "tokens": dict(self.tokens),
            "same": self.same,
            "differing": self.differing(),
            "errors": dict(self.errors),
            "round_trip": self.round_trip,
            "decoded": {r: t for r, t in self.decoded.items() if t != self.text},
        }


@dataclass(frozen=True)
class Mismatch:
    """The first text whose runtimes disagree: the reference runtime and the first that
    differs from it (`runtimes`), the first token where their ids differ (`position`), the
    tokens from there on each side (`a`, `b`: [{id, token}]), and the rule that makes them
    differ (`rule`, one of `diff.STAGES`, or "refused" when a runtime refused the text, with
    `explanation` a sentence and `evidence` what the stage gave on each side). `divergence`
    is the diff's own answer (None for a refusal)."""

    index: int
    text: str
    runtimes: tuple[str, str]
    position: int
    a: list[dict[str, Any]]
    b: list[dict[str, Any]]
    rule: str
    explanation: str
    char: int | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    divergence: Divergence | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "text": self.text,
            "runtimes": list(self.runtimes),
            "position": self.position,
            "char": self.char,
            "a": self.a,
            "b": self.b,
            "rule": self.rule,
            "explanation": self.explanation,
            "evidence": self.evidence,
        }


@dataclass(frozen=True)
class ParityReport:
    """One tokenizer's runtimes on some texts: `ok` when every runtime gives every text the
    same ids. `to_dict()` is the JSON of `POST /api/parity` and `tokvis parity --json`."""

    tokenizer: str
    runtimes: tuple[str, ...]
    rows: tuple[Row, ...]
    first_mismatch: Mismatch | None
    skipped: dict[str, str]
    how: dict[str, str]
    special: bool | None = None

    @property
    def ok(self) -> bool:
        return all(row.same for row in self.rows)

    @property
    def mismatched(self) -> int:
        return sum(not row.same for row in self.rows)

    def summary(self) -> str:
        n = len(self.rows)
        texts = f"{n} text{'' if n == 1 else 's'}"
        runtimes = ", ".join(self.runtimes)
        if self.ok:
            return f"{self.tokenizer}: {runtimes} agree on all {texts}"
        return f"{self.tokenizer}: {runtimes} disagree on {self.mismatched} of {texts}"

    def _repr_html_(self) -> str:
        """The report as tables of chips in a notebook (`tokenizers_core.notebook`)."""
        return parity_html(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tokenizer": self.tokenizer,
            "runtimes": list(self.runtimes),
            "reference": self.runtimes[0] if self.runtimes else None,
            "special": self.special,
            "ok": self.ok,
            "texts": len(self.rows),
            "mismatched": self.mismatched,
            "rows": [row.to_dict() for row in self.rows],
            "first_mismatch": self.first_mismatch.to_dict() if self.first_mismatch else None,
            "skipped": dict(self.skipped),
            "how": dict(self.how),
        }


def parity(
    source: Any,
    texts: Iterable[str],
    *,
    special: bool | None = None,
    parse: Parse | None = None,
    **load_options: Any,
) -> ParityReport:
    """`tc.parity`: `source` (a bundled name, a file or model folder path, a file's bytes, a
    `Tokenizer`) as each runtime reads it, on every text (see the module's docstring)."""
    texts = _checked(texts)
    readings = (
        source
        if isinstance(source, Readings)
        else read_runtimes(source, parse=parse, **load_options)
    )
    return compare(readings, texts, special=special)


def compare(readings: Readings, texts: list[str], *, special: bool | None = None) -> ParityReport:
    """Every runtime of `readings` on every text, and the first mismatch explained."""
    if not readings.tokenizers:
        raise InvalidInput(
            f"no runtime reads {readings.label or 'this tokenizer'}: "
            + "; ".join(f"{r}: {why}" for r, why in readings.skipped.items())
        )
    rows = tuple(_row(readings, i, text, special) for i, text in enumerate(texts))
    first = next((row for row in rows if not row.same), None)
    return ParityReport(
        tokenizer=readings.label,
        runtimes=tuple(readings.tokenizers),
        rows=rows,
        first_mismatch=_mismatch(readings, first) if first else None,
        skipped=dict(readings.skipped),
        how=dict(readings.how),
        special=special,
    )


def _checked(texts: Iterable[str]) -> list[str]:
    if isinstance(texts, str):
        raise InvalidInput("texts is a list of strings (one text: [text])")
    out = list(texts)
    for t in out:
        if not isinstance(t, str):
            raise InvalidInput(f"every text is a str, not {type(t).__name__}")
    return out


def _row(readings: Readings, index: int, text: str, special: bool | None) -> Row:
    ids: dict[str, list[int] | None] = {}
    tokens: dict[str, list[str] | None] = {}
    errors: dict[str, str] = {}
    decoded: dict[str, str | None] = {}
    encodings: dict[str, Any] = {}
    for runtime, tok in readings.tokenizers.items():
        try:
            enc = tok.encode(text, **special_options(tok, special, text))
        except (InvalidInput, ValueError) as exc:
            ids[runtime] = tokens[runtime] = None
            errors[runtime] = str(exc)
            continue
        ids[runtime], tokens[runtime] = list(enc.ids), list(enc.tokens)
        decoded[runtime] = _decoded(runtime, tok, enc.ids)
        encodings[runtime] = enc
    return Row(index, text, ids, tokens, errors, decoded, encodings)


def _decoded(runtime: str, tok: Any, ids: list[int]) -> str | None:
    """The text `tok` decodes `ids` to, special tokens skipped, as the runtime decodes:
    transformers then cleans up tokenization spaces when the config asks it to (never for a
    BPE model, unless forced, as transformers 5 does); None when it cannot decode."""
    try:
        text = tok.decode(ids, skip_special_tokens=True)
    except (InvalidInput, ValueError, KeyError, IndexError):
        return None
    if runtime == "transformers" and _cleans_up(tok):
        text = clean_up_tokenization(text)
    return text


def _cleans_up(tok: Any) -> bool:

    config = getattr(tok, "tokenizer_config", None) or {}
    if not config.get("clean_up_tokenization_spaces"):
        return False
    forced = config.get("clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output")
    return bool(forced) or not isinstance(tok.model, BPE)


def clean_up_tokenization(text: str) -> str:
    """transformers' `clean_up_tokenization`: the spaces a WordPiece decode leaves before
    punctuation and English contractions, taken out.

    >>> clean_up_tokenization("hello , world ! i do n't know .")
    "hello, world! i don't know."
    """
    for before, after in _CLEAN_UP:
        text = text.replace(before, after)
    return text


# transformers' list is tokenizers' WordPiece cleanup, in the same order, without " do not"
_CLEAN_UP = tuple(rule for rule in _WORDPIECE_CLEANUP if rule[0] != " do not")


# ---- the first mismatch, explained --------------------------------------------------------------
def _mismatch(readings: Readings, row: Row) -> Mismatch:
    a = readings.reference
    others = [r for r in row.differing() if r != a]
    b = others[0] if others else a  # (one runtime, which refused the text)
    if a in row.errors or b in row.errors:
        return _refused(row, a, b)
    ids_a, ids_b = row.ids[a] or [], row.ids[b] or []
    position = _first_unequal(ids_a, ids_b)
    found = diff(readings.tokenizers[a], readings.tokenizers[b], [row.text], names=(a, b))
    d = replace(found.differences[0], index=row.index) if found.differences else None
    return Mismatch(
        index=row.index,
        text=row.text,
        runtimes=(a, b),
        position=position,
        a=_side(row, a, position),
        b=_side(row, b, position),
        rule=d.stage if d else "special tokens",
        explanation=_explain(d, a, b) if d else _SPECIAL_ONLY,
        char=d.position if d else None,
        evidence=d.evidence if d else {},
        divergence=d,
    )


_SPECIAL_ONLY = (
    "the two read the special tokens typed in the text differently (with the special switch "
    "set, each reads them its own way)"
)


def _refused(row: Row, a: str, b: str) -> Mismatch:
    refusing = a if a in row.errors else b
    return Mismatch(
        index=row.index,
        text=row.text,
        runtimes=(a, b),
        position=0,
        a=_side(row, a, 0),
        b=_side(row, b, 0),
        rule="refused",
        explanation=f"{refusing} refuses the text: {row.errors[refusing]}",
    )


def _side(row: Row, runtime: str, position: int) -> list[dict[str, Any]]:
    ids, tokens = row.ids[runtime], row.tokens[runtime]
    if ids is None or tokens is None:
        return []
    end = min(len(ids), position + WINDOW)
    return [{"id": ids[k], "token": tokens[k]} for k in range(position, end)]


def _first_unequal(u: list[int], v: list[int]) -> int:
    return next((i for i, (p, q) in enumerate(zip(u, v)) if p != q), min(len(u), len(v)))


def _explain(d: Divergence, a: str, b: str) -> str:
    """What the stage that makes two runtimes differ gave on each side, in a sentence, from
    the diff's evidence (the stage itself is `Mismatch.rule`)."""
    ev = d.evidence
    if d.stage == "normaliser":
        return (
            f"{a} ({ev['a_name']}) gives {ascii(ev['a'])}, "
            f"{b} ({ev['b_name']}) gives {ascii(ev['b'])}"
        )
    if d.stage == "pre-tokenizer split":
        pa, pb = ev.get("a") or {}, ev.get("b") or {}
        return (
            f"{a} ({ev['a_name']}) cuts the piece {pa.get('text')!r}, "
            f"{b} ({ev['b_name']}) the piece {pb.get('text')!r}"
        )
    if d.stage == "added tokens":
        return (
            f"{a} matches {ev['a']!r}, {b} matches {ev['b']!r} as an added "
            "token (None: no added token there)"
        )
    if d.stage == "model" and "word" in ev:
        return (
            f"the piece {ev['word']!r} is {ev['a']} in {a} ({ev['a_name']}) and "
            f"{ev['b']} in {b} ({ev['b_name']})"
        )
    if d.stage == "model":
        return f"the token {ev['token']!r} is id {ev['id_a']} in {a}, {ev['id_b']} in {b}"
    before_a, before_b = ev["a"], ev["b"]
    return (
        f"{a} adds {before_a['before']} before and {before_a['after']} after, "
        f"{b} adds {before_b['before']} before and {before_b['after']} after"
    )


__all__ = [
    "RUNTIMES",
    "STAGES",
    "Mismatch",
    "ParityReport",
    "Readings",
    "Row",
    "clean_up_tokenization",
    "compare",
    "parity",
    "read_runtimes",
    "readings_of",
]

"""A tokeniser as a file: the formats it has, what each keeps, their file names, and the bytes.

`tokenizers_core.formats.exactness` decides, per format, whether a file reproduces the tokeniser
exactly, loses something (and says what, in sentences), or cannot hold it at all. Here:
`formats_of(tok)` lists the exact formats and `lossy_formats_of(tok)` the lossy ones with what
changes (+ "vocab_merges": the vocab.json + merges.txt, zipped, of a BPE model that has no
tokenizer.json, i.e. the textbook `bpe`). The download route (`/api/download/tokenizer`) and the
pages' download links both ask them: a page links an exact format plainly and a lossy one only
behind the sentences saying what changes; the route gives a lossy file only when asked with
`lossy=true`. Answers are cached per tokeniser object (weakly).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from tokenizers_core.errors import InvalidInput
from tokenizers_core.formats import dump_bytes
from tokenizers_core.formats.exactness import Exactness, control_piece_change, exactness

from .urls import url_with

FORMATS = ("hf_json", "tiktoken", "sentencepiece", "vocab_txt", "vocab_merges")
LABELS = {
    "hf_json": "tokenizer.json",
    "tiktoken": ".tiktoken",
    "sentencepiece": ".model",
    "vocab_txt": "vocab.txt",
    "vocab_merges": "vocab.json + merges.txt (.zip)",
}
_cache: dict[int, tuple[Any, dict[str, Exactness]]] = {}  # id(tok) -> (weakref to tok, answers)
_lock = threading.Lock()


def exactness_of(tok: Any) -> dict[str, Exactness]:
    """format -> what a file of it keeps, for every format `tok` can be written in (FORMATS
    order; "vocab_merges" only where tokenizer.json cannot hold it)."""
    with _lock:
        hit = _cache.get(id(tok))
    if hit is not None and hit[0]() is tok:
        return dict(hit[1])
    found = {}
    for format in FORMATS[:-1]:
        said = exactness(tok, format)
        if said.refused is None:
            found[format] = said
    if "hf_json" not in found:
        said = exactness(tok, "vocab_merges")  # the BPE files, where no tokenizer.json is
        if said.refused is None:
            found["vocab_merges"] = said
    with _lock:
        if len(_cache) > 64:
            _cache.clear()
        _cache[id(tok)] = (weakref.ref(tok), found)  # never keeps a tokeniser alive
    return dict(found)


def formats_of(tok: Any) -> list[str]:
    """The formats `tok` has an exact file in, in FORMATS order ([] for a rule tokeniser)."""
    return [f for f, said in exactness_of(tok).items() if said.exact]


def lossy_formats_of(tok: Any) -> dict[str, list[str]]:
    """format -> what changes, for the formats whose file of `tok` is not exact."""
    return {f: list(said.changes) for f, said in exactness_of(tok).items() if said.lossy}


def file_name(name: str, format: str) -> str:
    """The download's file name: tokenizer.json, NAME.tiktoken, NAME.model, vocab.txt,
    NAME-vocab-merges.zip (NAME made safe for a header)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip("-.")[:60]
    safe = safe or "tokenizer"
    return {
        "hf_json": "tokenizer.json",
        "tiktoken": f"{safe}.tiktoken",
        "sentencepiece": f"{safe}.model",
        "vocab_txt": "vocab.txt",
        "vocab_merges": f"{safe}-vocab-merges.zip",
    }[format]


def download(tok: Any, name: str, format: str, lossy: bool = False) -> bytes:
    """The bytes of the tokeniser called `name` in `format`. A ValueError naming the formats it
    has when it has no file in this one, and saying what changes when the file is not exact
    and `lossy` was not asked for."""
    has = exactness_of(tok)
    if format not in has:
        why = (
            f"unknown format {format!r}"
            if format not in FORMATS
            else f"{name} has no {format} form"
        )
        if not has:
            raise InvalidInput(
                f"{why}; {name} has no file form (its tokens are cut from the text by rules)"
            )
        raise InvalidInput(f"{why}; {name} can be downloaded as: {', '.join(has)}")
    if has[format].lossy and not lossy:
        raise InvalidInput(
            f"a {LABELS[format]} file of {name} is not exact: "
            f"{' '.join(has[format].changes)} Ask with lossy=true to download it "
            "anyway" + (f"; exact: {', '.join(formats_of(tok))}." if formats_of(tok) else ".")
        )
    return tokenizer_file(tok, format)


MEDIA_TYPES = {
    "hf_json": "application/json",
    "tiktoken": "text/plain; charset=utf-8",
    "sentencepiece": "application/octet-stream",
    "vocab_txt": "text/plain; charset=utf-8",
    "vocab_merges": "application/zip",
}


def tokenizer_file(tok: Any, format: str) -> bytes:
    """The bytes of `tok` in `format` (ValueError when it has none, or the format is unknown)."""
    if format not in FORMATS:
        raise InvalidInput(f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}")
    return dump_bytes(tok, format)


# ---- the links a page shows --------------------------------------------------------------------
# The exact and the lossy formats of a tokeniser trained by each algorithm (the tests check these
# against `formats_of` and `lossy_formats_of` on trained ones): a training view shows them before
# anything is trained.
TRAINED_FORMATS = {
    "bpe": ["vocab_merges"],
    "byte_bpe": ["hf_json", "tiktoken"],
    "sentencepiece_bpe": ["sentencepiece"],
    "wordpiece": ["hf_json", "vocab_txt"],
    "unigram": ["sentencepiece"],
}
_SENTENCEPIECE_JSON = {"hf_json": [control_piece_change(["<unk>", "<s>", "</s>"])]}
TRAINED_LOSSY = {"sentencepiece_bpe": _SENTENCEPIECE_JSON, "unigram": _SENTENCEPIECE_JSON}


def tokenizer_downloads(
    name: str, formats: list[str], pattern: str = "", lossy: dict[str, list[str]] | None = None
) -> list[dict[str, Any]]:
    """[{label, href, format}] for a tokeniser's download links: the exact `formats`, then
    the `lossy` ones ({format: what changes}) with their "changes" and `lossy=true` in href."""
    links: list[dict[str, Any]] = [
        {
            "label": LABELS[f],
            "format": f,
            "href": url_with(
                "/api/download/tokenizer",
                {"tokenizer": name, "format": f, "pattern": pattern or None},
            ),
        }
        for f in formats
    ]
    for f, changes in (lossy or {}).items():
        links.append(
            {
                "label": LABELS[f],
                "format": f,
                "changes": changes,
                "href": url_with(
                    "/api/download/tokenizer",
                    {"tokenizer": name, "format": f, "lossy": "true", "pattern": pattern or None},
                ),
            }
        )
    return links


def trained_links(
    algorithm: str, corpus: str | None, vocab_size: Any, **options: Any
) -> dict[str, Any]:
    """The onward links of a training view for the tokeniser its options train to the end:
    `/trained/open?...&to=visualiser|compare|FORMAT` (`app.routers.onward` trains it, or takes it
    from the cache, and redirects)."""
    params = {
        "algorithm": algorithm,
        "corpus": corpus or None,
        "vocab_size": vocab_size,
        **{k: v for k, v in options.items() if v not in (None, "", 0)},
    }
    return {
        "visualiser": url_with("/trained/open", params, to="visualiser"),
        "compare": url_with("/trained/open", params, to="compare"),
        "downloads": [
            {"label": LABELS[f], "format": f, "href": url_with("/trained/open", params, to=f)}
            for f in TRAINED_FORMATS.get(algorithm, [])
        ]
        + [
            {
                "label": LABELS[f],
                "format": f,
                "changes": changes,
                "href": url_with("/trained/open", params, to=f, lossy="true"),
            }
            for f, changes in TRAINED_LOSSY.get(algorithm, {}).items()
        ],
    }

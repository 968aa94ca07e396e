"""A tokeniser as a file: the formats it has, their file names, and the bytes.

`formats_of(tok)` lists the formats a tokeniser has an exact form in (`tokenizers_core.formats`
writers, plus "vocab_merges": the vocab.json + merges.txt, zipped, of a BPE model that has no
tokenizer.json, i.e. the textbook `bpe`); the
download route (`/api/download/tokenizer`) and the pages' download links both ask it, so a link
is shown only for a file the route gives. Small models are asked by writing them (the writers'
own checks decide); a large one (the OpenAI encodings) by its model type, which the tests check
agrees with writing them. Answers are cached per tokeniser object (weakly).
"""
from __future__ import annotations

import threading
import weakref
from typing import Any

from tokenizers_core.formats import dump_bytes
from tokenizers_core.models.bpe.model import BPE
from tokenizers_core.models.wordpiece.model import WordPiece
from tokenizers_core.normalizers.sentencepiece import SentencePieceNormalizer

from .urls import url_with

FORMATS = ("hf_json", "tiktoken", "sentencepiece", "vocab_txt", "vocab_merges")
LABELS = {"hf_json": "tokenizer.json", "tiktoken": ".tiktoken", "sentencepiece": ".model",
          "vocab_txt": "vocab.txt", "vocab_merges": "vocab.json + merges.txt (.zip)"}
TRY_UP_TO = 60_000          # vocabularies this size or smaller are asked by writing them
_cache: dict[int, tuple[Any, list[str]]] = {}     # id(tok) -> (weakref to tok, formats)
_lock = threading.Lock()


def _size(tok: Any) -> int:
    model = tok.model
    vocab = getattr(model, "vocab", None)
    if isinstance(vocab, dict):
        return len(vocab)
    return len(getattr(model, "pieces", None) or ())


def _by_type(tok: Any) -> list[str]:
    """The formats of a large model, from its type (what the writers would decide)."""
    model, norm = tok.model, tok.normalizer
    if isinstance(norm, SentencePieceNormalizer):
        return ["hf_json", "sentencepiece"]
    if isinstance(model, WordPiece):
        return ["hf_json", "vocab_txt"]
    if isinstance(model, BPE) and model.byte_level:
        return ["hf_json", "tiktoken"]
    return [f for f in FORMATS if _writes(tok, f)]


def _writes(tok: Any, format: str) -> bool:
    try:
        tokenizer_file(tok, format)
    except ValueError:
        return False
    return True


def formats_of(tok: Any) -> list[str]:
    """The formats `tok` has an exact file in, in FORMATS order ([] for a rule tokeniser)."""
    if not isinstance(getattr(tok.model, "vocab", None), dict) \
            and getattr(tok.model, "pieces", None) is None:
        return []                                   # char, word, sentence, regex
    with _lock:
        hit = _cache.get(id(tok))
    if hit is not None and hit[0]() is tok:
        return list(hit[1])
    if _size(tok) > TRY_UP_TO:
        found = _by_type(tok)
    else:
        found = [f for f in FORMATS[:-1] if _writes(tok, f)]
        if "hf_json" not in found and _writes(tok, "vocab_merges"):
            found.append("vocab_merges")        # the BPE files, where no tokenizer.json is
    with _lock:
        if len(_cache) > 64:
            _cache.clear()
        _cache[id(tok)] = (weakref.ref(tok), found)     # never keeps a tokeniser alive
    return list(found)


def file_name(name: str, format: str) -> str:
    """The download's file name: tokenizer.json, NAME.tiktoken, NAME.model, vocab.txt,
    NAME-vocab-merges.zip (NAME made safe for a header)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip("-.")[:60]
    safe = safe or "tokenizer"
    return {"hf_json": "tokenizer.json", "tiktoken": f"{safe}.tiktoken",
            "sentencepiece": f"{safe}.model", "vocab_txt": "vocab.txt",
            "vocab_merges": f"{safe}-vocab-merges.zip"}[format]


def download(tok: Any, name: str, format: str) -> bytes:
    """The bytes of the tokeniser called `name` in `format`; a ValueError naming the formats
    it has when it has no exact form in this one."""
    has = formats_of(tok)
    if format not in has:
        why = f"unknown format {format!r}" if format not in FORMATS \
            else f"{name} has no {format} form"
        if not has:
            raise ValueError(f"{why}; {name} has no file form (its tokens are cut from the "
                             "text by rules)")
        raise ValueError(f"{why}; {name} can be downloaded as: {', '.join(has)}")
    return tokenizer_file(tok, format)


MEDIA_TYPES = {"hf_json": "application/json", "tiktoken": "text/plain; charset=utf-8",
               "sentencepiece": "application/octet-stream",
               "vocab_txt": "text/plain; charset=utf-8", "vocab_merges": "application/zip"}


def tokenizer_file(tok: Any, format: str) -> bytes:
    """The bytes of `tok` in `format` (ValueError when it has none, or the format is unknown)."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}")
    return dump_bytes(tok, format)


# ---- the links a page shows --------------------------------------------------------------------
# The formats a tokeniser trained by each algorithm has (the tests check these against
# `formats_of` on trained ones): a training view shows them before anything is trained.
TRAINED_FORMATS = {"bpe": ["vocab_merges"], "byte_bpe": ["hf_json", "tiktoken"],
                   "sentencepiece_bpe": ["hf_json", "sentencepiece"],
                   "wordpiece": ["hf_json", "vocab_txt"], "unigram": ["hf_json", "sentencepiece"]}


def tokenizer_downloads(name: str, formats: list[str], pattern: str = "") -> list[dict[str, str]]:
    """[{label, href, format}] for a tokeniser's download links."""
    return [{"label": LABELS[f], "format": f,
             "href": url_with("/api/download/tokenizer",
                              {"tokenizer": name, "format": f, "pattern": pattern or None})}
            for f in formats]


def trained_links(algorithm: str, corpus: str | None, vocab_size: Any,
                  **options: Any) -> dict[str, Any]:
    """The onward links of a training view for the tokeniser its options train to the end:
    `/trained/open?...&to=visualiser|compare|FORMAT` (`app.routers.onward` trains it, or takes it
    from the cache, and redirects)."""
    params = {"algorithm": algorithm, "corpus": corpus or None, "vocab_size": vocab_size,
              **{k: v for k, v in options.items() if v not in (None, "", 0)}}
    return {"visualiser": url_with("/trained/open", params, to="visualiser"),
            "compare": url_with("/trained/open", params, to="compare"),
            "downloads": [{"label": LABELS[f], "format": f,
                           "href": url_with("/trained/open", params, to=f)}
                          for f in TRAINED_FORMATS.get(algorithm, [])]}

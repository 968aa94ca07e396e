"""From a training view onward: the tokeniser its options train to the end, as a trained
handle (`app.trained`), opened in the visualiser or in compare, or downloaded as a file.

`GET /trained/open?algorithm=&corpus=&vocab_size=[&pattern=&min_frequency=]&to=` trains (or
takes from the cache: the handle is derived from the spec) and redirects, so the training
views' links are plain links that work without JavaScript. A blank `corpus` is the view's own
default corpus (the textbook one of /bpe/train and /wordpiece/train), stored as a corpus so that
the handle can be rebuilt by any worker.
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse

from .. import export
from ..deps import trained
from ..services.compare import default_columns
from ..services.training import DEFAULT_CORPORA, MAX_VOCAB as VIEW_MAX_VOCAB, default_corpus_ref
from ..urls import url_with

router = APIRouter(tags=["pages"])
MAX_VOCAB = max(VIEW_MAX_VOCAB.values())


@router.get("/trained/open", summary="Train a training view's tokeniser to the end and open it "
                                     "in the visualiser, in compare, or download it")
def trained_open(request: Request, algorithm: str, vocab_size: int, to: str = "visualiser",
                 corpus: str = "", pattern: str = "", min_frequency: int = 0) -> Any:
    """`to`: visualiser, compare, or a format (hf_json, tiktoken, sentencepiece, vocab_txt,
    vocab_merges); a redirect (303) to that page or to `/api/download/tokenizer`."""
    if algorithm not in DEFAULT_CORPORA:
        raise HTTPException(422, f"unknown algorithm {algorithm!r}; choose one of: "
                                 f"{', '.join(DEFAULT_CORPORA)}")
    if to not in ("visualiser", "compare", *export.FORMATS):
        raise HTTPException(422, f"unknown destination {to!r}; choose visualiser, compare or "
                                 f"a format ({', '.join(export.FORMATS)})")
    if not 1 <= vocab_size <= MAX_VOCAB:
        raise HTTPException(422, f"vocab_size must be between 1 and {MAX_VOCAB:,}")
    options: dict[str, Any] = {}
    if min_frequency and algorithm in ("bpe", "byte_bpe", "wordpiece"):
        options["min_frequency"] = min_frequency
    if algorithm == "byte_bpe":
        options["pattern"] = pattern or "gpt2"
    ref = corpus or default_corpus_ref(request, algorithm)
    handle, _tok = trained(request).train(algorithm, ref, vocab_size, options)
    if to == "visualiser":
        url = url_with("/", {"tokenizer": handle})
    elif to == "compare":
        others = [c for c in default_columns() if c != handle][:2]
        url = url_with("/compare", {"col": [handle, *others]})
    else:
        url = url_with("/api/download/tokenizer", {"tokenizer": handle, "format": to})
    return RedirectResponse(url, status_code=303)

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

from fastapi import APIRouter
from fastapi.responses import RedirectResponse

from tokenizers_core.errors import InvalidInput

from .. import export
from ..deps import StateDep
from ..services.compare import default_columns
from ..services.training import DEFAULT_CORPORA, default_corpus_ref
from ..services.training import MAX_VOCAB as VIEW_MAX_VOCAB
from ..urls import url_with

router = APIRouter(tags=["pages"])
MAX_VOCAB = max(VIEW_MAX_VOCAB.values())


@router.get(
    "/trained/open",
    summary="Train a training view's tokeniser to the end and open it "
    "in the visualiser, in compare, or download it",
)
def trained_open(
    state: StateDep,
    algorithm: str,
    vocab_size: int,
    to: str = "visualiser",
    corpus: str = "",
    pattern: str = "",
    min_frequency: int = 0,
    lossy: bool = False,
) -> Any:
    """`to`: visualiser, compare, or a format (hf_json, tiktoken, sentencepiece, vocab_txt,
    vocab_merges); a redirect (303) to that page or to `/api/download/tokenizer` (with
    `lossy=true` passed on, for a format that does not reproduce the tokeniser exactly)."""
    options = onward_options(algorithm, vocab_size, to, pattern, min_frequency)
    ref = corpus or default_corpus_ref(state, algorithm)
    handle, _tok = state.trained.train(algorithm, ref, vocab_size, options)
    url = onward_url(handle, to)
    return RedirectResponse(
        url + "&lossy=true" if lossy and to in export.FORMATS else url, status_code=303
    )


def onward_options(
    algorithm: str, vocab_size: int, to: str, pattern: str, min_frequency: int
) -> dict[str, Any]:
    """The training options of a view's link onward (ValueError, answered 422, for bad ones)."""
    if algorithm not in DEFAULT_CORPORA:
        raise InvalidInput(
            f"unknown algorithm {algorithm!r}; choose one of: {', '.join(DEFAULT_CORPORA)}"
        )
    if to not in ("visualiser", "compare", *export.FORMATS):
        raise InvalidInput(
            f"unknown destination {to!r}; choose visualiser, compare or "
            f"a format ({', '.join(export.FORMATS)})"
        )
    if not 1 <= vocab_size <= MAX_VOCAB:
        raise InvalidInput(f"vocab_size must be between 1 and {MAX_VOCAB:,}")
    options: dict[str, Any] = {}
    if min_frequency and algorithm in ("bpe", "byte_bpe", "wordpiece"):
        options["min_frequency"] = min_frequency
    if algorithm == "byte_bpe":
        options["pattern"] = pattern or "gpt2"
    return options


def onward_url(handle: str, to: str) -> str:
    """Where the trained handle opens: the visualiser, compare (beside two default columns), or
    its download in the format `to`."""
    if to == "visualiser":
        return url_with("/", {"tokenizer": handle})
    if to == "compare":
        others = [c for c in default_columns() if c != handle][:2]
        return url_with("/compare", {"col": [handle, *others]})
    return url_with("/api/download/tokenizer", {"tokenizer": handle, "format": to})

"""The vocabulary browser (`/vocab`): any tokeniser's entries by id or substring, paged, each
with its bytes, its BPE merge rank and merge tree or its Unigram score, and how often it
occurs in a chosen corpus. Every chip of the visualiser links here."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from tokenizers_core.corpora import corpus_names

from ..deps import StateDep
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services.tokenizers import tokenizer_label, tokenizer_options
from ..services.vocab_browser import vocab_page as entries

router = APIRouter(tags=["vocab"])


@router.get("/vocab", response_class=HTMLResponse, summary="Browse a tokeniser's vocabulary")
def vocab_page(
    request: Request,
    state: StateDep,
    tokenizer: str = "cl100k_base",
    q: str = "",
    page: int = 0,
    id: int | None = None,
    corpus: str = "",
) -> HTMLResponse:
    """`q`: an id or a substring; `id`: one entry in detail (its merge tree); `corpus`: a
    bundled or stored corpus whose token frequencies are shown."""
    params = {"tokenizer": tokenizer, "q": q or None, "corpus": corpus or None}
    ctx: dict[str, Any] = {
        "tokenizer": tokenizer,
        "q": q,
        "corpus": corpus,
        "params": params,
        "error": None,
        "options": tokenizer_options(state, tokenizer),
        "bundled": corpus_names(),
        "rows": [],
        "detail": None,
        "label": tokenizer_label(state, tokenizer),
    }
    status = 200
    try:
        ctx.update(entries(state, tokenizer, q, page, id, corpus))
    except BAD_INPUT as exc:  # shown in place, the form kept
        ctx["error"], status = bad_input(exc)
    return render(request, "vocab.html", ctx, block="entries", status_code=status)

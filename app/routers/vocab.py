"""The vocabulary browser (`/vocab`): any tokeniser's entries by id or substring, paged, each
with its bytes, its BPE merge rank and merge tree or its Unigram score, and how often it
occurs in a chosen corpus. Every chip of the visualiser links here."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from tokenizers_core.corpora import corpus_names

from .. import vocab as V
from ..deps import (BAD_INPUT, bad_input, resolve_tokenizer, store, tokenizer_label,
                    tokenizer_options)
from ..render import render
from ..trained import corpus_text

router = APIRouter(tags=["vocab"])

PAGE = 50


def _tree(tok, value: str) -> dict[str, Any] | None:
    from tokenizers_core.models.bpe.session import merge_tree_of
    try:
        return merge_tree_of(tok, value)
    except ValueError:            # not a BPE model, or a token the model cannot rebuild
        return None


@router.get("/vocab", response_class=HTMLResponse, summary="Browse a tokeniser's vocabulary")
def vocab_page(request: Request, tokenizer: str = "cl100k_base", q: str = "", page: int = 0,
               id: int | None = None, corpus: str = "") -> HTMLResponse:
    """`q`: an id or a substring; `id`: one entry in detail (its merge tree); `corpus`: a
    bundled or stored corpus whose token frequencies are shown."""
    params = {"tokenizer": tokenizer, "q": q or None, "corpus": corpus or None}
    ctx: dict[str, Any] = {"tokenizer": tokenizer, "q": q, "corpus": corpus, "params": params,
                           "error": None, "options": tokenizer_options(request, tokenizer),
                           "bundled": corpus_names(), "rows": [], "detail": None,
                           "label": tokenizer_label(request, tokenizer)}
    status = 200
    try:
        tok = resolve_tokenizer(request, tokenizer)
        if not V.has_vocabulary(tok):
            raise ValueError(f"{tokenizer} has no vocabulary to browse: its tokens are cut by "
                             "rules (characters, words, sentences or a regex)")
        if page < 0:
            raise ValueError("page must be 0 or more")
        found = V.search(tok.model, q)
        counts = V.frequencies(tokenizer, tok, corpus, corpus_text(store(request), corpus)) \
            if corpus else None
        pages = max(1, -(-len(found) // PAGE))
        page = min(page, pages - 1)
        model = tok.model
        rows = [{"entry": e, "rank": V.merge_rank(model, e.value), "score": V.score(model, e.id),
                 "count": counts.get(e.id, 0) if counts is not None else None}
                for e in found[page * PAGE:(page + 1) * PAGE]]
        if id is not None:
            entry = next((e for e in V.entries(model) if e.id == id), None)
            if entry is None:
                raise LookupError(f"{tokenizer} has no token with id {id}")
            ctx["detail"] = {"entry": entry, "rank": V.merge_rank(model, entry.value),
                             "score": V.score(model, entry.id),
                             "count": counts.get(entry.id, 0) if counts is not None else None,
                             "tree": None if entry.special else _tree(tok, entry.value)}
        ctx.update(tok=tok, rows=rows, page=page, pages=pages, found=len(found), show=V.shower(model),
                   total_tokens=sum(counts.values()) if counts else None,
                   byte_level=bool(getattr(model, "byte_level", False)))
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "vocab.html", ctx, block="entries", status_code=status)

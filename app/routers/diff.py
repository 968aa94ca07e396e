"""Diff: two tokenisers on the same texts, the share identical and each differing text's first
divergence with the pipeline stage it comes from (`/diff`, `GET /api/diff`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from tokenizers_core.corpora import corpus_names
from tokenizers_core.errors import InvalidInput

from ..deps import Name, StateDep, bounded
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services import diff
from ..services.tokenizers import tokenizer_options

router = APIRouter(tags=["diff"])


@router.get("/diff", response_class=HTMLResponse, summary="Where two tokenisers first differ")
def diff_page(
    request: Request,
    state: StateDep,
    a: str = diff.DEFAULT_A,
    b: str = diff.DEFAULT_B,
    source: str = diff.DEFAULT_SOURCE,
    corpus: str = diff.DEFAULT_CORPUS,
    text: str = "",
    page: int = bounded(1, 1),
) -> HTMLResponse:
    """`source`: "stress" (the generated stress set), "corpus" (`corpus`, one text a line) or
    "text" (`text`, one text a line); `page`: the page of differing texts (1-based)."""
    params = {
        "a": a,
        "b": b,
        "source": source,
        "corpus": corpus,
        "text": text if source == "text" else None,
    }
    ctx: dict[str, Any] = {
        "a": a,
        "b": b,
        "source": source,
        "corpus": corpus,
        "text": text,
        "params": params,
        "sources": diff.SOURCES,
        "corpora": corpus_names(),
        "options_a": tokenizer_options(state, a),
        "options_b": tokenizer_options(state, b),
        "stage_help": diff.STAGE_HELP,
        "error": None,
        "report": None,
    }
    status = 200
    try:
        if page < 1:  # as the schema says (past the last page is the last page)
            raise InvalidInput(f"page must be 1 or more, not {page}")
        texts = diff.load_texts(state, source, corpus, text)
        report, tok_a, tok_b = diff.run(state, a, b, texts)
        pages = diff.pages(report)
        page = min(page, pages)
        ctx.update(
            report=report,
            texts=texts,
            page=page,
            pages=pages,
            rows=diff.rows(report, tok_a, tok_b, page - 1),
        )
    except BAD_INPUT as exc:  # shown in place, the form kept
        ctx["error"], status = bad_input(exc)
    return render(request, "diff.html", ctx, block="results", status_code=status)


@router.get("/api/diff", tags=["api"], summary="Where two tokenisers first differ (JSON)")
def diff_api(
    state: StateDep,
    a: Name,
    b: Name,
    source: str = diff.DEFAULT_SOURCE,
    corpus: str = diff.DEFAULT_CORPUS,
    text: str = "",
    limit: int = bounded(100, 0, 1000),
) -> dict[str, Any]:
    """The share of texts tokenised identically, the count per stage, and the first `limit`
    differing texts (most informative first), each with its first divergence: `position` (a
    character of the text), `stage`, `evidence` and the tokens around it (`window_a`,
    `window_b` as `[index, token, id, start, end, special]`)."""
    if not 0 <= limit <= 1000:
        raise InvalidInput(f"limit must be between 0 and 1000, not {limit}")
    texts = diff.load_texts(state, source, corpus, text)
    report, _, _ = diff.run(state, a, b, texts)
    return {**diff.api_report(report, limit), "source": texts.label, "cut": texts.cut}

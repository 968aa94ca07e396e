"""The vocabulary health audit (`/audit`, `GET /api/audit`): every entry of a tokeniser sorted
into Magikarp's categories, with the reason for each (see `tokenizers_core.audit`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse

from tokenizers_core.errors import InvalidInput

from ..deps import Name, StateDep, bounded
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services import audit
from ..services.tokenizers import tokenizer_label, tokenizer_options

router = APIRouter(tags=["audit"])


@router.get("/audit", response_class=HTMLResponse, summary="Vocabulary health audit")
def audit_page(
    request: Request,
    state: StateDep,
    tokenizer: str = "cl100k_base",
    category: str = "",
    q: str = "",
    page: int = bounded(0, 0),
) -> HTMLResponse:
    """`category`: one category or flag (empty: all); `q`: text the token holds; `page`:
    the table's page (0-based). A large vocabulary is audited as a job: the page polls it."""
    params = {"tokenizer": tokenizer, "category": category or None, "q": q or None}
    ctx: dict[str, Any] = {
        "tokenizer": tokenizer,
        "category": category,
        "q": q,
        "params": params,
        "filters": audit.FILTERS,
        "labels": dict(audit.FILTERS),
        "error": None,
        "report": None,
        "job": None,
        "options": tokenizer_options(state, tokenizer),
        "label": tokenizer_label(state, tokenizer),
    }
    status = 200
    try:
        audit.check_filter(category)
        audit.check_page(page)  # before the audit: a running one shows no page
        report, job = audit.audit_of(state, tokenizer)
        ctx.update(report=report, job=job)
        if report is not None:
            ctx.update(audit.page_of(report, category, q, page))
    except BAD_INPUT as exc:  # shown in place, the form kept
        ctx["error"], status = bad_input(exc)
    return render(request, "audit.html", ctx, block="results", status_code=status)


@router.get(
    "/api/audit",
    tags=["api"],
    summary="Vocabulary health audit (JSON)",
    responses={202: {"description": "The audit is running: its progress"}},
)
def audit_api(
    state: StateDep,
    tokenizer: Name,
    category: str = "",
    q: str = "",
    page: int = bounded(0, 0),
    limit: int = bounded(100, 1, 1000),
) -> Any:
    """Counts per category and flag, the script table, and one page of entries (each with its
    category, reason, re-encoding ids and flags). While a large vocabulary's audit runs:
    202 with `status`, `done`, `total` and `current`; poll again."""
    if not 1 <= limit <= 1000:
        raise InvalidInput(f"limit must be between 1 and 1000, not {limit}")
    audit.check_filter(category)
    audit.check_page(page)
    report, job = audit.audit_of(state, tokenizer)
    if report is None:
        return JSONResponse(audit.progress_answer(job), status_code=202)
    return audit.api_answer(report, category, q, page, limit)

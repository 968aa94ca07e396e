"""How a tokeniser spells numbers (`/audit/numbers`): the heatmap of token counts of 0-9999, the
formats table and the digit grouping, as a page with a picker, as the section alone
(`/audit/numbers/fragment`, which `/audit` loads with hx-get) and as JSON."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ..deps import Name, StateDep
from ..errors import BAD_INPUT, bad_input
from ..render import env, page_globals, render
from ..services.audit_numbers import numbers_view, report_for
from ..services.tokenizers import REGEX, tokenizer_label, tokenizer_options
from ..state import AppState

router = APIRouter(tags=["audit"])
TEMPLATE = "audit_numbers.html"


def _context(state: AppState, tokenizer: str) -> tuple[dict[str, Any], int]:
    ctx: dict[str, Any] = {
        "tokenizer": tokenizer,
        "error": None,
        "label": tokenizer_label(state, tokenizer),
        "options": [o for o in tokenizer_options(state, tokenizer) if o["value"] != REGEX],
    }
    try:
        ctx.update(numbers_view(state, tokenizer))
    except BAD_INPUT as exc:  # shown in place, the picker kept
        ctx["error"], status = bad_input(exc)
        return ctx, status
    return ctx, 200


@router.get("/audit/numbers", response_class=HTMLResponse, summary="How a tokeniser spells numbers")
def numbers_page(request: Request, state: StateDep, tokenizer: str = "cl100k_base") -> HTMLResponse:
    ctx, status = _context(state, tokenizer)
    return render(request, TEMPLATE, ctx, block="numbers", status_code=status)


@router.get(
    "/audit/numbers/fragment",
    response_class=HTMLResponse,
    summary="The numbers section alone (for hx-get)",
)
def numbers_fragment(
    request: Request, state: StateDep, tokenizer: str = "cl100k_base"
) -> HTMLResponse:
    ctx, status = _context(state, tokenizer)
    tmpl = env.get_template(TEMPLATE)
    html = "".join(
        tmpl.blocks["numbers"](
            tmpl.new_context({"request": request, **page_globals(request), **ctx})
        )
    )
    return HTMLResponse(html, status_code=status)


@router.get("/api/audit/numbers", tags=["api"])
def numbers_api(state: StateDep, tokenizer: Name) -> dict[str, Any]:
    """Tokens of each integer 0-9999 (`counts`, `histogram`), the digit grouping in words, and
    how a few decimals and formats are split."""
    _tok, report = report_for(state, tokenizer)
    return {"tokenizer": tokenizer, **report.to_dict()}

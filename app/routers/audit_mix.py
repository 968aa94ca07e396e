"""Training-mix inference (`/audit/mix?tokenizer=`, `GET /api/audit/mix?tokenizer=`): the
languages and code a BPE tokenizer's merge list says it was trained on (Hayase et al. 2024),
estimated in the job pool (`app.services.audit_mix`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse

from tokenizers_core.audit.mix import MERGES
from tokenizers_core.audit.mix_lp import SolverMissing, solver_available

from ..deps import Name, StateDep
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services.audit_mix import api_answer, mix_options, mix_view, start_mix
from ..services.tokenizers import tokenizer_label

router = APIRouter(tags=["audit"])
BUSY = {
    429: {"description": "Too many jobs waiting; try again after Retry-After seconds"},
    503: {"description": 'The solver (scipy, the optional extra "mix") is not installed'},
}
PAGE_BUSY = {
    code: {**doc, "content": {"text/html": {"schema": {"type": "string"}}}}
    for code, doc in BUSY.items()
}
RUNNING = {
    202: {
        "description": "Still running: the progress (`status`, `done`, `total`, "
        "`current`); ask again"
    }
}


@router.get(
    "/audit/mix", response_class=HTMLResponse, summary="Training-mix inference", responses=PAGE_BUSY
)
def mix_page(request: Request, state: StateDep, tokenizer: str = "") -> HTMLResponse:
    ctx: dict[str, Any] = {
        "tokenizer": tokenizer,
        "error": None,
        "job": None,
        "options": mix_options(state, tokenizer or None),
        "merges": MERGES,
        "solver": solver_available(),
        "label": tokenizer_label(state, tokenizer) if tokenizer else "",
    }
    status = 200
    try:
        if tokenizer:
            ctx["job"] = start_mix(state, tokenizer)
            ctx.update(mix_view(ctx["job"]))
    except SolverMissing as exc:
        ctx["error"], status = str(exc), 503
    except BAD_INPUT as exc:  # shown in place, the form kept
        ctx["error"], status = bad_input(exc)
    return render(request, "audit_mix.html", ctx, block="estimate", status_code=status)


@router.get("/api/audit/mix", tags=["api"], responses={**RUNNING, **BUSY})
def mix_api(state: StateDep, tokenizer: Name) -> JSONResponse:
    """The estimated training mix of a BPE tokenizer (bundled name or handle): 202 with the
    progress while the job runs (ask again), then the shares (largest first), the residual (total
    slack, pair occurrences per 1,000 bytes), and the merges, constraints and rounds used.
    503 when scipy (the optional extra "mix") is not installed."""
    if not solver_available():
        return JSONResponse({"detail": str(SolverMissing())}, status_code=503)
    status, body = api_answer(start_mix(state, tokenizer))
    return JSONResponse(body, status_code=status)

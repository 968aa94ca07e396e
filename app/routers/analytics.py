"""Analytics pages: the multilingual tax (`/tax`), the Unicode lab (`/unicode`) and the
vocab-size sweep (`/sweep`), with their JSON endpoints (data from `app.services.analytics`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field

import tokenizers_core as tc
from tokenizers_core import pretrained
from tokenizers_core.corpora import corpus_names
from tokenizers_core.errors import InvalidInput

from .. import charts
from ..deps import Name, StateDep
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services.analytics import (
    DEFAULT_ALPHA,
    DEFAULT_SIZES,
    DEFAULT_SWEEP_ALGOS,
    EXAMPLES,
    MAX_SIZES,
    MAX_SWEEP_VOCAB,
    PREMIUM_BANDS,
    alpha_label,
    checked_spec,
    lab_tokenizers,
    parse_alpha,
    parse_spec,
    spec_of,
    start_sweep,
    sweep_url,
    sweep_view,
    tax_chart_rows,
    tax_heads,
    tax_labels,
    tax_names,
    tax_rows,
    tax_table,
    unicode_forms,
)
from ..services.tokenizers import check_text, stored_options
from ..tax import vocab_tokenizers

router = APIRouter(tags=["analytics"])
MAX_LAB_TEXT = 2000  # the Unicode lab lists every code point
CANCEL_COOKIE = "tokvis-sweep-"  # + the sweep's id: its secret, for the browser that started it
CANCEL_COOKIE_AGE = 7 * 24 * 3600


# ---- the multilingual tax ---------------------------------------------------------------------
@router.get("/tax", response_class=HTMLResponse, summary="The multilingual tokenisation tax")
def tax_page(
    request: Request,
    state: StateDep,
    tok: list[str] | None = Query(None),
    chart: str | None = None,
    sort: str | None = None,
) -> HTMLResponse:
    """Every loaded tokeniser's premium per language (`tok`: only these columns; `sort`: a
    column whose most expensive languages come first; `chart`: the bar chart's tokeniser)."""
    yours = stored_options(state)
    all_names = vocab_tokenizers() + [o["value"] for o in yours]
    names = tax_names(tok or all_names)
    data = tax_table(state, names, leave_out_failures=not tok)
    names = [n for n in names if n not in data["left_out"]]
    chosen = chart if chart in names else None
    labels = tax_labels(all_names, yours)
    ctx = {
        "names": names,
        "all_names": all_names,
        "chart_name": chosen or names[0],
        "labels": labels,
        "heads": tax_heads(labels),
        "sort": sort,
        "params": {"tok": tok or None, "chart": chosen},
        "bands": PREMIUM_BANDS,
        "rows": tax_rows(data, sort),
        "chart": charts.bar_chart(tax_chart_rows(data, chosen or names[0])),
        **data,
    }
    return render(request, "tax.html", ctx)


@router.get("/api/tax", tags=["api"])
def tax_api(state: StateDep, tok: list[Name] | None = Query(None, max_length=16)) -> dict[str, Any]:
    """Ordinary tokens per UDHR language for each tokeniser (bundled or uploaded), and the
    ratio to English."""
    data = tax_table(state, tax_names(tok))
    return {
        "languages": [
            {
                "code": lang.code,
                "name": lang.name,
                "direction": lang.direction,
                "script": data["scripts"][lang.code],
            }
            for lang in data["languages"]
        ],
        "counts": data["counts"],
        "unknown": data["unknown"],
        "relative_to_english": data["relative"],
    }


# ---- the Unicode lab ------------------------------------------------------------------------
@router.get("/unicode", response_class=HTMLResponse, summary="The Unicode lab")
def unicode_page(
    request: Request, state: StateDep, text: str | None = None, tok: list[str] | None = Query(None)
) -> HTMLResponse:
    text = EXAMPLES[0][1] if text is None else text
    names = lab_tokenizers(tok)
    yours = stored_options(state)
    ctx: dict[str, Any] = {
        "text": text,
        "names": names,
        "examples": EXAMPLES,
        "error": None,
        "all_names": list(pretrained.bundled()) + [o["value"] for o in yours],
        "labels": {o["value"]: o["label"] for o in yours},
        "forms": [],
    }
    status = 200
    try:
        check_text(state, text)
        if len(text) > MAX_LAB_TEXT:
            raise InvalidInput(
                "the Unicode lab lists every code point; keep the text under "
                f"{MAX_LAB_TEXT:,} characters"
            )
        ctx["forms"] = unicode_forms(state, text, names)
    except BAD_INPUT as exc:  # shown in place, the form kept
        ctx["error"], status = bad_input(exc)
    return render(request, "unicode.html", ctx, block="forms", status_code=status)


@router.get("/api/unicode", tags=["api"])
def unicode_api(
    state: StateDep, text: str, tok: list[Name] | None = Query(None, max_length=16)
) -> list[dict[str, Any]]:
    """The four normal forms of a text, their code points, and how each tokeniser splits them."""
    check_text(state, text)
    return unicode_forms(state, text, lab_tokenizers(tok))


# ---- the vocab-size sweep -------------------------------------------------------------------
class SweepRequest(BaseModel):
    model_config = ConfigDict(strict=True)  # JSON as the schema says: no 0 for false, no "1" for 1
    corpus: Name = Field("botchan", description="a bundled corpus or a stored corpus's sha256")
    heldout: Name = Field("udhr/eng", description="the text measured with each tokeniser")
    algorithms: list[Name] | None = Field(None, max_length=8, examples=[["bpe", "unigram"]])
    sizes: list[Annotated[int, Field(ge=2, le=MAX_SWEEP_VOCAB)]] = Field(
        list(DEFAULT_SIZES), min_length=1, max_length=MAX_SIZES
    )


@router.get("/sweep", response_class=HTMLResponse, summary="Vocab-size sweep")
def sweep_page(
    request: Request,
    state: StateDep,
    corpus: str = "botchan",
    heldout: str = "udhr/eng",
    algo: list[str] | None = Query(None),
    sizes: str = ",".join(map(str, DEFAULT_SIZES)),
    alpha: str = str(DEFAULT_ALPHA),
) -> HTMLResponse:
    """`alpha`: the order of the Renyi efficiency shown (recomputed from the stored counts)."""
    ctx: dict[str, Any] = {
        "corpus": corpus,
        "heldout": heldout,
        "sizes": sizes,
        "error": None,
        "algorithms": tc.algorithms(),
        "corpora": corpus_names(),
        "job": None,
        "chosen": algo or list(DEFAULT_SWEEP_ALGOS),
        "alpha": alpha,
        "alpha_label": alpha,
    }
    status = 200
    try:
        spec = parse_spec(corpus, heldout, algo, sizes)
        ctx.update(chosen=list(spec.algorithms), job=state.jobs.get(spec.id), spec_id=spec.id)
        value = parse_alpha(alpha)
        ctx.update(alpha_label=alpha_label(value), **sweep_view(ctx["job"], value))
    except ValueError as exc:  # shown in place, the form kept
        ctx["error"], status = str(exc), 422
    return render(request, "sweep.html", ctx, block="progress", status_code=status)


@router.post("/sweep/run", summary="Start a sweep (then follow its progress on /sweep)")
def sweep_run(
    state: StateDep,
    corpus: str = Form("botchan"),
    heldout: str = Form("udhr/eng"),
    algo: list[str] = Form([]),
    sizes: str = Form(""),
) -> Any:
    spec = checked_spec(state, corpus, heldout, algo, sizes)
    job, created = start_sweep(state, spec)
    response = RedirectResponse(sweep_url(spec), status_code=303)
    if created:  # this browser started it, so this browser may cancel it
        response.set_cookie(
            CANCEL_COOKIE + job.id,
            job.secret or "",
            max_age=CANCEL_COOKIE_AGE,
            path="/sweep",
            httponly=True,
            samesite="strict",
        )
    return response


@router.post("/sweep/cancel", summary="Cancel a running sweep (the browser that started it)")
def sweep_cancel(request: Request, state: StateDep, job: str = Form(...)) -> Any:
    secret = request.cookies.get(CANCEL_COOKIE + job, "")
    found = state.jobs.cancel_as_creator(f"{job}.{secret}" if secret else job, "sweep")
    if found is None:
        raise HTTPException(404, f"no sweep {job!r} is running here")
    return RedirectResponse(sweep_url(spec_of(found)), status_code=303)


@router.post("/api/sweep", tags=["api"], status_code=202)
def sweep_api_start(state: StateDep, body: SweepRequest) -> dict[str, Any]:
    """Start a sweep (or find the same one queued, running or done) -> the job; 429 when too
    many trainings wait. Its `id` polls it (`GET /api/sweep/{id}`); the id the request that
    queued it gets also cancels it (`DELETE`), an id no one else is given."""
    spec = checked_spec(
        state,
        body.corpus,
        body.heldout,
        body.algorithms or None,
        ",".join(str(s) for s in body.sizes),
    )
    job, created = start_sweep(state, spec)
    return {**job.to_dict(), "id": state.jobs.creator_id(job) if created else job.id}


@router.get("/api/sweep/{job_id}", tags=["api"])
def sweep_api_status(state: StateDep, job_id: str) -> dict[str, Any]:
    """A sweep's progress and the results so far (any server worker answers). Each row's
    `count_histogram` ([count, how many tokens occur that often]) gives its Renyi efficiency at
    any alpha (`tokenizers_core.audit.efficiency`)."""
    job, creator = state.jobs.find(job_id)
    if job is None or job.kind != "sweep":
        raise HTTPException(404, f"no sweep {job_id!r} here (start it with POST /api/sweep)")
    return {**job.to_dict(), "id": job_id if creator else job.id}


@router.delete(
    "/api/sweep/{job_id}",
    tags=["api"],
    responses={403: {"description": "not the id its creator was given"}},
)
def sweep_api_cancel(state: StateDep, job_id: str) -> dict[str, Any]:
    """Cancel a sweep, with the id `POST /api/sweep` gave the request that queued it: a queued
    one at once, a running one's training process is killed."""
    job = state.jobs.cancel_as_creator(job_id, "sweep")
    if job is None:
        raise HTTPException(404, f"no sweep {job_id!r} here")
    return {**job.to_dict(), "id": job_id}

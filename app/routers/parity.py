"""Runtime parity: one tokenizer as each runtime reads it (tokenizers, transformers, llama.cpp,
mistral-common, tiktoken) on the same texts (`/parity`, `POST /api/parity`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from ..deps import StateDep
from ..display import special_choice
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services import parity
from ..services.tokenizers import REGEX, tokenizer_options

router = APIRouter(tags=["parity"])


@router.get("/parity", response_class=HTMLResponse, summary="One tokenizer in each runtime")
def parity_page(
    request: Request,
    state: StateDep,
    tokenizer: str = parity.DEFAULT_TOKENIZER,
    texts: str | None = None,
    special: str = "",
) -> HTMLResponse:
    """`texts`: one text per line (left out: a few where Qwen3's runtimes part); `special`:
    how special tokens typed in a text are read (left out: as each runtime's library does)."""
    raw = "\n".join(parity.DEFAULT_TEXTS) if texts is None else texts
    options = [o for o in tokenizer_options(state, tokenizer) if o["value"] != REGEX]
    ctx: dict[str, Any] = {
        "tokenizer": tokenizer,
        "texts": raw,
        "special": None,
        "options": options,
        "params": {"tokenizer": tokenizer, "texts": texts, "special": special or None},
        "stage_help": parity.STAGE_HELP,
        "error": None,
        "report": None,
    }
    status = 200
    try:
        ctx["special"] = choice = special_choice(special)
        found = parity.readings(state, tokenizer)
        report = parity.run(state, tokenizer, parity.parse_texts(raw), choice)
        mismatch = parity.mismatch_row(report, found)
        ctx.update(
            report=report,
            table=parity.table(report, found),
            row=mismatch[0] if mismatch else None,
            diff_report=mismatch[1] if mismatch else None,
        )
    except BAD_INPUT as exc:  # shown in place, the form kept
        ctx["error"], status = bad_input(exc)
    return render(request, "parity.html", ctx, block="results", status_code=status)


class ParityRequest(BaseModel):
    model_config = ConfigDict(strict=True)
    tokenizer: str = Field(
        min_length=1,
        max_length=200,
        description="a bundled name, an uploaded tokenizer's handle (a model folder's zip: "
        "transformers reads its tokenizer_config) or a trained handle",
        examples=["qwen3"],
    )
    texts: list[str] = Field(
        description=f"the texts, at most {parity.MAX_TEXTS}",
        examples=[["Hello, world!", "cafe\u0301"]],
    )
    special: bool | None = Field(
        None,
        description="special tokens typed in a text: true reads them as special tokens, false "
        "as ordinary text; left out, as each runtime's library does (tiktoken refuses them)",
    )


@router.post("/api/parity", tags=["api"], summary="One tokenizer in each runtime (JSON)")
def parity_api(state: StateDep, body: ParityRequest) -> dict[str, Any]:
    """`runtimes`: the runtimes that read the tokenizer, the reference first (`skipped` says
    why the others do not); `rows`: per text, each runtime's `ids` (null where it refused the
    text, `errors` saying why) and `same`; `first_mismatch`: the first text whose runtimes
    differ, the two runtimes, the first differing token `position`, both sides as tokens
    (`a`, `b`) and the `rule` (the pipeline stage) that makes them differ; null when all agree."""
    return parity.run(state, body.tokenizer, body.texts, body.special).to_dict()

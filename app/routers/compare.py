"""Compare: one text, several tokenisers side by side, with metrics (`/compare`).

The columns are built by `app.services.compare`; a column still training is sent as a
placeholder that fetches itself from `/compare/column` (htmx), so the page never waits for the
slowest column.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

from tokenizers_core.corpora import corpus_names

from ..deps import Name, StateDep, bounded
from ..display import special_choice
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services.compare import (
    DEFAULT_CORPUS,
    DEFAULT_TEXT,
    DEFAULT_VOCAB,
    MAX_COLUMNS,
    MAX_VOCAB,
    bos_note,
    build_columns,
    chip_facts,
    choices,
    chosen_columns,
    default_columns,
    params,
    validate,
)
from ..services.tokenizers import UPLOAD_PREFIX, tokenizer_label

router = APIRouter(tags=["compare"])


@router.get("/compare", response_class=HTMLResponse, summary="Compare tokenisers side by side")
def compare_page(
    request: Request,
    state: StateDep,
    text: str | None = None,
    col: list[str] | None = Query(None),
    corpus: str = DEFAULT_CORPUS,
    vocab: int = bounded(DEFAULT_VOCAB, 2, MAX_VOCAB),
    ref: int = 0,
    wait: bool = False,
    special: str = "",
    bos: bool = True,
) -> HTMLResponse:
    """`special`: how special tokens typed in the text are read, as on the visualiser (left
    out: as each column's own library does by default; `true`: special tokens; `false`:
    ordinary text). `bos`:
    the post-processors add their special tokens ([CLS]/[SEP], <|begin_of_text|>)."""
    text = DEFAULT_TEXT if text is None else text
    choice = special_choice(special)
    specs = [c for c in (col or default_columns()) if c]
    ref = ref if 0 <= ref < len(specs) else 0  # the reference column was unticked
    ctx: dict[str, Any] = {
        "text": text,
        "specs": specs,
        "corpus": corpus,
        "vocab": vocab,
        "ref": ref,
        "columns": [],
        "error": None,
        "choices": choices(state, specs),
        "corpora": corpus_names(),
        "max_columns": MAX_COLUMNS,
        "labels": {sp: tokenizer_label(state, sp) for sp in specs if sp.startswith(UPLOAD_PREFIX)},
        "special": choice,
        "bos": bos,
        "bos_note": None,
        "params": params(text, specs, corpus, vocab, ref, choice, bos),
    }
    ctx["chosen"] = chosen_columns(ctx["choices"], ctx["params"])
    status = 200
    try:
        validate(state, text, specs, vocab)
        columns = build_columns(
            state, text, specs, corpus, vocab, ref, train_now=wait, special=choice, bos=bos
        )
        ctx["columns"], ctx["bos_note"] = columns, bos_note(columns)
    except BAD_INPUT as exc:  # shown above the columns, the form kept
        ctx["error"], status = bad_input(exc)
    return render(request, "compare.html", ctx, block="columns", status_code=status)


@router.get(
    "/compare/column",
    response_class=HTMLResponse,
    summary="One compare column (trains its model if needed)",
)
def compare_column(
    request: Request,
    state: StateDep,
    i: int,
    text: str = "",
    col: list[str] = Query(...),
    corpus: str = DEFAULT_CORPUS,
    vocab: int = bounded(DEFAULT_VOCAB, 2, MAX_VOCAB),
    ref: int = 0,
    special: str = "",
    bos: bool = True,
) -> HTMLResponse:
    validate(state, text, col, vocab)
    choice = special_choice(special)
    if not 0 <= i < len(col):
        raise HTTPException(422, f"column {i} does not exist")
    cols = build_columns(
        state, text, col, corpus, vocab, ref, train_now=True, only=i, special=choice, bos=bos
    )
    ctx = {
        "column": cols[i],
        "text": text,
        "ref": ref,
        "params": params(text, col, corpus, vocab, ref, choice, bos),
    }
    return render(request, "compare_column.html", ctx)


@router.post(
    "/compare/token",
    response_class=HTMLResponse,
    summary="What compare's popover says about one chip",
    description="The facts of chip `i` of column `column` (its raw spelling, id, offsets, "
    "bytes, whether its boundary differs from the reference's, its vocabulary entry), from the "
    "compare form's fields and, optionally, the chip's `id` (a 422 if the text has changed).",
)
def compare_token(
    request: Request,
    state: StateDep,
    column: int,
    i: Annotated[int, Form(ge=0)],
    text: Annotated[str, Form()] = "",
    col: Annotated[list[str] | None, Form()] = None,
    corpus: Annotated[str, Form()] = DEFAULT_CORPUS,
    vocab: Annotated[int, Form(ge=2, le=MAX_VOCAB)] = DEFAULT_VOCAB,
    ref: Annotated[int, Form()] = 0,
    special: Annotated[str, Form()] = "",
    bos: Annotated[bool, Form()] = True,
    chip_id: Annotated[int | None, Form(alias="id")] = None,
) -> HTMLResponse:
    specs = [c for c in (col or default_columns()) if c]
    ctx: dict[str, Any] = {"error": None}
    status = 200
    try:
        validate(state, text, specs, vocab)
        ctx.update(
            chip_facts(
                state,
                text,
                specs,
                corpus,
                vocab,
                ref if 0 <= ref < len(specs) else 0,
                column,
                i,
                chip_id,
                special_choice(special),
                bos,
            )
        )
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "partials/chip_pop.html", ctx, status_code=status)


class CompareColumnOut(BaseModel):
    spec: str
    title: str
    error: str | None
    vocab_size: int
    tokens: list[str]
    offsets: list[tuple[int, int]]
    differs: list[int]
    metrics: dict[str, float] | None


@router.get("/api/compare", tags=["api"], response_model=list[CompareColumnOut])
def compare_api(
    state: StateDep,
    text: str,
    col: list[Name] | None = Query(None, max_length=MAX_COLUMNS),
    corpus: str = DEFAULT_CORPUS,
    vocab: int = bounded(DEFAULT_VOCAB, 2, MAX_VOCAB),
    ref: int = 0,
    special: str = "",
    bos: bool = True,
) -> list[dict[str, Any]]:
    """The compare view's data: per column the tokens, offsets, the indices of tokens whose
    boundaries differ from the reference column, and the metrics (`special`: as the page's
    "special tokens in text" switch, `true`, `false` or left out for each library's default;
    `bos`: as its "add BOS/EOS" box)."""
    specs = [c for c in (col or default_columns()) if c]
    validate(state, text, specs, vocab)
    cols = build_columns(
        state,
        text,
        specs,
        corpus,
        vocab,
        ref,
        train_now=True,
        special=special_choice(special),
        bos=bos,
    )
    return [
        {
            "spec": c.spec,
            "title": c.title,
            "error": c.error,
            "vocab_size": c.vocab_size,
            "tokens": c.enc.tokens if c.enc else [],
            "offsets": c.enc.offsets if c.enc else [],
            "differs": sorted(c.marks),
            "metrics": c.metrics.to_dict() if c.metrics else None,
        }
        for c in cols
    ]

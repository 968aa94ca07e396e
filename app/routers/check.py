"""Check your own implementation (`/check`, `POST /api/check`): a student's merges, vocabulary,
pieces or tokens against the reference run on the same corpus (`tokenizers_core.check`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from tokenizers_core.checker import ALGORITHMS, KINDS, TIE_BREAKS
from tokenizers_core.corpora import SENNRICH, corpus_names
from tokenizers_core.errors import InvalidInput
from tokenizers_core.pre_tokenizers import WHITESPACE_PATTERN

from ..deps import StateDep
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services.check import EXAMPLES, reference_options, run_check, whole
from ..services.check import example as worked_example
from ..services.corpora import read_upload_text, store_corpus

router = APIRouter(tags=["check"])
TIE_LABELS = {
    "hf": "Hugging Face: the pair of earlier-made symbols wins",
    "minbpe": "minbpe: the pair seen first wins",
}


class CheckRequest(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    algorithm: str = Field(examples=["bpe"])
    theirs: str | list[Any] = Field(
        description="what your code produced: merges ('a b' a line, "
        "or JSON pairs), a WordPiece vocabulary, Unigram pieces "
        "('piece<TAB>score' a line) or tokens",
        examples=["e s\nes t\nest </w>"],
    )
    corpus: str | None = Field(None, description="the training text itself")
    corpus_name: str | None = Field(
        None,
        description="a bundled corpus or a stored sha256; "
        "neither: the textbook corpus (low, lower, newest, widest)",
    )
    vocab_size: int = Field(examples=[20])
    kind: str | None = Field(
        None, description="merges, vocab, pieces or tokens (sniffed if absent)"
    )
    text: str | None = Field(None, description="for a tokens check: the text your tokens are for")
    pieces: str | list[Any] | None = Field(None, description="unigram tokens check: your pieces")
    ties: str = Field(
        "hf",
        description="the tie-break the reference follows (bpe, byte_bpe "
        "merges): " + "; ".join(f"{k}: {v}" for k, v in TIE_BREAKS.items()),
        examples=["hf", "minbpe"],
    )


# ---- JSON ------------------------------------------------------------------------------------
@router.post("/api/check", tags=["api"], summary="Check your implementation against ours")
def check_api(state: StateDep, body: CheckRequest) -> dict[str, Any]:
    """Where your merges / vocabulary / pieces / tokens first differ from the reference trained
    on the same corpus, with the state there and the classic mistakes that explain it.
    `first_divergence` is 1-based (a merge number; a word number for tokens), null when equal."""
    if body.corpus is not None and body.corpus_name is not None:
        raise HTTPException(422, "give at most one of 'corpus' (the text) or 'corpus_name'")
    ref = store_corpus(state, body.corpus) if body.corpus is not None else (body.corpus_name or "")
    options = reference_options(
        body.vocab_size, body.algorithm, {**(body.model_extra or {}), "ties": body.ties}
    )
    try:
        report, links = run_check(
            state,
            body.algorithm,
            ref,
            body.theirs,
            body.vocab_size,
            body.kind,
            body.text,
            body.pieces,
            options,
        )
    except TypeError as exc:  # an option the trainer does not take
        raise HTTPException(422, f"bad option for {body.algorithm}: {exc}") from None
    return {**report.to_dict(), "corpus": ref or "textbook", "links": links}


# ---- the page --------------------------------------------------------------------------------
def _page_context(**values: Any) -> dict[str, Any]:
    ctx = {
        "algorithms": ALGORITHMS,
        "kinds": KINDS,
        "bundled": corpus_names(),
        "algorithm": "bpe",
        "kind": "",
        "vocab_size": 20,
        "corpus": "",
        "corpus_text": "",
        "theirs": "",
        "text": "",
        "pieces": "",
        "pattern": "",
        "min_frequency": 0,
        "ties": "hf",
        "tie_breaks": TIE_BREAKS,
        "tie_labels": TIE_LABELS,
        "report": None,
        "links": {},
        "error": None,
        "textbook": SENNRICH,
        "words": {"bpe_pattern": WHITESPACE_PATTERN},
    }
    ctx.update(values)
    return ctx


@router.get("/check", response_class=HTMLResponse, summary="Check your own implementation")
def check_page(request: Request, example: str = "") -> HTMLResponse:
    ctx = _page_context(examples=EXAMPLES)
    if example in EXAMPLES:
        ctx.update(worked_example(example))
    return render(request, "check.html", ctx)


@router.post("/check", response_class=HTMLResponse, summary="Check your own implementation")
async def check_post(
    request: Request,
    state: StateDep,
    algorithm: str = Form("bpe"),
    kind: str = Form(""),
    vocab_size: str = Form("20"),
    corpus: str = Form(""),
    corpus_text: str = Form(""),
    theirs: str = Form(""),
    theirs_file: UploadFile | None = File(None),
    text: str = Form(""),
    pieces: str = Form(""),
    pattern: str = Form(""),
    min_frequency: str = Form("0"),
    ties: str = Form("hf"),
) -> HTMLResponse:
    ctx = _page_context(
        algorithm=algorithm,
        kind=kind,
        vocab_size=vocab_size,
        corpus=corpus,
        corpus_text=corpus_text,
        theirs=theirs,
        text=text,
        pieces=pieces,
        pattern=pattern,
        min_frequency=min_frequency,
        ties=ties,
        examples=EXAMPLES,
    )
    status = 200
    try:
        if theirs_file is not None and theirs_file.filename:
            theirs = ctx["theirs"] = await read_upload_text(state, theirs_file)
        if not theirs.strip():
            raise InvalidInput("paste (or upload) what your implementation produced")
        size = whole(vocab_size, "vocab_size")
        ref = store_corpus(state, corpus_text) if corpus_text.strip() else corpus
        options = reference_options(
            size,
            algorithm,
            {
                "pattern": pattern,
                "ties": ties,
                "min_frequency": whole(min_frequency, "min_frequency"),
            },
        )
        # training the reference takes a while (or waits for the job pool): not on the loop
        ctx["report"], ctx["links"] = await run_in_threadpool(
            run_check, state, algorithm, ref, theirs, size, kind, text, pieces, options
        )
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "check.html", ctx, block="report", status_code=status)

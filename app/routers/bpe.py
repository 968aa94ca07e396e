"""BPE step-through views: training (`/bpe/train`) and encoding (`/bpe/encode`).

Each page is a pure function of its URL. The handlers parse the input, get the run (a training
session from `app.jobs.runs`: a large corpus trains in the job pool while the page shows
progress) or the trace, and render the page `app.views.bpe_train` / `bpe_encode` build. The
JSON answers are `app.views.answers`' (the downloads reshape the same ones).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from tokenizers_core.models.bpe.session import VARIANTS, encode_trace

from .. import limits
from ..deps import StateDep, bounded
from ..errors import BAD_INPUT, bad_input
from ..jobs import Job
from ..jobs.runs import bpe_session, family_steps
from ..practice import PracticeState, practice_params
from ..render import render
from ..services.counted import (
    counts_by_ref,
    counts_family_run,
    counts_pattern,
    counts_session,
    store_uploaded,
)
from ..services.tokenizers import check_step_text, resolve_tokenizer
from ..state import AppState
from ..stepping import check_speed
from ..urls import url_with
from ..views import answers, bpe_encode, bpe_family, bpe_train, common
from ..views.common import in_place, shown_corpus, train_post, training_text, whole

MAX_VIEW_VOCAB = bpe_train.MAX_VIEW_VOCAB
SYNC_SECONDS = 0.5  # a page waits this long for a run in the pool, then shows progress
router = APIRouter(tags=["bpe"])


@router.get("/bpe/train", response_class=HTMLResponse, summary="BPE training, one merge at a time")
def train_page(
    request: Request,
    state: StateDep,
    corpus: str = "",
    variant: str = "bpe",
    vocab_size: str = answers.VOCAB_QUERY,
    pattern: str = "gpt2",
    min_frequency: int = bounded(0, 0),
    step: int = 0,
    page: int = 0,
    play: bool = False,
    transition: str = "",
    threshold: str = "",
    counts: str = "",
    practice: PracticeState = Depends(practice_params),
) -> HTMLResponse:
    """`variant`: bpe, byte_bpe, sentencepiece_bpe, or one of the new family (superbpe,
    picky_bpe, parity_bpe: `transition` is SuperBPE's, `threshold` Picky BPE's). `counts`: the
    sha256 of a stored counts file to train on, in place of `corpus` (its own pattern)."""
    if variant in bpe_family.FAMILY:
        return _family_page(
            request, state, corpus, variant, vocab_size, transition, threshold, step, play, counts
        )
    ctx = bpe_train.form(corpus, variant, vocab_size, pattern, min_frequency, page, play, counts)

    def build() -> dict[str, Any]:
        if counts:
            return _from_counts(state, ctx, counts, step, page, practice)
        ctx["size"], options = bpe_train.options(
            variant, whole(vocab_size), pattern, min_frequency, corpus
        )
        text = training_text(state, corpus)
        ctx["corpus_text"] = shown_corpus(text)
        run = bpe_session(state, corpus, text, variant, ctx["size"], options, wait=SYNC_SECONDS)
        return bpe_train.page(run, step, page, practice, ctx["params"])

    status = in_place(ctx, build)
    return render(request, "bpe_train.html", ctx, block="step", status_code=status)


def _from_counts(
    state: AppState,
    ctx: dict[str, Any],
    digest: str,
    step: int,
    page: int,
    practice: PracticeState,
) -> dict[str, Any]:
    """The training view on a stored counts file: the counts' own pattern, the same steps as
    on the text they were counted from."""
    found = counts_by_ref(state, digest)
    own = counts_pattern(found)
    ctx["pattern"] = ctx["params"]["pattern"] = own if ctx["variant"] == "byte_bpe" else None
    ctx["counts_info"] = {"distinct": len(found), "total": found.total,
                          "under": found.counted_under.describe()}  # fmt: skip
    ctx["corpus_text"] = ""
    ctx["size"], options = bpe_train.options(
        ctx["variant"], whole(ctx["vocab_size"] or ""), own or "gpt2", ctx["min_frequency"], digest
    )
    options.pop("pattern", None)  # (the counts' own)
    run = counts_session(state, digest, ctx["variant"], ctx["size"], options)
    return bpe_train.page(run, step, page, practice, ctx["params"])


@router.post(
    "/bpe/train/counts",
    response_class=HTMLResponse,
    summary="Store uploaded counts files and open their BPE training view",
)
async def train_counts_post(
    request: Request,
    state: StateDep,
    file: list[UploadFile] = File(...),
    variant: str = Form(""),
    language: list[str] = Form([]),
    vocab_size: str = Form(""),
    threshold: str = Form(""),
) -> Response:
    """303 to `/bpe/train?counts=SHA256&variant=...`: a counts file's own variant (bpe,
    byte_bpe, sentencepiece_bpe), or picky_bpe on byte_bpe counts when `variant` asks; for
    parity_bpe one byte_bpe counts file per language (`language`, in order, or each file's name:
    eng.counts), stored as a set. The form again with the reason (4xx) for files the view
    does not train."""
    try:
        files = []
        room = state.settings.max_upload_bytes  # (all the files together)
        for upload in file:
            data = await limits.read_upload(upload, room)
            files.append((upload.filename or "", data))
            room -= len(data)
        digest, variant = store_uploaded(state, files, variant.strip(), language)
    except BAD_INPUT as exc:
        error, status = bad_input(exc)
        if variant in bpe_family.FAMILY:
            ctx = bpe_family.form("", variant, vocab_size, "", threshold, False)
            ctx.update(variants=[*VARIANTS, *bpe_family.FAMILY], error=error)
            return render(request, "bpe_family.html", ctx, status_code=status)
        ctx = bpe_train.form("", "bpe", vocab_size, "gpt2", 0, 0, False)
        ctx["error"] = error
        return render(request, "bpe_train.html", ctx, status_code=status)
    query = {
        "counts": digest,
        "variant": variant,
        "vocab_size": vocab_size.strip() or None,
        "threshold": (threshold.strip() or None) if variant == "picky_bpe" else None,
    }
    return RedirectResponse(url_with("/bpe/train", query), status_code=303)


def _family_page(
    request: Request,
    state: AppState,
    corpus: str,
    variant: str,
    vocab_size: str,
    transition: str,
    threshold: str,
    step: int,
    play: bool,
    counts: str = "",
) -> HTMLResponse:
    """The family's view, on a corpus or on stored counts (`counts`: picky_bpe's counts file,
    parity_bpe's set of them; trained within the request, as BPE's from counts)."""
    ctx = bpe_family.form(corpus, variant, vocab_size, transition, threshold, play, counts)
    ctx["variants"] = [*VARIANTS, *bpe_family.FAMILY]
    ctx["step"] = step  # (the progress panel polls this step's URL)

    def build() -> dict[str, Any]:
        ctx["size"], options = bpe_family.options(
            variant,
            whole(vocab_size),
            bpe_family.number(transition, "transition"),
            bpe_family.number(threshold, "threshold"),
        )
        if counts:
            found, ctx["counts_info"] = counts_family_run(
                state, counts, variant, ctx["size"], options
            )
            return bpe_family.page(found, step)
        text = training_text(state, ctx["corpus"])
        run = family_steps(
            state, ctx["corpus"], text, variant, ctx["size"], options, wait=SYNC_SECONDS
        )
        if isinstance(run, Job):
            return {"training": True, "job": run}
        return bpe_family.page(run, step)

    status = in_place(ctx, build)
    return render(request, "bpe_family.html", ctx, block="step", status_code=status)


class BpeTrainForm(common.TrainForm):
    variant: str = "bpe"
    vocab_size: str = ""
    pattern: str = "gpt2"
    min_frequency: int = 0


def _family_url(form: BpeTrainForm) -> str | None:
    """The new family's view reads its corpus by name: its POST goes there."""
    if form.variant not in bpe_family.FAMILY:
        return None
    query = {"variant": form.variant, "corpus": form.corpus or None}
    return url_with("/bpe/train", {**query, "vocab_size": form.vocab_size or None})


def _form(form: BpeTrainForm) -> dict[str, Any]:
    return bpe_train.form(
        "", form.variant, form.vocab_size, form.pattern, form.min_frequency, 0, False
    )


router.post(
    "/bpe/train",
    response_class=HTMLResponse,
    summary="Store an edited corpus and open its BPE training view",
)(
    train_post(
        "/bpe/train",
        "bpe_train.html",
        BpeTrainForm,
        shown=_form,
        params=lambda form: _form(form)["params"],
        check=lambda form, digest: bpe_train.options(
            form.variant, whole(form.vocab_size), form.pattern, form.min_frequency, digest
        ),
        elsewhere=_family_url,
    )
)


@router.get(
    "/bpe/encode",
    response_class=HTMLResponse,
    summary="BPE encoding: the merges apply by rank, one at a time",
)
def encode_page(
    request: Request,
    state: StateDep,
    tokenizer: str = "gpt2",
    text: str = bpe_encode.DEFAULT_TEXT,
    step: int = 0,
    token: str = "",
    special: bool = False,
    play: bool = False,
    speed: int = 1,
    practice: PracticeState = Depends(practice_params),
) -> HTMLResponse:
    """Opens at step 0, as the other step-through views do."""
    ctx = bpe_encode.form(state, tokenizer, text, token, special, play, speed)

    def build() -> dict[str, Any]:
        check_speed(speed)
        check_step_text(state, text, in_form=True)
        tok = bpe_encode.tokenizer_for(resolve_tokenizer(state, tokenizer), special)
        return bpe_encode.page(
            tok, encode_trace(tok, text), step, token, speed, practice, ctx["params"]
        )

    status = in_place(ctx, build)
    return render(request, "bpe_encode.html", ctx, block="step", status_code=status)


# ---- JSON ----------------------------------------------------------------------------------------
@router.get(
    "/api/bpe/train_steps",
    tags=["api"],
    summary="Every merge of BPE training (bpe, byte_bpe, sentencepiece_bpe), as step dicts",
)
def train_steps_api(data: dict = Depends(answers.bpe_train_steps)) -> dict[str, Any]:
    return data


@router.get(
    "/api/bpe/encode_steps",
    tags=["api"],
    summary="Every merge of BPE encoding, piece by piece, as step dicts",
)
def encode_steps_api(data: dict = Depends(answers.bpe_encode_steps)) -> dict[str, Any]:
    return data

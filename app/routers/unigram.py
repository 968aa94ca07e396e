"""Unigram step-through views: the Viterbi lattice (`/unigram/lattice`) and EM training
(`/unigram/train`).

Each page is a pure function of its URL. A model is `tiny` (the demo where `▁cat` scores high),
a bundled SentencePiece Unigram model, a trained handle, or the handle of an uploaded tokenizer
file (`app.uploads`: a sentencepiece .model or a tokenizer.json with a Unigram model).
Training on a large corpus runs in the job pool (`app.jobs.runs`), keyed by (corpus, vocab size,
sample words); a request waits up to WAIT_SECONDS, then shows the rounds done so far and polls
(htmx) for the rest. The pages are built by `app.views.unigram_lattice` / `unigram_train`; the
lattice's JSON answer is `app.views.answers`' (its download reshapes the same one).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse

from tokenizers_core.errors import InvalidInput

from ..deps import StateDep, bounded
from ..errors import BAD_INPUT, bad_input
from ..jobs.runs import unigram_run
from ..practice import PracticeState, practice_params
from ..render import render
from ..services.tokenizers import check_text
from ..services.training import sample_words
from ..uploads import upload
from ..views import answers, common, unigram_lattice, unigram_train
from ..views.common import in_place, shown_corpus, train_post, training_text, unigram_model

DEFAULT_TEXT, MAX_NBEST = unigram_lattice.DEFAULT_TEXT, unigram_lattice.MAX_NBEST
DEFAULT_CORPUS, DEFAULT_VOCAB, MAX_TRAIN_VOCAB = (
    unigram_train.DEFAULT_CORPUS,
    unigram_train.DEFAULT_VOCAB,
    unigram_train.MAX_TRAIN_VOCAB,
)
WAIT_SECONDS = 2.0  # a training request waits this long before showing progress
router = APIRouter(tags=["unigram"])


@router.get(
    "/unigram/lattice",
    response_class=HTMLResponse,
    summary="The Unigram Viterbi lattice, one end position at a time",
)
def lattice_page(
    request: Request,
    state: StateDep,
    model: str = "tiny",
    text: str = DEFAULT_TEXT,
    step: int = 0,
    n: int = bounded(5, 1, MAX_NBEST),
    seed: int | None = None,
    alpha: float = 0.1,
    nbest_size: int = -1,
    play: bool = False,
    practice: PracticeState = Depends(practice_params),
) -> HTMLResponse:
    ctx = unigram_lattice.form(state, model, text, n, seed, alpha, nbest_size, play)

    def build() -> dict[str, Any]:
        check_text(state, text)
        unigram_lattice.check_n(n)
        return unigram_lattice.page(
            unigram_model(state, model),
            text,
            step,
            n,
            seed,
            alpha,
            nbest_size,
            practice,
            ctx["params"],
        )

    status = in_place(ctx, build)
    return render(request, "unigram_lattice.html", ctx, block="step", status_code=status)


@router.post(
    "/unigram/lattice",
    response_class=HTMLResponse,
    summary="Upload a sentencepiece .model file and open its lattice view",
)
async def lattice_upload(
    request: Request, state: StateDep, file: UploadFile = File(...), text: str = Form(DEFAULT_TEXT)
) -> Any:
    """The lattice view's own upload (the page now uses the shared form, POST /tokenizers):
    stored with the other uploaded tokenisers, then the lattice of the new handle."""
    try:
        row = await upload(state.uploads, state.settings.max_tokenizer_bytes, file)
        if row["family"] != "unigram":
            raise InvalidInput(
                f"{file.filename or 'this file'} holds a {row['algorithm']} model; "
                "the lattice view needs a Unigram model (it is stored: see "
                "/tokenizers)"
            )
    except BAD_INPUT as exc:  # the form again, with the message
        ctx = unigram_lattice.form(state, "tiny", text)
        ctx["error"], status = bad_input(exc)
        return render(request, "unigram_lattice.html", ctx, status_code=status)
    query = urlencode({"model": row["handle"], "text": text})
    return RedirectResponse(f"/unigram/lattice?{query}", status_code=303)


@router.get(
    "/unigram/train",
    response_class=HTMLResponse,
    summary="Unigram training, one EM + pruning round at a time",
)
def train_page(
    request: Request,
    state: StateDep,
    corpus: str = DEFAULT_CORPUS,
    vocab_size: int = bounded(DEFAULT_VOCAB, 4, MAX_TRAIN_VOCAB),
    step: int = 0,
    words: str = "",
    play: bool = False,
) -> HTMLResponse:
    ctx = unigram_train.form(corpus, vocab_size, words, play)

    def build() -> dict[str, Any]:
        unigram_train.check_vocab_size(vocab_size)
        text = training_text(state, corpus)
        ctx["corpus_text"] = shown_corpus(text)
        sample = sample_words(text, words)
        run = unigram_run(state, corpus, text, vocab_size, sample, wait=WAIT_SECONDS)
        return unigram_train.page(run, step, sample)

    status = in_place(ctx, build)
    if ctx.get("running") and not ctx["steps"]:
        status = 202
    return render(request, "unigram_train.html", ctx, block="step", status_code=status)


class UnigramTrainForm(common.TrainForm):
    vocab_size: int = DEFAULT_VOCAB
    words: str = ""
    corpus: str = DEFAULT_CORPUS


router.post(
    "/unigram/train",
    response_class=HTMLResponse,
    summary="Store an edited corpus and open its Unigram training view",
)(
    train_post(
        "/unigram/train",
        "unigram_train.html",
        UnigramTrainForm,
        shown=lambda form: unigram_train.form("", form.vocab_size, form.words),
        params=lambda form: {"vocab_size": form.vocab_size or None, "words": form.words.strip()},
    )
)


@router.post(
    "/unigram/train/use",
    response_class=HTMLResponse,
    summary="Register the trained model as a handle and open it in the lattice view",
)
def train_use(
    state: StateDep,
    corpus: str = Form(DEFAULT_CORPUS),
    vocab_size: int = bounded(DEFAULT_VOCAB, 4, MAX_TRAIN_VOCAB, form=True),
    text: str = Form(""),
) -> Any:
    unigram_train.check_vocab_size(vocab_size, where="")
    handle, _tok = state.trained.train("unigram", corpus, vocab_size)
    query = urlencode({"model": handle, "text": text or DEFAULT_TEXT})
    return RedirectResponse(f"/unigram/lattice?{query}", status_code=303)


# ---- JSON --------------------------------------------------------------------------------------
@router.get(
    "/api/unigram/lattice",
    tags=["api"],
    summary="The Viterbi steps and n-best splits of a Unigram model on a text",
)
def lattice_api(data: dict = Depends(answers.unigram_lattice_steps)) -> dict[str, Any]:
    return data

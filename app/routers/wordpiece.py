"""WordPiece step-through views: encoding (`/wordpiece/encode`) and training (`/wordpiece/train`).

Each page is a pure function of its URL: the inputs and the step index. The handlers parse the
input, get the probes or the training run (a `WordPieceSession` from `app.jobs.runs`: a large
corpus trains in the job pool while the page shows progress) and render the page
`app.views.wordpiece_encode` / `wordpiece_train` build. The JSON answers are
`app.views.answers`' (the downloads reshape the same ones).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from .. import limits
from ..deps import StateDep, bounded
from ..errors import BAD_INPUT, bad_input
from ..jobs.runs import wordpiece_run
from ..practice import PracticeState, practice_params
from ..render import render
from ..services.counted import counts_wordpiece_run, store_wordpiece_counts
from ..services.tokenizers import check_step_text
from ..stepping import check_speed
from ..urls import url_with
from ..views import answers, common, wordpiece_encode, wordpiece_train
from ..views.common import in_place, shown_corpus, train_post, training_text, wordpiece_tokenizer

SMALL_VOCAB = wordpiece_encode.SMALL_VOCAB
DEFAULT_VOCAB_SIZE, MAX_TRAIN_VOCAB = (
    wordpiece_train.DEFAULT_VOCAB_SIZE,
    wordpiece_train.MAX_TRAIN_VOCAB,
)
SYNC_SECONDS = 0.5  # a page waits this long for a run in the pool, then shows progress
router = APIRouter(tags=["wordpiece"])


@router.get(
    "/wordpiece/encode",
    response_class=HTMLResponse,
    summary="WordPiece encoding, one probe at a time",
)
def encode_page(
    request: Request,
    state: StateDep,
    text: str = wordpiece_encode.DEFAULT_TEXT,
    vocab: str = "small",
    vocab_text: str = SMALL_VOCAB,
    step: int = 0,
    play: bool = False,
    speed: int = 1,
    practice: PracticeState = Depends(practice_params),
) -> HTMLResponse:
    ctx = wordpiece_encode.form(state, text, vocab, vocab_text, play, speed)

    def build() -> dict[str, Any]:
        check_speed(speed)
        check_step_text(state, text, in_form=True)
        tok = wordpiece_tokenizer(state, vocab, vocab_text)
        return wordpiece_encode.page(tok, text, step, speed, practice, ctx["params"])

    status = in_place(ctx, build)
    return render(request, "wordpiece_encode.html", ctx, block="step", status_code=status)


@router.get(
    "/wordpiece/train",
    response_class=HTMLResponse,
    summary="WordPiece training, one merge at a time",
)
def train_page(
    request: Request,
    state: StateDep,
    corpus: str = "",
    vocab_size: int = bounded(DEFAULT_VOCAB_SIZE, 1, MAX_TRAIN_VOCAB),
    min_frequency: int = bounded(0, 0),
    step: int = 0,
    page: int = 0,
    play: bool = False,
    counts: str = "",
) -> HTMLResponse:
    """`counts`: the sha256 of a stored wordpiece counts file to train on, in place of
    `corpus` (trained within the request: the same merges as on the text)."""
    ctx = wordpiece_train.form(corpus, vocab_size, min_frequency, page, play, counts)

    def build() -> dict[str, Any]:
        options = wordpiece_train.options(vocab_size, min_frequency)
        if counts:
            run, ctx["counts_info"] = counts_wordpiece_run(state, counts, options)
            return wordpiece_train.page(run, step, page)
        text = training_text(state, corpus)
        ctx["corpus_text"] = shown_corpus(text)
        return wordpiece_train.page(
            wordpiece_run(state, corpus, text, options, wait=SYNC_SECONDS), step, page
        )

    status = in_place(ctx, build)
    return render(request, "wordpiece_train.html", ctx, block="step", status_code=status)


@router.post(
    "/wordpiece/train/counts",
    response_class=HTMLResponse,
    summary="Store an uploaded wordpiece counts file and open its training view",
)
async def train_counts_post(
    request: Request,
    state: StateDep,
    file: UploadFile = File(...),
    vocab_size: int = Form(DEFAULT_VOCAB_SIZE),
    min_frequency: int = Form(0),
) -> Response:
    """303 to `/wordpiece/train?counts=SHA256`; the form again with the reason (4xx) for a
    file that is not wordpiece counts."""
    try:
        wordpiece_train.options(vocab_size, min_frequency)
        data = await limits.read_upload(file, state.settings.max_upload_bytes)
        digest = store_wordpiece_counts(state, data, file.filename or "")
    except BAD_INPUT as exc:
        ctx = wordpiece_train.form("", vocab_size, min_frequency)
        ctx["error"], status = bad_input(exc)
        return render(request, "wordpiece_train.html", ctx, status_code=status)
    query = {"counts": digest, "vocab_size": vocab_size, "min_frequency": min_frequency or None}
    return RedirectResponse(url_with("/wordpiece/train", query), status_code=303)


class WordPieceTrainForm(common.TrainForm):
    vocab_size: int = DEFAULT_VOCAB_SIZE
    min_frequency: int = 0


router.post(
    "/wordpiece/train",
    response_class=HTMLResponse,
    summary="Store an edited corpus and open its training view",
)(
    train_post(
        "/wordpiece/train",
        "wordpiece_train.html",
        WordPieceTrainForm,
        shown=lambda form: wordpiece_train.form("", form.vocab_size, form.min_frequency),
        params=lambda form: {
            "vocab_size": form.vocab_size or None,
            "min_frequency": form.min_frequency or None,
        },
    )
)


# ---- JSON ------------------------------------------------------------------------------------
@router.get(
    "/api/wordpiece/encode_steps",
    tags=["api"],
    summary="Every probe of WordPiece encoding, as step dicts",
)
def encode_steps_api(data: dict = Depends(answers.wordpiece_encode_steps)) -> dict[str, Any]:
    return data


@router.get(
    "/api/wordpiece/train_steps",
    tags=["api"],
    summary="Every merge of WordPiece training, as step dicts",
)
def train_steps_api(data: dict = Depends(answers.wordpiece_train_steps)) -> dict[str, Any]:
    return data

"""WordPiece step-through views: encoding (`/wordpiece/encode`) and training (`/wordpiece/train`).

Each page is a pure function of its URL: the inputs and the step index. The handlers parse the
input, get the probes or the training run (a `WordPieceSession` from `app.jobs.runs`: a large
corpus trains in the job pool while the page shows progress) and render the page
`app.views.wordpiece_encode` / `wordpiece_train` build. The JSON answers are
`app.views.answers`' (the downloads reshape the same ones).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse

from ..deps import StateDep, bounded
from ..jobs.runs import wordpiece_run
from ..practice import PracticeState, practice_params
from ..render import render
from ..services.tokenizers import check_step_text
from ..stepping import check_speed
from ..views import answers, wordpiece_encode, wordpiece_train
from ..views.common import in_place, posted_corpus, shown_corpus, training_text, wordpiece_tokenizer

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
) -> HTMLResponse:
    ctx = wordpiece_train.form(corpus, vocab_size, min_frequency, page, play)

    def build() -> dict[str, Any]:
        options = wordpiece_train.options(vocab_size, min_frequency)
        text = training_text(state, corpus)
        ctx["corpus_text"] = shown_corpus(text)
        return wordpiece_train.page(
            wordpiece_run(state, corpus, text, options, wait=SYNC_SECONDS), step, page
        )

    status = in_place(ctx, build)
    return render(request, "wordpiece_train.html", ctx, block="step", status_code=status)


@router.post(
    "/wordpiece/train",
    response_class=HTMLResponse,
    summary="Store an edited corpus and open its training view",
)
def train_post(
    request: Request,
    state: StateDep,
    corpus_text: str = Form(""),
    vocab_size: int = Form(DEFAULT_VOCAB_SIZE),
    min_frequency: int = Form(0),
    corpus: str = Form(""),
    use: str = Form(""),
) -> Any:
    """The training form: "Train" (`use=pick`) takes the picked corpus; "Use this corpus" (or
    a bare POST of `corpus_text`) stores the edited text. Either way, a redirect to the
    page's permalink."""
    return posted_corpus(
        request,
        state,
        wordpiece_train.form("", vocab_size, min_frequency),
        "wordpiece_train.html",
        "/wordpiece/train",
        use=use,
        corpus=corpus,
        corpus_text=corpus_text,
        params={"vocab_size": vocab_size or None, "min_frequency": min_frequency or None},
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

"""WordPiece step-through views: encoding (`/wordpiece/encode`) and training (`/wordpiece/train`).

Each page is a pure function of its URL: the inputs and the step index. The handlers parse the
input, get the probes or the training run (a `WordPieceSession` from `app.step_jobs`: a large
corpus trains in the job pool while the page shows progress) and render the state
`app.views.wordpiece_encode` / `wordpiece_train` build.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from tokenizers_core.implementations.bert import encode_steps
from tokenizers_core.corpora import corpus_names

from ..deps import bounded, check_step_text, store, stored_options, tokenizer_label
from ..job_store import Job
from ..practice import PracticeState, practice_params, toggle
from ..render import render, url_with
from ..step_jobs import wordpiece_run
from ..stepping import SPEEDS, check_speed
from ..trained import corpus_text as corpus_by_ref
from ..views import wordpiece_encode as E, wordpiece_train as T
from ..views.common import SENNRICH, in_place, store_corpus, wordpiece_options, wordpiece_tokenizer

DEFAULT_CORPUS = SENNRICH
SMALL_VOCAB = E.SMALL_VOCAB
DEFAULT_VOCAB_SIZE, MAX_TRAIN_VOCAB = T.DEFAULT_VOCAB_SIZE, T.MAX_TRAIN_VOCAB
ENCODE_DELAY = 700        # ms between played probes at speed 1
SYNC_SECONDS = 0.5        # a page waits this long for a run in the pool, then shows progress
router = APIRouter(tags=["wordpiece"])


@router.get("/wordpiece/encode", response_class=HTMLResponse,
            summary="WordPiece encoding, one probe at a time")
def encode_page(request: Request, text: str = E.DEFAULT_TEXT, vocab: str = "small",
                vocab_text: str = SMALL_VOCAB, step: int = 0, play: bool = False,
                speed: int = 1,
                practice: PracticeState = Depends(practice_params)) -> HTMLResponse:
    params = {"vocab": vocab, "text": text, "speed": speed if speed != 1 else None}
    if vocab == "small" and vocab_text != SMALL_VOCAB:
        params["vocab_text"] = vocab_text
    ctx: dict[str, Any] = {"text": text, "vocab": vocab, "vocab_text": vocab_text,
                           "params": params, "error": None, "play": play,
                           "vocab_options": wordpiece_options(vocab),
                           "yours": stored_options(request, "wordpiece"),
                           "label": tokenizer_label(request, vocab),
                           "next": url_with("/wordpiece/encode", params)}

    def build() -> dict[str, Any]:
        check_speed(speed)
        check_step_text(request, text, status=422)
        tok = wordpiece_tokenizer(request, vocab, vocab_text)
        words, steps = encode_steps(tok, text, max_steps=E.MAX_STEPS)
        s = E.state(tok, words, steps, step)
        pseudocode, line = E.code_panel(s)
        return {**vars(s), "tok": tok, "pseudocode": pseudocode, "line": line,
                "speed": speed, "speeds": SPEEDS, "delay": ENCODE_DELAY // speed,
                "final": (tok.encode(text, add_special_tokens=False).tokens
                          if s.step == s.total else None),
                "practice": E.practice(practice, "/wordpiece/encode", params, s.step, steps,
                                       s.prefix, s.unk) if practice.on else None,
                "practice_link": toggle("/wordpiece/encode", params, s.step)}

    status = in_place(ctx, build)
    return render(request, "wordpiece_encode.html", ctx, block="step", status_code=status)


def _train_form(corpus: str, vocab_size: int, min_frequency: int, params: dict[str, Any],
                play: bool = False) -> dict[str, Any]:
    return {"corpus": corpus, "vocab_size": vocab_size, "min_frequency": min_frequency,
            "params": params, "error": None, "play": play, "bundled": corpus_names(),
            "corpus_text": ""}


@router.get("/wordpiece/train", response_class=HTMLResponse,
            summary="WordPiece training, one merge at a time")
def train_page(request: Request, corpus: str = "",
               vocab_size: int = bounded(DEFAULT_VOCAB_SIZE, 1, MAX_TRAIN_VOCAB),
               min_frequency: int = bounded(0, 0), step: int = 0, page: int = 0,
               play: bool = False) -> HTMLResponse:
    params = {"corpus": corpus or None, "vocab_size": vocab_size,
              "min_frequency": min_frequency or None, "page": page or None}
    ctx = _train_form(corpus, vocab_size, min_frequency, params, play)

    def build() -> dict[str, Any]:
        options = T.options(vocab_size, min_frequency)
        text = SENNRICH if not corpus else corpus_by_ref(store(request), corpus)
        ctx["corpus_text"] = text if len(text) <= 20_000 else ""
        session = wordpiece_run(request, corpus, text, options, wait=SYNC_SECONDS)
        if isinstance(session, Job):                   # a big run: it trains on in the pool
            return {"training": True, "job": session, "step": step}
        s = T.state(session, step, page)
        pseudocode, line = T.code_panel(s)
        return {**vars(s), "session": session, "pseudocode": pseudocode, "line": line}

    status = in_place(ctx, build)
    return render(request, "wordpiece_train.html", ctx, block="step", status_code=status)


@router.post("/wordpiece/train", response_class=HTMLResponse,
             summary="Store an edited corpus and open its training view")
def train_post(request: Request, corpus_text: str = Form(""),
               vocab_size: int = Form(DEFAULT_VOCAB_SIZE), min_frequency: int = Form(0),
               corpus: str = Form(""), use: str = Form("")) -> Any:
    """The training form: "Train" (`use=pick`) takes the picked corpus; "Use this corpus" (or
    a bare POST of `corpus_text`) stores the edited text. Either way, a redirect to the
    page's permalink."""
    ctx = _train_form("", vocab_size, min_frequency, {})
    digest = ""

    def build() -> None:
        nonlocal digest
        digest = corpus if use == "pick" else store_corpus(request, corpus_text)

    status = in_place(ctx, build)
    if ctx["error"] is not None:
        ctx["corpus_text"] = corpus_text
        return render(request, "wordpiece_train.html", ctx, status_code=status)
    query = urlencode({k: v for k, v in (("corpus", digest), ("vocab_size", vocab_size),
                                         ("min_frequency", min_frequency)) if v})
    return RedirectResponse(f"/wordpiece/train?{query}", status_code=303)


# ---- JSON ------------------------------------------------------------------------------------
@router.get("/api/wordpiece/encode_steps", tags=["api"],
            summary="Every probe of WordPiece encoding, as step dicts")
def encode_steps_api(request: Request, text: str, vocab: str = "bert-base-uncased",
                     vocab_text: str = SMALL_VOCAB) -> dict[str, Any]:
    check_step_text(request, text)
    tok = wordpiece_tokenizer(request, vocab, vocab_text)
    words, steps = encode_steps(tok, text, max_steps=E.MAX_STEPS)
    return {"words": [list(w) for w in words],
            "steps": [{"word_index": i, **p.to_dict()} for i, p in steps]}


@router.get("/api/wordpiece/train_steps", tags=["api"],
            summary="Every merge of WordPiece training, as step dicts")
def train_steps_api(request: Request, corpus: str = "",
                    vocab_size: int = bounded(DEFAULT_VOCAB_SIZE, 1, MAX_TRAIN_VOCAB),
                    min_frequency: int = bounded(0, 0)) -> dict[str, Any]:
    options = T.options(vocab_size, min_frequency)
    text = SENNRICH if not corpus else corpus_by_ref(store(request), corpus)
    run = wordpiece_run(request, corpus, text, options, wait=None)
    return {"corpus": corpus or "default", "vocab_size": vocab_size,
            "steps": [s.to_dict() for s in run.steps]}

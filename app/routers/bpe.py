"""BPE step-through views: training (`/bpe/train`) and encoding (`/bpe/encode`).

Each page is a pure function of its URL. The handlers parse the input, get the run (a training
session from `app.step_jobs`: a large corpus trains in the job pool while the page shows
progress) or the trace, and render the state `app.views.bpe_train` / `bpe_encode` build.
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse

import tokenizers_core as tc
from tokenizers_core.corpora import corpus_names
from tokenizers_core.models.bpe.session import RULES, VARIANTS, encode_trace

from .. import heap
from ..deps import bounded, check_step_text, resolve_tokenizer, store, stored_options
from ..job_store import Job
from ..practice import PracticeState, practice_params, toggle
from ..render import render, url_with
from ..step_jobs import bpe_session
from ..stepping import SPEEDS, check_speed
from ..trained import corpus_text as corpus_by_ref
from ..views import bpe_encode as E, bpe_train as T
from ..views.common import SENNRICH, bpe_options, in_place, store_corpus, whole

DEFAULT_CORPUS = SENNRICH
MAX_VIEW_VOCAB = T.MAX_VIEW_VOCAB
DELAY = 700               # ms between played steps at speed 1
SYNC_SECONDS = 0.5        # a page waits this long for a run in the pool, then shows progress
VOCAB_QUERY = Query("", max_length=12, description=(
    f"blank for the default, or a whole number from 1 to {MAX_VIEW_VOCAB:,}"))
router = APIRouter(tags=["bpe"])


def _train_form(corpus: str, variant: str, vocab_size: str, pattern: str, min_frequency: int,
                page: int, play: bool) -> dict[str, Any]:
    """What the training form shows, and the page's query parameters."""
    vocab_size = vocab_size.strip() or None
    params = {"corpus": corpus or None, "variant": variant, "vocab_size": vocab_size,
              "pattern": pattern if variant == "byte_bpe" else None,
              "min_frequency": min_frequency or None, "page": page or None}
    return {"corpus": corpus, "variant": variant, "vocab_size": vocab_size, "pattern": pattern,
            "min_frequency": min_frequency, "params": params, "error": None, "play": play,
            "bundled": corpus_names(), "corpus_text": SENNRICH if not corpus else "",
            "size": None, "variants": VARIANTS, "patterns": T.PATTERNS, "page": page}


@router.get("/bpe/train", response_class=HTMLResponse, summary="BPE training, one merge at a time")
def train_page(request: Request, corpus: str = "", variant: str = "bpe",
               vocab_size: str = VOCAB_QUERY, pattern: str = "gpt2",
               min_frequency: int = bounded(0, 0), step: int = 0, page: int = 0,
               play: bool = False,
               practice: PracticeState = Depends(practice_params)) -> HTMLResponse:
    ctx = _train_form(corpus, variant, vocab_size, pattern, min_frequency, page, play)

    def build() -> dict[str, Any]:
        ctx["size"], options = T.options(variant, whole(vocab_size), pattern, min_frequency, corpus)
        text = SENNRICH if not corpus else corpus_by_ref(store(request), corpus)
        ctx["corpus_text"] = text if len(text) <= 20_000 else ""
        session = bpe_session(request, corpus, text, variant, ctx["size"], options, wait=SYNC_SECONDS)
        if isinstance(session, Job):                   # a big run: it trains on in the pool
            return {"training": True, "job": session, "step": step}
        _settle(session)
        s = T.state(session, step, page)
        pseudocode, line = T.code_panel(s)
        return {**vars(s), "pseudocode": pseudocode, "line": line,
                "practice": T.practice(s, practice, "/bpe/train", ctx["params"])
                if practice.on else None,
                "practice_link": toggle("/bpe/train", ctx["params"], s.step)}

    status = in_place(ctx, build)
    return render(request, "bpe_train.html", ctx, block="step", status_code=status)


def _settle(session) -> None:
    """Once a run is finished it stays in the cache for many requests: move its objects out of
    the cyclic garbage collector's scans (`gc.freeze`), or a full collection over them adds
    ~70 ms to an occasional step request. (Frozen objects are still freed by reference
    counting when the run leaves the cache.)"""
    if session.finished and not session.settled:
        session.settled = True
        heap.settle()


@router.post("/bpe/train", response_class=HTMLResponse,
             summary="Store an edited corpus and open its BPE training view")
def train_post(request: Request, corpus_text: str = Form(""), variant: str = Form("bpe"),
               vocab_size: str = Form(""), pattern: str = Form("gpt2"),
               min_frequency: int = Form(0), corpus: str = Form(""), use: str = Form("")) -> Any:
    """The training form: "Train" (`use=pick`) takes the picked corpus; "Use this corpus" (or
    a bare POST of `corpus_text`) stores the edited text. Either way, a redirect to the
    page's permalink."""
    ctx = _train_form("", variant, vocab_size, pattern, min_frequency, 0, False)
    digest = ""

    def build() -> None:
        nonlocal digest
        digest = corpus if use == "pick" else store_corpus(request, corpus_text)
        T.options(variant, whole(vocab_size), pattern, min_frequency, digest)

    status = in_place(ctx, build)
    if ctx["error"] is not None:
        ctx["corpus_text"] = corpus_text
        return render(request, "bpe_train.html", ctx, status_code=status)
    return RedirectResponse(url_with("/bpe/train", {**ctx["params"], "corpus": digest or None}),
                            status_code=303)


@router.get("/bpe/encode", response_class=HTMLResponse,
            summary="BPE encoding: the merges apply by rank, one at a time")
def encode_page(request: Request, tokenizer: str = "gpt2", text: str = E.DEFAULT_TEXT,
                step: int = 0, token: str = "", special: bool = False,
                play: bool = False, speed: int = 1,
                practice: PracticeState = Depends(practice_params)) -> HTMLResponse:
    """Opens at step 0, as the other step-through views do."""
    params = {"tokenizer": tokenizer, "text": text, "special": 1 if special else None,
              "speed": speed if speed != 1 else None}
    ctx: dict[str, Any] = {"tokenizer": tc.pretrained.canonical_name(tokenizer), "text": text,
                           "params": params, "error": None, "play": play,
                           "options": bpe_options(tokenizer), "token": token,
                           "special": special, "yours": stored_options(request, "bpe"),
                           "next": url_with("/bpe/encode", params)}

    def build() -> dict[str, Any]:
        check_speed(speed)
        check_step_text(request, text, status=422)
        tok = E.tokenizer_for(resolve_tokenizer(request, tokenizer), special)
        s = E.state(tok, encode_trace(tok, text), step, token)
        pseudocode, line = E.code_panel(s)
        return {**vars(s), "tok": tok, "pseudocode": pseudocode, "line": line,
                "speed": speed, "speeds": SPEEDS, "delay": DELAY // speed,
                "practice": E.practice(practice, "/bpe/encode", params, s.step, s.flat, s.show)
                if practice.on else None,
                "practice_link": toggle("/bpe/encode", params, s.step)}

    status = in_place(ctx, build)
    return render(request, "bpe_encode.html", ctx, block="step", status_code=status)


# ---- JSON ------------------------------------------------------------------------------------------
@router.get("/api/bpe/train_steps", tags=["api"],
            summary="Every merge of BPE training (bpe, byte_bpe, sentencepiece_bpe), as step dicts")
def train_steps_api(request: Request, corpus: str = "", variant: str = "bpe",
                    vocab_size: str = VOCAB_QUERY, pattern: str = "gpt2",
                    min_frequency: int = bounded(0, 0)) -> dict[str, Any]:
    size, options = T.options(variant, whole(vocab_size), pattern, min_frequency, corpus)
    text = SENNRICH if not corpus else corpus_by_ref(store(request), corpus)
    session = bpe_session(request, corpus, text, variant, size, options, wait=None)
    return {"corpus": corpus or "default", "variant": variant, "vocab_size": size,
            "rule": RULES[variant], "stop_reason": session.trainer.stop_reason,
            "steps": [s.to_dict() for s in session.steps]}


@router.get("/api/bpe/encode_steps", tags=["api"],
            summary="Every merge of BPE encoding, piece by piece, as step dicts")
def encode_steps_api(request: Request, text: str, tokenizer: str = "gpt2",
                     special: bool = False) -> dict[str, Any]:
    check_step_text(request, text)
    tok = E.tokenizer_for(resolve_tokenizer(request, tokenizer), special)
    return {"tokenizer": tokenizer, "pieces": [
        {"text": t.text, "start": t.start, "end": t.end, "special": t.special,
         "initial": list(t.initial), "steps": [s.to_dict() for s in t.steps],
         "tokens": [list(x) for x in t.tokens]} for t in encode_trace(tok, text)]}

"""Unigram step-through views: the Viterbi lattice (`/unigram/lattice`) and EM training
(`/unigram/train`).

Each page is a pure function of its URL. A model is `tiny` (the demo where `▁cat` scores high),
a bundled SentencePiece Unigram model, a trained handle, or the handle of an uploaded tokenizer
file (`app.uploads`: a sentencepiece .model or a tokenizer.json with a Unigram model).
Training on a large corpus runs in the job pool (`app.step_jobs`), keyed by (corpus, vocab size,
sample words); a request waits up to WAIT_SECONDS, then shows the rounds done so far and polls
(htmx) for the rest. The states are built by `app.views.unigram_lattice` / `unigram_train`.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse

from tokenizers_core.corpora import corpus_names
from tokenizers_core.models.unigram.model import lattice_steps, sample

from ..deps import (BAD_INPUT, bad_input, bounded, check_text, settings, store, stored_options,
                    tokenizer_label, trained, uploads)
from ..practice import PracticeState, practice_params, toggle
from ..render import render, url_with
from ..step_jobs import unigram_run
from ..trained import corpus_text as corpus_by_ref
from ..uploads import upload
from ..views import unigram_lattice as L, unigram_train as T
from ..views.common import in_place, store_corpus, unigram_model, unigram_options

DEFAULT_TEXT, MAX_NBEST = L.DEFAULT_TEXT, L.MAX_NBEST
DEFAULT_CORPUS, DEFAULT_VOCAB, MAX_TRAIN_VOCAB = T.DEFAULT_CORPUS, T.DEFAULT_VOCAB, T.MAX_TRAIN_VOCAB
WAIT_SECONDS = 2.0               # a training request waits this long before showing progress
router = APIRouter(tags=["unigram"])


def _default_words(text: str) -> tuple[str, ...]:
    """A few frequent long words of the corpus (app.routers.downloads asks for them)."""
    return T.sample_words("", text)


def _lattice_form(request: Request, model: str, text: str, params: dict[str, Any], n: int = 5,
                  seed: int | None = None, alpha: float = 0.1, nbest_size: int = -1,
                  play: bool = False) -> dict[str, Any]:
    return {"model": model, "text": text, "params": params, "error": None, "play": play,
            "n_best": n, "seed": seed, "alpha": alpha, "nbest_size": nbest_size,
            "model_options": unigram_options(model), "cell": L.CELL,
            "yours": stored_options(request, "unigram"), "label": tokenizer_label(request, model),
            "next": url_with("/unigram/lattice", {**params, "text": text})}


@router.get("/unigram/lattice", response_class=HTMLResponse,
            summary="The Unigram Viterbi lattice, one end position at a time")
def lattice_page(request: Request, model: str = "tiny", text: str = DEFAULT_TEXT, step: int = 0,
                 n: int = bounded(5, 1, MAX_NBEST), seed: int | None = None, alpha: float = 0.1,
                 nbest_size: int = -1, play: bool = False,
                 practice: PracticeState = Depends(practice_params)) -> HTMLResponse:
    params = {"model": model, "text": text, "n": n if n != 5 else None}
    ctx = _lattice_form(request, model, text, params, n, seed, alpha, nbest_size, play)

    def build() -> dict[str, Any]:
        check_text(request, text)
        if not 1 <= n <= MAX_NBEST:
            raise ValueError(f"n (the number of best splits) must be between 1 and {MAX_NBEST}")
        tok = unigram_model(request, model)
        plain = text.replace("▁", " ")
        L.check_size(tok, plain)
        normalized, steps = lattice_steps(tok, plain)
        sampled = (sample(tok, plain, alpha=alpha, nbest_size=nbest_size, seed=seed)
                   if seed is not None else None)
        s = L.state(normalized, steps, step, tok.model.unk_id)
        pseudocode, line = L.code_panel(s)
        return {**vars(s), "tok": tok, "pseudocode": pseudocode, "line": line,
                "nbest": tok.model.nbest(normalized, n), "sampled": sampled,
                "final": tok.encode(plain).tokens if s.step == s.total else None,
                "unk_score": tok.model.unk_score,
                "practice": L.practice(practice, "/unigram/lattice", params, s.step, steps)
                if practice.on else None,
                "practice_link": toggle("/unigram/lattice", params, s.step)}

    status = in_place(ctx, build)
    return render(request, "unigram_lattice.html", ctx, block="step", status_code=status)


@router.post("/unigram/lattice", response_class=HTMLResponse,
             summary="Upload a sentencepiece .model file and open its lattice view")
async def lattice_upload(request: Request, file: UploadFile = File(...),
                         text: str = Form(DEFAULT_TEXT)) -> Any:
    """The lattice view's own upload (the page now uses the shared form, POST /tokenizers):
    stored with the other uploaded tokenisers, then the lattice of the new handle."""
    try:
        row = await upload(uploads(request), settings(request).max_tokenizer_bytes, file)
        if row["family"] != "unigram":
            raise ValueError(f"{file.filename or 'this file'} holds a {row['algorithm']} model; "
                             "the lattice view needs a Unigram model (it is stored: see "
                             "/tokenizers)")
    except BAD_INPUT as exc:          # the form again, with the message
        ctx = _lattice_form(request, "tiny", text, {})
        ctx["error"], status = bad_input(exc)
        return render(request, "unigram_lattice.html", ctx, status_code=status)
    query = urlencode({"model": row["handle"], "text": text})
    return RedirectResponse(f"/unigram/lattice?{query}", status_code=303)


@router.get("/unigram/train", response_class=HTMLResponse,
            summary="Unigram training, one EM + pruning round at a time")
def train_page(request: Request, corpus: str = DEFAULT_CORPUS,
               vocab_size: int = bounded(DEFAULT_VOCAB, 4, MAX_TRAIN_VOCAB),
               step: int = 0, words: str = "", play: bool = False) -> HTMLResponse:
    params = {"corpus": corpus, "vocab_size": vocab_size, "words": words or None}
    ctx: dict[str, Any] = {"corpus": corpus, "vocab_size": vocab_size, "words": words,
                           "params": params, "error": None, "play": play,
                           "bundled": corpus_names(), "corpus_text": ""}

    def build() -> dict[str, Any]:
        T.check_vocab_size(vocab_size)
        text = corpus_by_ref(store(request), corpus)
        ctx["corpus_text"] = text if len(text) <= 20_000 else ""
        sample_words = T.sample_words(words, text)
        run = unigram_run(request, corpus, text, vocab_size, sample_words, wait=WAIT_SECONDS)
        if not run.rounds:
            return {"running": True, "job": run.job, "steps": [], "total": 0, "step": 0}
        s = T.state(run, step)
        pseudocode, line = T.code_panel(s)
        return {**vars(s), "pseudocode": pseudocode, "line": line,
                "sample_words": " ".join(sample_words), "running": not run.finished,
                "job": run.job}

    status = in_place(ctx, build)
    if ctx.get("running") and not ctx["steps"]:
        status = 202
    return render(request, "unigram_train.html", ctx, block="step", status_code=status)


@router.post("/unigram/train", response_class=HTMLResponse,
             summary="Store an edited corpus and open its Unigram training view")
def train_post(request: Request, corpus_text: str = Form(""),
               vocab_size: int = Form(DEFAULT_VOCAB), words: str = Form(""),
               corpus: str = Form(DEFAULT_CORPUS), use: str = Form("")) -> Any:
    """The training form: "Train" (`use=pick`) takes the picked corpus; "Use this corpus" (or
    a bare POST of `corpus_text`) stores the edited text. Either way, a redirect to the
    page's permalink."""
    ctx = {"corpus": "", "vocab_size": vocab_size, "words": "", "params": {}, "error": None,
           "play": False, "bundled": corpus_names(), "corpus_text": corpus_text}
    digest = ""

    def build() -> None:
        nonlocal digest
        digest = corpus if use == "pick" else store_corpus(request, corpus_text)

    status = in_place(ctx, build)
    if ctx["error"] is not None:
        return render(request, "unigram_train.html", ctx, status_code=status)
    query = urlencode({k: v for k, v in (("corpus", digest), ("vocab_size", vocab_size),
                                         ("words", words.strip())) if v})
    return RedirectResponse(f"/unigram/train?{query}", status_code=303)


@router.post("/unigram/train/use", response_class=HTMLResponse,
             summary="Register the trained model as a handle and open it in the lattice view")
def train_use(request: Request, corpus: str = Form(DEFAULT_CORPUS),
              vocab_size: int = bounded(DEFAULT_VOCAB, 4, MAX_TRAIN_VOCAB, form=True),
              text: str = Form("")) -> Any:
    T.check_vocab_size(vocab_size, where="")
    handle, _tok = trained(request).train("unigram", corpus, vocab_size)
    query = urlencode({"model": handle, "text": text or DEFAULT_TEXT})
    return RedirectResponse(f"/unigram/lattice?{query}", status_code=303)


# ---- JSON --------------------------------------------------------------------------------------
@router.get("/api/unigram/lattice", tags=["api"],
            summary="The Viterbi steps and n-best splits of a Unigram model on a text")
def lattice_api(request: Request, text: str, model: str = "botchan_en_unigram_1000",
                n: int = bounded(5, 1, MAX_NBEST)) -> dict[str, Any]:
    check_text(request, text)
    if not 1 <= n <= MAX_NBEST:
        raise ValueError(f"n must be between 1 and {MAX_NBEST}")
    tok = unigram_model(request, model)
    L.check_size(tok, text, 10 * L.MAX_CHARS, "at most {limit}")
    normalized, steps = lattice_steps(tok, text)
    return {"model": model, "normalized": normalized, "steps": [s.to_dict() for s in steps],
            "nbest": [{"tokens": t, "score": s} for t, s in tok.model.nbest(normalized, n)]}

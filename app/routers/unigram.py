"""Unigram step-through views: the Viterbi lattice (`/unigram/lattice`) and EM training
(`/unigram/train`).

Each page is a pure function of its URL. A model is `tiny` (the demo where `▁cat` scores high),
a bundled SentencePiece Unigram model, a trained handle, or the handle of an uploaded tokenizer
file (`app.uploads`: a sentencepiece .model or a tokenizer.json with a Unigram model).
Training on a large corpus runs in the job pool (`app.step_jobs`), keyed by (corpus, vocab size,
sample words); a request waits up to WAIT_SECONDS, then shows the rounds done so far and polls
(htmx) for the rest.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse

import tokenizers_core as tc
from tokenizers_core.corpora import corpus_names
from tokenizers_core.implementations.unigram import demo_tokenizer
from tokenizers_core.models.unigram.model import lattice_steps, sample

from ..charts import line_chart
from ..deps import (BAD_INPUT, UPLOAD_PREFIX, UnknownTokenizer, bad_input, bounded, check_text,
                    resolve_tokenizer, settings, store, stored_options, tokenizer_label, trained,
                    uploads)
from .. import practice as practising
from ..practice import PracticeState, practice_params
from ..render import render, url_with
from ..step_jobs import unigram_run
from ..uploads import upload
from ..trained import corpus_text as corpus_by_ref
from .api import _store_corpus

router = APIRouter(tags=["unigram"])

DEFAULT_TEXT = "cats"
MAX_LATTICE_CHARS = 120          # normalised characters the lattice view steps through
MAX_NBEST = 50
CELL = 64                        # px between lattice positions: the SVG's nodes and the table's
LEFT = 112                       # columns (app.css .lattice-scroll keeps the same two numbers)

LATTICE_PSEUDOCODE = [
    "text ← normalise(input)   # ▁ marks spaces",
    "best[0] ← 0",
    "for i in 1 .. N:          # advance the end",
    "  for each piece text[j:i] in the vocabulary",
    "      (<unk> at min − 10 if none covers text[i−1]):",
    "    candidate ← best[j] + log P(piece)",
    "  best[i] ← max candidate; back[i] ← its j",
    "i ← N                     # ties above: the smaller j",
    "while i > 0:              # follow back-pointers",
    "  emit text[back[i]:i];  i ← back[i]",
    "read the pieces left to right: the best split",
]

TRAIN_PSEUDOCODE = [
    "normalise; split into words (each starts with ▁)",
    "seed ← characters + frequent substrings",
    "       (≤ 16 chars; log P ∝ freq × length)",
    "repeat:",
    "  E-step: expected count of each piece",
    "          (forward-backward over each word)",
    "  M-step: drop pieces expected < 0.5 times;",
    "          log P ← ψ(count) − ψ(total)",
    "  if size ≤ 1.1 × vocab_size: stop",
    "  loss(p) ← likelihood lost if p's uses",
    "            were re-split the next-best way",
    "  keep the 75% with the largest loss",
    "       (and every single character)",
    "final: characters + best pieces, up to vocab_size",
]

DEFAULT_CORPUS = "udhr/eng"
DEFAULT_VOCAB = 300
MAX_TRAIN_VOCAB = 8000
WAIT_SECONDS = 2.0               # a training request waits this long before showing progress



# ---- models ------------------------------------------------------------------------------------
def _model(request: Request, name: str) -> tc.Tokenizer:
    """The tokeniser behind `model=`; ValueError if it is not a Unigram model."""
    if name == "tiny":
        return demo_tokenizer()
    tok = resolve_tokenizer(request, name)
    if not hasattr(tok.model, "viterbi_steps"):
        raise ValueError(f"{name!r} is a {tok.algorithm or 'non-Unigram'} tokeniser; the lattice "
                         "view steps through Unigram models (try tiny or botchan_en_unigram_1000)")
    return tok


def _model_options(current: str) -> list[dict[str, str]]:
    out = [{"value": "tiny", "label": "tiny demo (▁cat scores high)"}]
    for name, entry in tc.pretrained.bundled().items():
        if entry.algorithm == "unigram":
            out.append({"value": name, "label": entry.label})
    if current and not current.startswith(UPLOAD_PREFIX) and not any(
            o["value"] == current for o in out):
        out.append({"value": current, "label": f"trained: {current[:24]}"})
    return out


# ---- the lattice view ----------------------------------------------------------------------------
def _lattice_view(text: str, steps: list, k: int, unk_id: int) -> dict[str, Any]:
    """Everything the lattice page draws for the state after k steps."""
    n = len(text)
    cell = CELL
    x0 = LEFT + CELL // 2          # node i sits at x0 + i * cell, over the table's column i
    forward = [s for s in steps if s.kind == "viterbi"]
    backtrack = [s for s in steps if s.kind == "viterbi_backtrack"]
    filled = min(k, n)
    walked = backtrack[: max(0, k - n)]
    on_path = {(s.start, s.end) for s in walked}
    positions = [{"i": 0, "best": 0.0, "back": None, "filled": True, "path": bool(walked)}]
    for s in forward:
        positions.append({"i": s.position, "best": s.best, "back": s.back,
                          "filled": s.position <= filled,
                          "path": any(s.position == e or s.position == b for b, e in on_path)})
    arcs = []
    for s in forward:
        for idx, (j, piece, pid, score, total) in enumerate(s.candidates):
            if s.position > filled:
                state = "future"
            elif (j, s.position) in on_path:
                state = "path"
            elif idx == s.winner:
                state = "winner"
            else:
                state = "considered"
            length = s.position - j
            arcs.append({"j": j, "i": s.position, "piece": piece, "score": score, "total": total,
                         "unk": pid == unk_id,
                         "state": state, "current": s.position == k and k <= n,
                         "x1": x0 + j * cell, "x2": x0 + s.position * cell,
                         "xm": x0 + (j + s.position) * cell / 2,
                         "h": min(150, 18 + 22 * length)})
    # draw long arcs first so short ones stay clickable on top
    arcs.sort(key=lambda a: (a["state"] != "future", -(a["i"] - a["j"])))
    current = forward[k - 1] if 1 <= k <= n else None
    back_step = walked[-1] if walked else None
    return {"chars": list(text), "positions": positions, "arcs": arcs, "current": current,
            "back_step": back_step, "path": [s.piece for s in reversed(walked)],
            "width": LEFT + (n + 1) * cell, "n": n, "cell": cell, "x0": x0,
            "end": min(k, n) if k <= n else (walked[-1].start if walked else n)}


def _lattice_sentence(view: dict[str, Any], k: int, total: int, text: str) -> str:
    n = view["n"]
    if n == 0:
        return "The normalised text is empty: there is nothing to segment."
    if k == 0:
        return (f"The normalised text “{text}” has {n} characters, so the lattice has positions "
                "0 to " f"{n}. best[0] = 0; step to fill best[1].")
    if k <= n:
        s = view["current"]
        j, piece, _pid, score, cand = s.candidates[s.winner]
        many = len(s.candidates)
        what = "an <unk> node (no piece covers this character)" if s.unknown else f"“{piece}”"
        return (f"Position {s.position}: {many} piece{'s' if many != 1 else ''} end here; the best "
                f"is {what} from {j}: best[{j}] + ({score:.3f}) = {cand:.3f}, so "
                f"best[{s.position}] = {s.best:.3f} and back[{s.position}] = {j}.")
    b = view["back_step"]
    rest = ("that reaches position 0: the split is complete." if b.start == 0
            else f"continue from position {b.start}.")
    if k == total:
        return (f"back[{b.end}] = {b.start}: “{b.piece}” is the first piece; the best split is "
                f"{' + '.join(view['path'])} with log-probability {view['positions'][-1]['best']:.3f}.")
    return f"back[{b.end}] = {b.start}, so “{b.piece}” ({b.start}–{b.end}) is on the best path; {rest}"


def _lattice_line(k: int, n: int, total: int) -> int:
    if k == 0:
        return 1
    if k <= n:
        return 6
    return 10 if k == total else 9


@router.get("/unigram/lattice", response_class=HTMLResponse,
            summary="The Unigram Viterbi lattice, one end position at a time")
def lattice_page(request: Request, model: str = "tiny", text: str = DEFAULT_TEXT, step: int = 0,
                 n: int = bounded(5, 1, MAX_NBEST), seed: int | None = None, alpha: float = 0.1,
                 nbest_size: int = -1, play: bool = False,
                 practice: PracticeState = Depends(practice_params)) -> HTMLResponse:
    params = {"model": model, "text": text, "n": n if n != 5 else None}
    ctx: dict[str, Any] = {"model": model, "text": text, "params": params, "error": None,
                           "play": play, "pseudocode": LATTICE_PSEUDOCODE, "n_best": n,
                           "seed": seed, "alpha": alpha, "nbest_size": nbest_size,
                           "model_options": _model_options(model), "cell": CELL,
                           "yours": stored_options(request, "unigram"),
                           "label": tokenizer_label(request, model),
                           "next": url_with("/unigram/lattice", params)}
    status = 200
    try:
        check_text(request, text)
        if not 1 <= n <= MAX_NBEST:
            raise ValueError(f"n (the number of best splits) must be between 1 and {MAX_NBEST}")
        tok = _model(request, model)
        size = len(tok.normalize(text.replace("▁", " ")))
        if size > MAX_LATTICE_CHARS:
            raise ValueError(f"the normalised text has {size} characters; the lattice "
                             f"view steps through at most {MAX_LATTICE_CHARS} (the visualiser "
                             "takes longer texts)")
        normalized, steps = lattice_steps(tok, text.replace("▁", " "))
        nbest = tok.model.nbest(normalized, n)
        sampled = None
        if seed is not None:
            sampled = sample(tok, text.replace("▁", " "), alpha=alpha, nbest_size=nbest_size,
                             seed=seed)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    if ctx["error"] is None:
        total = len(steps)
        k = min(max(step, 0), total)
        view = _lattice_view(normalized, steps, k, tok.model.unk_id)
        ctx.update(tok=tok, normalized=normalized, total=total, step=k, view=view,
                   nbest=nbest, sampled=sampled, line=_lattice_line(k, len(normalized), total),
                   sentence=_lattice_sentence(view, k, total, normalized),
                   final=tok.encode(text.replace("▁", " ")).tokens if k == total else None,
                   unk_score=tok.model.unk_score,
                   practice=practising.unigram_lattice(practice, "/unigram/lattice", params, k,
                                                       steps) if practice.on else None,
                   practice_link=practising.toggle("/unigram/lattice", params, k))
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
    except BAD_INPUT as exc:
        error, status = bad_input(exc)
        ctx = {"model": "tiny", "text": text, "params": {}, "error": error, "play": False,
               "pseudocode": LATTICE_PSEUDOCODE, "n_best": 5, "seed": None, "alpha": 0.1,
               "nbest_size": -1, "model_options": _model_options("tiny"), "cell": CELL,
               "yours": stored_options(request, "unigram"),
               "next": url_with("/unigram/lattice", {"text": text})}
        return render(request, "unigram_lattice.html", ctx, status_code=status)
    query = urlencode({"model": row["handle"], "text": text})
    return RedirectResponse(f"/unigram/lattice?{query}", status_code=303)


# ---- training ----------------------------------------------------------------------------------
def _default_words(text: str) -> tuple[str, ...]:
    """A few frequent long words of the corpus, for the segmentation panel."""
    counts: dict[str, int] = {}
    for w in text.split()[:50_000]:
        w = w.strip(".,;:!?\"'()[]")
        if len(w) >= 7 and w.isalpha():
            counts[w.lower()] = counts.get(w.lower(), 0) + 1
    return tuple(w for w, _c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:6])


def _train_sentence(k: int, steps: list) -> str:
    s = steps[k]
    if s.round == 0 and not s.final:
        return (f"The seed vocabulary: every character and the most frequent substrings, "
                f"{s.vocab_size:,} pieces; log-likelihood {s.log_likelihood:,.0f}.")
    if s.final:
        return (f"Done: the vocabulary is within 1.1 × the target, so the final {s.vocab_size:,} "
                f"pieces are every character plus the best-scoring pieces (log-likelihood "
                f"{s.log_likelihood:,.0f} after the last EM round).")
    return (f"Round {s.round}: EM re-estimated every piece, then pruning removed "
            f"{s.num_pruned:,} pieces whose loss was smallest; {s.vocab_size:,} remain "
            f"(log-likelihood {s.log_likelihood:,.0f}).")


@router.get("/unigram/train", response_class=HTMLResponse,
            summary="Unigram training, one EM + pruning round at a time")
def train_page(request: Request, corpus: str = DEFAULT_CORPUS,
               vocab_size: int = bounded(DEFAULT_VOCAB, 4, MAX_TRAIN_VOCAB),
               step: int = 0, words: str = "", play: bool = False) -> HTMLResponse:
    params = {"corpus": corpus, "vocab_size": vocab_size, "words": words or None}
    ctx: dict[str, Any] = {"corpus": corpus, "vocab_size": vocab_size, "words": words,
                           "params": params, "error": None, "play": play,
                           "pseudocode": TRAIN_PSEUDOCODE, "bundled": corpus_names(),
                           "corpus_text": ""}
    status = 200
    try:
        if not 4 <= vocab_size <= MAX_TRAIN_VOCAB:
            raise ValueError(f"vocab_size must be between 4 and {MAX_TRAIN_VOCAB:,} in this view")
        text = corpus_by_ref(store(request), corpus)
        ctx["corpus_text"] = text if len(text) <= 20_000 else ""
        sample_words = tuple(w for w in words.split() if w)[:12] or _default_words(text)
        run = unigram_run(request, corpus, text, vocab_size, sample_words, wait=WAIT_SECONDS)
    except LookupError as exc:
        ctx["error"], status = str(exc), 404
    except ValueError as exc:
        ctx["error"], status = str(exc), 422
    if ctx["error"] is None and not run.rounds:
        ctx.update(running=True, job=run.job, steps=[], total=0, step=0)
        return render(request, "unigram_train.html", ctx, block="step", status_code=202)
    if ctx["error"] is None:
        steps = list(run.rounds)
        total = len(steps) - 1
        k = min(max(step, 0), total)
        current = steps[k]
        n_words = max(1, run.total_freq)
        chart = line_chart({"nats per word": [
            (s.vocab_size, -s.log_likelihood / n_words) for s in steps[: k + 1]]},
            x_label="vocabulary size (log scale; rounds run right to left)",
            y_label="− log-likelihood per word (nats)", height=300)
        line = 1 if k == 0 else (13 if current.final else 11)
        ctx.update(steps=steps, total=total, step=k, current=current, chart=chart,
                   line=line, sentence=_train_sentence(k, steps), n_words=run.total_freq,
                   distinct=run.distinct, sample_words=" ".join(sample_words),
                   running=not run.finished, job=run.job)
    return render(request, "unigram_train.html", ctx, block="step", status_code=status)


@router.post("/unigram/train", response_class=HTMLResponse,
             summary="Store an edited corpus and open its Unigram training view")
def train_post(request: Request, corpus_text: str = Form(""),
               vocab_size: int = Form(DEFAULT_VOCAB), words: str = Form(""),
               corpus: str = Form(DEFAULT_CORPUS), use: str = Form("")) -> Any:
    """The training form: "Train" (`use=pick`) takes the picked corpus; "Use this corpus" (or
    a bare POST of `corpus_text`) stores the edited text. Either way, a redirect to the
    page's permalink."""
    try:
        digest = corpus if use == "pick" else _store_corpus(request, corpus_text)
    except HTTPException as exc:
        ctx = {"corpus": "", "vocab_size": vocab_size, "words": "", "params": {},
               "error": exc.detail, "play": False, "pseudocode": TRAIN_PSEUDOCODE,
               "bundled": corpus_names(), "corpus_text": corpus_text}
        return render(request, "unigram_train.html", ctx, status_code=exc.status_code)
    query = urlencode({k: v for k, v in (("corpus", digest), ("vocab_size", vocab_size),
                                         ("words", words.strip())) if v})
    return RedirectResponse(f"/unigram/train?{query}", status_code=303)


@router.post("/unigram/train/use", response_class=HTMLResponse,
             summary="Register the trained model as a handle and open it in the lattice view")
def train_use(request: Request, corpus: str = Form(DEFAULT_CORPUS),
              vocab_size: int = bounded(DEFAULT_VOCAB, 4, MAX_TRAIN_VOCAB, form=True),
              text: str = Form("")) -> Any:
    try:
        if not 4 <= vocab_size <= MAX_TRAIN_VOCAB:
            raise ValueError(f"vocab_size must be between 4 and {MAX_TRAIN_VOCAB:,}")
        handle, _tok = trained(request).train("unigram", corpus, vocab_size)
    except LookupError as exc:
        raise HTTPException(404, str(exc)) from None
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    query = urlencode({"model": handle, "text": text or DEFAULT_TEXT})
    return RedirectResponse(f"/unigram/lattice?{query}", status_code=303)


# ---- JSON --------------------------------------------------------------------------------------
@router.get("/api/unigram/lattice", tags=["api"],
            summary="The Viterbi steps and n-best splits of a Unigram model on a text")
def lattice_api(request: Request, text: str, model: str = "botchan_en_unigram_1000",
                n: int = bounded(5, 1, MAX_NBEST)) -> dict[str, Any]:
    check_text(request, text)
    try:
        if not 1 <= n <= MAX_NBEST:
            raise ValueError(f"n must be between 1 and {MAX_NBEST}")
        tok = _model(request, model)
        size = len(tok.normalize(text))
        if size > 10 * MAX_LATTICE_CHARS:
            raise ValueError(f"the normalised text has {size} characters; at most "
                             f"{10 * MAX_LATTICE_CHARS}")
        normalized, steps = lattice_steps(tok, text)
        nbest = tok.model.nbest(normalized, n)
    except UnknownTokenizer as exc:
        raise HTTPException(404, str(exc)) from None
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    return {"model": model, "normalized": normalized, "steps": [s.to_dict() for s in steps],
            "nbest": [{"tokens": t, "score": s} for t, s in nbest]}

"""WordPiece step-through views: encoding (`/wordpiece/encode`) and training (`/wordpiece/train`).

Each page is a pure function of its URL: the inputs and the step index. The training run is a
`WordPieceSession` from `app.step_jobs` (a large corpus trains in the job pool while the page
shows progress), which reads the state at any step off the trainer's own records, so next /
back / jump cost the same anywhere in the run.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

import tokenizers_core as tc
from tokenizers_core.implementations.bert import bert_pipeline, encode_steps
from tokenizers_core.corpora import corpus_names
from tokenizers_core.models.wordpiece.model import WordPiece, vocab_from_text
from tokenizers_core.models.wordpiece.session import WordPieceSession

from ..deps import (BAD_INPUT, UPLOAD_PREFIX, UnknownTokenizer, bad_input, bounded,
                    check_step_text, resolve_tokenizer, store, stored_options, tokenizer_label)
from .. import practice as practising
from ..practice import PracticeState, practice_params
from ..job_store import Job
from ..render import render, url_with
from ..step_jobs import wordpiece_run
from ..stepping import SPEEDS, check_speed, word_jumps
from ..trained import corpus_text as corpus_by_ref
from .api import _store_corpus

router = APIRouter(tags=["wordpiece"])

SMALL_VOCAB = "\n".join([
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
    "play", "##ing", "##ed", "##er", "##s", "un", "##aff", "##able", "##a", "##b", "##l", "##e",
    "token", "##ize", "##iz", "##ation", "hug", "##gs", "p", "##u", "##g", "##n", "b", "h",
])
DEFAULT_TEXT = "unaffable playing"
MAX_ENCODE_STEPS = 20_000
ENCODE_DELAY = 700           # ms between played probes at speed 1
MAX_CHARS = 100                   # WordPiece's max_input_chars_per_word

# Sennrich et al.'s textbook corpus: low x5, lower x2, newest x6, widest x3.
DEFAULT_CORPUS = ("low low low low low\nlower lower\nnewest newest newest newest newest newest\n"
                  "widest widest widest\n")
DEFAULT_VOCAB_SIZE = 40
MAX_TRAIN_VOCAB = 50_000         # as BPE's view: a large run trains in the job pool
WORD_PAGE = 25

ENCODE_PSEUDOCODE = [
    "for each word w:",
    "  if len(w) > 100: w → [UNK]; next word",
    "  start ← 0;  pieces ← []",
    "  while start < len(w):",
    "    end ← len(w)",
    "    while end > start:",
    "      piece ← w[start:end]  (## if start > 0)",
    "      if piece in vocab: keep; start ← end",
    "      else: end ← end − 1   # shrink",
    "    none matched: w → [UNK] (whole word)",
    "  emit the pieces",
]
_ENCODE_LINE = {"hit": 7, "miss": 8, "unk": 9, "too_long": 1}

TRAIN_PSEUDOCODE = [
    "split words: first char as is, rest ##c",
    "while len(vocab) < vocab_size:",
    "  count symbols and adjacent pairs",
    "  score(a,b) ← n(ab) / (n(a) × n(b))",
    "  best ← max score (then n(ab), ids)",
    "  merge: a + ##b → ab, ##a + ##b → ##ab",
    "  add the new symbol to vocab",
    "stop: vocab full or no pair left",
]

SYNC_SECONDS = 0.5        # a page waits this long for a run in the pool, then shows progress


# ---- encoding ----------------------------------------------------------------------------
def _encode_tokenizer(request: Request, vocab: str, vocab_text: str) -> tc.Tokenizer:
    if vocab == "small":
        return bert_pipeline(vocab_from_text(vocab_text), name="small")
    tok = resolve_tokenizer(request, vocab)
    if not isinstance(tok.model, WordPiece):
        raise ValueError(f"{vocab!r} is a {tok.algorithm or 'non-WordPiece'} tokeniser; this "
                         "view steps through WordPiece (try bert-base-uncased)")
    return tok


def _word_view(words, steps, k: int) -> list[dict[str, Any]]:
    """For each word: its pieces as far as the first k probes got, and its state."""
    out = [{"word": w, "start": s, "end": e, "pieces": [], "state": "todo"}
           for w, s, e in words]
    for index, probe in steps[:k]:
        row = out[index]
        row["pieces"] = list(probe.pieces)
        finished = probe.status in ("unk", "too_long") or (probe.found and probe.end == len(probe.word))
        row["state"] = "done" if finished else "active"
    return out


def _encode_sentence(step, k: int, total: int) -> str:
    if step is None:
        return ("Nothing probed yet. Each word will be matched from its start: the longest "
                "window in the vocabulary wins." if total else "There is nothing to encode.")
    c = step.candidate
    if step.status == "hit":
        rest = ("the word is done" if step.end == len(step.word)
                else f"the next window starts at character {step.end}")
        return f"“{c}” is in the vocabulary: keep it as a piece; {rest}."
    if step.status == "miss":
        return (f"“{c}” is not in the vocabulary: shrink the window by one character "
                f"(to {step.start}:{step.end - 1}).")
    if step.status == "unk":
        return (f"Not even the one-character window “{c}” is in the vocabulary, so the whole "
                f"word “{step.word}” becomes {step.pieces[0]}.")
    return (f"“{step.word[:20]}…” has {len(step.word)} characters, more than the limit of "
            f"{MAX_CHARS}: it becomes {step.pieces[0]} without probing.")



@router.get("/wordpiece/encode", response_class=HTMLResponse,
            summary="WordPiece encoding, one probe at a time")
def encode_page(request: Request, text: str = DEFAULT_TEXT, vocab: str = "small",
                vocab_text: str = SMALL_VOCAB, step: int = 0, play: bool = False,
                speed: int = 1,
                practice: PracticeState = Depends(practice_params)) -> HTMLResponse:
    params = {"vocab": vocab, "text": text, "speed": speed if speed != 1 else None}
    if vocab == "small" and vocab_text != SMALL_VOCAB:
        params["vocab_text"] = vocab_text
    ctx: dict[str, Any] = {"text": text, "vocab": vocab, "vocab_text": vocab_text,
                           "params": params, "error": None, "play": play,
                           "pseudocode": ENCODE_PSEUDOCODE, "vocab_options": _vocab_options(request, vocab),
                           "yours": stored_options(request, "wordpiece"),
                           "label": tokenizer_label(request, vocab),
                           "next": url_with("/wordpiece/encode", params)}
    status = 200
    try:
        check_speed(speed)
        check_step_text(request, text, status=422)
        tok = _encode_tokenizer(request, vocab, vocab_text)
        words, steps = encode_steps(tok, text, max_steps=MAX_ENCODE_STEPS)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    if ctx["error"] is None:
        total = len(steps)
        k = min(max(step, 0), total)
        current = steps[k - 1] if k else None
        word_index = current[0] if current else (0 if words else None)
        ctx.update(jumps=word_jumps([w for w, _s in steps], k), speed=speed, speeds=SPEEDS,
                   delay=ENCODE_DELAY // speed)
        ctx.update(
            tok=tok, total=total, step=k, words=_word_view(words, steps, k),
            current=current[1] if current else None, word_index=word_index,
            line=_ENCODE_LINE[current[1].status] if current else 0,
            sentence=_encode_sentence(current[1] if current else None, k, total),
            prefix=tok.model.continuing_subword_prefix,
            final=tok.encode(text, add_special_tokens=False).tokens if k == total else None,
            practice=practising.wordpiece_encode(practice, "/wordpiece/encode", params, k, steps,
                                                 tok.model.continuing_subword_prefix,
                                                 tok.model.unk_token) if practice.on else None,
            practice_link=practising.toggle("/wordpiece/encode", params, k),
        )
    return render(request, "wordpiece_encode.html", ctx, block="step", status_code=status)


def _vocab_options(request: Request, current: str) -> list[dict[str, str]]:
    out = [{"value": "small", "label": "small (editable)"}]
    for name, entry in tc.pretrained.bundled().items():
        if entry.algorithm == "wordpiece":
            out.append({"value": name, "label": entry.label})
    if current and not current.startswith(UPLOAD_PREFIX) and not any(
            o["value"] == current for o in out):
        out.append({"value": current, "label": f"trained: {current}"})
    return out


# ---- training ----------------------------------------------------------------------------
def _train_options(vocab_size: int, min_frequency: int) -> dict[str, int]:
    if not 1 <= vocab_size <= MAX_TRAIN_VOCAB:
        raise ValueError(f"vocab_size must be between 1 and {MAX_TRAIN_VOCAB:,} in this view, "
                         f"got {vocab_size}")
    if min_frequency < 0:
        raise ValueError(f"min_frequency must be 0 or more, got {min_frequency}")
    return {"vocab_size": vocab_size, "min_frequency": min_frequency}


def _train_sentence(k: int, session: WordPieceSession) -> str:
    if k == 0:
        return ("Every word is split into characters (continuations marked ##). The table on "
                "the right scores every adjacent pair; the top row is merged next.")
    steps = session.steps
    s = steps[k - 1]
    bpe = ("BPE would have merged the same pair" if s.bpe_pair == s.pair else
           f"BPE would have merged “{s.bpe_pair[0]} {s.bpe_pair[1]}” instead "
           f"(the most frequent pair, {s.bpe_count:,} times)")
    text = (f"Merged “{s.pair[0]}” + “{s.pair[1]}” into “{s.new_symbol}”: "
            f"{s.count:,} / ({s.freq_left:,} × {s.freq_right:,}) = {s.score:.4g} was the best "
            "score; "
            f"{bpe}.")
    if k == len(steps):
        text += " Training stops here: " + ("the vocabulary is full." if session.vocab_size
                                            <= session.vocab_now(k) else "no pair is left.")
    return text


@router.get("/wordpiece/train", response_class=HTMLResponse,
            summary="WordPiece training, one merge at a time")
def train_page(request: Request, corpus: str = "",
               vocab_size: int = bounded(DEFAULT_VOCAB_SIZE, 1, MAX_TRAIN_VOCAB),
               min_frequency: int = bounded(0, 0), step: int = 0, page: int = 0,
               play: bool = False) -> HTMLResponse:
    params = {"corpus": corpus or None, "vocab_size": vocab_size,
              "min_frequency": min_frequency or None, "page": page or None}
    ctx: dict[str, Any] = {"corpus": corpus, "vocab_size": vocab_size,
                           "min_frequency": min_frequency, "params": params, "error": None,
                           "play": play, "pseudocode": TRAIN_PSEUDOCODE,
                           "bundled": corpus_names(), "corpus_text": ""}
    status = 200
    try:
        options = _train_options(vocab_size, min_frequency)
        text = DEFAULT_CORPUS if not corpus else corpus_by_ref(store(request), corpus)
        ctx["corpus_text"] = text if len(text) <= 20_000 else ""
        session = wordpiece_run(request, corpus, text, options, wait=SYNC_SECONDS)
        if isinstance(session, Job):                   # a big run: it trains on in the pool
            ctx.update(training=True, job=session, step=step)
            return render(request, "wordpiece_train.html", ctx, block="step")
        steps = session.steps
        k = min(max(step, 0), len(steps))
    except LookupError as exc:
        ctx["error"], status = str(exc), 404
    except ValueError as exc:
        ctx["error"], status = str(exc), 422
    if ctx["error"] is None:
        rows, n_words = session.word_rows(k, max(page, 0) * WORD_PAGE, WORD_PAGE)
        nxt = steps[k] if k < len(steps) else None
        last = steps[k - 1] if k else None
        ctx.update(
            step=k, total=len(steps), session=session, rows=rows, n_words=n_words,
            page=max(page, 0), pages=max(1, -(-n_words // WORD_PAGE)),
            pairs=session.pairs(k), next_step=nxt, last=last,
            merges=list(enumerate(steps[:k], 1))[-40:][::-1],
            line=(0 if k == 0 else (7 if k == len(steps) else 5)),
            sentence=_train_sentence(k, session),
            vocab_now=session.vocab_now(k), initial=session.initial_size,
        )
    return render(request, "wordpiece_train.html", ctx, block="step", status_code=status)


@router.post("/wordpiece/train", response_class=HTMLResponse,
             summary="Store an edited corpus and open its training view")
def train_post(request: Request, corpus_text: str = Form(""),
               vocab_size: int = Form(DEFAULT_VOCAB_SIZE), min_frequency: int = Form(0),
               corpus: str = Form(""), use: str = Form("")) -> Any:
    """The training form: "Train" (`use=pick`) takes the picked corpus; "Use this corpus" (or
    a bare POST of `corpus_text`) stores the edited text. Either way, a redirect to the
    page's permalink."""
    try:
        digest = corpus if use == "pick" else _store_corpus(request, corpus_text)
    except HTTPException as exc:
        ctx = {"corpus": "", "vocab_size": vocab_size, "min_frequency": min_frequency,
               "params": {}, "error": exc.detail, "play": False, "pseudocode": TRAIN_PSEUDOCODE,
               "bundled": corpus_names(), "corpus_text": corpus_text}
        return render(request, "wordpiece_train.html", ctx, status_code=exc.status_code)
    query = urlencode({k: v for k, v in (("corpus", digest), ("vocab_size", vocab_size),
                                         ("min_frequency", min_frequency)) if v})
    return RedirectResponse(f"/wordpiece/train?{query}", status_code=303)


# ---- JSON ------------------------------------------------------------------------------------
@router.get("/api/wordpiece/encode_steps", tags=["api"],
            summary="Every probe of WordPiece encoding, as step dicts")
def encode_steps_api(request: Request, text: str, vocab: str = "bert-base-uncased",
                     vocab_text: str = SMALL_VOCAB) -> dict[str, Any]:
    check_step_text(request, text)
    try:
        tok = _encode_tokenizer(request, vocab, vocab_text)
        words, steps = encode_steps(tok, text, max_steps=MAX_ENCODE_STEPS)
    except UnknownTokenizer as exc:
        raise HTTPException(404, str(exc)) from None
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    return {"words": [list(w) for w in words],
            "steps": [{"word_index": i, **p.to_dict()} for i, p in steps]}


@router.get("/api/wordpiece/train_steps", tags=["api"],
            summary="Every merge of WordPiece training, as step dicts")
def train_steps_api(request: Request, corpus: str = "",
                    vocab_size: int = bounded(DEFAULT_VOCAB_SIZE, 1, MAX_TRAIN_VOCAB),
                    min_frequency: int = bounded(0, 0)) -> dict[str, Any]:
    try:
        options = _train_options(vocab_size, min_frequency)
        text = DEFAULT_CORPUS if not corpus else corpus_by_ref(store(request), corpus)
        run = wordpiece_run(request, corpus, text, options, wait=None)
    except LookupError as exc:
        raise HTTPException(404, str(exc)) from None
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    return {"corpus": corpus or "default", "vocab_size": vocab_size,
            "steps": [s.to_dict() for s in run.steps]}

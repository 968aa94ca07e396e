"""BPE step-through views: training (`/bpe/train`) and encoding (`/bpe/encode`).

Each page is a pure function of its URL. Training states come from the engine's LRU of training
sessions (`tokenizers_core.models.bpe.session`), so next / back / jump reuse one run; a run on a
large corpus is trained in the job pool (`app.step_jobs`) while the page shows progress.
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse

import tokenizers_core as tc
from tokenizers_core.corpora import corpus_names
from tokenizers_core.models.bpe.session import RULES, VARIANTS, encode_trace, merge_tree_of

from ..deps import (BAD_INPUT, UPLOAD_PREFIX, UnknownTokenizer, bad_input, bounded,
                    check_step_text, resolve_tokenizer, store, stored_options)
from .. import heap, practice as practising
from ..practice import PracticeState, practice_params
from ..job_store import Job
from ..render import render, url_with
from ..step_jobs import bpe_session
from ..stepping import SPEEDS, check_speed, word_jumps
from ..trained import corpus_text as corpus_by_ref
from .api import _store_corpus

DELAY = 700               # ms between played steps at speed 1
CHANGED_ROWS = 8          # words changed by the current merge, listed before the frequent ones
router = APIRouter(tags=["bpe"])

# Sennrich et al.'s textbook corpus: low x5, lower x2, newest x6, widest x3.
DEFAULT_CORPUS = ("low low low low low\nlower lower\nnewest newest newest newest newest newest\n"
                  "widest widest widest\n")
DEFAULT_VOCAB = {"bpe": 24, "byte_bpe": 270, "sentencepiece_bpe": 30}
PATTERNS = ("gpt2", "cl100k", "o200k")
MAX_VIEW_VOCAB = 50_000
WORD_PAGE = 20
VOCAB_QUERY = Query("", max_length=12, description=(
    f"blank for the default, or a whole number from 1 to {MAX_VIEW_VOCAB:,}"))
SYNC_SECONDS = 0.5                # a page waits this long for a run in the pool, then shows progress

TRAIN_PSEUDOCODE = {
    "hf": [
        "words ← word → frequency (counted once)",
        "split words into symbols",
        "count adjacent pairs (× word frequency)",
        "while |vocab| < vocab_size:",
        "  best ← pair with the highest count",
        "    tie: smallest (id(left), id(right))",
        "  merge best everywhere; fix neighbours",
        "  record merge; new symbol gets next id",
        "stop: vocab full or no pair left",
    ],
    "sentencepiece_bpe": [
        "spaces → ▁; cut words before each ▁",
        "alphabet ← every character",
        "count pairs that may merge",
        "while |pieces| < vocab_size − 3 − |alphabet|:",
        "  best ← highest frequency",
        "    tie: shorter piece, then smaller string",
        "  merge best everywhere; fix neighbours",
        "  record the piece (score −index)",
        "pieces: <unk> <s> </s>, merged, alphabet",
    ],
}
ENCODE_PSEUDOCODE = [
    "pieces ← pre-tokenise the text",
    "for each piece:",
    "  parts ← its symbols (characters or bytes)",
    "  loop:",
    "    rank every adjacent pair that is a known merge",
    "    if no pair has a rank: stop",
    "    merge the lowest-ranked pair (leftmost first)",
    "  tokens ← parts; ids ← vocabulary[parts]",
]


# ---- training ------------------------------------------------------------------------------------
def _options(variant: str, vocab_size: int | None, pattern: str, min_frequency: int,
             corpus: str = "") -> tuple[int, dict]:
    if variant not in VARIANTS:
        raise ValueError(f"unknown BPE variant {variant!r}; choose one of: {', '.join(VARIANTS)}")
    if vocab_size is None:            # the default: small for the textbook corpus, else 1000
        vocab_size = DEFAULT_VOCAB[variant] if not corpus else 1000
    if not 1 <= vocab_size <= MAX_VIEW_VOCAB:
        raise ValueError(f"vocab_size must be between 1 and {MAX_VIEW_VOCAB:,} in this view, "
                         f"got {vocab_size}")
    if min_frequency < 0:
        raise ValueError(f"min_frequency must be 0 or more, got {min_frequency}")
    options: dict[str, Any] = {}
    if variant in ("bpe", "byte_bpe") and min_frequency:
        options["min_frequency"] = min_frequency
    if variant == "byte_bpe":
        if pattern not in PATTERNS:
            raise ValueError(f"unknown pattern {pattern!r}; choose one of: {', '.join(PATTERNS)}")
        options["pattern"] = pattern
    return vocab_size, options


def _train_context(corpus: str, variant: str, vocab_size: int | None, pattern: str,
                   min_frequency: int, page: int, play: bool) -> dict[str, Any]:
    params = {"corpus": corpus or None, "variant": variant, "vocab_size": vocab_size,
              "pattern": pattern if variant == "byte_bpe" else None,
              "min_frequency": min_frequency or None, "page": page or None}
    return {"corpus": corpus, "variant": variant, "vocab_size": vocab_size, "pattern": pattern,
            "min_frequency": min_frequency, "params": params, "error": None, "play": play,
            "bundled": corpus_names(), "corpus_text": DEFAULT_CORPUS if not corpus else "",
            "size": vocab_size,
            "variants": VARIANTS, "patterns": PATTERNS, "page": page}


@router.get("/bpe/train", response_class=HTMLResponse, summary="BPE training, one merge at a time")
def train_page(request: Request, corpus: str = "", variant: str = "bpe",
               vocab_size: str = VOCAB_QUERY, pattern: str = "gpt2",
               min_frequency: int = bounded(0, 0), step: int = 0, page: int = 0,
               play: bool = False,
               practice: PracticeState = Depends(practice_params)) -> HTMLResponse:
    ctx = _train_context(corpus, variant, None, pattern, min_frequency, page, play)
    ctx["vocab_size"] = ctx["params"]["vocab_size"] = vocab_size.strip() or None
    status = 200
    try:
        vocab_size = _whole(vocab_size)
        size, options = _options(variant, vocab_size, pattern, min_frequency, corpus)
        ctx["size"] = size
        text = DEFAULT_CORPUS if not corpus else corpus_by_ref(store(request), corpus)
        if corpus and len(text) <= 20_000:
            ctx["corpus_text"] = text
        session = bpe_session(request, corpus, text, variant, size, options, wait=SYNC_SECONDS)
        if isinstance(session, Job):                   # a big run: it trains on in the pool
            ctx.update(training=True, job=session, done=session.done, size=size,
                       pseudocode=TRAIN_PSEUDOCODE["hf"], step=step)
            return render(request, "bpe_train.html", ctx, block="step")
        total = session.total_steps()
        _settle(session)
    except LookupError as exc:
        ctx["error"], status = str(exc), 404
    except ValueError as exc:
        ctx["error"], status = str(exc), 422
    if ctx["error"] is None:
        k = min(max(step, 0), total)
        rows, pages = session.word_rows(k, page, WORD_PAGE)
        # late merges change rare words: the first page shows the words merge k changed first
        changed = session.changed_rows(k, CHANGED_ROWS) if k > 0 and page <= 0 else []
        rows = changed + [r for r in rows if r.word not in {c.word for c in changed}]
        last = session.step(k)
        upcoming = session.step(k + 1)
        hf = variant != "sentencepiece_bpe"
        ctx.update(
            session=session, step=k, total=total, rows=rows, pages=pages, n_changed=len(changed),
            page=min(max(page, 0), pages - 1), last=last, upcoming=upcoming,
            pairs=session.pair_table(k + 1), tied=set(upcoming.tied) if upcoming else set(),
            merges=list(enumerate(session.merges(k), 1))[-40:][::-1],
            sentence=session.sentence(k), rule=RULES[variant],
            pseudocode=TRAIN_PSEUDOCODE["hf" if hf else "sentencepiece_bpe"],
            line=2 if k == 0 else (8 if k == total and session.finished and upcoming is None else 7),
            vocab_now=_vocab_now(session, k), stop_reason=session.trainer.stop_reason,
            show=_shower(session.byte_level), words=len(session.order),
            practice=practising.bpe_train(practice, "/bpe/train", ctx["params"], k, session,
                                          _shower(session.byte_level), RULES[variant])
            if practice.on else None,
            practice_link=practising.toggle("/bpe/train", ctx["params"], k),
        )
    else:
        ctx["pseudocode"] = TRAIN_PSEUDOCODE["hf"]
    return render(request, "bpe_train.html", ctx, block="step", status_code=status)


def _settle(session) -> None:
    """Once a run is finished it stays in the cache for many requests: move its objects out of
    the cyclic garbage collector's scans (`gc.freeze`), or a full collection over them adds
    ~70 ms to an occasional step request. (Frozen objects are still freed by reference
    counting when the run leaves the cache.)"""
    if session.finished and not session.settled:
        session.settled = True
        heap.settle()


def _whole(text: str | None) -> int | None:
    """A form field that may be blank (None: use the default)."""
    if text is None or not str(text).strip():
        return None
    try:
        return int(str(text).strip())
    except ValueError:
        raise ValueError(f"vocab_size must be a whole number, got {text!r}") from None


def _vocab_now(session, k: int) -> int:
    trainer = session.trainer
    if session.variant == "sentencepiece_bpe":
        return 3 + len(trainer.chars) + k
    created = {s.new_symbol for s in session.steps[:k]}
    return trainer.alphabet_size + len(created - set(trainer.symbols[:trainer.alphabet_size]))


@router.post("/bpe/train", response_class=HTMLResponse,
             summary="Store an edited corpus and open its BPE training view")
def train_post(request: Request, corpus_text: str = Form(""), variant: str = Form("bpe"),
               vocab_size: str = Form(""), pattern: str = Form("gpt2"),
               min_frequency: int = Form(0), corpus: str = Form(""), use: str = Form("")) -> Any:
    """The training form: "Train" (`use=pick`) takes the picked corpus; "Use this corpus" (or
    a bare POST of `corpus_text`) stores the edited text. Either way, a redirect to the
    page's permalink."""
    try:
        digest = corpus if use == "pick" else _store_corpus(request, corpus_text)
        _options(variant, _whole(vocab_size), pattern, min_frequency, digest)
    except (HTTPException, ValueError) as exc:
        ctx = _train_context("", variant, vocab_size.strip() or None, pattern, min_frequency, 0, False)
        ctx.update(corpus_text=corpus_text, pseudocode=TRAIN_PSEUDOCODE["hf"])
        status = exc.status_code if isinstance(exc, HTTPException) else 422
        ctx["error"] = exc.detail if isinstance(exc, HTTPException) else str(exc)
        return render(request, "bpe_train.html", ctx, status_code=status)
    params = {"corpus": digest or None, "variant": variant, "vocab_size": vocab_size.strip() or None,
              "pattern": pattern if variant == "byte_bpe" else None,
              "min_frequency": min_frequency or None}
    return RedirectResponse(url_with("/bpe/train", params), status_code=303)


# ---- encoding ------------------------------------------------------------------------------------
def _bpe_options(request: Request, current: str) -> list[dict[str, str]]:
    out = []
    for name, entry in tc.pretrained.bundled().items():
        if entry.algorithm in ("bpe", "byte_bpe", "sentencepiece_bpe"):
            aliases = tc.pretrained.aliases_of(name)
            out.append({"value": name,
                        "label": entry.label + (f" ({', '.join(aliases)})" if aliases else "")})
    if current and not current.startswith(UPLOAD_PREFIX) and not any(
            o["value"] == current or current in tc.pretrained.aliases_of(o["value"]) for o in out):
        out.append({"value": current, "label": f"trained: {current}"})
    return out


def _flatten(traces) -> list[tuple[int, Any]]:
    return [(i, s) for i, t in enumerate(traces) for s in t.steps]


def _pieces_at(traces, flat, k: int) -> list[dict[str, Any]]:
    """Each piece's parts after the first k merges (over all pieces, in order)."""
    done_per_piece: dict[int, int] = {}
    for i, _s in flat[:k]:
        done_per_piece[i] = done_per_piece.get(i, 0) + 1
    current = flat[k - 1][0] if k else None
    out = []
    for i, t in enumerate(traces):
        n = done_per_piece.get(i, 0)
        if n == 0:
            parts = t.initial
        elif n < len(t.steps):
            parts = t.steps[n].parts
        else:
            parts = _after(t.steps[-1])
        out.append({"trace": t, "parts": parts, "done": n, "total": len(t.steps),
                    "finished": n == len(t.steps), "current": i == current})
    return out


def _after(step) -> tuple[str, ...]:
    """A piece's parts after `step`: a merge joins two parts; a whole-word step (ignore_merges)
    leaves the word; byte fallback / unknown puts each replaced symbol's stand-ins in its place."""
    p = step.parts
    action = getattr(step, "action", "merge")
    if action == "whole_word":
        return (step.merged,)
    if action != "merge":
        instead = {pos: tuple(rep) for pos, _sym, rep in step.replaced}
        return tuple(x for i, part in enumerate(p) for x in instead.get(i, (part,)))
    return p[:step.chosen] + (step.merged,) + p[step.chosen + 2:]


@router.get("/bpe/encode", response_class=HTMLResponse,
            summary="BPE encoding: the merges apply by rank, one at a time")
def encode_page(request: Request, tokenizer: str = "gpt2", text: str = "lowest newer tokenization",
                step: int = 0, token: str = "", special: bool = False,
                play: bool = False, speed: int = 1,
                practice: PracticeState = Depends(practice_params)) -> HTMLResponse:
    """Opens at step 0, as the other step-through views do."""
    params = {"tokenizer": tokenizer, "text": text, "special": 1 if special else None,
              "speed": speed if speed != 1 else None}
    ctx: dict[str, Any] = {"tokenizer": tc.pretrained.canonical_name(tokenizer), "text": text,
                           "params": params, "error": None,
                           "play": play, "pseudocode": ENCODE_PSEUDOCODE,
                           "options": _bpe_options(request, tokenizer), "token": token,
                           "special": special, "yours": stored_options(request, "bpe"),
                           "next": url_with("/bpe/encode", params)}
    status = 200
    try:
        check_speed(speed)
        check_step_text(request, text, status=422)
        tok = resolve_tokenizer(request, tokenizer)
        if special and hasattr(tok, "with_special"):       # OpenAI encodings: allow <|...|>
            tok = tok.with_special("all")
        traces = encode_trace(tok, text)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    if ctx["error"] is None:
        flat = _flatten(traces)
        total = len(flat)
        k = min(max(step, 0), total)
        pieces = _pieces_at(traces, flat, k)
        current = flat[k - 1][1] if k else None
        byte_level = bool(getattr(tok.model, "byte_level", False))
        show = _shower(byte_level)
        trees = []
        wanted = [token] if token else [t for p in traces[:8] for t, _ in p.tokens][:12]
        for t in wanted:
            try:
                trees.append(merge_tree_of(tok, t))
            except ValueError as exc:
                ctx["error_tree"] = str(exc)
        ctx.update(jumps=word_jumps([i for i, _s in flat], k), speed=speed, speeds=SPEEDS,
                   delay=DELAY // speed)
        ctx.update(tok=tok, step=k, total=total, pieces=pieces, current=current, show=show,
                   trees=trees, byte_level=byte_level,
                   line=_encode_line(current, k, total),
                   sentence=_encode_sentence(current, k, total, _shower(byte_level)),
                   practice=practising.bpe_encode(practice, "/bpe/encode", params, k, flat, show)
                   if practice.on else None,
                   practice_link=practising.toggle("/bpe/encode", params, k))
    return render(request, "bpe_encode.html", ctx, block="step", status_code=status)


def _encode_line(step, k: int, total: int) -> int:
    """The pseudocode line a state is at: the end, a merge, or (byte fallback, a whole word
    taken as is) the parts the merges start from."""
    if k == 0:
        return 0
    if k == total:
        return 7
    return 6 if getattr(step, "action", "merge") == "merge" else 2


def _shower(byte_level: bool):
    """How templates show a symbol: byte-level symbols as text (broken UTF-8 as <E3 81>),
    whitespace made visible."""
    from tokenizers_core.models.bpe.model import token_text

    from ..display import visible
    return lambda symbol: token_text(symbol, byte_level, visible)


def _encode_sentence(step, k: int, total: int, show) -> str:
    if k == 0:
        return ("Every piece starts as single symbols. Step to watch the merges apply, lowest "
                "rank first." if total else "No merge applies: every piece is already its tokens.")
    action = getattr(step, "action", "merge")
    end = " No ranked pair is left anywhere: these are the tokens." if k == total else ""
    if action == "whole_word":
        return (f"ignore_merges: the whole word {show(step.merged)} is in the vocabulary, so it "
                f"is one token and no merge runs.{end}")
    if action != "merge":
        n = len(step.replaced)
        sym, rep = step.replaced[0][1], step.replaced[0][2]
        what = (f"{show(sym)} → {' '.join(show(r) for r in rep)}" if rep
                else f"{show(sym)} is dropped")
        how = ("byte fallback spells each as its UTF-8 bytes" if action == "byte_fallback"
               else "each becomes the unknown token (a run of them fuses into one)")
        return (f"{n} symbol{'s are' if n != 1 else ' is'} not in the vocabulary: {how} "
                f"({what}{', …' if n > 1 else ''}); the merges start from there.{end}")
    left, right = step.parts[step.chosen], step.parts[step.chosen + 1]
    others = len(step.candidates) - 1
    text = (f"Merged {show(left)} + {show(right)} → {show(step.merged)}: rank {step.rank:,} is the "
            f"lowest")
    text += (f" of {len(step.candidates)} candidate pairs." if others else ", the only candidate.")
    if k == total:
        text += " No ranked pair is left anywhere: these are the tokens."
    return text


# ---- JSON ------------------------------------------------------------------------------------------
@router.get("/api/bpe/train_steps", tags=["api"],
            summary="Every merge of BPE training (bpe, byte_bpe, sentencepiece_bpe), as step dicts")
def train_steps_api(request: Request, corpus: str = "", variant: str = "bpe",
                    vocab_size: str = VOCAB_QUERY, pattern: str = "gpt2",
                    min_frequency: int = bounded(0, 0)) -> dict[str, Any]:
    try:
        size, options = _options(variant, _whole(vocab_size), pattern, min_frequency, corpus)
        text = DEFAULT_CORPUS if not corpus else corpus_by_ref(store(request), corpus)
        session = bpe_session(request, corpus, text, variant, size, options, wait=None)
    except LookupError as exc:
        raise HTTPException(404, str(exc)) from None
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    return {"corpus": corpus or "default", "variant": variant, "vocab_size": size,
            "rule": RULES[variant], "stop_reason": session.trainer.stop_reason,
            "steps": [s.to_dict() for s in session.steps]}


@router.get("/api/bpe/encode_steps", tags=["api"],
            summary="Every merge of BPE encoding, piece by piece, as step dicts")
def encode_steps_api(request: Request, text: str, tokenizer: str = "gpt2",
                     special: bool = False) -> dict[str, Any]:
    check_step_text(request, text)
    try:
        tok = resolve_tokenizer(request, tokenizer)
        if special and hasattr(tok, "with_special"):
            tok = tok.with_special("all")
        traces = encode_trace(tok, text)
    except UnknownTokenizer as exc:
        raise HTTPException(404, str(exc)) from None
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    return {"tokenizer": tokenizer, "pieces": [
        {"text": t.text, "start": t.start, "end": t.end, "special": t.special,
         "initial": list(t.initial), "steps": [s.to_dict() for s in t.steps],
         "tokens": [list(x) for x in t.tokens]} for t in traces]}

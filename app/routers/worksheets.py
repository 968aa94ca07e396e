"""Printable worksheets (`/worksheet/bpe`, `/worksheet/wordpiece`): a range of training steps
as blank tables to fill in by hand (the pair counts, the merge, the new word table) and, at
`key=1`, the answer key. Likewise `/worksheet/unigram_train` (EM + pruning rounds),
`/worksheet/bpe_encode` (each word's ranked candidate pairs, the merge, the parts after),
`/worksheet/wordpiece_encode` (the longest-match probes) and `/worksheet/unigram_lattice`
(best[i] and back[i] per end position, then the best path).

Every sheet is drawn by `app.views.worksheets` from the same state the step-through views
read; the print stylesheet (static/app.css, `@page a4` / `letter`) lays it out on A4 or US
Letter.
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

import tokenizers_core as tc
from tokenizers_core.corpora import corpus_names
from tokenizers_core.models.bpe.session import VARIANTS

from ..deps import check_step_text, resolve_tokenizer, store
from ..render import render
from ..trained import corpus_text as corpus_by_ref
from ..views import worksheets as W
from ..views.bpe_encode import SHEET_CHARS
from ..views.common import (bpe_options, in_place, unigram_model, unigram_options,
                            wordpiece_options, wordpiece_tokenizer)
from ..views.unigram_lattice import DEFAULT_TEXT as LATTICE_TEXT, SHEET_CHARS as LATTICE_CHARS
from ..views.unigram_train import SHEET_ROUNDS, check_vocab_size
from ..views.wordpiece_encode import DEFAULT_TEXT as WP_TEXT, SMALL_VOCAB

router = APIRouter(tags=["worksheets"])
PAPERS = W.PAPERS


def _sheet(request: Request, template: str, ctx: dict[str, Any], build) -> HTMLResponse:
    """Render a worksheet page: `build()` makes the sheet (after the paper is checked); bad input
    is shown in place of the sheet, under the form."""
    ctx.update(error=None, sheet=None, papers=PAPERS)

    def checked() -> dict[str, Any]:
        W.check_paper(ctx["paper"])
        return {"sheet": build()}

    status = in_place(ctx, checked)
    return render(request, template, ctx, status_code=status)


def _corpus(request: Request, corpus: str, default: str) -> str:
    return default if not corpus else corpus_by_ref(store(request), corpus)


@router.get("/worksheet/bpe", response_class=HTMLResponse,
            summary="A printable BPE training worksheet (and its answer key)")
def bpe_worksheet(request: Request, corpus: str = "", variant: str = "bpe", vocab_size: int = 24,
                  pattern: str = "gpt2", start: int = 1, end: int = 3, paper: str = "a4",
                  key: bool = False) -> HTMLResponse:
    params = {"corpus": corpus or None, "variant": variant, "vocab_size": vocab_size,
              "pattern": pattern if variant == "byte_bpe" else None, "start": start, "end": end,
              "paper": paper}
    ctx = {"params": params, "corpus": corpus, "variant": variant, "vocab_size": vocab_size,
           "pattern": pattern, "start": start, "end": end, "paper": paper, "key": key,
           "variants": VARIANTS, "bundled": corpus_names(), "algorithm": "bpe",
           "path": "/worksheet/bpe"}

    def build() -> dict[str, Any]:
        W.check_vocab(vocab_size)
        return W.worksheet(_corpus(request, corpus, W.TEXTBOOK), variant, vocab_size, start, end,
                           {"pattern": pattern} if variant == "byte_bpe" else {})

    return _sheet(request, "worksheet.html", ctx, build)


@router.get("/worksheet/wordpiece", response_class=HTMLResponse,
            summary="A printable WordPiece training worksheet (and its answer key)")
def wordpiece_sheet(request: Request, corpus: str = "", vocab_size: int = 40, start: int = 1,
                    end: int = 3, paper: str = "a4", key: bool = False) -> HTMLResponse:
    params = {"corpus": corpus or None, "vocab_size": vocab_size, "start": start, "end": end,
              "paper": paper}
    ctx = {"params": params, "corpus": corpus, "variant": "wordpiece", "vocab_size": vocab_size,
           "start": start, "end": end, "paper": paper, "key": key, "bundled": corpus_names(),
           "algorithm": "wordpiece", "path": "/worksheet/wordpiece"}

    def build() -> dict[str, Any]:
        W.check_vocab(vocab_size)
        return W.wordpiece_worksheet(_corpus(request, corpus, W.TEXTBOOK), vocab_size, start, end)

    return _sheet(request, "worksheet.html", ctx, build)


@router.get("/worksheet/bpe_encode", response_class=HTMLResponse,
            summary="A printable BPE encoding worksheet (and its answer key)")
def bpe_encode_sheet(request: Request, tokenizer: str = "gpt2", text: str = "lowest newer",
                     paper: str = "a4", key: bool = False) -> HTMLResponse:
    tokenizer = tc.pretrained.canonical_name(tokenizer)
    params = {"tokenizer": tokenizer, "text": text, "paper": paper}
    ctx = {"params": params, "tokenizer": tokenizer, "text": text, "paper": paper, "key": key,
           "algorithm": "bpe_encode", "max_chars": SHEET_CHARS, "path": "/worksheet/bpe_encode",
           "view": "/bpe/encode", "view_params": {"tokenizer": tokenizer, "text": text},
           "field": "tokenizer", "options": bpe_options(tokenizer)}

    def build() -> dict[str, Any]:
        check_step_text(request, text, status=422)
        return W.bpe_encode_worksheet(resolve_tokenizer(request, tokenizer), text)

    return _sheet(request, "worksheet_bpe_encode.html", ctx, build)


@router.get("/worksheet/wordpiece_encode", response_class=HTMLResponse,
            summary="A printable WordPiece encoding worksheet (and its answer key)")
def wordpiece_encode_sheet(request: Request, text: str = WP_TEXT, vocab: str = "small",
                           vocab_text: str = SMALL_VOCAB, paper: str = "a4",
                           key: bool = False) -> HTMLResponse:
    params = {"vocab": vocab, "text": text, "paper": paper}
    if vocab == "small" and vocab_text != SMALL_VOCAB:
        params["vocab_text"] = vocab_text
    ctx = {"params": params, "tokenizer": vocab, "text": text, "paper": paper, "key": key,
           "algorithm": "wordpiece_encode", "max_chars": SHEET_CHARS,
           "path": "/worksheet/wordpiece_encode", "view": "/wordpiece/encode",
           "view_params": {k: v for k, v in params.items() if k != "paper"},
           "options": wordpiece_options(vocab), "field": "vocab",
           "small_vocab": vocab_text.split() if vocab == "small" else None}

    def build() -> dict[str, Any]:
        check_step_text(request, text, status=422)
        return W.wordpiece_encode_worksheet(wordpiece_tokenizer(request, vocab, vocab_text), text)

    return _sheet(request, "worksheet_wordpiece_encode.html", ctx, build)


@router.get("/worksheet/unigram_lattice", response_class=HTMLResponse,
            summary="A printable Unigram lattice (Viterbi) worksheet (and its answer key)")
def lattice_sheet(request: Request, model: str = "tiny", text: str = LATTICE_TEXT,
                  paper: str = "a4", key: bool = False) -> HTMLResponse:
    params = {"model": model, "text": text, "paper": paper}
    ctx = {"params": params, "tokenizer": model, "text": text, "paper": paper, "key": key,
           "algorithm": "unigram_lattice", "max_chars": LATTICE_CHARS,
           "path": "/worksheet/unigram_lattice", "view": "/unigram/lattice",
           "view_params": {"model": model, "text": text},
           "options": unigram_options(model), "field": "model"}

    def build() -> dict[str, Any]:
        check_step_text(request, text, status=422)
        return W.lattice_worksheet(unigram_model(request, model), text)

    return _sheet(request, "worksheet_unigram_lattice.html", ctx, build)


@router.get("/worksheet/unigram_train", response_class=HTMLResponse,
            summary="A printable Unigram training worksheet (and its answer key)")
def unigram_train_sheet(request: Request, corpus: str = "", vocab_size: int = 30, start: int = 1,
                        end: int = 3, paper: str = "a4", key: bool = False) -> HTMLResponse:
    params = {"corpus": corpus or None, "vocab_size": vocab_size, "start": start, "end": end,
              "paper": paper}
    ctx = {"params": params, "corpus": corpus, "vocab_size": vocab_size, "start": start,
           "end": end, "paper": paper, "key": key, "bundled": corpus_names(),
           "path": "/worksheet/unigram_train", "max_rounds": SHEET_ROUNDS}

    def build() -> dict[str, Any]:
        check_vocab_size(vocab_size, W.MAX_VOCAB, " for a worksheet")
        return W.unigram_train_worksheet(_corpus(request, corpus, W.UNIGRAM_CORPUS), vocab_size,
                                         start, end)

    return _sheet(request, "worksheet_unigram_train.html", ctx, build)

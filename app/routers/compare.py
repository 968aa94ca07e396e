"""Compare: one text, several tokenisers side by side, with metrics (`/compare`).

A column is either an algorithm trained on the chosen corpus at the chosen vocab size (bpe,
byte_bpe, wordpiece, unigram, sentencepiece_bpe) or a bundled tokeniser (or a trained handle).
Trained models come from the bounded cache, or are retrained from the URL, so a permalink works
on any worker. A column whose model still needs training is sent as a placeholder that fetches
itself (htmx), so the page never waits for the slowest column.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

import tokenizers_core as tc
from tokenizers_core import metrics as M
from tokenizers_core import pretrained
from tokenizers_core.corpora import corpus_names

from .. import display
from ..deps import (UPLOAD_PREFIX, check_text, resolve_tokenizer, stored_options, tokenizer_label,
                    trained)
from ..render import render
from ..trained import make_spec
from .visualiser import step_link

router = APIRouter(tags=["compare"])

DEFAULT_TEXT = "unhappiness, naïve cafés and 東京"
DEFAULT_COLUMNS = ["bpe", "wordpiece", "unigram", "o200k_base", "bert-base-uncased"]
DEFAULT_CORPUS = "botchan"
DEFAULT_VOCAB = 1000
MAX_COLUMNS = 8
ALGORITHM_TITLES = {"bpe": "BPE", "byte_bpe": "Byte-level BPE", "wordpiece": "WordPiece",
                    "unigram": "Unigram", "sentencepiece_bpe": "SentencePiece BPE"}


@dataclass
class Column:
    index: int
    spec: str
    title: str
    subtitle: str = ""
    tok: Any = None
    pending: bool = False
    error: str | None = None
    chips: list = field(default_factory=list)
    metrics: M.Metrics | None = None
    marks: set = field(default_factory=set)
    vocab_size: int = 0
    link: tuple[str, str] | None = None
    enc: Any = None
    compared: bool = False   # marks were worked out against the reference column


def default_columns() -> list[str]:
    known = set(tc.algorithms()) | set(pretrained.bundled())
    return [c for c in DEFAULT_COLUMNS if c in known] or ["word", "char"]


def column_tokenizer(request: Request, spec: str, corpus: str, vocab: int,
                     train_now: bool) -> tuple[str, str, Any]:
    """(title, subtitle, tokenizer or None if it still needs training). Raises LookupError or
    ValueError for a bad spec."""
    if spec in tc.algorithms():
        handle, _ = make_spec(spec, corpus, vocab)
        title = ALGORITHM_TITLES.get(spec, spec)
        sub = f"trained on {corpus if len(corpus) != 64 else corpus[:10] + '…'}, vocab {vocab}"
        tok = trained(request).cached(handle)
        if tok is None and train_now:
            _, tok = trained(request).train(spec, corpus, vocab)
        return title, sub, tok
    tok = resolve_tokenizer(request, spec)
    return tokenizer_label(request, spec), tok.algorithm, tok


def build_columns(request: Request, text: str, specs: list[str], corpus: str, vocab: int,
                  ref: int, train_now: bool, only: int | None = None) -> list[Column]:
    cols: list[Column] = []
    for i, spec in enumerate(specs):
        col = Column(i, spec, spec)
        if only is not None and i != only and i != ref:
            cols.append(col)
            continue
        try:
            col.title, col.subtitle, col.tok = column_tokenizer(request, spec, corpus, vocab,
                                                                train_now)
        except (LookupError, ValueError) as exc:
            col.error = str(exc).strip("'\"")
        col.pending = col.tok is None and col.error is None
        cols.append(col)
    if only is None and 0 <= ref < len(cols) and cols[ref].pending:
        # every column is compared with the reference: while it trains, all columns wait for it
        # (each placeholder's request trains it once, under the per-handle lock)
        for col in cols:
            if col.error is None:
                col.tok, col.pending = None, True
    for col in cols:
        if col.tok is None or (only is not None and col.index not in (only, ref)):
            continue
        try:
            col.enc = col.tok.encode(text)
        except ValueError as exc:
            col.error = str(exc)
    reference = None
    if 0 <= ref < len(cols) and cols[ref].enc is not None:
        ref_enc = cols[ref].enc
        reference = M.cut_points(text, ref_enc.offsets, ref_enc.special_tokens_mask)
    for col in cols:
        if col.enc is None or (only is not None and col.index != only):
            continue
        enc = col.enc
        chips = display.chips(col.tok, text, enc, links=False)
        col.metrics = M.encoding_metrics(text, enc, M.unk_ids(col.tok.model))
        col.vocab_size = col.tok.vocab_size
        col.link = step_link(request, col.tok)
        if reference is not None and col.index != ref:
            col.marks = {i for i, d in enumerate(M.disagreements(text, enc, reference)) if d}
            col.compared = True
        col.chips = display.compact(chips, col.marks)
    return cols


def _choices(request: Request, specs: list[str]) -> list[dict[str, str]]:
    """The column checkboxes: the chosen columns first, in their order (so submitting the form
    keeps the order of the columns), then the others (the uploaded ones last)."""
    out = [{"value": a, "label": f"{ALGORITHM_TITLES.get(a, a)} (trained)"} for a in tc.algorithms()]
    out += [{"value": n, "label": e.label} for n, e in pretrained.bundled().items()]
    out += [{"value": o["value"], "label": f"yours: {o['label']}"} for o in stored_options(request)]
    known = {o["value"]: o for o in out}
    chosen = [known.get(s, {"value": s, "label": s}) for s in dict.fromkeys(specs)]
    return chosen + [o for o in out if o["value"] not in specs]


def _params(text: str, specs: list[str], corpus: str, vocab: int, ref: int) -> dict[str, Any]:
    return {"text": text, "col": specs, "corpus": corpus, "vocab": vocab, "ref": ref}


def _validate(request: Request, text: str, specs: list[str], vocab: int) -> str | None:
    try:
        check_text(request, text)
    except HTTPException as exc:
        return str(exc.detail)
    if len(specs) > MAX_COLUMNS:
        return f"at most {MAX_COLUMNS} columns, please (got {len(specs)})"
    if not 2 <= vocab <= 100_000:
        return "the vocab size must be between 2 and 100000"
    return None


@router.get("/compare", response_class=HTMLResponse, summary="Compare tokenisers side by side")
def compare_page(request: Request, text: str | None = None,
                 col: list[str] | None = Query(None), corpus: str = DEFAULT_CORPUS,
                 vocab: int = DEFAULT_VOCAB, ref: int = 0, wait: bool = False) -> HTMLResponse:
    text = DEFAULT_TEXT if text is None else text
    specs = [c for c in (col or default_columns()) if c]
    error = _validate(request, text, specs, vocab)
    cols = [] if error else build_columns(request, text, specs, corpus, vocab, ref,
                                          train_now=wait)
    ctx = {"text": text, "specs": specs, "corpus": corpus, "vocab": vocab, "ref": ref,
           "columns": cols, "error": error, "choices": _choices(request, specs), "corpora": corpus_names(),
           "labels": {sp: tokenizer_label(request, sp) for sp in specs if sp.startswith(UPLOAD_PREFIX)},
           "params": _params(text, specs, corpus, vocab, ref)}
    return render(request, "compare.html", ctx, block="columns",
                  status_code=422 if error else 200)


@router.get("/compare/column", response_class=HTMLResponse,
            summary="One compare column (trains its model if needed)")
def compare_column(request: Request, i: int, text: str = "", col: list[str] = Query(...),
                   corpus: str = DEFAULT_CORPUS, vocab: int = DEFAULT_VOCAB,
                   ref: int = 0) -> HTMLResponse:
    error = _validate(request, text, col, vocab)
    if error:
        raise HTTPException(422, error)
    if not 0 <= i < len(col):
        raise HTTPException(422, f"column {i} does not exist")
    cols = build_columns(request, text, col, corpus, vocab, ref, train_now=True, only=i)
    ctx = {"column": cols[i], "text": text, "ref": ref,
           "params": _params(text, col, corpus, vocab, ref)}
    return render(request, "compare_column.html", ctx)


class CompareColumnOut(BaseModel):
    spec: str
    title: str
    error: str | None
    vocab_size: int
    tokens: list[str]
    offsets: list[tuple[int, int]]
    differs: list[int]
    metrics: dict[str, float] | None


@router.get("/api/compare", tags=["api"], response_model=list[CompareColumnOut])
def compare_api(request: Request, text: str, col: list[str] | None = Query(None),
                corpus: str = DEFAULT_CORPUS, vocab: int = DEFAULT_VOCAB,
                ref: int = 0) -> list[dict[str, Any]]:
    """The compare view's data: per column the tokens, offsets, the indices of tokens whose
    boundaries differ from the reference column, and the metrics."""
    specs = [c for c in (col or default_columns()) if c]
    error = _validate(request, text, specs, vocab)
    if error:
        raise HTTPException(422, error)
    cols = build_columns(request, text, specs, corpus, vocab, ref, train_now=True)
    return [{"spec": c.spec, "title": c.title, "error": c.error, "vocab_size": c.vocab_size,
             "tokens": c.enc.tokens if c.enc else [], "offsets": c.enc.offsets if c.enc else [],
             "differs": sorted(c.marks), "metrics": c.metrics.to_dict() if c.metrics else None}
            for c in cols]

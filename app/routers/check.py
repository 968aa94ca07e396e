"""Check your own implementation (`/check`, `POST /api/check`): a student's merges, vocabulary,
pieces or tokens against the reference run on the same corpus (`tokenizers_core.check`)."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

import tokenizers_core as tc
from tokenizers_core.checker import ALGORITHMS, KINDS
from tokenizers_core.corpora import corpus_names

from ..deps import (BAD_INPUT, bad_input, check_step_text, read_upload_text, settings, store,
                    store_corpus, trained)
from ..render import render, url_with
from ..step_jobs import check_report
from ..trained import corpus_text as corpus_by_ref

router = APIRouter(tags=["check"])

# Sennrich et al.'s textbook corpus, as in the BPE and WordPiece training views.
TEXTBOOK = ("low low low low low\nlower lower\nnewest newest newest newest newest newest\n"
            "widest widest widest\n")
MAX_VOCAB = 5_000                 # the reference of a large corpus trains in the job pool
OPTION_NAMES = ("pattern", "min_frequency")
TRAIN_VIEW = {"bpe": "/bpe/train", "byte_bpe": "/bpe/train", "sentencepiece_bpe": "/bpe/train",
              "wordpiece": "/wordpiece/train"}


class CheckRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    algorithm: str = Field(examples=["bpe"])
    theirs: str | list[Any] = Field(description="what your code produced: merges ('a b' a line, "
                                    "or JSON pairs), a WordPiece vocabulary, Unigram pieces "
                                    "('piece<TAB>score' a line) or tokens",
                                    examples=["e s\nes t\nest </w>"])
    corpus: str | None = Field(None, description="the training text itself")
    corpus_name: str | None = Field(None, description="a bundled corpus or a stored sha256; "
                                    "neither: the textbook corpus (low, lower, newest, widest)")
    vocab_size: int = Field(examples=[20])
    kind: str | None = Field(None, description="merges, vocab, pieces or tokens (sniffed if absent)")
    text: str | None = Field(None, description="for a tokens check: the text your tokens are for")
    pieces: str | list[Any] | None = Field(None, description="unigram tokens check: your pieces")


def _options(vocab_size: int, algorithm: str, extra: dict[str, Any]) -> dict[str, Any]:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of: {', '.join(ALGORITHMS)}")
    if not 1 <= vocab_size <= MAX_VOCAB:
        raise ValueError(f"vocab_size must be between 1 and {MAX_VOCAB:,} here, got {vocab_size}")
    options = {k: v for k, v in extra.items() if v not in (None, "", 0)}
    if algorithm != "byte_bpe":
        options.pop("pattern", None)
    if algorithm in ("sentencepiece_bpe", "unigram"):
        options.pop("min_frequency", None)
    return options


def run_check(request: Request, algorithm: str, ref: str, theirs: Any, vocab_size: int,
              kind: str | None, text: str | None, pieces: Any,
              options: dict[str, Any]) -> tuple[Any, dict[str, str]]:
    """The report, and links into the step-through views for the point of divergence."""
    check_step_text(request, text or "")             # a tokens check lists each word's steps
    size = len(theirs) if isinstance(theirs, (str, list)) else 0
    if size > settings(request).max_upload_bytes:
        raise HTTPException(413, f"what you gave is {size:,} long; the limit is "
                                 f"{settings(request).max_upload_bytes:,} (TOKVIS_MAX_UPLOAD_BYTES)")
    corpus = TEXTBOOK if not ref else corpus_by_ref(store(request), ref)
    if kind == "":
        kind = None
    report = check_report(request, ref, corpus, algorithm, theirs, vocab_size=vocab_size,
                          kind=kind, text=text or None, pieces=pieces or None, **options)
    return report, _links(request, report, algorithm, ref, vocab_size, options, pieces)


def _links(request, report, algorithm, ref, vocab_size, options, pieces) -> dict[str, str]:
    k = report.first_divergence
    if k is None:
        return {}
    if report.kind in ("merges", "vocab") and algorithm in TRAIN_VIEW and k <= report.reference:
        params = {"corpus": ref or None, "vocab_size": vocab_size, "step": k - 1}
        if TRAIN_VIEW[algorithm] == "/bpe/train":
            params.update(variant=algorithm, pattern=options.get("pattern"),
                          min_frequency=options.get("min_frequency"))
        else:
            params.update(min_frequency=options.get("min_frequency"))
        return {"step": url_with(TRAIN_VIEW[algorithm], params)}
    if report.kind == "tokens" and report.state.get("word") and not pieces:
        handle, _tok = trained(request).train(algorithm, ref or _stored(request), vocab_size,
                                              options)
        word = report.state["word"]
        if algorithm == "byte_bpe":
            from tokenizers_core.models.bpe.model import token_text
            word = token_text(word, True)
        elif algorithm in ("unigram", "sentencepiece_bpe"):
            word = word.replace("▁", " ").strip()
        path, name = {"wordpiece": ("/wordpiece/encode", "vocab"),
                      "unigram": ("/unigram/lattice", "model")}.get(algorithm,
                                                                      ("/bpe/encode", "tokenizer"))
        return {"step": url_with(path, {name: handle, "text": word})}
    return {}


def _stored(request: Request) -> str:
    return store_corpus(request, TEXTBOOK)


# ---- JSON ------------------------------------------------------------------------------------
@router.post("/api/check", tags=["api"], summary="Check your implementation against ours")
def check_api(request: Request, body: CheckRequest) -> dict[str, Any]:
    """Where your merges / vocabulary / pieces / tokens first differ from the reference trained
    on the same corpus, with the state there and the classic mistakes that explain it.
    `first_divergence` is 1-based (a merge number; a word number for tokens), null when equal."""
    if body.corpus is not None and body.corpus_name is not None:
        raise HTTPException(422, "give at most one of 'corpus' (the text) or 'corpus_name'")
    try:
        ref = store_corpus(request, body.corpus) if body.corpus is not None else (body.corpus_name or "")
        options = _options(body.vocab_size, body.algorithm, dict(body.model_extra or {}))
        report, links = run_check(request, body.algorithm, ref, body.theirs, body.vocab_size,
                                  body.kind, body.text, body.pieces, options)
    except BAD_INPUT as exc:
        message, status = bad_input(exc)
        raise HTTPException(status, message) from None
    except TypeError as exc:                       # an option the trainer does not take
        raise HTTPException(422, f"bad option for {body.algorithm}: {exc}") from None
    return {**report.to_dict(), "corpus": ref or "textbook", "links": links}


# ---- the page --------------------------------------------------------------------------------
def _page_context(**values: Any) -> dict[str, Any]:
    ctx = {"algorithms": ALGORITHMS, "kinds": KINDS, "bundled": corpus_names(),
           "algorithm": "bpe", "kind": "", "vocab_size": 20, "corpus": "", "corpus_text": "",
           "theirs": "", "text": "", "pieces": "", "pattern": "gpt2", "min_frequency": 0,
           "report": None, "links": {}, "error": None, "textbook": TEXTBOOK}
    ctx.update(values)
    return ctx


EXAMPLES = {
    "no_end_of_word": "BPE merges without </w>",
    "unweighted_counts": "BPE merges counting each word once",
    "dict_order_ties": "BPE merges with ties by dict order",
    "raw_count_score": "WordPiece merges by raw count",
    "count_order_encoding": "BPE tokens merged in count order",
    "no_unk_penalty": "Unigram tokens without the unknown penalty",
}
EXAMPLE_PIECES = "<unk>\t0\n▁\t-1\nc\t-3\n▁c\t-2\nxy\t-8\ny\t-3\n"


def _example(name: str) -> dict[str, Any]:
    """The form of a wrong implementation's output, made by replaying one classic mistake with
    the engine's textbook replays (so the page shows what the checker finds for it)."""
    from tokenizers_core.checker import textbook
    if name == "count_order_encoding":
        corpus = "abab bba ba"
        tok = tc.train("bpe", [corpus], vocab_size=8)
        text = "aaba ab"
        tokens = [t for w in text.split()
                  for t in textbook.encode_by_count(tok.model.initial_parts(w), tok.model.rank)]
        return {"corpus_text": corpus, "vocab_size": 8, "text": text, "theirs": " ".join(tokens)}
    if name == "no_unk_penalty":
        from tokenizers_core.checker.parse import parse_pieces
        scores = {p: s for p, s in parse_pieces(EXAMPLE_PIECES) if p != "<unk>"}
        normalized = "▁c▁xy"
        tokens = ["<unk>" if unk else normalized[i:j]
                  for i, j, unk in textbook.viterbi(normalized, scores, unk_score=0.0)]
        return {"algorithm": "unigram", "vocab_size": 8, "text": "c xy",
                "pieces": EXAMPLE_PIECES, "theirs": " ".join(tokens)}
    from collections import Counter
    words = Counter(TEXTBOOK.split())
    if name == "raw_count_score":
        seqs = [((w[0], *["##" + c for c in w[1:]]), n) for w, n in words.items()]
        merges = textbook.textbook_merges(seqs, 6, join=lambda a, b: a + b[2:])
        return {"algorithm": "wordpiece", "vocab_size": 40,
                "theirs": "\n".join(f"{a} {b}" for a, b in merges)}
    eow = () if name == "no_end_of_word" else ("</w>",)
    seqs = [((*w, *eow), c) for w, c in words.items()]
    kw = {"unweighted_counts": {"weighted": False}, "dict_order_ties": {"ties": "dict"}}.get(name, {})
    return {"vocab_size": 24,
            "theirs": "\n".join(f"{a} {b}" for a, b in textbook.textbook_merges(seqs, 8, **kw))}


@router.get("/check", response_class=HTMLResponse, summary="Check your own implementation")
def check_page(request: Request, example: str = "") -> HTMLResponse:
    ctx = _page_context(examples=EXAMPLES)
    if example in EXAMPLES:
        ctx.update(_example(example))
    return render(request, "check.html", ctx)


@router.post("/check", response_class=HTMLResponse, summary="Check your own implementation")
async def check_post(request: Request, algorithm: str = Form("bpe"), kind: str = Form(""),
                     vocab_size: str = Form("20"), corpus: str = Form(""),
                     corpus_text: str = Form(""), theirs: str = Form(""),
                     theirs_file: UploadFile | None = File(None), text: str = Form(""),
                     pieces: str = Form(""), pattern: str = Form("gpt2"),
                     min_frequency: str = Form("0")) -> HTMLResponse:
    ctx = _page_context(algorithm=algorithm, kind=kind, vocab_size=vocab_size, corpus=corpus,
                        corpus_text=corpus_text, theirs=theirs, text=text, pieces=pieces,
                        pattern=pattern, min_frequency=min_frequency, examples=EXAMPLES)
    status = 200
    try:
        if theirs_file is not None and theirs_file.filename:
            theirs = ctx["theirs"] = await read_upload_text(request, theirs_file)
        if not theirs.strip():
            raise ValueError("paste (or upload) what your implementation produced")
        size = _whole(vocab_size, "vocab_size")
        ref = store_corpus(request, corpus_text) if corpus_text.strip() else corpus
        options = _options(size, algorithm, {"pattern": pattern,
                                             "min_frequency": _whole(min_frequency, "min_frequency")})
        # training the reference takes a while (or waits for the job pool): not on the loop
        ctx["report"], ctx["links"] = await run_in_threadpool(
            run_check, request, algorithm, ref, theirs, size, kind, text, pieces, options)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "check.html", ctx, block="report", status_code=status)


def _whole(value: str, name: str) -> int:
    try:
        return int(str(value).strip() or 0)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {value!r}") from None

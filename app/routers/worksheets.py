"""Printable worksheets (`/worksheet/bpe`): a range of BPE training steps as blank tables to fill
in by hand (the pair counts, the merge, the new word table) and, at `key=1`, the answer key.

Every value comes from the same training session the step-through view reads
(`bpe_explore.training_session`); the print stylesheet (static/app.css, `@page a4` / `letter`)
lays the sheet out on A4 or US Letter.
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from tokenizers_core.corpora import corpus_names
from tokenizers_core.models.bpe_explore import VARIANTS, training_session

from ..deps import BAD_INPUT, bad_input, store
from ..render import render
from ..trained import corpus_text as corpus_by_ref

router = APIRouter(tags=["worksheets"])

TEXTBOOK = ("low low low low low\nlower lower\nnewest newest newest newest newest newest\n"
            "widest widest widest\n")
PAPERS = ("a4", "letter")
MAX_STEPS = 8
MAX_WORDS = 40
PAIR_ROWS = 8


def worksheet(text: str, variant: str, vocab_size: int, start: int, end: int,
              options: dict[str, Any]) -> dict[str, Any]:
    """The sheet for merges start..end (1-based, inclusive): the word table before `start`, and
    per merge the pair table, the merge and the word table after it."""
    if end < start:
        raise ValueError(f"the range {start}–{end} is empty: 'end' must be at least 'start'")
    if end - start + 1 > MAX_STEPS:
        raise ValueError(f"a worksheet holds at most {MAX_STEPS} merges; "
                         f"{start}–{end} is {end - start + 1}")
    session = training_session(text, variant, vocab_size, **options)
    n_words = len(session.order)
    if n_words > MAX_WORDS:
        raise ValueError(f"this corpus has {n_words:,} distinct words; a worksheet to fill in by "
                         f"hand takes at most {MAX_WORDS} (paste a smaller corpus)")
    total = session.total_steps()
    if start < 1 or end > total:
        raise ValueError(f"this run makes {total} merges: choose a range within 1–{total}")
    show = session.show

    def table(k: int) -> list[dict[str, Any]]:
        rows, _ = session.word_rows(k, 0, MAX_WORDS)
        return [{"word": r.word, "count": r.count, "symbols": [show(s) for s in r.segments],
                 "changed": r.changed} for r in rows]

    steps = []
    for k in range(start, end + 1):
        merge = session.step(k)
        steps.append({
            "k": k,
            "pairs": [[show(a), show(b), c] for a, b, c in session.pair_table(k)][:PAIR_ROWS],
            "pair": [show(p) for p in merge.pair], "new": show(merge.new_symbol),
            "count": merge.count, "tied": [[show(a), show(b)] for a, b in merge.tied or ()],
            "words": table(k),
        })
    return {"given": table(start - 1), "steps": steps, "total": total, "rule": session.rule,
            "end_of_word": variant == "bpe", "n_words": n_words}


@router.get("/worksheet/bpe", response_class=HTMLResponse,
            summary="A printable BPE training worksheet (and its answer key)")
def bpe_worksheet(request: Request, corpus: str = "", variant: str = "bpe", vocab_size: int = 24,
                  pattern: str = "gpt2", start: int = 1, end: int = 3, paper: str = "a4",
                  key: bool = False) -> HTMLResponse:
    params = {"corpus": corpus or None, "variant": variant, "vocab_size": vocab_size,
              "pattern": pattern if variant == "byte_bpe" else None, "start": start, "end": end,
              "paper": paper}
    ctx: dict[str, Any] = {"params": params, "corpus": corpus, "variant": variant,
                           "vocab_size": vocab_size, "pattern": pattern, "start": start,
                           "end": end, "paper": paper, "key": key, "variants": VARIANTS,
                           "papers": PAPERS, "bundled": corpus_names(), "error": None,
                           "sheet": None}
    status = 200
    try:
        if paper not in PAPERS:
            raise ValueError(f"paper must be one of {', '.join(PAPERS)}, not {paper!r}")
        if variant not in VARIANTS:
            raise ValueError(f"unknown BPE variant {variant!r}; choose one of: {', '.join(VARIANTS)}")
        if not 1 <= vocab_size <= 5000:
            raise ValueError("vocab_size must be between 1 and 5,000 for a worksheet")
        text = TEXTBOOK if not corpus else corpus_by_ref(store(request), corpus)
        options = {"pattern": pattern} if variant == "byte_bpe" else {}
        ctx["sheet"] = worksheet(text, variant, vocab_size, start, end, options)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "worksheet.html", ctx, status_code=status)

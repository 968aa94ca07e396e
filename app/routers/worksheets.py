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

from typing import Any, Callable

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from ..deps import StateDep
from ..render import render
from ..services.tokenizers import check_step_text, resolve_tokenizer
from ..views import worksheets as W
from ..views.common import in_place, training_text, unigram_model, wordpiece_tokenizer
from ..views.unigram_lattice import DEFAULT_TEXT as LATTICE_TEXT
from ..views.unigram_train import check_vocab_size
from ..views.wordpiece_encode import DEFAULT_TEXT as WP_TEXT
from ..views.wordpiece_encode import SMALL_VOCAB

router = APIRouter(tags=["worksheets"])
PAPERS = W.PAPERS


def _sheet(
    request: Request, template: str, ctx: dict[str, Any], build: Callable[[], dict[str, Any]]
) -> HTMLResponse:
    """Render a worksheet page: `build()` makes the sheet (after the paper is checked); bad input
    is shown in place of the sheet, under the form."""
    ctx.update(error=None, sheet=None, papers=PAPERS)

    def checked() -> dict[str, Any]:
        W.check_paper(ctx["paper"])
        return {"sheet": build()}

    status = in_place(ctx, checked)
    return render(request, template, ctx, status_code=status)


@router.get(
    "/worksheet/bpe",
    response_class=HTMLResponse,
    summary="A printable BPE training worksheet (and its answer key)",
)
def bpe_worksheet(
    request: Request,
    state: StateDep,
    corpus: str = "",
    variant: str = "bpe",
    vocab_size: int | None = Query(
        None, description="blank: the corpus's starting symbols and 12 merges (textbook: 24)"
    ),
    pattern: str = "gpt2",
    start: int = 1,
    end: int = 3,
    paper: str = "a4",
    key: bool = False,
) -> HTMLResponse:
    def build() -> dict[str, Any]:
        return W.worksheet(
            training_text(state, corpus, W.TEXTBOOK),
            variant,
            vocab_size,
            start,
            end,
            {"pattern": pattern} if variant == "byte_bpe" else {},
        )

    ctx = W.bpe_form(corpus, variant, vocab_size, pattern, start, end, paper, key)
    return _sheet(request, "worksheet.html", ctx, build)


@router.get(
    "/worksheet/wordpiece",
    response_class=HTMLResponse,
    summary="A printable WordPiece training worksheet (and its answer key)",
)
def wordpiece_sheet(
    request: Request,
    state: StateDep,
    corpus: str = "",
    vocab_size: int = 40,
    start: int = 1,
    end: int = 3,
    paper: str = "a4",
    key: bool = False,
) -> HTMLResponse:
    def build() -> dict[str, Any]:
        W.check_vocab(vocab_size)
        return W.wordpiece_worksheet(
            training_text(state, corpus, W.TEXTBOOK), vocab_size, start, end
        )

    ctx = W.wordpiece_form(corpus, vocab_size, start, end, paper, key)
    return _sheet(request, "worksheet.html", ctx, build)


@router.get(
    "/worksheet/bpe_encode",
    response_class=HTMLResponse,
    summary="A printable BPE encoding worksheet (and its answer key)",
)
def bpe_encode_sheet(
    request: Request,
    state: StateDep,
    tokenizer: str = "gpt2",
    text: str = "lowest newer",
    paper: str = "a4",
    key: bool = False,
) -> HTMLResponse:
    ctx = W.bpe_encode_form(tokenizer, text, paper, key)

    def build() -> dict[str, Any]:
        check_step_text(state, text, in_form=True)
        return W.bpe_encode_worksheet(resolve_tokenizer(state, ctx["tokenizer"]), text)

    return _sheet(request, "worksheet_bpe_encode.html", ctx, build)


@router.get(
    "/worksheet/wordpiece_encode",
    response_class=HTMLResponse,
    summary="A printable WordPiece encoding worksheet (and its answer key)",
)
def wordpiece_encode_sheet(
    request: Request,
    state: StateDep,
    text: str = WP_TEXT,
    vocab: str = "small",
    vocab_text: str = SMALL_VOCAB,
    paper: str = "a4",
    key: bool = False,
) -> HTMLResponse:
    def build() -> dict[str, Any]:
        check_step_text(state, text, in_form=True)
        return W.wordpiece_encode_worksheet(wordpiece_tokenizer(state, vocab, vocab_text), text)

    ctx = W.wordpiece_encode_form(text, vocab, vocab_text, paper, key)
    return _sheet(request, "worksheet_wordpiece_encode.html", ctx, build)


@router.get(
    "/worksheet/unigram_lattice",
    response_class=HTMLResponse,
    summary="A printable Unigram lattice (Viterbi) worksheet (and its answer key)",
)
def lattice_sheet(
    request: Request,
    state: StateDep,
    model: str = "tiny",
    text: str = LATTICE_TEXT,
    paper: str = "a4",
    key: bool = False,
) -> HTMLResponse:
    def build() -> dict[str, Any]:
        check_step_text(state, text, in_form=True)
        return W.lattice_worksheet(unigram_model(state, model), text)

    ctx = W.lattice_form(model, text, paper, key)
    return _sheet(request, "worksheet_unigram_lattice.html", ctx, build)


@router.get(
    "/worksheet/unigram_train",
    response_class=HTMLResponse,
    summary="A printable Unigram training worksheet (and its answer key)",
)
def unigram_train_sheet(
    request: Request,
    state: StateDep,
    corpus: str = "",
    vocab_size: int = 30,
    start: int = 1,
    end: int = 3,
    paper: str = "a4",
    key: bool = False,
) -> HTMLResponse:
    def build() -> dict[str, Any]:
        check_vocab_size(vocab_size, W.MAX_VOCAB, " for a worksheet")
        return W.unigram_train_worksheet(
            training_text(state, corpus, W.UNIGRAM_CORPUS), vocab_size, start, end
        )

    ctx = W.unigram_train_form(corpus, vocab_size, start, end, paper, key)
    return _sheet(request, "worksheet_unigram_train.html", ctx, build)

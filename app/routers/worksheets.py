"""Printable worksheets (`/worksheet/bpe`, `/worksheet/wordpiece`): a range of training steps
as blank tables to fill in by hand (the pair counts, the merge, the new word table) and, at
`key=1`, the answer key. Likewise `/worksheet/unigram_train` (EM + pruning rounds),
`/worksheet/bpe_encode` (each word's ranked candidate pairs, the merge, the parts after),
`/worksheet/wordpiece_encode` (the longest-match probes) and `/worksheet/unigram_lattice`
(best[i] and back[i] per end position, then the best path).

Every sheet is drawn by `app.views.worksheets` from the same state the step-through views
read; the print stylesheet (static/app.css, `@page a4` / `letter`) lays it out on A4 or US
Letter.

The sheets are one table, `WORKSHEETS`, and one loop that registers them: a row names the
path, the route's name (its OpenAPI operation id), the summary, the template, the form (the
view's dependency that takes the sheet's query parameters) and the function that draws the
sheet from the form's values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from ..deps import StateDep
from ..render import render
from ..services.tokenizers import check_step_text, resolve_tokenizer
from ..state import AppState
from ..views import worksheets
from ..views.common import in_place, training_text, unigram_model, wordpiece_tokenizer
from ..views.unigram_train import check_vocab_size

router = APIRouter(tags=["worksheets"])
PAPERS = worksheets.PAPERS


def _sheet(
    request: Request, template: str, ctx: dict[str, Any], build: Callable[[], dict[str, Any]]
) -> HTMLResponse:
    """Render a worksheet page: `build()` makes the sheet (after the paper is checked); bad input
    is shown in place of the sheet, under the form."""
    ctx.update(error=None, sheet=None, papers=PAPERS)

    def checked() -> dict[str, Any]:
        worksheets.check_paper(ctx["paper"])
        return {"sheet": build()}

    status = in_place(ctx, checked)
    return render(request, template, ctx, status_code=status)


# ---- each sheet, from its form's values ----------------------------------------------------------
def _bpe(state: AppState, form: dict[str, Any]) -> dict[str, Any]:
    return worksheets.worksheet(
        training_text(state, form["corpus"], worksheets.TEXTBOOK),
        form["variant"],
        form["vocab_size"],
        form["start"],
        form["end"],
        {"pattern": form["pattern"]} if form["variant"] == "byte_bpe" else {},
    )


def _wordpiece(state: AppState, form: dict[str, Any]) -> dict[str, Any]:
    worksheets.check_vocab(form["vocab_size"])
    return worksheets.wordpiece_worksheet(
        training_text(state, form["corpus"], worksheets.TEXTBOOK),
        form["vocab_size"],
        form["start"],
        form["end"],
    )


def _bpe_encode(state: AppState, form: dict[str, Any]) -> dict[str, Any]:
    check_step_text(state, form["text"], in_form=True)
    tok = resolve_tokenizer(state, form["tokenizer"])
    return worksheets.bpe_encode_worksheet(tok, form["text"])


def _wordpiece_encode(state: AppState, form: dict[str, Any]) -> dict[str, Any]:
    check_step_text(state, form["text"], in_form=True)
    tok = wordpiece_tokenizer(state, form["tokenizer"], form["vocab_text"])
    return worksheets.wordpiece_encode_worksheet(tok, form["text"])


def _lattice(state: AppState, form: dict[str, Any]) -> dict[str, Any]:
    check_step_text(state, form["text"], in_form=True)
    return worksheets.lattice_worksheet(unigram_model(state, form["tokenizer"]), form["text"])


def _unigram_train(state: AppState, form: dict[str, Any]) -> dict[str, Any]:
    check_vocab_size(form["vocab_size"], worksheets.MAX_VOCAB, " for a worksheet")
    return worksheets.unigram_train_worksheet(
        training_text(state, form["corpus"], worksheets.UNIGRAM_CORPUS),
        form["vocab_size"],
        form["start"],
        form["end"],
    )


# ---- the sheets ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Worksheet:
    """One printable sheet: its page at `path`, drawn into `template` by `build` from the
    values of `form` (the form above the sheet, a dependency taking its query parameters)."""

    path: str
    name: str  # the route's name, and so its OpenAPI operation id
    summary: str
    template: str
    form: Callable[..., dict[str, Any]]
    build: Callable[[AppState, dict[str, Any]], dict[str, Any]]

    def endpoint(self) -> Callable[..., HTMLResponse]:
        # no docstring: a sheet's OpenAPI entry is its summary alone
        def sheet(
            request: Request, state: StateDep, form: dict = Depends(self.form)
        ) -> HTMLResponse:
            return _sheet(request, self.template, form, lambda: self.build(state, form))

        return sheet


WORKSHEETS = (
    Worksheet(
        "/worksheet/bpe",
        "bpe_worksheet",
        "A printable BPE training worksheet (and its answer key)",
        "worksheet.html",
        worksheets.bpe_form,
        _bpe,
    ),
    Worksheet(
        "/worksheet/wordpiece",
        "wordpiece_sheet",
        "A printable WordPiece training worksheet (and its answer key)",
        "worksheet.html",
        worksheets.wordpiece_form,
        _wordpiece,
    ),
    Worksheet(
        "/worksheet/bpe_encode",
        "bpe_encode_sheet",
        "A printable BPE encoding worksheet (and its answer key)",
        "worksheet_bpe_encode.html",
        worksheets.bpe_encode_form,
        _bpe_encode,
    ),
    Worksheet(
        "/worksheet/wordpiece_encode",
        "wordpiece_encode_sheet",
        "A printable WordPiece encoding worksheet (and its answer key)",
        "worksheet_wordpiece_encode.html",
        worksheets.wordpiece_encode_form,
        _wordpiece_encode,
    ),
    Worksheet(
        "/worksheet/unigram_lattice",
        "lattice_sheet",
        "A printable Unigram lattice (Viterbi) worksheet (and its answer key)",
        "worksheet_unigram_lattice.html",
        worksheets.lattice_form,
        _lattice,
    ),
    Worksheet(
        "/worksheet/unigram_train",
        "unigram_train_sheet",
        "A printable Unigram training worksheet (and its answer key)",
        "worksheet_unigram_train.html",
        worksheets.unigram_train_form,
        _unigram_train,
    ),
)

for worksheet in WORKSHEETS:
    router.add_api_route(
        worksheet.path,
        worksheet.endpoint(),
        methods=["GET"],
        name=worksheet.name,
        response_class=HTMLResponse,
        summary=worksheet.summary,
    )

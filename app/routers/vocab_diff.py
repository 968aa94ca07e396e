"""The vocabulary diff (`/vocab/diff`, `GET /api/vocab/diff`): two tokenisers' vocabularies
compared by the bytes their tokens stand for, how far their ids agree, and the words of a
corpus they split differently."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from tokenizers_core.corpora import corpus_names
from tokenizers_core.errors import InvalidInput

from ..deps import Name, StateDep, bounded
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services import vocab_diff
from ..services.tokenizers import tokenizer_label, tokenizer_options

router = APIRouter(tags=["vocab"])


@router.get("/vocab/diff", response_class=HTMLResponse, summary="How two vocabularies differ")
def vocab_diff_page(
    request: Request,
    state: StateDep,
    a: str = vocab_diff.DEFAULT_A,
    b: str = vocab_diff.DEFAULT_B,
    corpus: str = "",
    which: str = Query("shared", alias="list"),
    page: int = bounded(0, 0),
) -> HTMLResponse:
    """`corpus`: a bundled or stored corpus whose words the two split differently (none: no
    words); `list`: the entries listed ("shared", "only_a", "only_b"); `page`: its page
    (0-based)."""
    params = {"a": a, "b": b, "corpus": corpus or None, "list": which}
    label_a, label_b = tokenizer_label(state, a), tokenizer_label(state, b)
    ctx: dict[str, Any] = {
        "a": a,
        "b": b,
        "corpus": corpus,
        "which": which,
        "lists": vocab_diff.LISTS,
        "params": params,
        "label_a": label_a,
        "label_b": label_b,
        "options_a": tokenizer_options(state, a),
        "options_b": tokenizer_options(state, b),
        "corpora": corpus_names(),
        "error": None,
        "diff": None,
        "max_chars": vocab_diff.MAX_SPLIT_CHARS,
    }
    status = 200
    try:
        diff, text = vocab_diff.diff_of(state, a, b, corpus)
        rows, page, pages = vocab_diff.list_rows(diff, which, page)
        ctx.update(
            diff=diff,
            text=text,
            rows=rows,
            page=page,
            pages=pages,
            words=vocab_diff.word_rows(diff.corpus),
            part_a=vocab_diff.shown_or_none(diff.ranks.part_a),
            part_b=vocab_diff.shown_or_none(diff.ranks.part_b),
            chart=vocab_diff.rank_chart(diff),
        )
    except BAD_INPUT as exc:  # shown in place, the form kept
        ctx["error"], status = bad_input(exc)
    return render(request, "vocab_diff.html", ctx, block="results", status_code=status)


@router.get("/api/vocab/diff", tags=["api"], summary="How two vocabularies differ (JSON)")
def vocab_diff_api(
    state: StateDep,
    a: Name,
    b: Name,
    corpus: str = "",
    limit: int = bounded(100, 0, 5000),
    offset: int = bounded(0, 0),
) -> dict[str, Any]:
    """Counts of shared tokens and of tokens only in A or only in B (compared by bytes: `bytes`
    is hex; `marker` is "continues" for a WordPiece `##` piece, "ends" for a `</w>` one,
    "special" for a special token), the agreement of their ids (`same_id`, `in_order`: the
    longest chain of shared tokens numbered in the same order, `prefix`: ids below it hold the
    same token in both, `part_a`/`part_b`: the entries where they part), `limit` entries
    of each list from the `offset`-th on and, with `corpus`, the words the two split
    differently (most frequent first, paged the same way; `cut`: the corpus length when only
    its first 100,000 characters were split)."""
    if not 0 <= limit <= 5000:
        raise InvalidInput(f"limit must be between 0 and 5000, not {limit}")
    if offset < 0:
        raise InvalidInput(f"offset must be 0 or more, not {offset}")
    diff, text = vocab_diff.diff_of(state, a, b, corpus)
    return vocab_diff.api_answer(diff, text, limit, offset)

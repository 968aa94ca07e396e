"""The vocabulary diff's data (`/vocab/diff`, `GET /api/vocab/diff`): two tokenisers' vocabularies
compared by bytes (`tokenizers_core.audit.vocab_diff`), one list of entries a page, the chart of
rank in A against rank in B, and the words of a corpus the two split differently.

Comparing two 200k vocabularies takes a second or two, so the last two diffs are kept (by the
two names: bundled names, and upload and trained handles, name one tokeniser for good) and
paging through a list costs nothing. The corpus is cut at MAX_SPLIT_CHARS characters (at a
line end) and the page says so: the sentencepiece encoders take about 3 s for 100,000.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from tokenizers_core import load
from tokenizers_core.audit.token_bytes import TokenEntry
from tokenizers_core.audit.vocab_diff import CorpusSplits, VocabDiff, corpus_splits, vocab_diff
from tokenizers_core.errors import InvalidInput

from .. import display
from ..charts import nice_step
from ..lru import LRU
from ..state import AppState
from ..trained import corpus_text
from .tokenizers import resolve_tokenizer

DEFAULT_A, DEFAULT_B = "cl100k_base", "o200k_base"
LISTS = {"shared": "shared", "only_a": "only in A", "only_b": "only in B"}
PAGE = 50
WORDS_SHOWN = 40
MAX_SPLIT_CHARS = 100_000


_diffs: LRU[tuple[str, ...], Any] = LRU(2)  # a diff of two 200k vocabularies: ~60 MB
_splits: LRU[tuple[str, ...], Any] = LRU(6)


@dataclass(frozen=True)
class Corpus:
    text: str
    cut: int | None  # the corpus length in characters, when it was cut


def corpus_of(state: AppState, corpus: str) -> Corpus:
    """A bundled or stored corpus, cut at MAX_SPLIT_CHARS characters (at a line end).
    NotFound for an unknown one."""
    full = corpus_text(state.store, corpus)
    if len(full) <= MAX_SPLIT_CHARS:
        return Corpus(full, None)
    end = full.rfind("\n", 0, MAX_SPLIT_CHARS) + 1 or MAX_SPLIT_CHARS
    return Corpus(full[:end], len(full))


def diff_of(state: AppState, a: str, b: str, corpus: str = "") -> tuple[VocabDiff, Corpus | None]:
    """The diff of tokenisers `a` and `b` (and, with `corpus`, their splits of it). Raises
    NotFound for an unknown name or corpus, InvalidInput for a tokeniser without a
    vocabulary."""
    tok_a, tok_b = resolve_tokenizer(state, a), resolve_tokenizer(state, b)
    diff = _diffs.get_or_make((a, b), lambda: vocab_diff(tok_a, tok_b))
    if not corpus:
        return diff, None
    text = corpus_of(state, corpus)
    splits: CorpusSplits = _splits.get_or_make(
        (a, b, corpus), lambda: corpus_splits(tok_a, tok_b, text.text)
    )
    return dataclasses.replace(diff, corpus=splits), text


def warm_default() -> None:
    """The page's default diff, made ahead of its first visit (app/warmup.py)."""
    _diffs.get_or_make((DEFAULT_A, DEFAULT_B), lambda: vocab_diff(load(DEFAULT_A), load(DEFAULT_B)))


# ---- the page -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shown:
    """An entry as the page draws it: its label (bytes as text, `<E3 81>` for partial UTF-8,
    whitespace visible) and its hex bytes."""

    id: int
    token: str
    label: str
    hex: str
    marker: str
    special: bool


def shown(e: TokenEntry) -> Shown:
    label = e.token if e.special else display.token_label(e.data)
    return Shown(e.id, e.token, label, display.hex_bytes(e.data), e.marker, e.special)


def shown_or_none(e: TokenEntry | None) -> Shown | None:
    return None if e is None else shown(e)


def list_rows(diff: VocabDiff, which: str, page: int) -> tuple[list[Any], int, int]:
    """One page (0-based, clamped) of a list ("shared", "only_a", "only_b"): rows, the page,
    and the number of pages. ValueError for an unknown list or a negative page."""
    if which not in LISTS:
        raise InvalidInput(f"unknown list {which!r}: use one of {', '.join(LISTS)}")
    if page < 0:
        raise InvalidInput("page must be 0 or more")
    items = {"shared": diff.shared, "only_a": diff.only_a, "only_b": diff.only_b}[which]
    pages = max(1, -(-len(items) // PAGE))
    page = min(page, pages - 1)
    chunk = items[page * PAGE : (page + 1) * PAGE]
    if which == "shared":
        return [(shown(s.a), shown(s.b)) for s in chunk], page, pages
    return [shown(e) for e in chunk], page, pages


def word_rows(splits: CorpusSplits | None) -> list[dict[str, Any]]:
    """The most frequent differing words, each split as chips' labels."""
    if splits is None:
        return []
    return [
        {
            "word": w.word,
            "count": w.count,
            "a": [shown(e) for e in w.a],
            "b": [shown(e) for e in w.b],
        }
        for w in splits.differing[:WORDS_SHOWN]
    ]


# ---- the chart: rank in A against rank in B ------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    x: float
    y: float
    size: float
    level: int  # 1..5: how many shared tokens fall here, on a log scale
    count: int
    a_range: tuple[int, int]
    b_range: tuple[int, int]


@dataclass(frozen=True)
class RankChart:
    width: float
    height: float
    left: float
    top: float
    plot: float
    cells: list[Cell]
    x_ticks: list[tuple[float, str]]
    y_ticks: list[tuple[float, str]]
    diagonal: tuple[float, float, float, float]  # where id in A = id in B
    x_label: str
    y_label: str


def rank_chart(diff: VocabDiff, bins: int = 40) -> RankChart | None:
    """A grid of `bins` x `bins` cells over the ids of A (across) and of B (up): each cell
    shaded by how many shared tokens have their ids there, and the line where the two ids are
    equal. None when nothing is shared."""
    if not diff.shared:
        return None
    left, top, plot = 70.0, 12.0, 360.0
    span_a = max(s.a.id for s in diff.shared) + 1
    span_b = max(s.b.id for s in diff.shared) + 1
    counts: dict[tuple[int, int], int] = {}
    for s in diff.shared:
        key = (s.a.id * bins // span_a, s.b.id * bins // span_b)
        counts[key] = counts.get(key, 0) + 1
    top_count = max(counts.values())
    size = plot / bins
    cells = [
        Cell(
            left + i * size,
            top + plot - (j + 1) * size,
            size,
            1 + int(4 * math.log1p(n) / math.log1p(top_count)) if top_count > 1 else 5,
            n,
            _cell_ids(i, span_a, bins),
            _cell_ids(j, span_b, bins),
        )
        for (i, j), n in sorted(counts.items())
    ]
    same = min(span_a, span_b)
    diagonal = (left, top + plot, left + plot * same / span_a, top + plot - plot * same / span_b)
    return RankChart(
        plot + left + 20,
        plot + top + 52,
        left,
        top,
        plot,
        cells,
        _ticks(span_a, lambda v: left + plot * v / span_a),
        _ticks(span_b, lambda v: top + plot - plot * v / span_b),
        diagonal,
        "id in A",
        "id in B",
    )


def _cell_ids(i: int, span: int, bins: int) -> tuple[int, int]:
    """The first and last id that fall in cell `i` of `bins` over ids 0..span-1 (those with
    `id * bins // span == i`); for fewer ids than cells, the one id of the cell.

    >>> _cell_ids(0, 100, 40), _cell_ids(1, 100, 40), _cell_ids(20, 2, 40)
    ((0, 2), (3, 4), (1, 1))
    """
    return -(-i * span // bins), -(-(i + 1) * span // bins) - 1


def _ticks(span: int, at) -> list[tuple[float, str]]:
    """Ticks at round ids from 0 to `span`, about four of them (one per id when there are
    fewer: a step under 1 would be 0)."""
    step = max(1, int(nice_step(span / 4)))
    return [(at(v), f"{v // 1000:,}k" if v >= 1000 else str(v)) for v in range(0, span + 1, step)]


# ---- the JSON answer ----------------------------------------------------------------------------


def api_answer(diff: VocabDiff, text: Corpus | None, limit: int, offset: int) -> dict[str, Any]:
    data = diff.to_dict(limit, offset)
    if data["corpus"] is not None and text is not None:
        data["corpus"]["cut"] = text.cut
    return data

"""The numbers audit's data (`/audit/numbers`): a tokeniser's `NumberReport` (kept for the last
few tokenisers asked for: 10,000 encodings take a fraction of a second, but a page, its fragment
and its JSON often come together), the heatmap's geometry and the formats' chips."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import tokenizers_core as tc
from tokenizers_core.audit.numbers import NumberReport, number_report
from tokenizers_core.errors import InvalidInput

from .. import display
from ..lru import LRU
from ..state import AppState
from .tokenizers import REGEX, resolve_tokenizer

COLUMNS = 100  # the heatmap: row r holds r*100 .. r*100+99
MAX_BAND = 6  # counts of 6 tokens or more share the darkest colour
KEPT = 8

_kept: LRU[str, NumberReport] = LRU(KEPT)


@dataclass(frozen=True)
class HeatLayer:
    """All the integers that take `count` tokens, drawn as one SVG path of runs."""

    count: int
    band: int  # the colour class: 1 .. MAX_BAND
    numbers: int  # how many integers take this many tokens
    first: int  # the smallest of them
    path: str  # "M x y h w v 1 h -w z" for each run of a row


def heatmap(counts: tuple[int, ...] | list[int]) -> list[HeatLayer]:
    """One layer per token count: each row's runs of equal counts as a path (cells are 1x1).

    >>> [(l.count, l.numbers, l.first, l.path) for l in heatmap([1, 1, 2])]
    [(1, 2, 0, 'M0 0h2v1h-2z'), (2, 1, 2, 'M2 0h1v1h-1z')]
    """
    runs: dict[int, list[str]] = {}
    numbers: dict[int, int] = {}
    first: dict[int, int] = {}
    for row_start in range(0, len(counts), COLUMNS):
        row = counts[row_start : row_start + COLUMNS]
        x = 0
        while x < len(row):
            end = x
            while end < len(row) and row[end] == row[x]:
                end += 1
            c = row[x]
            runs.setdefault(c, []).append(f"M{x} {row_start // COLUMNS}h{end - x}v1h-{end - x}z")
            numbers[c] = numbers.get(c, 0) + end - x
            first.setdefault(c, row_start + x)
            x = end
    return [
        HeatLayer(c, min(max(c, 1), MAX_BAND), numbers[c], first[c], "".join(runs[c]))
        for c in sorted(runs)
    ]


def report_for(state: AppState, name: str) -> tuple[tc.Tokenizer, NumberReport]:
    """The tokeniser `name` and its numbers (computed once, kept for the last few names)."""
    if name == REGEX:
        raise InvalidInput(
            "the numbers audit needs a tokeniser with a vocabulary; the custom "
            "regex tokeniser has none"
        )
    tok = resolve_tokenizer(state, name)
    return tok, _kept.get_or_make(name, lambda: number_report(tok))


def numbers_view(state: AppState, name: str) -> dict[str, Any]:
    """What the page and its fragment draw."""
    tok, report = report_for(state, name)
    formats = []
    for row in report.formats:
        enc = tok.encode(row.text)
        chips = [c for c in display.chips(tok, row.text, enc, links=False) if not c.special]
        formats.append(
            {"label": row.label, "text": row.text, "count": len(row.ids), "chips": chips}
        )
    return {
        "report": report,
        "grouping": report.grouping,
        "layers": heatmap(report.counts),
        "rows": len(report.counts) // COLUMNS,
        "formats": formats,
    }

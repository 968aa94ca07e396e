"""Chart geometry for the server-rendered SVG charts: numbers in, coordinates out.

No SVG or HTML is built here; the templates draw from these values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Bar:
    label: str
    note: str
    value: float
    y: float
    width: float


@dataclass(frozen=True)
class BarChart:
    bars: list[Bar]
    width: float
    height: float
    label_width: float
    plot_width: float
    ticks: list[tuple[float, str]]  # (x, label)
    bar_height: float
    reference_x: float | None  # where value 1.0 falls (the English baseline)


def bar_chart(
    rows: list[tuple[str, str, float]],
    *,
    width: float = 860,
    bar_height: float = 16,
    gap: float = 5,
    label_width: float = 330,
) -> BarChart:
    """Horizontal bars sorted by value, largest first. rows: (label, note, value)."""
    rows = sorted(rows, key=lambda r: -r[2])
    top = max((v for _, _, v in rows), default=1.0) or 1.0
    plot = width - label_width - 60
    bars = [
        Bar(label, note, v, 24 + i * (bar_height + gap), plot * v / top)
        for i, (label, note, v) in enumerate(rows)
    ]
    height = 24 + len(rows) * (bar_height + gap) + 28
    step = nice_step(top / 5)
    ticks = [(label_width + plot * t / top, f"{t:g}") for t in _frange(0, top + 1e-9, step)]
    ref = label_width + plot * 1.0 / top if top >= 1.0 else None
    return BarChart(bars, width, height, label_width, plot, ticks, bar_height, ref)


@dataclass(frozen=True)
class Series:
    name: str
    colour: int
    points: list[tuple[float, float, float, float]]  # (x_px, y_px, x_value, y_value)
    path: str = field(default="")


@dataclass(frozen=True)
class LineChart:
    series: list[Series]
    width: float
    height: float
    left: float
    top: float
    plot_width: float
    plot_height: float
    x_ticks: list[tuple[float, str]]
    y_ticks: list[tuple[float, str]]
    x_label: str
    y_label: str


def line_chart(
    series: dict[str, list[tuple[float, float]]],
    *,
    x_label: str,
    y_label: str,
    width: float = 760,
    height: float = 380,
    log_x: bool = True,
) -> LineChart:
    """Lines through (x, y) points, x on a log scale (vocab sizes), y from zero."""
    left, top, right, bottom = 64.0, 16.0, 20.0, 48.0
    pw, ph = width - left - right, height - top - bottom
    xs = [x for pts in series.values() for x, _ in pts if x > 0]
    ys = [y for pts in series.values() for _, y in pts]
    x0, x1 = (min(xs), max(xs)) if xs else (1.0, 10.0)
    if x0 == x1:
        x0, x1 = x0 / 2, x1 * 2
    y1 = max(ys) if ys else 1.0
    ystep = nice_step((y1 or 1.0) / 5)
    y1 = math.ceil((y1 or 1.0) / ystep) * ystep

    def fx(x: float) -> float:
        if log_x:
            return left + pw * (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0))
        return left + pw * (x - x0) / (x1 - x0)

    def fy(y: float) -> float:
        return top + ph * (1 - y / y1)

    out = []
    for i, (name, pts) in enumerate(series.items()):
        coords = [(fx(x), fy(y), x, y) for x, y in sorted(pts) if x > 0]
        path = " ".join(
            f"{'M' if j == 0 else 'L'}{cx:.1f},{cy:.1f}" for j, (cx, cy, _, _) in enumerate(coords)
        )
        out.append(Series(name, i % 8, coords, path))
    x_values = sorted({x for x in xs})
    x_ticks = spaced_ticks([(fx(x), f"{x:g}") for x in x_values])
    y_ticks = [(fy(y), f"{y:g}") for y in _frange(0, y1 + 1e-9, ystep)]
    return LineChart(out, width, height, left, top, pw, ph, x_ticks, y_ticks, x_label, y_label)


MIN_TICK_GAP = 44.0  # px between the centres of two x labels (a 5-digit label is ~40 px)


def spaced_ticks(
    ticks: list[tuple[float, str]], gap: float = MIN_TICK_GAP
) -> list[tuple[float, str]]:
    """Ticks (x, label), sorted by x, thinned so that no two labels overlap: the first and the
    last are kept, and a tick closer than `gap` to the one kept before it is dropped.

    >>> [label for _, label in spaced_ticks([(0, "300"), (20, "330"), (50, "370"), (100, "498"),
    ...                                      (700, "1980")])]
    ['300', '370', '498', '1980']
    """
    kept: list[tuple[float, str]] = []
    for i, (x, label) in enumerate(ticks):
        if kept and x - kept[-1][0] < gap:
            if i < len(ticks) - 1 or len(kept) == 1:
                continue
            kept.pop()  # the last tick wins over the one just before it
        kept.append((x, label))
    return kept


def nice_step(raw: float) -> float:
    """A round step (1, 2 or 5 times a power of ten) near `raw`.

    >>> nice_step(0.37), nice_step(3.2), nice_step(70)
    (0.5, 5.0, 100.0)
    """
    if raw <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * power:
            return float(m * power)
    return float(10 * power)


def _frange(start: float, stop: float, step: float) -> list[float]:
    n = int((stop - start) / step + 1e-9) + 1
    return [round(start + i * step, 10) for i in range(n)]

"""The space of tokenisations (`/tokenizations`, `GET /api/tokenizations`, `POST /api/canonical`,
`GET /api/heal`): every token sequence that decodes to a text, the one `encode` gives, and
where a sequence stops being that one.

The core (`tokenizers_core.tokenizations`) does the work; this module reads the form, bounds
what is drawn and shapes the values the page and the API answer.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from tokenizers_core.errors import InvalidInput
from tokenizers_core.tokenizations import (
    MAX_K,
    MAX_SAMPLES,
    MAX_TEXT_BYTES,
    CanonicalBreak,
    Lattice,
    Tokenizations,
    heal,
    is_canonical,
    tokenizations,
)

from ..state import AppState
from .specials import dropped_ids, parse_ids
from .tokenizers import check_text, resolve_tokenizer

DEFAULT_TOKENIZER = "cl100k_base"
DEFAULT_TEXT = "unbelievable tokenization"
DEFAULT_PROMPT = "The quick brown fox jumps over the la"
DRAWN_UNITS = 64  # the lattice is drawn over at most this many units (bytes or characters)
PAGE_SEQUENCES = 10  # sequences of each kind shown on the page
CELL, LEFT = 30, 24  # the drawing's column width and margin, in px
CURVE_POINTS = 48  # points of the "how the count grows" curve
EXACT_DIGITS = 40  # a count of more digits is written as a power of ten on the page

__all__ = [
    "DEFAULT_PROMPT",
    "DEFAULT_TEXT",
    "DEFAULT_TOKENIZER",
    "MAX_K",
    "MAX_SAMPLES",
    "MAX_TEXT_BYTES",
    "api_canonical",
    "api_heal",
    "api_space",
    "page",
]


# ---- the API ---------------------------------------------------------------------------------
def api_space(
    state: AppState, name: str, text: str, k: int, samples: int, seed: int | None
) -> bytes:
    """`GET /api/tokenizations`'s answer as JSON text: the count as a decimal string (it may
    have hundreds of digits), its log10, the canonical ids, the k shortest sequences and
    `samples` uniform samples. Here the text is only spelled; the paths are worked out in a
    child (`tokenizations_work`), within a budget."""
    space = _space(state, name, text)
    return state.tokenizations.answer(space, name, k, samples, seed)


def api_canonical(state: AppState, name: str, ids: list[int]) -> dict[str, Any]:
    """`POST /api/canonical`: whether `ids` are what encode gives for their text, the first
    break (None when canonical) and the canonical ids."""
    tok = resolve_tokenizer(state, name)
    found, dropped = canonical_check(tok, ids)
    if found is None:
        return {"canonical": True, "first_break": None, "canonical_ids": list(ids)}
    return {
        "canonical": False,
        "first_break": found.index,
        "canonical_ids": list(found.canonical_ids),
        "method": found.method,
        "reason": found.reason,
        "dropped": dropped,
    }


def canonical_check(tok: Any, ids: list[int]) -> tuple[CanonicalBreak | None, list[int]]:
    """`is_canonical`, and the ids decode drops (`dropped_ids`: a tokenizer.json's tokenizer
    leaves out an id its vocabulary lacks, as Hugging Face's decode does). The other ids are
    checked; a dropped id makes the sequence not canonical (encode never gives it back), and
    the break is the first dropped id unless the others break before it."""
    dropped = dropped_ids(tok, ids)
    if not dropped:
        return is_canonical(tok, ids), []
    gone = set(dropped)
    at = [k for k, i in enumerate(ids) if i not in gone]
    kept = [ids[k] for k in at]
    found = is_canonical(tok, kept) if kept else None
    first = next(k for k, i in enumerate(ids) if i in gone)
    tokens = tuple(tok.id_to_token(i) or "(not in the vocabulary)" for i in ids)
    if found is not None and at[found.index] < first:
        where = at[found.index]
        return replace(found, index=where, differs_at=where, ids=tuple(ids), tokens=tokens), dropped
    canonical = found.canonical_ids if found is not None else tuple(kept)
    canonical_tokens = found.canonical_tokens if found is not None else tokens_of(tok, kept)
    reason = (
        f"id {ids[first]} is not in the vocabulary of {tok.name or 'this tokenizer'}: decode "
        "leaves it out (as Hugging Face's decode does), so encode cannot give it back"
    )
    return CanonicalBreak(
        first,
        "dropped",
        tuple(ids),
        tokens,
        tuple(canonical),
        tuple(canonical_tokens),
        first,
        (),
        (),
        reason,
    ), dropped


def tokens_of(tok: Any, ids: list[int]) -> tuple[str, ...]:
    return tuple(tok.id_to_token(i) or "" for i in ids)


def api_heal(state: AppState, name: str, prompt: str) -> dict[str, Any]:
    """`GET /api/heal`: the prompt's ids, the healed ids and the tokens allowed next."""
    check_text(state, prompt, "prompt")
    return {"tokenizer": name, **heal(resolve_tokenizer(state, name), prompt).to_dict()}


# ---- the page --------------------------------------------------------------------------------
def page(
    state: AppState,
    name: str,
    text: str,
    *,
    seed: int,
    dropout: float,
    stochastok: float,
    ids: str,
    prompt: str,
) -> dict[str, Any]:
    """What `/tokenizations` shows: the count and its growth, the drawn lattice, the shortest
    sequences, uniform, dropout and StochasTok samples, the check of pasted ids and token
    healing at a prompt's end."""
    space = _space(state, name, text)
    lattice = space.lattice
    chips = _Chips(lattice)
    canonical = space.canonical()
    ctx: dict[str, Any] = {
        "count": _count_view(space.count()),
        "unit": lattice.unit,
        "n_units": lattice.n,
        "n_edges": len(lattice.edges),
        "canonical": chips.of(canonical),
        "growth": _growth(space.counts_by_length()),
        "drawing": _drawing(lattice),
        "shortest": [_sequence(chips, s, canonical) for s in space.shortest(PAGE_SEQUENCES)],
        "samples": [
            _sequence(chips, s, canonical) for s in space.sample(PAGE_SEQUENCES, seed=seed)
        ],
        "stochastok": _sequence(chips, space.stochastok(stochastok, seed=seed), canonical),
    }
    try:
        drops = space.dropout(PAGE_SEQUENCES, dropout, seed=seed)
        ctx["dropout"] = [_sequence(chips, s, canonical) for s in drops]
        ctx["dropout_error"] = None
    except InvalidInput as exc:  # not a BPE model: said in its panel, the rest stands
        ctx["dropout"], ctx["dropout_error"] = [], str(exc)
    ctx["check"] = _check(space, ids) if ids.strip() else None
    ctx["healing"] = _healing(space, prompt) if prompt else None
    return ctx


def _space(state: AppState, name: str, text: str) -> Tokenizations:
    check_text(state, text)
    return tokenizations(resolve_tokenizer(state, name), text)


def _check(space: Tokenizations, typed: str) -> dict[str, Any]:
    """The pasted ids: canonical or not, where they break, both sides as chips."""
    ids = parse_ids(typed)
    if not ids:
        raise InvalidInput("paste some token ids to check")
    found, dropped = canonical_check(space.tok, ids)
    text = space.tok.decode(ids)
    if found is None:
        return {"canonical": True, "ids": ids, "text": text, "dropped": []}
    return {
        "canonical": False,
        "ids": ids,
        "text": text,
        "dropped": dropped,
        "break": found.to_dict(),
        "tokens": list(zip(found.ids, found.tokens)),
        "canonical_tokens": list(zip(found.canonical_ids, found.canonical_tokens)),
    }


def _healing(space: Tokenizations, prompt: str) -> dict[str, Any]:
    healed = heal(space.tok, prompt)
    return healed.to_dict()


# ---- shaping values for the template ------------------------------------------------------
class _Chips:
    """Token ids as chips (id, shown text), read off the lattice's edges: a sequence that
    decodes to the text walks the edges from unit 0, so (start, id) names each of its tokens."""

    def __init__(self, lattice: Lattice) -> None:
        self.edges = {(e.start, e.id): e for e in lattice.edges}

    def of(self, ids: list[int]) -> list[dict[str, Any]]:
        chips, at = [], 0
        for id_ in ids:
            edge = self.edges.get((at, id_))
            if edge is None:  # not a path of this lattice (never for the core's sequences)
                chips.append({"id": id_, "text": f"#{id_}", "start": at, "end": at})
                continue
            chips.append({"id": id_, "text": edge.text, "start": edge.start, "end": edge.end})
            at = edge.end
        return chips


def _sequence(chips: _Chips, ids: list[int], canonical: list[int]) -> dict[str, Any]:
    return {"chips": chips.of(ids), "n": len(ids), "canonical": ids == canonical}


def _count_view(count: int) -> dict[str, Any]:
    """The count for people: exact with separators when short, else "≈ m × 10^e" with the
    exact digits one click away."""
    digits = len(str(count))
    exact = f"{count:,}"
    if digits <= EXACT_DIGITS:
        return {"exact": exact, "short": exact, "digits": digits, "log10": math.log10(count)}
    log = math.log10(count)
    exponent = int(log)
    mantissa = 10 ** (log - exponent)
    return {
        "exact": exact,
        "short": f"≈ {mantissa:.2f} × 10^{exponent}",
        "exponent": exponent,
        "mantissa": f"{mantissa:.2f}",
        "digits": digits,
        "log10": log,
    }


def _growth(counts: list[int]) -> dict[str, Any]:
    """log10 of the count of each prefix, as an SVG polyline (at most CURVE_POINTS points)."""
    n = len(counts) - 1
    if n < 1:
        return {"points": "", "n": n, "top": 0.0}
    step = max(1, math.ceil(n / CURVE_POINTS))
    marks = sorted({*range(0, n + 1, step), n})
    logs = [(i, math.log10(counts[i]) if counts[i] else 0.0) for i in marks]
    top = max(log for _i, log in logs) or 1.0
    width, height = 320, 120
    points = " ".join(
        f"{10 + (width - 20) * i / n:.1f},{height - 10 - (height - 20) * log / top:.1f}"
        for i, log in logs
    )
    return {"points": points, "n": n, "top": top, "width": width, "height": height}


def _drawing(lattice: Lattice) -> dict[str, Any]:
    """The lattice's first DRAWN_UNITS units as arcs over positions (the Unigram lattice
    view's drawing): every matching token an arc, the canonical path's in red."""
    n = min(lattice.n, DRAWN_UNITS)
    arcs: list[dict[str, Any]] = []
    for e in lattice.edges:
        if e.end > n:
            continue
        x1, x2 = LEFT + e.start * CELL, LEFT + e.end * CELL
        arcs.append(
            {
                "x1": x1,
                "x2": x2,
                "xm": (x1 + x2) / 2,
                "h": min(12 + 14 * (e.end - e.start), 160),
                "state": "path" if e.canonical else "considered",
                "text": e.text,
                "id": e.id,
                "start": e.start,
                "end": e.end,
            }
        )
    arcs.sort(key=lambda a: (a["state"] == "path", -(a["end"] - a["start"])))
    return {
        "n": n,
        "cut": lattice.n > n,
        "units": list(lattice.units[:n]),
        "arcs": arcs,
        "boundaries": [b for b in lattice.boundaries if b <= n],
        "width": LEFT * 2 + n * CELL,
        "cell": CELL,
        "x0": LEFT,
    }

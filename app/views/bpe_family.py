"""The new BPE family's training view (`/bpe/train?variant=superbpe|picky_bpe|parity_bpe`): the
run after k merges, and what each variant adds to BPE's loop.

- SuperBPE: the transition (where merges start to cross whitespace) and the superwords learned;
- Picky BPE: the Intersection over Self of the two merged tokens against the threshold, and each
  token removed;
- parity-aware BPE: each language's compression (the bars the next merge's choice saw, the
  worst one picked) and the Gini coefficient of the compression rates, merge by merge.

The steps are the fast trainer's own (`tokenizers_core.implementations.bpe_runs`); the code
panel is the textbook loop of the variant, the line of merge k lit.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from tokenizers_core.corpora import ALL_UDHR, corpus_names, udhr_languages
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.bpe_runs import FAMILY, FamilyRun
from tokenizers_core.models.bpe.picky import check_threshold
from tokenizers_core.textbook import parity_bpe_train, picky_bpe_train, superbpe_train

from ..render import count_of
from .common import shower, textbook_panel

DEFAULT_CORPUS = {"superbpe": "botchan", "picky_bpe": "botchan", "parity_bpe": ALL_UDHR}
DEFAULT_VOCAB = {"superbpe": 1000, "picky_bpe": 1000, "parity_bpe": 1000}
MAX_VOCAB = 8000
TITLES = {
    "superbpe": "SuperBPE",
    "picky_bpe": "Picky BPE",
    "parity_bpe": "Parity-aware BPE",
}
TEXTBOOK = {
    "superbpe": superbpe_train,
    "picky_bpe": picky_bpe_train,
    "parity_bpe": parity_bpe_train,
}
FROM_COUNTS = ("picky_bpe", "parity_bpe")  # (superbpe's stage 2 needs the lines)
RECENT = 30  # merges listed, newest first
SHOWN_SUPERWORDS = 24
CURVE = (560, 140)  # the Gini curve's width and height, in px

show = shower(True)  # every variant here is byte-level


def form(
    corpus: str,
    variant: str,
    vocab_size: str,
    transition: str,
    threshold: str,
    play: bool,
    counts: str = "",
) -> dict[str, Any]:
    """What the family's training form shows, and the page's query parameters (`counts`: the
    sha256 of stored counts, trained on in place of the corpus)."""
    params = {
        "counts": counts or None,
        "corpus": None if counts else corpus or None,
        "variant": variant,
        "vocab_size": vocab_size.strip() or None,
        "transition": (transition.strip() or None) if variant == "superbpe" else None,
        "threshold": (threshold.strip() or None) if variant == "picky_bpe" else None,
    }
    return {
        "corpus": corpus or DEFAULT_CORPUS.get(variant, "botchan"),
        "variant": variant,
        "vocab_size": params["vocab_size"],
        "transition": transition.strip(),
        "threshold": threshold.strip(),
        "params": params,
        "error": None,
        "play": play,
        "bundled": corpus_names(),
        "title": TITLES.get(variant, variant),
        "size": None,
        "training": False,
        "counts": counts,
        "counts_info": None,
        "from_counts": variant in FROM_COUNTS,  # the variants an upload of counts trains
    }


def number(text: str, name: str) -> float | None:
    """A form field holding a number, or blank (None).

    >>> number(" 0.8 ", "threshold"), number("", "threshold")
    (0.8, None)
    >>> number("nan", "threshold")
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: threshold must be a number, got 'nan'
    """
    if not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isnan(value):  # float() reads "nan", which no option means
        raise InvalidInput(f"{name} must be a number, got {text!r}")
    return value


def options(
    variant: str,
    vocab_size: int | None,
    transition: float | None,
    threshold: float | None,
) -> tuple[int, dict[str, Any]]:
    """The view's inputs checked: the vocabulary size (1000 by default) and the variant's own
    option (SuperBPE's transition, 90% of the size by default; Picky BPE's threshold, 0.9)."""
    if variant not in FAMILY:
        raise InvalidInput(f"unknown variant {variant!r}; choose one of: {', '.join(FAMILY)}")
    size = DEFAULT_VOCAB[variant] if vocab_size is None else vocab_size
    if not 257 <= size <= MAX_VOCAB:
        raise InvalidInput(
            f"vocab_size must be between 257 (the 256 bytes and one merge) and {MAX_VOCAB:,} "
            f"in this view, got {size}"
        )
    out: dict[str, Any] = {}
    if variant == "superbpe" and transition is not None:
        if not 256 <= transition <= size or transition != int(transition):  # inf: out of range
            raise InvalidInput(
                f"the transition must be between 256 and the vocab size {size:,}, got {transition}"
            )
        out["transition"] = int(transition)
    if variant == "picky_bpe" and threshold is not None:
        out["threshold"] = check_threshold(threshold)
    return size, out


def page(run: FamilyRun, k: int) -> dict[str, Any]:
    """What the page shows after k merges (k clamped to 0..total)."""
    total = run.total
    k = min(max(k, 0), total)
    last = run.steps[k - 1] if k else None
    ctx: dict[str, Any] = {
        "family": run.variant,
        "title": TITLES[run.variant],
        "step": k,
        "total": total,
        "last": last,
        "last_view": _merge(last) if last else None,
        "recent": [_merge(s) for s in run.steps[max(0, k - RECENT) : k]][::-1],
        "vocab_now": run.alphabet + k,
        "size": run.vocab_size,
        "code": textbook_panel(TEXTBOOK[run.variant], last, finished=k == total),
        "sentence": sentence(run, k),
        "stopped": stop_sentence(run) if k == total else "",
    }
    ctx.update(
        {"superbpe": _superbpe, "picky_bpe": _picky, "parity_bpe": _parity}[run.variant](run, k)
    )
    return ctx


def stop_sentence(run: FamilyRun) -> str:
    """Why the run ends where it does, in the engine's words, with what Picky BPE adds (a
    removal frees an id, so the ids made count the removed too)."""
    reason = getattr(run, "stop_reason", "")  # (a run pickled before it was kept: none)
    alive = run.steps[-1].vocab_after if run.steps and run.variant == "picky_bpe" else None
    size = alive if alive is not None else run.alphabet + run.total
    full = size >= run.vocab_size or reason.startswith("the vocabulary reached")
    if full:
        why = f"the vocabulary is full ({count_of(run.vocab_size, 'token')})"
    elif reason:
        why = f"{reason}, with the vocabulary at {size:,} of {run.vocab_size:,}"
    else:
        why = f"no more merges, with the vocabulary at {size:,} of {run.vocab_size:,}"
    if run.variant == "picky_bpe" and run.removals:
        why += (
            f"; {count_of(run.removals, 'removal')} freed ids along the way, so "
            f"{count_of(run.total, 'merge')} made {run.alphabet + run.total:,} ids in all"
        )
    return f"Training stopped after merge {run.total:,}: {why}."


def sentence(run: FamilyRun, k: int) -> str:
    """What merge k did, in words, with what the variant adds."""
    if k == 0 and run.variant == "superbpe":
        last_stage1 = (run.first_after_transition() or run.total + 1) - 1
        return (
            f"Before any merge: {run.alphabet} byte tokens. Merges 1 to {last_stage1:,} are "
            f"ordinary byte-level BPE inside words; after the transition at "
            f"{run.transition:,} tokens, merges may cross whitespace."
        )
    if k == 0 and run.variant == "picky_bpe":
        return (
            f"Before any merge: {run.alphabet} byte tokens. After each merge a token that "
            f"now occurs mostly inside the new one (IoS ≥ {run.threshold}) is removed."
        )
    if k == 0:
        return (
            f"Before any merge: {len(run.languages)} languages, each measured on "
            f"{run.dev}. Each merge is chosen for the language compressed worst."
        )
    step = run.steps[k - 1]
    what = (
        f"Merge {k}: {show(step.pair[0])} + {show(step.pair[1])} → {show(step.new_symbol)}, "
        f"{count_of(step.count, 'occurrence')}"
    )
    if run.variant == "superbpe":
        if step.superword:
            return f"{what}: a superword, spanning {step.n_words} words across whitespace."
        stage = "stage 2 (whitespace may be crossed)" if step.after_transition else "stage 1"
        return f"{what} ({stage})."
    if run.variant == "picky_bpe":
        ios = ", ".join(f"{x:.2f}" for x in step.ios)
        gone = "; ".join(f"{show(r[0])} removed (IoS {r[1]:.2f})" for r in step.removed)
        return f"{what}; IoS {ios} against τ = {run.threshold}" + (f": {gone}." if gone else ".")
    language = _name(step.language) if step.language else "all languages"
    return f"{what}, chosen for {language}; the Gini across languages is now {step.gini:.3f}."


# ---- what each variant adds ------------------------------------------------------------------
def _superbpe(run: FamilyRun, k: int) -> dict[str, Any]:
    first = run.first_after_transition()
    learned = [s for s in run.steps[:k] if s.superword]
    return {
        "transition": run.transition,
        "first_after": first,
        "stage": 2 if first is not None and k >= first else 1,
        "superwords": [show(s.new_symbol) for s in learned[:SHOWN_SUPERWORDS]],
        "n_superwords": len(learned),
        "n_superwords_all": sum(1 for s in run.steps if s.superword),
    }


def _picky(run: FamilyRun, k: int) -> dict[str, Any]:
    step = run.steps[k - 1] if k else None
    removed = [
        {
            "n": 0,  # its number in removal order (below)
            "k": s.index + 1,
            "token": show(r[0]),
            "ios": r[1],
            "id": r[2],
            "into": [show(t) for t in r[3]],
        }
        for s in run.steps[:k]
        for r in s.removed
    ]
    for n, r in enumerate(removed, 1):
        r["n"] = n
    bars = []
    if step is not None:
        sides = step.pair if len(step.ios) == 2 else step.pair[:1]
        bars = [{"token": show(t), "ios": x} for t, x in zip(sides, step.ios)]
    return {
        "threshold": run.threshold,
        "ios_bars": bars,
        "removed_now": [show(r[0]) for r in step.removed] if step else [],
        "removed": removed[::-1][:40],
        "n_removed": len(removed),
        "n_removed_all": run.removals,
        "restored": bool(step and step.restored),
        "vocab_now": step.vocab_after if step else run.alphabet,
    }


def _parity(run: FamilyRun, k: int) -> dict[str, Any]:
    # the compression after k merges is what the choice of merge k + 1 saw
    seen = run.steps[k] if k < run.total else run.steps[-1] if run.steps else None
    bars = []
    by_tokens = seen is not None and seen.measure == "tokens"
    if seen is not None:
        # the bars show what decides: the dev text's token count (the most is the worst) or
        # its bytes per token (the fewest is the worst); the worst first
        values = seen.tokens if by_tokens else seen.rates
        top = max(values) or 1
        worst = seen.language if k < run.total else ""
        for lang, value, rate, tokens in zip(seen.languages, values, seen.rates, seen.tokens):
            bars.append(
                {
                    "code": lang,
                    "name": _name(lang),
                    "value": value,
                    "rate": rate,
                    "tokens": tokens,
                    "width": 100 * value / top,
                    "worst": lang == worst,
                }
            )
        bars.sort(key=lambda b: -b["value"] if by_tokens else b["value"])
    counts: dict[str, int] = {}
    for s in run.steps[:k]:
        counts[s.language or "all"] = counts.get(s.language or "all", 0) + 1
    return {
        "bars": bars,
        "bars_after_end": k == run.total and bool(run.steps),
        "measure": seen.measure if seen else "",
        "unit": "tokens of the parallel text" if by_tokens else "bytes per token",
        "gini": run.steps[k - 1].gini if k else None,
        "curve": _curve([s.gini for s in run.steps], k),
        "chosen": sorted(counts.items(), key=lambda item: -item[1])[:12],
        "dev": run.dev,
    }


def _curve(values: list[float], k: int) -> dict[str, Any]:
    """The Gini after each merge as an SVG polyline, with a mark at merge k."""
    width, height = CURVE
    if not values:
        return {"points": "", "width": width, "height": height, "mark": None, "top": 0.0}
    top = max(values) or 1.0
    n = len(values)
    step = max(1, n // 300)  # at most about 300 points
    marks = sorted({*range(0, n, step), n - 1})

    def xy(i: int) -> tuple[float, float]:
        x = 10 + (width - 20) * (i + 1) / n
        return x, height - 12 - (height - 24) * values[i] / top

    points = " ".join("{:.1f},{:.1f}".format(*xy(i)) for i in marks)
    mark = xy(k - 1) if k else None
    return {"points": points, "width": width, "height": height, "mark": mark, "top": top}


def _merge(step: Any) -> dict[str, Any]:
    """One merge as the list shows it."""
    out = {
        "k": step.index + 1,
        "left": show(step.pair[0]),
        "right": show(step.pair[1]),
        "new": show(step.new_symbol),
        "count": step.count,
        "badges": [],
    }
    if getattr(step, "superword", False):
        out["badges"].append("superword")
    if getattr(step, "removed", ()):
        out["badges"].append("removal")
    if getattr(step, "restored", False):
        out["badges"].append("restored")
    language = getattr(step, "language", None)
    if language is not None:
        out["badges"].append(_name(language) if language else "all languages")
    return out


def _name(code: str) -> str:
    """A UDHR language's name by its code (a script group's name is its own)."""
    return _language_names().get(code, code)


@functools.cache
def _language_names() -> dict[str, str]:
    return {lang.code: lang.name for lang in udhr_languages()}

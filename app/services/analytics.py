"""The analytics pages' data: the multilingual tax (tokens per UDHR language against English),
the Unicode lab (a text's normal forms and how tokenisers split each) and the vocab-size sweep
(a job: train at several sizes, measure on held-out text)."""

from __future__ import annotations

import functools
import math
import unicodedata
from dataclasses import asdict
from typing import Any

import tokenizers_core as tc
from tokenizers_core import metrics, normalizers, pretrained
from tokenizers_core.audit.efficiency import DEFAULT_ALPHA, counts_of_histogram, renyi_efficiency
from tokenizers_core.audit.premium import largest_premium, premiums
from tokenizers_core.corpora import load_corpus, udhr_languages
from tokenizers_core.errors import InvalidInput, NotFound

from .. import charts, display, tax
from ..jobs import SweepSpec
from ..state import AppState
from ..tax import vocab_tokenizers
from ..trained import corpus_text
from ..urls import url_with
from .tokenizers import UPLOAD_PREFIX, resolve_tokenizer


# ---- the multilingual tax ---------------------------------------------------------------------
def tax_labels(names: list[str], yours: list[dict[str, str]]) -> dict[str, str]:
    """Each tokeniser's name for people (the checkboxes, the tooltips): a bundled one's label,
    an upload's picker label."""
    labels = {n: e.label for n, e in pretrained.bundled().items() if n in names}
    return {**labels, **{o["value"]: o["label"] for o in yours}}


def tax_heads(labels: dict[str, str]) -> dict[str, tuple[str, str | None]]:
    """Each column head: (a short name, the bundled tokeniser's id under it, or None for an
    upload, whose handle means nothing to people)."""
    return {
        n: (short_label(label), None if n.startswith(UPLOAD_PREFIX) else n)
        for n, label in labels.items()
    }


def short_label(label: str) -> str:
    """A column head's name: a label without its parenthesis or its second clause.

    >>> short_label("GPT-2 (r50k_base, byte-level BPE)")
    'GPT-2'
    >>> short_label("GPT-3 text-davinci-003, Codex (p50k_base, byte-level BPE)")
    'GPT-3 text-davinci-003'
    """
    return label.split(" (")[0].split(", ")[0] or label


def script_label(script: str) -> str:
    return script if len(script) <= 3 else script.title()


@functools.lru_cache(maxsize=1)
def language_facts() -> tuple[dict[str, str], dict[str, str]]:
    """Each UDHR language's script and a short sample of its text (computed once)."""
    scripts, samples = {}, {}
    for lang in udhr_languages():
        text = load_corpus(f"udhr/{lang.code}")
        scripts[lang.code] = script_label(metrics.dominant_script(text))
        samples[lang.code] = text.splitlines()[1][:70]
    return scripts, samples


def tax_names(tok: list[str] | None) -> list[str]:
    """The tax's tokenisers: bundled names and uploaded handles (404 for any other)."""
    names = [pretrained.canonical_name(t) for t in (tok or vocab_tokenizers()) if t]
    for n in names:
        if not pretrained.is_bundled(n) and not n.startswith(UPLOAD_PREFIX):
            raise NotFound(
                f"unknown tokeniser {n!r}; the tax compares bundled ones "
                f"({', '.join(vocab_tokenizers())}) and uploaded ones",
            )
    if not names:
        raise InvalidInput("choose at least one tokeniser")
    return names


def tax_table(
    state: AppState, names: list[str], leave_out_failures: bool = False
) -> dict[str, Any]:
    """The tax of `names`. With `leave_out_failures` (the page's default columns: every stored
    upload), an upload that cannot encode the texts (a file whose own normaliser or pattern
    refuses them) is left out and named in `left_out`, rather than failing the page for
    everyone; asked for by name, it fails with its own message."""
    langs = udhr_languages()
    per, left_out = {}, {}
    for n in names:  # bundled: saved at build time (app/tax.py); uploads: computed once, kept
        if n.startswith(UPLOAD_PREFIX):
            try:
                per[n] = tax.counts(n, resolve_tokenizer(state, n))
            except ValueError as exc:
                if not leave_out_failures:
                    raise
                left_out[n] = str(exc)
        else:
            per[n] = tax.counts(n)
    counts = {n: {code: t for code, (t, _u) in p.items()} for n, p in per.items()}
    unknown = {n: {code: u for code, (_t, u) in p.items()} for n, p in per.items()}
    rel = {n: premiums(c) for n, c in counts.items()}
    scripts, samples = language_facts()
    return {
        "languages": langs,
        "counts": counts,
        "relative": rel,
        "scripts": scripts,
        "samples": samples,
        "unknown": unknown,
        "left_out": left_out,
        "band_of": {n: {code: premium_band(v) for code, v in r.items()} for n, r in rel.items()},
        "largest": {n: largest_premium(r) for n, r in rel.items()},
    }


# The colour of a premium: the band it falls in (upper bounds), as the legend names them.
PREMIUM_BANDS = (
    (1.25, "under 1.25×"),
    (1.5, "1.25 to 1.5×"),
    (2.0, "1.5 to 2×"),
    (3.0, "2 to 3×"),
    (4.0, "3 to 4×"),
    (6.0, "4 to 6×"),
    (float("inf"), "6× or more"),
)


def premium_band(value: float) -> int:
    """The index of the band of `PREMIUM_BANDS` a premium falls in.

    >>> premium_band(1.0), premium_band(2.5), premium_band(12)
    (0, 3, 6)
    """
    return next(i for i, (upper, _label) in enumerate(PREMIUM_BANDS) if value < upper)


def tax_rows(data: dict[str, Any], sort: str | None) -> list:
    """The languages in the table's order: by name, or by a column's premium, most expensive
    first (`sort`: a tokeniser of the table; any other value keeps the order by name)."""
    by_name = sorted(data["languages"], key=lambda lang: lang.name)
    if sort not in data["relative"]:
        return by_name
    rel = data["relative"][sort]
    return sorted(by_name, key=lambda lang: -rel[lang.code])


def tax_chart_rows(data: dict[str, Any], chart: str) -> list[tuple[str, str, float]]:
    """The bar chart's rows for tokeniser `chart`: (language, its script and notes, ratio)."""
    rows = []
    for lang in data["languages"]:
        notes = data["scripts"][lang.code]
        if lang.direction == "rtl":
            notes += ", right-to-left"
        if data["unknown"][chart][lang.code] * 10 > data["counts"][chart][lang.code]:
            notes += ", many unknown"
        rows.append((lang.name, notes, data["relative"][chart][lang.code]))
    return rows


# ---- the Unicode lab ------------------------------------------------------------------------
EXAMPLES = [
    ("café, composed", "caf\u00e9"),
    ("café, decomposed", "cafe\u0301"),
    ("the ﬁ ligature", "\ufb01nance of\ufb01ce"),
    ("full-width digits", "\uff11\uff12\uff13\uff14\uff15 yen"),
    ("Cyrillic а vs Latin a", "p\u0430ypal paypal"),
    ("zero-width space", "zero\u200bwidth space"),
    ("ZWJ emoji family", "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"),
    ("Arabic and English", "The word \u0645\u0631\u062d\u0628\u0627 means hello"),
]
FORMS = [
    ("original", None),
    ("NFC", normalizers.NFC()),
    ("NFD", normalizers.NFD()),
    ("NFKC", normalizers.NFKC()),
    ("NFKD", normalizers.NFKD()),
]
DEFAULT_LAB_TOKENIZERS = ["cl100k_base", "bert-base-uncased", "botchan_en_unigram_1000", "word"]


def code_points(text: str) -> list[dict[str, str]]:
    return [
        {
            "cp": f"U+{ord(c):04X}",
            "char": display.visible(c),
            "name": unicodedata.name(c, "(unnamed)").lower(),
        }
        for c in text
    ]


def unicode_forms(state: AppState, text: str, names: list[str]) -> list[dict[str, Any]]:
    toks = [(n, resolve_tokenizer(state, n)) for n in names]
    forms = []
    for label, norm in FORMS:
        out = norm.normalize_str(text) if norm is not None else text
        row = {
            "form": label,
            "text": out,
            "visible": display.visible(out),
            "chars": len(out),
            "bytes": len(out.encode("utf-8")),
            "same": out == text,
            "code_points": code_points(out),
            "tokenizations": [],
        }
        for n, tok in toks:
            enc = tok.encode(out)
            # as the visualiser draws them: text, not the byte-level alphabet (Ġ, Ã)
            chips = [c for c in display.chips(tok, out, enc, links=False) if not c.special]
            row["tokenizations"].append({"name": n, "count": len(chips), "chips": chips})
        forms.append(row)
    return forms


def lab_tokenizers(tok: list[str] | None) -> list[str]:
    """The lab's tokenisers: those asked for, else the default ones that are bundled."""
    return [
        t for t in (tok or [n for n in DEFAULT_LAB_TOKENIZERS if pretrained.is_bundled(n)]) if t
    ]


# ---- the vocab-size sweep -------------------------------------------------------------------
DEFAULT_SIZES = (250, 500, 1000, 2000, 4000)
DEFAULT_SWEEP_ALGOS = ("bpe", "wordpiece", "unigram")
MAX_SIZES = 12
MAX_SWEEP_VOCAB = 50_000


def parse_spec(corpus: str, heldout: str, algo: list[str] | None, sizes: str) -> SweepSpec:
    """Validate the sweep's inputs (ValueError with the reason)."""
    algos = tuple(
        a for a in (algo or [a for a in DEFAULT_SWEEP_ALGOS if a in tc.algorithms()]) if a
    )
    unknown = [a for a in algos if a not in tc.algorithms()]
    if unknown:
        raise InvalidInput(
            f"unknown algorithm {unknown[0]!r}; choose from {', '.join(tc.algorithms())}"
        )
    if not algos:
        raise InvalidInput("choose at least one algorithm")
    try:
        values = tuple(sorted({int(s) for s in sizes.replace(",", " ").split()}))
    except ValueError:
        raise InvalidInput(
            f"sizes must be whole numbers separated by commas, got {sizes!r}"
        ) from None
    if not values or len(values) > MAX_SIZES:
        raise InvalidInput(f"give between 1 and {MAX_SIZES} vocab sizes")
    if values[0] < 2 or values[-1] > MAX_SWEEP_VOCAB:
        raise InvalidInput(f"vocab sizes must be between 2 and {MAX_SWEEP_VOCAB}")
    return SweepSpec(corpus, heldout, algos, values)


def checked_spec(
    state: AppState, corpus: str, heldout: str, algo: list[str] | None, sizes: str
) -> SweepSpec:
    """`parse_spec`, and both corpora known (InvalidInput: an unknown corpus in a sweep's form or
    request is a bad field, 422, not a missing page)."""
    spec = parse_spec(corpus, heldout, algo, sizes)
    for ref in (spec.corpus, spec.heldout):
        try:
            corpus_text(state.store, ref)
        except NotFound as exc:
            raise InvalidInput(str(exc).strip("'\"")) from None
    return spec


def spec_of(job) -> SweepSpec:
    """The spec a sweep job was started with."""
    return SweepSpec(
        **{
            **job.spec,
            "algorithms": tuple(job.spec["algorithms"]),
            "sizes": tuple(job.spec["sizes"]),
        }
    )


def parse_alpha(text: str) -> float:
    """The Renyi order of the page's slider: a number from 0 to infinity ("inf")."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also NaN
        raise InvalidInput(
            f"alpha must be a number from 0 to infinity (e.g. 2.5 or inf), got {text!r}"
        )
    return value


def alpha_label(alpha: float) -> str:
    return "∞" if math.isinf(alpha) else f"{alpha:g}"


def sweep_efficiency(rows: list[dict[str, Any]], alpha: float) -> list[float | None]:
    """Each result row's Renyi efficiency at `alpha`, from the token counts the sweep stored
    (None for a failed row, or one stored before the counts were kept)."""
    out: list[float | None] = []
    for r in rows:
        hist = r.get("count_histogram")
        ok = hist and r.get("vocab_size", 0) >= 2
        out.append(
            renyi_efficiency(counts_of_histogram(hist), r["vocab_size"], alpha) if ok else None
        )
    return out


def sweep_view(job, alpha: float = DEFAULT_ALPHA) -> dict[str, Any]:
    if job is None or not job.results:
        return {}
    renyi = sweep_efficiency(job.results, alpha)
    tpw: dict[str, list[tuple[float, float]]] = {}
    cpt: dict[str, list[tuple[float, float]]] = {}
    eff: dict[str, list[tuple[float, float]]] = {}
    for r, e in zip(job.results, renyi):
        if "error" in r:
            continue
        tpw.setdefault(r["algorithm"], []).append((r["size"], r["tokens_per_word"]))
        cpt.setdefault(r["algorithm"], []).append((r["size"], r["chars_per_token"]))
        if e is not None:
            eff.setdefault(r["algorithm"], []).append((r["size"], e))
    label = alpha_label(alpha)
    return {
        "tpw_chart": charts.line_chart(
            tpw, x_label="vocab size (log scale)", y_label="tokens per word (held-out)"
        ),
        "cpt_chart": charts.line_chart(
            cpt, x_label="vocab size (log scale)", y_label="characters per token (held-out)"
        ),
        "renyi_chart": charts.line_chart(
            eff, x_label="vocab size (log scale)", y_label=f"Rényi efficiency, α = {label}"
        )
        if eff
        else None,
        "renyi": renyi,
        "renyi_missing": any(e is None and "error" not in r for r, e in zip(job.results, renyi)),
    }


def sweep_url(spec: SweepSpec) -> str:
    return url_with(
        "/sweep",
        {
            "corpus": spec.corpus,
            "heldout": spec.heldout,
            "algo": list(spec.algorithms),
            "sizes": ",".join(map(str, spec.sizes)),
        },
    )


def start_sweep(state: AppState, spec: SweepSpec):
    """Queue the sweep (or find it queued, running or done) -> (job, True if this request
    queued it: only its creator may cancel it); QueueFull -> 429."""
    return state.jobs.submit(
        "sweep", spec.id, asdict(spec), total=len(spec.algorithms) * len(spec.sizes)
    )

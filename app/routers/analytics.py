"""Analytics pages: the multilingual tax (`/tax`), the Unicode lab (`/unicode`) and the
vocab-size sweep (`/sweep`), with their JSON endpoints."""
from __future__ import annotations

import functools
import unicodedata
from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, Field

import tokenizers_core as tc
from tokenizers_core import metrics as M
from tokenizers_core import normalizers, pretrained
from tokenizers_core.corpora import corpus_names, load_corpus, udhr_languages

from .. import charts, display, tax
from ..tax import vocab_tokenizers
from ..deps import (BAD_INPUT, UPLOAD_PREFIX, Name, UnknownTokenizer, bad_input, check_text, jobs,
                    resolve_tokenizer, store, stored_options)
from ..jobs import SweepSpec
from ..render import render
from ..trained import corpus_text

router = APIRouter(tags=["analytics"])


# ---- the multilingual tax ---------------------------------------------------------------------
def script_label(script: str) -> str:
    return script if len(script) <= 3 else script.title()


@functools.lru_cache(maxsize=1)
def _language_facts() -> tuple[dict[str, str], dict[str, str]]:
    """Each UDHR language's script and a short sample of its text (computed once)."""
    scripts, samples = {}, {}
    for lang in udhr_languages():
        text = load_corpus(f"udhr/{lang.code}")
        scripts[lang.code] = script_label(M.dominant_script(text))
        samples[lang.code] = text.splitlines()[1][:70]
    return scripts, samples


def tax_names(request: Request, tok: list[str] | None) -> list[str]:
    """The tax's tokenisers: bundled names and uploaded handles (404 for any other)."""
    names = [pretrained.canonical_name(t) for t in (tok or vocab_tokenizers()) if t]
    for n in names:
        if not pretrained.is_bundled(n) and not n.startswith(UPLOAD_PREFIX):
            raise HTTPException(404, f"unknown tokeniser {n!r}; the tax compares bundled ones "
                                     f"({', '.join(vocab_tokenizers())}) and uploaded ones")
    if not names:
        raise HTTPException(422, "choose at least one tokeniser")
    return names


def tax_table(request: Request, names: list[str]) -> dict[str, Any]:
    langs = udhr_languages()
    per = {}
    for n in names:   # bundled: saved at build time (app/tax.py); uploads: computed once, kept
        if n.startswith(UPLOAD_PREFIX):
            try:
                per[n] = tax.counts(n, resolve_tokenizer(request, n))
            except UnknownTokenizer as exc:
                raise HTTPException(404, str(exc)) from None
        else:
            per[n] = tax.counts(n)
    counts = {n: {code: t for code, (t, _u) in p.items()} for n, p in per.items()}
    unknown = {n: {code: u for code, (_t, u) in p.items()} for n, p in per.items()}
    rel = {n: M.relative_counts(c, "eng") for n, c in counts.items()}
    scripts, samples = _language_facts()
    return {"languages": langs, "counts": counts, "relative": rel, "scripts": scripts,
            "samples": samples, "unknown": unknown}


@router.get("/tax", response_class=HTMLResponse, summary="The multilingual tokenisation tax")
def tax_page(request: Request, tok: list[str] | None = Query(None),
             chart: str | None = None) -> HTMLResponse:
    names = tax_names(request, tok)
    chart = chart if chart in names else names[0]
    data = tax_table(request, names)
    rows = [(f"{lang.name}", f"{data['scripts'][lang.code]}"
             f"{', right-to-left' if lang.direction == 'rtl' else ''}"
             f"{', many unknown' if data['unknown'][chart][lang.code] * 10 > data['counts'][chart][lang.code] else ''}",
             data["relative"][chart][lang.code]) for lang in data["languages"]]
    yours = stored_options(request)
    ctx = {"names": names, "all_names": vocab_tokenizers() + [o["value"] for o in yours],
           "labels": {o["value"]: o["label"] for o in yours}, "chart_name": chart,
           "chart": charts.bar_chart(rows), **data}
    return render(request, "tax.html", ctx)


@router.get("/api/tax", tags=["api"])
def tax_api(request: Request,
            tok: list[Name] | None = Query(None, max_length=16)) -> dict[str, Any]:
    """Ordinary tokens per UDHR language for each tokeniser (bundled or uploaded), and the
    ratio to English."""
    names = tax_names(request, tok)
    data = tax_table(request, names)
    return {"languages": [{"code": l.code, "name": l.name, "direction": l.direction,
                           "script": data["scripts"][l.code]} for l in data["languages"]],
            "counts": data["counts"], "unknown": data["unknown"],
            "relative_to_english": data["relative"]}


# ---- the Unicode lab ------------------------------------------------------------------------
EXAMPLES = [
    ("café, composed", "caf\u00e9"),
    ("café, decomposed", "cafe\u0301"),
    ("the ﬁ ligature", "\ufb01nance of\ufb01ce"),
    ("full-width digits", "\uff11\uff12\uff13\uff14\uff15 yen"),
    ("Cyrillic а vs Latin a", "p\u0430ypal paypal"),
    ("zero-width space", "zero\u200bwidth space"),
    ("ZWJ emoji family", "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"),
    ("Arabic and English", "The word \u0645\u0631\u062d\u0628\u0627 means hello"),
]
FORMS = [("original", None), ("NFC", normalizers.NFC()), ("NFD", normalizers.NFD()),
         ("NFKC", normalizers.NFKC()), ("NFKD", normalizers.NFKD())]
DEFAULT_LAB_TOKENIZERS = ["cl100k_base", "bert-base-uncased", "botchan_en_unigram_1000", "word"]


def code_points(text: str) -> list[dict[str, str]]:
    return [{"cp": f"U+{ord(c):04X}", "char": display.visible(c),
             "name": unicodedata.name(c, "(unnamed)").lower()} for c in text]


def unicode_forms(request: Request, text: str, names: list[str]) -> list[dict[str, Any]]:
    toks = [(n, resolve_tokenizer(request, n)) for n in names]
    forms = []
    for label, norm in FORMS:
        out = norm.normalize_str(text) if norm is not None else text
        row = {"form": label, "text": out, "visible": display.visible(out), "chars": len(out),
               "bytes": len(out.encode("utf-8")), "same": out == text,
               "code_points": code_points(out), "tokenizations": []}
        for n, tok in toks:
            enc = tok.encode(out)
            # as the visualiser draws them: text, not the byte-level alphabet (Ġ, Ã)
            chips = [c for c in display.chips(tok, out, enc, links=False) if not c.special]
            row["tokenizations"].append({"name": n, "count": len(chips), "chips": chips})
        forms.append(row)
    return forms


@router.get("/unicode", response_class=HTMLResponse, summary="The Unicode lab")
def unicode_page(request: Request, text: str | None = None,
                 tok: list[str] | None = Query(None)) -> HTMLResponse:
    text = EXAMPLES[0][1] if text is None else text
    names = [t for t in (tok or [n for n in DEFAULT_LAB_TOKENIZERS if pretrained.is_bundled(n)]) if t]
    yours = stored_options(request)
    ctx: dict[str, Any] = {"text": text, "names": names, "examples": EXAMPLES, "error": None,
                           "all_names": list(pretrained.bundled()) + [o["value"] for o in yours],
                           "labels": {o["value"]: o["label"] for o in yours}, "forms": []}
    status = 200
    try:
        check_text(request, text)
        if len(text) > 2000:
            raise ValueError("the Unicode lab lists every code point; keep the text under 2,000 characters")
        ctx["forms"] = unicode_forms(request, text, names)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "unicode.html", ctx, block="forms", status_code=status)


@router.get("/api/unicode", tags=["api"])
def unicode_api(request: Request, text: str,
                tok: list[Name] | None = Query(None, max_length=16)) -> list[dict[str, Any]]:
    """The four normal forms of a text, their code points, and how each tokeniser splits them."""
    check_text(request, text)
    names = [t for t in (tok or [n for n in DEFAULT_LAB_TOKENIZERS if pretrained.is_bundled(n)]) if t]
    try:
        return unicode_forms(request, text, names)
    except UnknownTokenizer as exc:
        raise HTTPException(404, str(exc)) from None


# ---- the vocab-size sweep -------------------------------------------------------------------
DEFAULT_SIZES = (250, 500, 1000, 2000, 4000)
DEFAULT_SWEEP_ALGOS = ("bpe", "wordpiece", "unigram")
MAX_SIZES = 12
MAX_SWEEP_VOCAB = 50_000


class SweepRequest(BaseModel):
    corpus: Name = Field("botchan", description="a bundled corpus or a stored corpus's sha256")
    heldout: Name = Field("udhr/eng", description="the text measured with each tokeniser")
    algorithms: list[Name] | None = Field(None, max_length=8, examples=[["bpe", "unigram"]])
    sizes: list[Annotated[int, Field(ge=2, le=MAX_SWEEP_VOCAB)]] = Field(
        list(DEFAULT_SIZES), min_length=1, max_length=MAX_SIZES)


def parse_spec(corpus: str, heldout: str, algo: list[str] | None, sizes: str) -> SweepSpec:
    """Validate the sweep's inputs (ValueError with the reason)."""
    algos = tuple(a for a in (algo or [a for a in DEFAULT_SWEEP_ALGOS if a in tc.algorithms()]) if a)
    unknown = [a for a in algos if a not in tc.algorithms()]
    if unknown:
        raise ValueError(f"unknown algorithm {unknown[0]!r}; choose from {', '.join(tc.algorithms())}")
    if not algos:
        raise ValueError("choose at least one algorithm")
    try:
        values = tuple(sorted({int(s) for s in sizes.replace(",", " ").split()}))
    except ValueError:
        raise ValueError(f"sizes must be whole numbers separated by commas, got {sizes!r}") from None
    if not values or len(values) > MAX_SIZES:
        raise ValueError(f"give between 1 and {MAX_SIZES} vocab sizes")
    if values[0] < 2 or values[-1] > MAX_SWEEP_VOCAB:
        raise ValueError(f"vocab sizes must be between 2 and {MAX_SWEEP_VOCAB}")
    return SweepSpec(corpus, heldout, algos, values)


def sweep_view(job) -> dict[str, Any]:
    if job is None or not job.results:
        return {}
    tpw: dict[str, list[tuple[float, float]]] = {}
    cpt: dict[str, list[tuple[float, float]]] = {}
    for r in job.results:
        if "error" in r:
            continue
        tpw.setdefault(r["algorithm"], []).append((r["size"], r["tokens_per_word"]))
        cpt.setdefault(r["algorithm"], []).append((r["size"], r["chars_per_token"]))
    return {"tpw_chart": charts.line_chart(tpw, x_label="vocab size (log scale)",
                                           y_label="tokens per word (held-out)"),
            "cpt_chart": charts.line_chart(cpt, x_label="vocab size (log scale)",
                                           y_label="characters per token (held-out)")}


def _sweep_url(spec: SweepSpec) -> str:
    from ..render import url_with
    return url_with("/sweep", {"corpus": spec.corpus, "heldout": spec.heldout,
                               "algo": list(spec.algorithms),
                               "sizes": ",".join(map(str, spec.sizes))})


@router.get("/sweep", response_class=HTMLResponse, summary="Vocab-size sweep")
def sweep_page(request: Request, corpus: str = "botchan", heldout: str = "udhr/eng",
               algo: list[str] | None = Query(None),
               sizes: str = ",".join(map(str, DEFAULT_SIZES))) -> HTMLResponse:
    ctx: dict[str, Any] = {"corpus": corpus, "heldout": heldout, "sizes": sizes, "error": None,
                           "algorithms": tc.algorithms(), "corpora": corpus_names(),
                           "job": None, "chosen": algo or list(DEFAULT_SWEEP_ALGOS)}
    status = 200
    try:
        spec = parse_spec(corpus, heldout, algo, sizes)
        ctx["chosen"] = list(spec.algorithms)
        ctx["job"] = jobs(request).get(spec.id)
        ctx["spec_id"] = spec.id
        ctx.update(sweep_view(ctx["job"]))
    except ValueError as exc:
        ctx["error"], status = str(exc), 422
    return render(request, "sweep.html", ctx, block="progress", status_code=status)


@router.post("/sweep/run", summary="Start a sweep (then follow its progress on /sweep)")
def sweep_run(request: Request, corpus: str = Form("botchan"), heldout: str = Form("udhr/eng"),
              algo: list[str] = Form([]), sizes: str = Form("")) -> Any:
    try:
        spec = parse_spec(corpus, heldout, algo, sizes)
        corpus_text(store(request), spec.corpus)
        corpus_text(store(request), spec.heldout)
    except (ValueError, LookupError) as exc:
        raise HTTPException(422, str(exc).strip("'\"")) from None
    _start_sweep(request, spec)
    return RedirectResponse(_sweep_url(spec), status_code=303)


def _start_sweep(request: Request, spec: SweepSpec):
    """Queue the sweep (or find it queued, running or done); QueueFull -> 429."""
    job, _created = jobs(request).submit("sweep", spec.id, asdict(spec),
                                         total=len(spec.algorithms) * len(spec.sizes))
    return job


@router.post("/sweep/cancel", summary="Cancel a running sweep")
def sweep_cancel(request: Request, job: str = Form(...)) -> Any:
    found = jobs(request).cancel(job)
    if found is None:
        raise HTTPException(404, f"no sweep {job!r} is running here")
    return RedirectResponse(_sweep_url(SweepSpec(**{**found.spec, "algorithms": tuple(
        found.spec["algorithms"]), "sizes": tuple(found.spec["sizes"])})), status_code=303)


@router.post("/api/sweep", tags=["api"], status_code=202)
def sweep_api_start(request: Request, body: SweepRequest) -> dict[str, Any]:
    """Start a sweep (or find the same one queued, running or done) -> the job; 429 when too
    many trainings wait."""
    try:
        spec = parse_spec(body.corpus, body.heldout, body.algorithms or None,
                          ",".join(str(s) for s in body.sizes))
        corpus_text(store(request), spec.corpus)
        corpus_text(store(request), spec.heldout)
    except (ValueError, LookupError) as exc:
        raise HTTPException(422, str(exc).strip("'\"")) from None
    return _start_sweep(request, spec).to_dict()


@router.get("/api/sweep/{job_id}", tags=["api"])
def sweep_api_status(request: Request, job_id: str) -> dict[str, Any]:
    """A sweep's progress and the results so far (any server worker answers)."""
    job = jobs(request).get(job_id)
    if job is None:
        raise HTTPException(404, f"no sweep {job_id!r} here (start it with POST /api/sweep)")
    return job.to_dict()


@router.delete("/api/sweep/{job_id}", tags=["api"])
def sweep_api_cancel(request: Request, job_id: str) -> dict[str, Any]:
    """Cancel a sweep: a queued one at once, a running one's training process is killed."""
    job = jobs(request).cancel(job_id)
    if job is None:
        raise HTTPException(404, f"no sweep {job_id!r} here")
    return job.to_dict()

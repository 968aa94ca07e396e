"""Training-mix inference for the web (`/audit/mix`, `GET /api/audit/mix`): the job that runs
`tokenizers_core.audit.mix.estimate_mix` in the pool, and the page's state from that job.

A job is named by the tokenizer and the number of merges, so every request for the same estimate
finds the same job (queued, running or done). The worker loads a bundled tokenizer by name; any
other (uploaded, trained) is handed over pickled into the store (`handover.py`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tokenizers_core import pretrained
from tokenizers_core.audit.merge_list import merge_list
from tokenizers_core.audit.mix import MERGES, ROUNDS, categories
from tokenizers_core.audit.mix_lp import SolverMissing, solver_available

from .. import charts
from ..jobs import Job
from ..state import AppState
from .handover import tokenizer_spec
from .tokenizers import YOURS, resolve_tokenizer, tokenizer_options

KIND = "audit_mix"
KEEP = ("queued", "running", "done")  # a job in any other status is started again
BPE_FAMILIES = ("byte_bpe", "sentencepiece_bpe", "bpe")


def mix_options(state: AppState, current: str | None) -> list[dict[str, str]]:
    """The picker's options: the bundled BPE tokenizers, the uploaded ones, and `current`."""
    bundled = pretrained.bundled()
    return [
        o
        for o in tokenizer_options(state, current)
        if o["group"] in (YOURS, "Trained")
        or o["value"] == current
        or (o["value"] in bundled and bundled[o["value"]].algorithm in BPE_FAMILIES)
    ]


def start_mix(state: AppState, name: str) -> Job:
    """Queue the estimate for tokenizer `name` (or find it): NotFound for an unknown name,
    ValueError for a tokenizer without merges, SolverMissing without scipy, QueueFull."""
    tok = resolve_tokenizer(state, name)
    job_id = mix_job_id(name, MERGES)
    known = state.jobs.get(job_id)
    if not has_known_merges(name, known):
        merge_list(tok)  # (deriving a tiktoken file's merges takes a second: only when unsure)
    if not solver_available():
        raise SolverMissing()
    spec = {**tokenizer_spec(state, name, tok, known), "merges": MERGES}
    job, _created = state.jobs.submit(
        KIND, job_id, spec, total=len(categories()) + ROUNDS, keep=KEEP
    )
    return job


def has_known_merges(name: str, known: Job | None) -> bool:
    """Whether `name` is known to have a merge list without deriving it: a job of it exists
    (its own check passed), or it is a bundled BPE tokenizer."""
    bundled = pretrained.bundled().get(pretrained.canonical_name(name))
    return known is not None or (bundled is not None and bundled.algorithm in BPE_FAMILIES)


def mix_job_id(name: str, merges: int) -> str:
    raw = json.dumps({"kind": KIND, "tokenizer": name, "merges": merges}, sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def mix_view(job: Job | None) -> dict[str, Any]:
    """The page's chart and figures from a finished job ({} while it runs)."""
    if job is None or job.status != "done" or not job.results:
        return {}
    result = job.results
    shown = [s for s in result["shares"] if s["share"] >= 0.0005]
    rows = [(f"{s['name']}", f"{100 * s['share']:.1f} %", 100 * s["share"]) for s in shown]
    return {
        "result": result,
        "chart": charts.bar_chart(rows, label_width=290),
        "hidden": len(result["shares"]) - len(shown),
    }


def api_answer(job: Job) -> tuple[int, dict[str, Any]]:
    """The JSON answer and its status: 200 with the estimate, 202 while it runs, 422 if it
    failed."""
    if job.status == "done":
        return 200, {"status": "done", **job.results}
    if job.status == "error":
        return 422, {"detail": f"the estimate failed: {job.error}"}
    return 202, {
        "status": job.status,
        "done": job.done,
        "total": job.total,
        "current": job.current,
        "place": job.place,
    }

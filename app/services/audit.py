"""The vocabulary health audit for `/audit`, `GET /api/audit` and `tokvis audit`: `tc.audit` of a
tokeniser, run within the request for small vocabularies and as a job (with progress) for
large ones, the finished report kept per server process.

A job gets its tokeniser as `handover.py` hands it over (a bundled one by name, any other
pickled into the store once).
"""

from __future__ import annotations

import hashlib
import pickle
from typing import Any

import tokenizers_core as tc
from tokenizers_core import pretrained
from tokenizers_core.audit import CATEGORIES, FLAGS, LABELS, AuditReport, Health
from tokenizers_core.errors import InvalidInput

from ..jobs.cache import RunCache
from ..jobs.store import Job
from ..state import AppState
from .handover import tokenizer_spec
from .tokenizers import resolve_tokenizer

INLINE = 5_000  # vocabularies up to this size are audited within the request
PAGE = 50  # table rows per page
VERSION = "2"  # part of a job's id: a new audit rule means a new job (2: "duplicate" is same bytes)
FLAG_LABELS = {
    "intermediate": "Intermediate (only inside longer tokens on the corpus)",
    "duplicate": "Duplicate (another id stands for the same bytes)",
    "unseen": "Unseen on the corpus",
}
# what is wrong first: the problem categories, then the flags, the healthy entries last
PROBLEMS = tuple(c for c in CATEGORIES if c != "ok")
FILTERS = (
    [(c, LABELS[c]) for c in PROBLEMS]
    + [(f, FLAG_LABELS[f]) for f in FLAGS]
    + [("ok", LABELS["ok"])]
)

_REPORTS = RunCache(8)  # finished reports, per server process


def job_id(tokenizer: str) -> str:
    """The audit job of a tokeniser name (content-addressed: any worker finds the same)."""
    return hashlib.sha256(f"audit:{VERSION}:{tokenizer}".encode()).hexdigest()[:16]


def audit_of(state: AppState, tokenizer: str) -> tuple[AuditReport | None, Job | None]:
    """The finished report, or (None, the job) while its job runs. NotFound for an unknown
    tokeniser, ValueError for one without a vocabulary or whose audit failed."""
    key = job_id(_canonical(tokenizer))
    found = _REPORTS.get(key) or _stored_report(state, key)
    if found is not None:  # (no need to load the tokenizer: an upload's parse takes seconds)
        return found, None
    tok = resolve_tokenizer(state, tokenizer)
    if tok.model.get_vocab_size() <= INLINE:
        return _REPORTS.put(key, tc.audit(tok)), None
    engine = state.jobs
    job, _ = engine.submit(
        "audit",
        key,
        tokenizer_spec(state, tokenizer, tok, engine.get(key)),
        total=tok.model.get_vocab_size(),
        keep=("queued", "running", "done", "error"),
    )
    if job.status == "done":
        blob = engine.store.blob(job.id)
        if blob is not None:
            return _REPORTS.put(key, pickle.loads(blob)), job
    if job.status == "error":
        raise InvalidInput(f"the audit of {tokenizer} failed: {job.error}")
    return None, job


def _stored_report(state: AppState, key: str) -> AuditReport | None:
    """The report a finished job left in the store (a restart keeps it), or None."""
    engine = state.jobs
    job = engine.get(key)
    if job is None or job.status != "done":
        return None
    blob = engine.store.blob(job.id)
    return None if blob is None else _REPORTS.put(key, pickle.loads(blob))


def _canonical(tokenizer: str) -> str:
    return pretrained.canonical_name(tokenizer) if pretrained.is_bundled(tokenizer) else tokenizer


def check_filter(category: str) -> str | None:
    """ "" (all) or a category or flag; ValueError otherwise."""
    if category and category not in CATEGORIES and category not in FLAGS:
        raise InvalidInput(
            f"unknown category {category!r}; choose one of: {', '.join(CATEGORIES + FLAGS)}"
        )
    return category or None


def check_page(page: int) -> None:
    """InvalidInput for a page below 0 (pages are 0-based; past the last is the last)."""
    if page < 0:
        raise InvalidInput(f"page must be 0 or more, not {page}")


def page_of(
    report: AuditReport, category: str, q: str, page: int, per_page: int = PAGE
) -> dict[str, Any]:
    """One page of the table: the rows, the page (clamped, 0-based), pages and the count;
    with no category, every entry, what is wrong first (`healthy`: how many are not, and
    `healthy_page`, the page where they start)."""
    check_page(page)
    found = report.select(check_filter(category), q)
    healthy = None
    if not category:
        found = problems_first(report, found)
        healthy = sum(1 for h in found if _rank(report, h) == HEALTHY)
    pages = max(1, -(-len(found) // per_page))
    page = min(page, pages - 1)
    rows = [row(report, h) for h in found[page * per_page : (page + 1) * per_page]]
    return {
        "rows": rows,
        "page": page,
        "pages": pages,
        "found": len(found),
        "healthy": healthy,  # None when a category is chosen
        "healthy_page": None if healthy is None else (len(found) - healthy) // per_page,
    }


def problems_first(report: AuditReport, entries: list[Health]) -> list[Health]:
    """`entries` with what is wrong first: the problem categories in `PROBLEMS` order, then
    healthy entries flagged "duplicate", then the healthy ones; by id within each."""
    return sorted(entries, key=lambda h: (_rank(report, h), h.id))


HEALTHY = len(PROBLEMS) + 1  # the rank of a healthy entry with no duplicate


def _rank(report: AuditReport, h: Health) -> int:
    if h.category != "ok":
        return PROBLEMS.index(h.category)
    return HEALTHY - 1 if report.same_bytes_as(h.id) else HEALTHY


def row(report: AuditReport, h: Health) -> dict[str, Any]:
    """A table row: the entry, its flags, and its re-encoding as chips (id, text, colour; a
    chip whose text looks like the entry's shows the model's spelling, CLIP's ``!</w>``)."""
    text = shown(h)
    chips = []
    for i in h.reencoded:
        other = report.entry(i)
        label = shown(other)
        chips.append({"id": i, "text": other.token if label == text else label, "colour": i % 8})
    same = [{"id": i, "text": shown(report.entry(i))} for i in report.same_bytes_as(h.id)]
    return {
        "h": h,
        "shown": text,
        "flags": report.flags(h.id),
        "seen": report.usage.seen[h.id],
        "chips": chips,
        "same": same,
    }


def shown(h: Health) -> str:
    """An entry's text as a chip shows it: the text, or the vocabulary's spelling when the
    bytes are no text."""
    return h.text if h.text is not None else h.token


def api_answer(report: AuditReport, category: str, q: str, page: int, limit: int) -> dict[str, Any]:
    """`GET /api/audit`'s 200 answer: the summary and one page of entries."""
    found = page_of(report, category, q, page, limit)
    return {
        **report.summary(),
        "category": category or None,
        "q": q,
        "page": found["page"],
        "pages": found["pages"],
        "found": found["found"],
        "entries": [report.entry_dict(r["h"]) for r in found["rows"]],
    }


def progress_answer(job: Job) -> dict[str, Any]:
    """`GET /api/audit`'s 202 answer while the job runs."""
    return {"status": job.status, "done": job.done, "total": job.total, "current": job.current}

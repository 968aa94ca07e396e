"""Background jobs for long work (the vocab-size sweep): progress, cancel, cached results.

A job is keyed by its spec, so asking for the same sweep twice shares one run, and a finished
sweep is served from memory. Jobs run in daemon threads; a cancel is honoured between two
trainings. At most `MAX_JOBS` are kept (the oldest finished ones are dropped first).
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import tokenizers_core as tc
from tokenizers_core import metrics as M

MAX_JOBS = 16


@dataclass(frozen=True)
class SweepSpec:
    corpus: str
    heldout: str
    algorithms: tuple[str, ...]
    sizes: tuple[int, ...]

    @property
    def id(self) -> str:
        raw = json.dumps(asdict(self), sort_keys=True).encode()
        return hashlib.sha256(raw).hexdigest()[:16]


@dataclass
class Job:
    spec: SweepSpec
    total: int
    status: str = "running"          # running, done, cancelled, error
    done: int = 0
    current: str = ""
    results: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    started: float = field(default_factory=time.time)
    finished: float | None = None
    cancel: threading.Event = field(default_factory=threading.Event)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.spec.id, "status": self.status, "done": self.done, "total": self.total,
                "current": self.current, "results": self.results, "error": self.error,
                "seconds": round((self.finished or time.time()) - self.started, 2),
                "spec": asdict(self.spec)}


def run_sweep(job: Job, read_corpus: Callable[[str], str]) -> None:
    """Train each algorithm at each size; measure on the held-out text."""
    try:
        lines = read_corpus(job.spec.corpus).splitlines()
        held = read_corpus(job.spec.heldout)
        for algorithm in job.spec.algorithms:
            for size in job.spec.sizes:
                if job.cancel.is_set():
                    job.status = "cancelled"
                    return
                job.current = f"{algorithm} at {size}"
                t0 = time.perf_counter()
                row: dict[str, Any] = {"algorithm": algorithm, "size": size}
                try:
                    tok = tc.train(algorithm, lines, size)
                    m = M.encoding_metrics(held, tok.encode(held), M.unk_ids(tok.model))
                    row.update(vocab_size=tok.vocab_size, tokens_per_word=m.tokens_per_word,
                               chars_per_token=m.chars_per_token, tokens=m.tokens, unk=m.unk)
                except ValueError as exc:
                    row["error"] = str(exc)
                row["seconds"] = round(time.perf_counter() - t0, 3)
                job.results.append(row)
                job.done += 1
        job.status = "done"
    except Exception as exc:  # a job must never die silently: the page shows what went wrong
        job.status, job.error = "error", f"{type(exc).__name__}: {exc}"
    finally:
        job.current = ""
        job.finished = time.time()


class Jobs:
    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def start(self, spec: SweepSpec, read_corpus: Callable[[str], str]) -> Job:
        """Start the sweep, or return the job already running or finished for this spec
        (a cancelled or failed job is started afresh)."""
        with self._lock:
            job = self._jobs.get(spec.id)
            if job is not None and job.status in ("running", "done"):
                return job
            job = Job(spec, total=len(spec.algorithms) * len(spec.sizes))
            self._jobs[spec.id] = job
            self._evict()
        threading.Thread(target=run_sweep, args=(job, read_corpus), daemon=True,
                         name=f"sweep-{spec.id}").start()
        return job

    def cancel(self, job_id: str) -> Job | None:
        job = self.get(job_id)
        if job is not None:
            job.cancel.set()
        return job

    def _evict(self) -> None:
        while len(self._jobs) > MAX_JOBS:
            finished = [k for k, j in self._jobs.items() if j.status != "running"]
            if not finished:
                break
            del self._jobs[finished[0]]


jobs = Jobs()

"""Background runs of the step-through views' trainers (BPE, WordPiece, Unigram), bounded.

A step-through view reads a trainer's live state (the word table, the pair counts at each
step), so its training runs here, in the serving process, not in a job's worker process
(`app.jobs`). What keeps it in bounds:
- at most `workers` runs at once in this process and `queue` more waiting; beyond that
  `QueueFull` (429 with a message);
- a run works in small chunks (`advance()` returns True when finished) and, between two chunks,
  stops when it is cancelled, when nobody has looked at it for `abandon` seconds (the page
  polls while it trains: a reader who left stops it), or when the thread has used its CPU
  budget (`time.thread_time`);
- a request that waits for a run (`wait`) cancels it if its client leaves and nobody else
  waits.
A stopped run leaves its trainer where it was; the next request for it starts a new run that
carries on from there.

    run = runs.start(key, advance)        # or the run already going for this key
    run.finished.wait(2.0)                # a page shows progress after a moment ...
    runs.wait(run)                        # ... an API call waits for the end (ClientGone)
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Hashable

from .job_store import QueueFull
from .jobs import ClientGone, client_gone


class Run:
    def __init__(self, key: Hashable, advance: Callable[[], bool]) -> None:
        self.key, self.advance = key, advance
        self.status = "queued"           # queued, running, done, error, cancelled, abandoned
        self.error: str | None = None
        self.finished = threading.Event()
        self.cancelled = threading.Event()
        self.last_seen = time.monotonic()
        self.waiters = 0

    @property
    def active(self) -> bool:
        return not self.finished.is_set()

    def seen(self) -> None:
        self.last_seen = time.monotonic()


class StepRuns:
    def __init__(self, workers: int = 2, queue: int = 16, cpu_seconds: float = 600,
                 abandon: float = 6.0) -> None:
        self.workers, self.queue = workers, queue
        self.cpu_seconds, self.abandon = cpu_seconds, abandon
        self._runs: dict[Hashable, Run] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tokvis-step")

    def start(self, key: Hashable, advance: Callable[[], bool]) -> Run:
        """The active run for `key` (marked as looked at), or a new one. Raises QueueFull."""
        with self._lock:
            run = self._runs.get(key)
            if run is not None and run.active:
                run.seen()
                return run
            active = [r for r in self._runs.values() if r.active]
            if len(active) >= self.workers + self.queue:
                running = sum(r.status == "running" for r in active)
                raise QueueFull(running, len(active) - running)
            for k in [k for k, r in self._runs.items() if not r.active]:
                del self._runs[k]         # finished runs: their trainers live in the views' caches
            run = self._runs[key] = Run(key, advance)
        self._pool.submit(self._work, run)
        return run

    def wait(self, run: Run, gone: Callable[[], bool] = client_gone,
             timeout: float | None = None) -> Run:
        """Wait for the run to end; ValueError if it failed or was stopped. If the client
        leaves first and no other request waits for this run, the run is cancelled. With a
        `timeout`, the run may come back still active (it goes on)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        run.waiters += 1
        try:
            while not run.finished.wait(0.25 if timeout is None else min(0.25, timeout)):
                run.seen()
                if gone():
                    if run.waiters == 1:
                        run.cancelled.set()
                    raise ClientGone(f"the client left; training {run.key!r} stopped")
                if deadline is not None and time.monotonic() >= deadline:
                    return run
        finally:
            run.waiters -= 1
        if run.status != "done":
            raise ValueError(run.error or f"the training was {run.status}; try again")
        return run

    def _work(self, run: Run) -> None:
        run.status = "running"
        cpu0 = time.thread_time()
        try:
            while True:
                if run.cancelled.is_set():
                    run.status = "cancelled"
                    return
                if run.waiters == 0 and time.monotonic() - run.last_seen > self.abandon:
                    run.status = "abandoned"      # nobody looks at it any more
                    return
                if time.thread_time() - cpu0 > self.cpu_seconds:
                    run.status = "error"
                    run.error = (f"the training used up its CPU budget of {self.cpu_seconds:,} s "
                                 "(TOKVIS_JOB_CPU_SECONDS)")
                    return
                if run.advance():
                    run.status = "done"
                    return
        except (ValueError, LookupError) as exc:
            run.status, run.error = "error", str(exc)
        except Exception as exc:    # never die silently: the page shows what went wrong
            run.status, run.error = "error", f"{type(exc).__name__}: {exc}"
        finally:
            run.finished.set()

    def counts(self) -> dict[str, Any]:
        with self._lock:
            active = [r for r in self._runs.values() if r.active]
        return {"running": sum(r.status == "running" for r in active),
                "queued": sum(r.status == "queued" for r in active)}

"""The shared job queue: servers queue, `tokvis worker` processes run, on one PostgreSQL.

When the store is PostgreSQL (TOKVIS_DATABASE_URL), several servers and several workers,
perhaps on several machines, share one database. A job is still a row of `jobs`
(`store.JobStore`: its status, progress, results, its cancel flag), read by whichever server
is asked; who runs it is procrastinate's business, a PostgreSQL-only queue:

- a server's `DistributedQueue.submit` writes the row and procrastinate's job in one
  transaction (`JobStore.submit(enqueue=...)`): the queue limit's check (429), the row and the
  queue entry commit together, or none of them;
- a worker (`run_worker`, `tokvis worker --concurrency N`) is handed the job by procrastinate
  (LISTEN/NOTIFY: at once), claims the row, and runs the training in a child exactly as the
  embedded queue does (`children.Trainings`: CPU and memory limits, killed within ~0.1 s of a
  cancel asked through any server, a heartbeat every 2 s);
- every server and worker marks as `interrupted` the running jobs whose heartbeat stopped for
  TOKVIS_JOB_STALE_SECONDS (a worker killed with -9; its child dies with it), and cancels the
  jobs nobody looks at any more (`abandon`), so a dead worker's job is reported while the
  remaining workers run the next ones.

Why procrastinate (issue 28): it needs nothing but the PostgreSQL the store already is, it
defers inside our own transaction, and it runs plain functions; what we need on top (a child
per training, its limits, the kill on cancel) is ours and shared with the embedded queue.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from typing import Any

from sqlalchemy import Connection

from ..db import ensure_current, shown
from ..sandbox import supervisor
from .children import HEARTBEAT, Trainings
from .counting import Enqueue, requeue_interrupted
from .deferral import QUEUE, TASK, Deferrer, enqueuer, procrastinate_app
from .queue import JobQueue
from .store import Job, JobStore

POLL = 0.05  # seconds between two looks at a running training's row and child
STOPPED = "the worker was stopped while this job ran; start it again"


class Sweeper:
    """A thread that, every heartbeat, cancels the jobs nobody looks at any more, marks
    those whose process stopped beating as interrupted (any server or worker may), and queues
    again the interrupted shards of a training on shards (`counting.requeue_interrupted`)."""

    def __init__(self, store: JobStore, stale: float, enqueue: Enqueue | None = None) -> None:
        self.store, self.stale, self.enqueue = store, stale, enqueue
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pid = 0

    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive() and self._pid == os.getpid():
            return
        self._pid = os.getpid()
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="tokvis-sweeper")
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(HEARTBEAT):
            try:
                self.store.cancel_abandoned()
                self.store.interrupt_stale(self.stale)
                requeue_interrupted(self.store, self.enqueue)
            except Exception:  # the database away for a moment: next beat
                pass


class DistributedQueue(JobQueue):
    """The web side when the store is PostgreSQL: queue through procrastinate, never run."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._defer = Deferrer(self.store.url)
        self.sweeper = Sweeper(self.store, self.stale, self._defer)

    def start(self) -> None:
        self.store.key  # no TOKVIS_SECRET_KEY: refuse now, with the reason
        self.sweeper.start()

    def stop(self) -> None:
        self.sweeper.stop()

    def _enqueue(self, conn: Connection, job_id: str) -> None:
        self._defer(conn, job_id)


# ---- the worker -----------------------------------------------------------------------------
class Worker:
    """What `tokvis worker` runs: procrastinate's worker, whose task runs one job's training."""

    def __init__(self, url: str, cpu_seconds: int, memory_mb: int, stale: float) -> None:
        self.store = JobStore(url)
        self.cpu_seconds, self.memory_bytes = cpu_seconds, memory_mb * 2**20
        self.sweeper = Sweeper(self.store, stale, enqueuer(url))
        self.running: set[Trainings] = set()
        self._lock = threading.Lock()
        self.app = procrastinate_app(url, sync=False)
        self.app.task(name=TASK, queue=QUEUE, pass_context=True)(self.run_job)

    def run(self, concurrency: int) -> None:
        self.store.key  # no TOKVIS_SECRET_KEY: refuse now, with the reason
        ensure_current(self.store.url)
        supervisor.preload(__package__ + ".tasks")
        supervisor.preload("sqlalchemy.dialects.postgresql.psycopg")  # each child's driver
        sys.stderr.write(
            f"tokvis worker: running up to {concurrency} trainings at once, from "
            f"{shown(self.store.url)}\n"
        )
        self.sweeper.start()
        try:
            self.app.run_worker(
                queues=[QUEUE],
                concurrency=concurrency,
                delete_jobs="always",
                shutdown_graceful_timeout=2.0,
                name=f"tokvis-{socket.gethostname()}-{os.getpid()}",
            )
        finally:
            self.sweeper.stop()
            with self._lock:
                for trainings in list(self.running):
                    trainings.stop(STOPPED)

    def run_job(self, context: Any, job_id: str) -> None:
        """procrastinate's task: claim the job's row, run its training in a child, and watch
        it (cancel, heartbeat, how it ended) until the child is gone."""
        job = self.store.claim_one(job_id, f"{socket.gethostname()}:{os.getpid()}")
        if job is None:
            return  # cancelled while it waited, or pruned
        trainings = Trainings(self.store, self.cpu_seconds, self.memory_bytes)
        with self._lock:
            self.running.add(trainings)
        began = time.monotonic()
        log(started_line(job))
        try:
            trainings.start(job)
            while len(trainings):
                if context.should_abort():
                    trainings.stop(STOPPED)
                    return
                trainings.watch()
                time.sleep(POLL)
        finally:
            with self._lock:
                self.running.discard(trainings)
            log(ended_line(job, self.store.get(job.id), time.monotonic() - began))


# ---- one line per job on stderr: which, its kind, how long, how it ended ---------------------
def log(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()  # a line per job as it happens, also through a pipe (docker logs)


def started_line(job: Job) -> str:
    """The line a job's start prints.

    >>> started_line(Job("a1b2", "sweep", {}, "running"))
    'tokvis worker: job a1b2 (sweep) started'
    """
    return f"tokvis worker: job {job.id} ({job.kind}) started"


def ended_line(job: Job, final: Job | None, seconds: float) -> str:
    """How the job ended, from its row once the training is gone (None: the row was pruned).

    >>> ended_line(Job("a1b2", "sweep", {}, "running"), Job("a1b2", "sweep", {}, "done"), 3.14)
    'tokvis worker: job a1b2 (sweep) ended: done in 3.1 s'
    >>> failed = Job("a1b2", "sweep", {}, "error", error="out of memory\\nat step 3")
    >>> ended_line(failed, failed, 0.42)
    'tokvis worker: job a1b2 (sweep) ended: error in 0.4 s: out of memory'
    """
    status = final.status if final is not None else "gone (its row was pruned)"
    why = f": {final.error.splitlines()[0][:200]}" if final is not None and final.error else ""
    return f"tokvis worker: job {job.id} ({job.kind}) ended: {status} in {seconds:.1f} s{why}"


def run_worker(url: str, concurrency: int, cpu_seconds: int, memory_mb: int, stale: float) -> None:
    Worker(url, cpu_seconds, memory_mb, stale).run(concurrency)

"""Trainings that cannot run away: a bounded pool of worker processes fed by a bounded queue in
the SQLite store (`store.JobStore`).

Every server process runs one small dispatcher thread (`Engine`). It claims queued jobs while
fewer than `TOKVIS_JOB_WORKERS` run anywhere (the count is taken in the store, so the bound holds
across `uvicorn --workers N`), starts each in a child process (`tasks.run_job`, with CPU and
memory limits), and watches them: a cancel request in the store kills the child at once; a
child killed by its CPU budget is reported as such; a heartbeat marks its jobs alive. A server
that starts finds the jobs whose process is gone (kill -9, a crash) and marks them
`interrupted`; finished jobs keep their results in the store.

Why the stdlib and the store, not Huey / RQ / Celery: the step values and results already live
in this SQLite file, which is also what every worker shares; Huey's SQLite mode still needs its
own consumer process and cannot stop a task once it runs (revoke only skips queued tasks), nor
give one task a CPU or memory budget; RQ and Celery need Redis or a broker. What we need on top
of the store is a process per training (killable, with `setrlimit`), which is ~200 lines here.
Scaling past one machine means pointing every worker at one shared store, as for corpora.

The step-through views' trainings are jobs too (`app.jobs.runs`): the child returns the
finished run, which the view then reads step by step. A view's job is `abandon`ed (cancelled)
once nobody has polled it for a few seconds: a reader who left stops it.

    job, created = engine.submit("sweep", spec_id, spec, total=10)   # QueueFull -> 429
    engine.cancel(job.id)                                            # killed within ~0.2 s
    job = engine.wait(job.id, created)                               # a request that needs it

Job ids are content-addressed (any worker finds the same job), so anyone can name one. Who may
cancel it from outside is whoever created it: `creator_id(job)` is the id with the job's random
secret appended, given only to the request that queued it, and `cancel_as_creator` needs it.
A request its `guard` refuses (app/main.py gives `security.queued_work_refusal`: a GET another
site's page had a browser send) finds a job already queued or done, but queues none
(PermissionError, answered 403).
"""
from __future__ import annotations

import contextvars
import hashlib
import hmac
import json
import os
import signal
import socket
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable

from ..sandbox import supervisor
from .store import FINAL, Job, JobStore, QueueFull

__all__ = ["Engine", "Job", "QueueFull", "ClientGone", "SweepSpec", "client_gone"]

TICK = 0.2                 # seconds between two looks at the children and the store
HEARTBEAT = 2.0            # a running job's row is touched this often ...
STALE = 20.0               # ... and counts as orphaned (interrupted) this long after the last
KEEP_FINISHED = 500        # finished jobs kept in the store (the oldest go first) ...
KEEP_RESULTS = 48          # ... of them, those holding a pickled result (a model, a run),
RESULT_BYTES = 10 ** 9     # ... and at most this much of such results together


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


class ClientGone(Exception):
    """The client left while its request waited for a training (the training was cancelled)."""


# The request being served, so that a wait deep inside a route can tell whether its client left
# (set by `RequestContext` in app/main.py; read from the worker thread of a sync route).
current_request: contextvars.ContextVar[Any] = contextvars.ContextVar("current_request",
                                                                      default=None)


def client_gone() -> bool:
    """True when the client of the request being served has disconnected."""
    request = current_request.get()
    if request is None:
        return False
    try:
        import anyio.from_thread
        return anyio.from_thread.run(request.is_disconnected)
    except RuntimeError:    # not in a worker thread of the event loop (a test calling directly)
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Engine:
    def __init__(self, db_path: Any, workers: int = 2, queue: int = 16, cpu_seconds: int = 600,
                 memory_mb: int = 4096,
                 guard: Callable[[Any], str | None] = lambda request: None) -> None:
        self.store = JobStore(db_path)
        self.guard = guard          # request -> why it may not queue a new job, or None
        self.db_path = str(db_path)
        self.workers, self.queue = workers, queue
        self.cpu_seconds, self.memory_bytes = cpu_seconds, memory_mb * 2 ** 20
        self._children: dict[str, Any] = {}     # job id -> multiprocessing.Process
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.owner = ""
        supervisor.preload(__package__ + ".tasks")    # the children's code: the server never runs it

    # ---- the web layer's side --------------------------------------------------------------
    def submit(self, kind: str, job_id: str, spec: dict[str, Any], total: int = 0,
               abandon: float | None = None, keep: tuple[str, ...] = ("queued", "running", "done")
               ) -> tuple[Job, bool]:
        """Queue a job (or find it queued, running or done, or in another `keep` status).
        With `abandon`, the job is cancelled once nobody has looked at it for that many
        seconds (`submit` again and `wait` look). Raises QueueFull, and PermissionError
        for a new job the `guard` refuses to the request being served."""
        self.start()
        refusal = self.guard(current_request.get())
        if refusal is not None:
            found = self.store.get(job_id)
            if found is None or found.status not in keep:
                raise PermissionError(refusal)
        job, created = self.store.submit(job_id, kind, spec, total, self.queue, abandon, keep)
        if created:
            self.store.prune(KEEP_FINISHED, KEEP_RESULTS, RESULT_BYTES)
            self._wake.set()
        return job, created

    def get(self, job_id: str) -> Job | None:
        return self.store.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        job = self.store.request_cancel(job_id)
        self._wake.set()
        return job

    @staticmethod
    def creator_id(job: Job) -> str:
        """The id its creator gets: the job's id and its secret (whoever has it may cancel)."""
        return f"{job.id}.{job.secret}" if job.secret else job.id

    def find(self, given: str) -> tuple[Job | None, bool]:
        """The job a public or creator's id names, and whether it was the creator's id."""
        job_id, _, secret = given.partition(".")
        job = self.store.get(job_id)
        if job is None:
            return None, False
        return job, bool(secret and job.secret and hmac.compare_digest(secret, job.secret))

    def cancel_as_creator(self, given: str, kind: str) -> Job | None:
        """Cancel the `kind` job `given` names if it is its creator's id; None if there is no
        such job, PermissionError if the id is not the creator's."""
        job, creator = self.find(given)
        if job is None or job.kind != kind:
            return None
        if not creator:
            raise PermissionError(f"only whoever started this {kind} can cancel it: the browser "
                                  f"that started it, or with the id POST /api/{kind} gave them")
        return self.cancel(job.id)

    def wait(self, job_id: str, created: bool,
             gone: Callable[[], bool] = client_gone, timeout: float | None = None) -> Job:
        """Wait for a job to end (or, with `timeout`, at most that many seconds: the job may
        come back still active, and goes on). If the client leaves first, and this request
        queued the job, and nobody else has looked at it since (a page polling it, another
        request waiting), the job is cancelled (it had no other purpose); ClientGone is raised
        either way."""
        delay = 0.02
        start = last_touch = time.monotonic()
        mine = self.store.seen(job_id) or 0.0    # the last look that was this request's
        while True:
            job = self.store.get(job_id)
            if job is None or job.status in FINAL:
                return job
            now = time.monotonic()
            if timeout is not None and now - start >= timeout:
                return job
            if gone():
                alone = (self.store.seen(job_id) or 0.0) <= mine   # nobody else looked since
                if created and alone:
                    self.cancel(job_id)
                raise ClientGone(f"the client left; job {job_id} "
                                 f"{'cancelled' if created and alone else 'left to run'}")
            if now - last_touch > 0.3:        # a waiting request is somebody looking
                mine = self.store.touch(job_id)
                last_touch = now
            time.sleep(delay if timeout is None else min(delay, max(0.0, start + timeout - now)))
            delay = min(delay * 1.5, 0.25)

    # ---- the dispatcher --------------------------------------------------------------------
    def start(self) -> None:
        """Start this process's dispatcher (once; again after a fork)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self.owner = f"{socket.gethostname()}:{os.getpid()}"
            self._stop.clear()
            self._recover()
            self._thread = threading.Thread(target=self._loop, daemon=True,
                                            name="tokvis-jobs")
            self._thread.start()

    def stop(self) -> None:
        """Stop the dispatcher; trainings still running are killed and marked interrupted."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for job_id, child in list(self._children.items()):
            child.kill()
            child.join(timeout=5)
            self.store.interrupt("id = ?", (job_id,))
        self._children.clear()

    def _recover(self) -> None:
        """Jobs left `running` by a process of this machine that is gone were interrupted."""
        host = socket.gethostname()
        for job_id, owner in self.store.running_owned(host + ":"):
            pid = int(owner.rsplit(":", 1)[1])
            if not _alive(pid):
                self.store.interrupt("id = ?", (job_id,))

    def _loop(self) -> None:
        last_beat = 0.0
        while not self._stop.is_set():
            try:
                self._reap()
                self.store.cancel_abandoned()
                self._kill_cancelled()
                now = time.monotonic()
                if now - last_beat > HEARTBEAT:
                    last_beat = now
                    self.store.heartbeat(list(self._children))
                    self.store.interrupt("heartbeat < ?", (time.time() - STALE,))
                self._claim()
            except Exception:       # the store busy for a moment: try again next tick
                pass
            self._wake.wait(TICK)
            self._wake.clear()

    def _claim(self) -> None:
        while len(self._children) < self.workers:
            job = self.store.claim(self.owner, self.workers)
            if job is None:
                return
            from .tasks import run_job      # the children's code: the server never runs it
            child = supervisor.context().Process(
                target=run_job, name=f"tokvis-job-{job.id}", daemon=True,
                args=(self.db_path, job.id, job.kind, job.spec, self.cpu_seconds,
                      self.memory_bytes, os.getpid()))
            child.start()
            self._children[job.id] = child
            self.store.started(job.id, child.pid)

    def _reap(self) -> None:
        for job_id, child in list(self._children.items()):
            if child.is_alive():
                continue
            child.join()
            del self._children[job_id]
            code = child.exitcode
            out_of_cpu = code == -signal.SIGXCPU or code == -signal.SIGKILL and self._ran_out(job_id)
            if code != 0:
                self.store.finish(job_id, "error", error_kind="budget" if out_of_cpu else "internal",
                                  error=supervisor.exit_reason(
                                      code, "the training", self.cpu_seconds,
                                      "TOKVIS_JOB_CPU_SECONDS", self.memory_bytes // 2 ** 20,
                                      "TOKVIS_JOB_MEMORY_MB", out_of_cpu))
            # exit code 0: the child recorded its own result

    def _ran_out(self, job_id: str) -> bool:
        """Could a SIGKILL have been the CPU limit's (the hard one, a few seconds past the
        soft)? Only if the job ran at least its CPU budget of wall time: otherwise something
        else killed it (the out-of-memory killer, an operator), and it may be tried again."""
        job = self.store.get(job_id)
        return job is not None and job.started is not None \
            and time.time() - job.started >= self.cpu_seconds

    def _kill_cancelled(self) -> None:
        for job_id in self.store.cancel_requested(list(self._children)):
            child = self._children.pop(job_id)
            child.kill()
            child.join()
            self.store.finish(job_id, "cancelled")

"""`JobQueue`: what the web layer asks of the job queue, the same for both backends.

A job is a row of the store (`store.JobStore`): queued, polled, cancelled and read there, so any
server process answers for any job. The backends differ only in who runs it:

- `engine.Engine`, the embedded queue (SQLite, the default): a dispatcher thread in every
  server process claims queued rows and runs them in its own children;
- `distributed.DistributedQueue` (PostgreSQL): the new row and a procrastinate job are written
  in one transaction, and `tokvis worker` processes run it; servers only queue and read.

    job, created = queue.submit("sweep", spec_id, spec, total=10)   # QueueFull -> 429
    queue.cancel(job.id)                                            # killed within ~0.2 s
    job = queue.wait(job.id, created)                               # a request that needs it

Job ids are content-addressed (any process finds the same job), so anyone can name one. Who may
cancel it from outside is whoever created it: `creator_id(job)` is the id with the job's random
secret appended, given only to the request that queued it, and `cancel_as_creator` needs it.
A request its `guard` refuses (app/main.py gives `security.queued_work_refusal`: a GET another
site's page had a browser send) finds a job already queued or done, but queues none
(PermissionError, answered 403).
"""

from __future__ import annotations

import contextvars
import hmac
import time
from typing import Any, Callable

from sqlalchemy import Connection

from .store import FINAL, Job, JobStore

KEEP_FINISHED = 500  # finished jobs kept in the store (the oldest go first) ...
KEEP_RESULTS = 48  # ... of them, those holding a pickled result (a model, a run),
RESULT_BYTES = 10**9  # ... and at most this much of such results together
STALE = 30.0  # a running job with no heartbeat this long was interrupted


class ClientGone(Exception):
    """The client left while its request waited for a training (the training was cancelled)."""


# The request being served, so that a wait deep inside a route can tell whether its client left
# (set by `RequestContext` in app/main.py; read from the worker thread of a sync route).
current_request: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "current_request", default=None
)


def client_gone() -> bool:
    """True when the client of the request being served has disconnected."""
    request = current_request.get()
    if request is None:
        return False
    try:
        import anyio.from_thread

        return anyio.from_thread.run(request.is_disconnected)
    except RuntimeError:  # not in a worker thread of the event loop (a test calling directly)
        return False


class JobQueue:
    """The web layer's side of a job queue; a backend adds who runs the jobs (`start`, `stop`,
    `_enqueue`, `_queued`)."""

    def __init__(
        self,
        where: Any,
        workers: int = 2,
        queue: int = 16,
        cpu_seconds: int = 600,
        memory_mb: int = 4096,
        stale: float = STALE,
        guard: Callable[[Any], str | None] = lambda request: None,
    ) -> None:
        self.store = JobStore(where)
        self.guard = guard  # request -> why it may not queue a new job, or None
        self.workers, self.queue, self.stale = workers, queue, stale
        self.cpu_seconds, self.memory_bytes = cpu_seconds, memory_mb * 2**20

    # ---- a backend's part ------------------------------------------------------------------
    def start(self) -> None:
        """Start what this process does for the queue (once; again after a fork)."""

    def stop(self) -> None:
        """Stop it."""

    def _enqueue(self, conn: Connection, job_id: str) -> None:
        """Hand a new job to whoever runs jobs, in the transaction that writes its row."""

    def _queued(self) -> None:
        """A job was queued (after its transaction committed)."""

    # ---- the web layer's side --------------------------------------------------------------
    def submit(
        self,
        kind: str,
        job_id: str,
        spec: dict[str, Any],
        total: int = 0,
        abandon: float | None = None,
        keep: tuple[str, ...] = ("queued", "running", "done"),
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
        job, created = self.store.submit(
            job_id, kind, spec, total, self.queue, abandon, keep, enqueue=self._enqueue
        )
        if created:
            self.store.prune(KEEP_FINISHED, KEEP_RESULTS, RESULT_BYTES)
            self._queued()
        return job, created

    def get(self, job_id: str) -> Job | None:
        return self.store.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        job = self.store.request_cancel(job_id)
        self._queued()
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
            raise PermissionError(
                f"only whoever started this {kind} can cancel it: the browser "
                f"that started it, or with the id POST /api/{kind} gave them"
            )
        return self.cancel(job.id)

    def wait(
        self,
        job_id: str,
        created: bool,
        gone: Callable[[], bool] = client_gone,
        timeout: float | None = None,
    ) -> Job:
        """Wait for a job to end (or, with `timeout`, at most that many seconds: the job may
        come back still active, and goes on). If the client leaves first, and this request
        queued the job, and nobody else has looked at it since (a page polling it, another
        request waiting), the job is cancelled (it had no other purpose); ClientGone is raised
        either way."""
        delay = 0.02
        start = last_touch = time.monotonic()
        mine = self.store.seen(job_id) or 0.0  # the last look that was this request's
        while True:
            job = self.store.get(job_id)
            if job is None or job.status in FINAL:
                return job  # type: ignore[return-value]
            now = time.monotonic()
            if timeout is not None and now - start >= timeout:
                return job
            if gone():
                alone = (self.store.seen(job_id) or 0.0) <= mine  # nobody else looked since
                if created and alone:
                    self.cancel(job_id)
                raise ClientGone(
                    f"the client left; job {job_id} "
                    f"{'cancelled' if created and alone else 'left to run'}"
                )
            if now - last_touch > 0.3:  # a waiting request is somebody looking
                mine = self.store.touch(job_id)
                last_touch = now
            time.sleep(delay if timeout is None else min(delay, max(0.0, start + timeout - now)))
            delay = min(delay * 1.5, 0.25)

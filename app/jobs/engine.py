"""The embedded job queue: trainings that cannot run away, run by the server processes
themselves, from a bounded queue in the store (`store.JobStore`). The default: `make run` needs
no other service.

Every server process runs one small dispatcher thread (`Engine`). It claims queued jobs while
fewer than `TOKVIS_JOB_WORKERS` run anywhere (the count is taken in the store, so the bound holds
across `uvicorn --workers N`), and runs each in a child process (`children.Trainings`: CPU and
memory limits, killed at once on cancel, a heartbeat). A server that starts finds the jobs whose
process is gone (kill -9, a crash) and marks them `interrupted`; any dispatcher marks those whose
heartbeat stopped for `stale` seconds (TOKVIS_JOB_STALE_SECONDS). Finished jobs keep their
results in the store. With PostgreSQL, jobs go to `tokvis worker` processes instead
(`distributed.DistributedQueue`); the web side (`queue.JobQueue`) is the same.

The step-through views' trainings are jobs too (`app.jobs.runs`): the child returns the
finished run, which the view then reads step by step. A view's job is `abandon`ed (cancelled)
once nobody has polled it for a few seconds: a reader who left stops it.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import threading
from dataclasses import asdict, dataclass
from typing import Any

from ..sandbox import supervisor
from .children import Trainings
from .counting import requeue_interrupted
from .queue import ClientGone, JobQueue, client_gone, current_request
from .store import Job, QueueFull

__all__ = [
    "Engine",
    "Job",
    "QueueFull",
    "ClientGone",
    "SweepSpec",
    "client_gone",
    "current_request",
]

TICK = 0.2  # seconds between two looks at the children and the store
STOPPED = "the server stopped while this job ran; start it again"


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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Engine(JobQueue):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.trainings = Trainings(self.store, self.cpu_seconds, self.memory_bytes)
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.owner = ""
        supervisor.preload(__package__ + ".tasks")  # the children's code: the server never runs it

    def _queued(self) -> None:
        self._wake.set()

    # ---- the dispatcher --------------------------------------------------------------------
    def start(self) -> None:
        """Start this process's dispatcher (once; again after a fork)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self.owner = f"{socket.gethostname()}:{os.getpid()}"
            self._stop.clear()
            self._recover()
            self._thread = threading.Thread(target=self._loop, daemon=True, name="tokvis-jobs")
            self._thread.start()

    def stop(self) -> None:
        """Stop the dispatcher; trainings still running are killed and marked interrupted."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.trainings.stop(STOPPED)

    def _recover(self) -> None:
        """Jobs left `running` by a process of this machine that is gone were interrupted."""
        host = socket.gethostname()
        for job_id, owner in self.store.running_owned(host + ":"):
            pid = int(owner.rsplit(":", 1)[1])
            if not _alive(pid):
                self.store.interrupt_job(job_id, STOPPED)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.trainings.reap()
                self.store.cancel_abandoned()
                self.trainings.kill_cancelled()
                self.trainings.beat()
                self.store.interrupt_stale(self.stale)
                requeue_interrupted(self.store, None)  # a shard whose process died: again
                self._claim()
            except Exception:  # the store busy for a moment: try again next tick
                pass
            self._wake.wait(TICK)
            self._wake.clear()

    def _claim(self) -> None:
        while len(self.trainings) < self.workers:
            job = self.store.claim(self.owner, self.workers)
            if job is None:
                return
            self.trainings.start(job)

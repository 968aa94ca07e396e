"""The training children of one process: started, watched, killed on cancel, and reported.

Both job queues run trainings the same way (`engine.Engine`, the embedded dispatcher in each
server process; `distributed`, a `tokvis worker` handed jobs by procrastinate): each job in its
own child process from the shared supervisor (`app.sandbox.supervisor`), which lowers its own
CPU and memory limits before it starts (`tasks.run_job`). The process that started it:

- kills it at once when the job's row asks for a cancel (`kill_cancelled`);
- beats the job's heartbeat (`beat`), so that any process sharing the store can tell, once the
  beats stop for TOKVIS_JOB_STALE_SECONDS, that this process is gone (`JobStore.interrupt_stale`);
- reads how the child ended (`reap`): a child that recorded its own result exits 0; any other
  exit is reported in words (over its CPU budget, killed, ...).
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from ..sandbox import supervisor
from .store import Job, JobStore

HEARTBEAT = 2.0  # seconds between two beats of a running job's row


class Trainings:
    def __init__(self, store: JobStore, cpu_seconds: int, memory_bytes: int) -> None:
        self.store = store
        self.cpu_seconds, self.memory_bytes = cpu_seconds, memory_bytes
        self.children: dict[str, Any] = {}  # job id -> multiprocessing.Process
        self._last_beat = 0.0

    def __len__(self) -> int:
        return len(self.children)

    def start(self, job: Job) -> None:
        """Run `job` (already marked running for this process) in a child."""
        from .tasks import run_job  # lazy: the children's code; the server never runs it

        child = supervisor.context().Process(
            target=run_job,
            name=f"tokvis-job-{job.id}",
            daemon=True,
            args=(
                self.store.url,
                job.id,
                job.kind,
                job.spec,
                self.cpu_seconds,
                self.memory_bytes,
                os.getpid(),
                os.environ.get("TOKVIS_CORPUS_DIRS", ""),  # the fork server's may be older
            ),
        )
        child.start()
        self.children[job.id] = child
        self.store.started(job.id, child.pid)

    def watch(self) -> None:
        """One look: kill what was cancelled, report what ended, beat the heartbeat."""
        self.kill_cancelled()
        self.reap()
        self.beat()

    def beat(self, every: float = HEARTBEAT) -> None:
        now = time.monotonic()
        if now - self._last_beat >= every:
            self._last_beat = now
            self.store.heartbeat(list(self.children))

    def kill_cancelled(self) -> None:
        for job_id in self.store.cancel_requested(list(self.children)):
            child = self.children.pop(job_id)
            child.kill()
            child.join()
            self.store.finish(job_id, "cancelled")

    def reap(self) -> None:
        for job_id, child in list(self.children.items()):
            if child.is_alive():
                continue
            child.join()
            del self.children[job_id]
            code = child.exitcode
            out_of_cpu = (
                code == -signal.SIGXCPU or code == -signal.SIGKILL and self._ran_out(job_id)
            )
            if code != 0:
                self.store.finish(
                    job_id,
                    "error",
                    error_kind="budget" if out_of_cpu else "internal",
                    error=supervisor.exit_reason(
                        code,
                        "the training",
                        self.cpu_seconds,
                        "TOKVIS_JOB_CPU_SECONDS",
                        self.memory_bytes // 2**20,
                        "TOKVIS_JOB_MEMORY_MB",
                        out_of_cpu,
                    ),
                )
            # exit code 0: the child recorded its own result

    def _ran_out(self, job_id: str) -> bool:
        """Could a SIGKILL have been the CPU limit's (the hard one, a few seconds past the
        soft)? Only if the job ran at least its CPU budget of wall time: otherwise something
        else killed it (the out-of-memory killer, an operator), and it may be tried again."""
        job = self.store.get(job_id)
        return (
            job is not None
            and job.started is not None
            and time.time() - job.started >= self.cpu_seconds
        )

    def stop(self, error: str) -> None:
        """Kill every child; their jobs are interrupted, with `error` as the reason."""
        for job_id, child in list(self.children.items()):
            child.kill()
            child.join(timeout=5)
            self.store.interrupt_job(job_id, error)
        self.children.clear()

"""Serving: the job engine and what it runs, with the caches of the views' runs, fenced off from
the core (which keeps plain, resumable sessions that a caller may cache).

- `queue`: what the web layer asks of a job queue (`JobQueue`), the same for both backends:
- `engine`: the embedded one, a bounded pool of each server's own child processes fed by the
  queue in the store (`Engine`; SQLite, the default)
- `distributed`: the shared one, procrastinate on PostgreSQL, run by `tokvis worker`s
- `children`: a process's training children (limits, kill on cancel, heartbeat), for both
- `store`: jobs as rows of the store (`JobStore`, `Job`), so any server answers for any job
- `tasks`: what a job runs, in its worker process (sweeps, trainings, the views' runs, /check)
- `runs`: the step-through views' runs, trained within the request or as a job
- `cache`: the one place that keeps runs per server process: LRUs bounded by count and bytes,
  a lock per key so one request loads a run while the others wait, and the garbage collector
  kept off a run that stays

The engine's names are re-exported here (`from app.jobs import Engine`).
"""

from .engine import ClientGone, Engine, QueueFull, SweepSpec, current_request
from .queue import JobQueue
from .store import Job

__all__ = ["ClientGone", "Engine", "Job", "JobQueue", "QueueFull", "SweepSpec", "current_request"]

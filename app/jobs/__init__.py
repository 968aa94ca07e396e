"""Serving: the job engine and what it runs, with the caches of the views' runs, fenced off from
the core (which keeps plain, resumable sessions that a caller may cache).

- `engine`: a bounded pool of worker processes fed by a queue in the SQLite store (`Engine`)
- `store`: jobs as rows of that store (`JobStore`, `Job`), so any server worker answers for any job
- `tasks`: what a job runs, in its worker process (sweeps, trainings, the views' runs, /check)
- `runs`: the step-through views' runs, trained within the request or as a job
- `cache`: the one place that keeps runs per server process: LRUs bounded by count and bytes,
  a lock per key so one request loads a run while the others wait, and the garbage collector
  kept off a run that stays

The engine's names are re-exported here (`from app.jobs import Engine`).
"""
from .engine import ClientGone, Engine, QueueFull, SweepSpec, current_request
from .store import Job

__all__ = ["ClientGone", "Engine", "Job", "QueueFull", "SweepSpec", "current_request"]

"""Background jobs as rows of the SQLite store, so any server worker (or a restarted server)
answers for any job.

A job is a row: what to run (`kind`, `spec`), where it is (`status`: queued -> running -> done,
error, cancelled or interrupted), its progress, and its results (JSON, plus an optional pickled
value such as a trained tokeniser). Claiming the next queued job happens in one `BEGIN
IMMEDIATE` transaction that also counts the running ones, so the bound on concurrent trainings
holds across every process sharing the file. Stdlib `sqlite3`, one short connection per call,
as `app.store.CorpusStore`. Results count against the store's size limit (TOKVIS_MAX_STORE_MB):
past it, finished jobs are dropped, least recently used first, whenever a job is queued or
finishes (see `app.store`); a result dropped is computed again when asked for.
"""
from __future__ import annotations

import json
import secrets
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..store import LIMITS_SCHEMA, drop_job_results, enable_wal, store_limit, used_bytes

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    spec       TEXT NOT NULL,
    status     TEXT NOT NULL,
    done       INTEGER NOT NULL DEFAULT 0,
    total      INTEGER NOT NULL DEFAULT 0,
    current    TEXT NOT NULL DEFAULT '',
    results    TEXT NOT NULL DEFAULT '[]',
    blob       BLOB,
    error      TEXT,
    error_kind TEXT,
    owner      TEXT,
    pid        INTEGER,
    cancel     INTEGER NOT NULL DEFAULT 0,
    created    REAL NOT NULL,
    started    REAL,
    finished   REAL,
    heartbeat  REAL,
    seen       REAL,
    abandon    REAL
);
CREATE INDEX IF NOT EXISTS jobs_status ON jobs (status, created);
""" + LIMITS_SCHEMA
# columns added since the first release: a store made then gets them on opening
_ADDED = (("seen", "REAL"), ("abandon", "REAL"), ("secret", "TEXT"))

ACTIVE = ("queued", "running")
FINAL = ("done", "error", "cancelled", "interrupted")


class QueueFull(Exception):
    """More jobs are waiting than the queue holds."""

    def __init__(self, running: int, queued: int) -> None:
        super().__init__(f"the server is busy: {running} training{'s' if running != 1 else ''} "
                         f"running and {queued} waiting, the most it queues; try again in a "
                         "minute")
        self.running, self.queued = running, queued


@dataclass
class Job:
    id: str
    kind: str
    spec: dict[str, Any]
    status: str
    done: int = 0
    total: int = 0
    current: str = ""
    results: Any = field(default_factory=list)
    error: str | None = None
    error_kind: str | None = None
    owner: str | None = None
    pid: int | None = None
    cancel: bool = False
    created: float = 0.0
    started: float | None = None
    finished: float | None = None
    place: int | None = None          # 1 = next to run, while queued
    secret: str | None = field(default=None, repr=False)   # its creator's key (never shown)

    def to_dict(self) -> dict[str, Any]:
        start = self.started or self.created
        return {"id": self.id, "status": self.status, "done": self.done, "total": self.total,
                "current": self.current, "results": self.results, "error": self.error,
                "place": self.place,
                "seconds": round((self.finished or time.time()) - start, 2) if start else 0.0,
                "spec": self.spec}


_COLUMNS = ("id, kind, spec, status, done, total, current, results, error, error_kind, owner, "
            "pid, cancel, created, started, finished, secret")


def _job(row: tuple) -> Job:
    (id_, kind, spec, status, done, total, current, results, error, error_kind, owner, pid,
     cancel, created, started, finished, secret) = row
    return Job(id_, kind, json.loads(spec), status, done, total, current, json.loads(results),
               error, error_kind, owner, pid, bool(cancel), created, started, finished,
               secret=secret)


class JobStore:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._ready = False

    def _connect(self) -> sqlite3.Connection:
        if not self._ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        if not self._ready:
            enable_wal(db)
            db.executescript(_SCHEMA)
            have = {row[1] for row in db.execute("PRAGMA table_info(jobs)")}
            for name, kind in _ADDED:
                if name not in have:
                    try:
                        db.execute(f"ALTER TABLE jobs ADD COLUMN {name} {kind}")
                    except sqlite3.OperationalError:      # another process added it first
                        pass
            self._ready = True
        return db

    # ---- asking ----------------------------------------------------------------------------
    def get(self, job_id: str) -> Job | None:
        with closing(self._connect()) as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM jobs WHERE id = ?", (job_id,)).fetchone()
            if row is None:
                return None
            job = _job(row)
            if job.status == "queued":
                job.place = db.execute("SELECT COUNT(*) FROM jobs WHERE status = 'queued' AND "
                                       "created <= ?", (job.created,)).fetchone()[0]
        return job

    def blob(self, job_id: str) -> bytes | None:
        with closing(self._connect()) as db:
            row = db.execute("SELECT blob FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return row[0] if row else None

    def counts(self) -> dict[str, int]:
        with closing(self._connect()) as db:
            return dict(db.execute("SELECT status, COUNT(*) FROM jobs GROUP BY status"))

    # ---- submitting and claiming -----------------------------------------------------------
    def submit(self, job_id: str, kind: str, spec: dict[str, Any], total: int,
               queue_limit: int, abandon: float | None = None,
               keep: tuple[str, ...] = ("queued", "running", "done")) -> tuple[Job, bool]:
        """Queue a job, or return the one under this id whose status is in `keep` (queued,
        running or done by default), marking it as looked at. Returns (job, True if this call
        queued it). Raises QueueFull. A job with `abandon` (seconds) is cancelled once nobody
        has looked at it (`touch`) for that long."""
        now = time.time()
        with closing(self._connect()) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                row = db.execute("SELECT status FROM jobs WHERE id = ?", (job_id,)).fetchone()
                if row is not None and row[0] in keep:
                    db.execute("UPDATE jobs SET seen = ? WHERE id = ?", (now, job_id))
                    db.execute("COMMIT")
                    return self.get(job_id), False
                counts = dict(db.execute("SELECT status, COUNT(*) FROM jobs WHERE status IN "
                                         "('queued', 'running') GROUP BY status"))
                if counts.get("queued", 0) >= queue_limit:
                    raise QueueFull(counts.get("running", 0), counts.get("queued", 0))
                db.execute("INSERT OR REPLACE INTO jobs (id, kind, spec, status, total, created, "
                           "seen, abandon, secret) VALUES (?, ?, ?, 'queued', ?, ?, ?, ?, ?)",
                           (job_id, kind, json.dumps(spec, sort_keys=True), total, now, now,
                            abandon, secrets.token_urlsafe(24)))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return self.get(job_id), True

    def claim(self, owner: str, max_running: int) -> Job | None:
        """Take the oldest queued job for `owner` if fewer than `max_running` run anywhere."""
        with closing(self._connect()) as db:
            if db.execute("SELECT 1 FROM jobs WHERE status = 'queued' LIMIT 1").fetchone() is None:
                return None               # the common case: a read, no write lock
            db.execute("BEGIN IMMEDIATE")
            try:
                running = db.execute("SELECT COUNT(*) FROM jobs WHERE status = 'running'"
                                     ).fetchone()[0]
                row = None
                if running < max_running:
                    row = db.execute("SELECT id FROM jobs WHERE status = 'queued' "
                                     "ORDER BY created LIMIT 1").fetchone()
                if row is not None:
                    now = time.time()
                    db.execute("UPDATE jobs SET status = 'running', owner = ?, started = ?, "
                               "heartbeat = ? WHERE id = ?", (owner, now, now, row[0]))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return self.get(row[0]) if row is not None else None

    # ---- while it runs ---------------------------------------------------------------------
    def started(self, job_id: str, pid: int) -> None:
        with closing(self._connect()) as db:
            db.execute("UPDATE jobs SET pid = ? WHERE id = ?", (pid, job_id))

    def progress(self, job_id: str, done: int, current: str, results: Any,
                 blob: bytes | None = None) -> None:
        """A running job's progress (and, with `blob`, what it has made so far)."""
        sets, args = "done = ?, current = ?, results = ?", [done, current, json.dumps(results)]
        if blob is not None:
            sets, args = sets + ", blob = ?", args + [blob]
        with closing(self._connect()) as db:
            db.execute(f"UPDATE jobs SET {sets} WHERE id = ? AND status = 'running'",
                       (*args, job_id))

    def touch(self, job_id: str) -> float:
        """Somebody is still looking at (waiting for) this job; the time written."""
        now = time.time()
        with closing(self._connect()) as db:
            db.execute("UPDATE jobs SET seen = ? WHERE id = ? AND status IN "
                       "('queued', 'running')", (now, job_id))
        return now

    def seen(self, job_id: str) -> float | None:
        """When somebody last looked at this job."""
        with closing(self._connect()) as db:
            row = db.execute("SELECT seen FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return row[0] if row else None

    def cancel_abandoned(self) -> int:
        """Cancel the active jobs nobody has looked at for their `abandon` seconds: a queued
        one at once, a running one by the worker that runs it."""
        now = time.time()
        stale = "abandon IS NOT NULL AND seen < ? - abandon"
        with closing(self._connect()) as db:
            if db.execute(f"SELECT 1 FROM jobs WHERE status IN ('queued', 'running') AND {stale} "
                          "AND cancel = 0 LIMIT 1", (now,)).fetchone() is None:
                return 0                  # the common case: a read, no write lock
            queued = db.execute(f"UPDATE jobs SET status = 'cancelled', finished = ?, "
                                f"current = 'nobody was looking' WHERE status = 'queued' AND "
                                f"{stale}", (now, now)).rowcount
            running = db.execute(f"UPDATE jobs SET cancel = 1, current = 'nobody was looking' "
                                 f"WHERE status = 'running' AND cancel = 0 AND {stale}",
                                 (now,)).rowcount
        return queued + running

    def heartbeat(self, job_ids: list[str]) -> None:
        if not job_ids:
            return
        with closing(self._connect()) as db:
            db.execute(f"UPDATE jobs SET heartbeat = ? WHERE id IN "
                       f"({','.join('?' * len(job_ids))})", (time.time(), *job_ids))

    def cancel_requested(self, job_ids: list[str]) -> list[str]:
        if not job_ids:
            return []
        with closing(self._connect()) as db:
            rows = db.execute(f"SELECT id FROM jobs WHERE cancel = 1 AND id IN "
                              f"({','.join('?' * len(job_ids))})", job_ids).fetchall()
        return [r[0] for r in rows]

    def request_cancel(self, job_id: str) -> Job | None:
        """Mark a job for cancelling: a queued one is cancelled at once, a running one by the
        worker that runs it (it kills the training)."""
        with closing(self._connect()) as db:
            db.execute("UPDATE jobs SET status = 'cancelled', finished = ? WHERE id = ? AND "
                       "status = 'queued'", (time.time(), job_id))
            db.execute("UPDATE jobs SET cancel = 1 WHERE id = ? AND status = 'running'",
                       (job_id,))
        return self.get(job_id)

    def finish(self, job_id: str, status: str, *, results: Any = None, blob: bytes | None = None,
               error: str | None = None, error_kind: str | None = None,
               current: str = "") -> bool:
        """Record the end of a running job (False if it was no longer running)."""
        sets, args = ["status = ?", "finished = ?", "current = ?", "error = ?",
                      "error_kind = ?"], [status, time.time(), current, error, error_kind]
        if results is not None:
            sets.append("results = ?")
            args.append(json.dumps(results))
        if blob is not None:
            sets.append("blob = ?")
            args.append(blob)
        with closing(self._connect()) as db:
            cur = db.execute(f"UPDATE jobs SET {', '.join(sets)} WHERE id = ? AND "
                             "status = 'running'", (*args, job_id))
            _within_limit(db)
            return cur.rowcount == 1

    def delete(self, job_id: str) -> None:
        """Forget a finished job (its result could not be read)."""
        with closing(self._connect()) as db:
            db.execute("DELETE FROM jobs WHERE id = ? AND status IN "
                       "('done', 'error', 'cancelled', 'interrupted')", (job_id,))

    def interrupt(self, where: str, args: tuple = ()) -> int:
        """Mark running jobs matching `where` as interrupted (their worker is gone)."""
        with closing(self._connect()) as db:
            if db.execute(f"SELECT 1 FROM jobs WHERE status = 'running' AND ({where}) LIMIT 1",
                          args).fetchone() is None:
                return 0                  # nothing to mark: no write lock taken
            cur = db.execute("UPDATE jobs SET status = 'interrupted', finished = ?, current = '', "
                             "error = 'the server stopped while this job ran; start it again' "
                             f"WHERE status = 'running' AND ({where})", (time.time(), *args))
            return cur.rowcount

    def running_owned(self, owner_prefix: str) -> list[tuple[str, str]]:
        with closing(self._connect()) as db:
            return db.execute("SELECT id, owner FROM jobs WHERE status = 'running' AND "
                              "owner LIKE ?", (owner_prefix + "%",)).fetchall()

    def prune(self, keep: int, keep_blobs: int, blob_bytes: int | None = None) -> None:
        """Drop the oldest finished jobs beyond `keep`, and of those that hold a pickled result
        (trained tokenisers, step-through runs: the large rows) beyond `keep_blobs` of them or
        `blob_bytes` of results together (the newest one always stays); then, past the store's
        size limit, the least recently used."""
        finished = "status IN ('done', 'error', 'cancelled', 'interrupted')"
        with closing(self._connect()) as db:
            db.execute(f"DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE {finished} "
                       "ORDER BY finished DESC LIMIT -1 OFFSET ?)", (keep,))
            db.execute(f"DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE {finished} "
                       "AND blob IS NOT NULL ORDER BY finished DESC LIMIT -1 OFFSET ?)",
                       (keep_blobs,))
            if blob_bytes is not None:
                db.execute("DELETE FROM jobs WHERE id IN (SELECT id FROM (SELECT id, "
                           "SUM(length(blob)) OVER (ORDER BY finished DESC) AS total, "
                           "ROW_NUMBER() OVER (ORDER BY finished DESC) AS n FROM jobs "
                           f"WHERE {finished} AND blob IS NOT NULL) WHERE total > ? AND n > 1)",
                           (blob_bytes,))
            _within_limit(db)


def _within_limit(db: sqlite3.Connection) -> None:
    """Drop finished jobs, least recently used first, while the store is past its limit."""
    limit = store_limit(db)
    if limit is not None:
        drop_job_results(db, used_bytes(db) - limit)

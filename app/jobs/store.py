"""Background jobs as rows of the store's database, so any server process (on any machine
sharing the database, or a restarted server) answers for any job.

A job is a row: what to run (`kind`, `spec`), where it is (`status`: queued -> running -> done,
error, cancelled or interrupted), its progress, and its results (JSON, plus an optional pickled
value such as a trained tokeniser, signed: `app.signing`). Queuing counts the queue and claiming
counts the running jobs while holding the jobs' turn (`app.db.engine.take_turn`), so the queue
limit and the bound on concurrent trainings hold across every process sharing the database.
Results count against the store's size limit (TOKVIS_MAX_STORE_MB): past it, finished jobs are
dropped, least recently used first, whenever a job is queued or finishes (`app.store`); a
result dropped is computed again when asked for.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from dataclasses import dataclass, field
from os import PathLike
from typing import Any, Callable

from sqlalchemy import Connection, delete, func, select, update

from ..db import connect, database_url, ensure_current
from ..db.engine import insert_ignore, sqlite_path, take_turn, upsert
from ..db.schema import jobs, limits
from ..signing import BadSignature, check_fingerprint, fingerprint, secret_key, sign, verify
from ..store import FINAL, within_limit

_log = logging.getLogger("uvicorn.error")  # printed where the server prints its start lines
ACTIVE = ("queued", "running")
KEY_FINGERPRINT = "secret_key_fingerprint"  # its row in `limits`
GONE = "the worker running this job stopped (killed, or its machine went down); start it again"


class QueueFull(Exception):
    """More jobs are waiting than the queue holds."""

    def __init__(self, running: int, queued: int) -> None:
        super().__init__(
            f"the server is busy: {running} training{'s' if running != 1 else ''} "
            f"running and {queued} waiting, the most it queues; try again in a "
            "minute"
        )
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
    place: int | None = None  # 1 = next to run, while queued
    secret: str | None = field(default=None, repr=False)  # its creator's key (never shown)

    def to_dict(self) -> dict[str, Any]:
        start = self.started or self.created
        return {
            "id": self.id,
            "status": self.status,
            "done": self.done,
            "total": self.total,
            "current": self.current,
            "results": self.results,
            "error": self.error,
            "place": self.place,
            "seconds": round((self.finished or time.time()) - start, 2) if start else 0.0,
            "spec": self.spec,
        }


_COLUMNS = [
    jobs.c.id,
    jobs.c.kind,
    jobs.c.spec,
    jobs.c.status,
    jobs.c.done,
    jobs.c.total,
    jobs.c.current,
    jobs.c.results,
    jobs.c.error,
    jobs.c.error_kind,
    jobs.c.owner,
    jobs.c.pid,
    jobs.c.cancel,
    jobs.c.created,
    jobs.c.started,
    jobs.c.finished,
    jobs.c.secret,
]


def _job(row: Any) -> Job:
    (
        id_,
        kind,
        spec,
        status,
        done,
        total,
        current,
        results,
        error,
        error_kind,
        owner,
        pid,
        cancel,
        created,
        started,
        finished,
        secret,
    ) = row
    return Job(
        id_,
        kind,
        json.loads(spec),
        status,
        done,
        total,
        current,
        json.loads(results),
        error,
        error_kind,
        owner,
        pid,
        bool(cancel),
        created,
        started,
        finished,
        secret=secret,
    )


def _ids(job_ids: list[str]) -> Any:
    return jobs.c.id.in_(job_ids)


class JobStore:
    """`where`: a database URL or an SQLite file's path."""

    def __init__(self, where: str | PathLike[str]) -> None:
        self.url = database_url(where)
        self._ready = False
        self._key: bytes | None = None

    def _connect(self) -> Any:
        if not self._ready:
            ensure_current(self.url)
            self._ready = True
        return connect(self.url)

    @property
    def key(self) -> bytes:
        """The key that signs the results (KeyMismatch when the store's results are signed
        with another: `app.signing`)."""
        if self._key is None:
            key = secret_key(self.url)
            self._check_key(key)
            self._key = key
        return self._key

    def _check_key(self, key: bytes) -> None:
        """Record `key`'s fingerprint if the store has none, else check it (KeyMismatch). A
        shared store only: an SQLite store's own key lives beside it, and a result signed with
        another is trained again."""
        if sqlite_path(self.url) is not None:
            return
        with self._connect() as conn:
            insert_ignore(conn, limits, name=KEY_FINGERPRINT, value=fingerprint(key))
            stored = conn.execute(
                select(limits.c.value).where(limits.c.name == KEY_FINGERPRINT)
            ).scalar()
        check_fingerprint(stored, key)

    def forget_key(self) -> None:
        """Record the fingerprint of this process's key in place of the store's (`tokvis db
        upgrade --new-secret-key`: the key changed for good)."""
        key = secret_key(self.url)
        with self._connect() as conn:
            upsert(conn, limits, name=KEY_FINGERPRINT, value=fingerprint(key))
        self._key = key

    # ---- asking ----------------------------------------------------------------------------
    def get(self, job_id: str) -> Job | None:
        with self._connect() as conn:
            return self._get(conn, job_id)

    @staticmethod
    def _get(conn: Connection, job_id: str) -> Job | None:
        row = conn.execute(select(*_COLUMNS).where(jobs.c.id == job_id)).first()
        if row is None:
            return None
        job = _job(row)
        if job.status == "queued":
            job.place = conn.execute(
                select(func.count())
                .select_from(jobs)
                .where(jobs.c.status == "queued", jobs.c.created <= job.created)
            ).scalar()
        return job

    def blob(self, job_id: str) -> bytes | None:
        """The job's pickled value, if any and if its signature holds (a finished job whose
        value does not is forgotten, so that it is run again)."""
        with self._connect() as conn:
            stored = conn.execute(select(jobs.c.blob).where(jobs.c.id == job_id)).scalar()
        if stored is None:
            return None
        try:
            return verify(self.key, stored)
        except BadSignature as exc:  # said, in the log: it is trained again, not lost silently
            _log.warning("job %s: %s; it is run again", job_id, exc)
            self.delete(job_id)
            return None

    def ids(self, kind: str | None = None) -> list[str]:
        """The jobs' ids (of one `kind`), the newest first."""
        query = select(jobs.c.id).order_by(jobs.c.created.desc())
        if kind is not None:
            query = query.where(jobs.c.kind == kind)
        with self._connect() as conn:
            return list(conn.execute(query).scalars())

    def counts(self) -> dict[str, int]:
        with self._connect() as conn:
            return {
                status: n
                for status, n in conn.execute(
                    select(jobs.c.status, func.count()).group_by(jobs.c.status)
                )
            }

    # ---- submitting and claiming -----------------------------------------------------------
    def submit(
        self,
        job_id: str,
        kind: str,
        spec: dict[str, Any],
        total: int,
        queue_limit: int,
        abandon: float | None = None,
        keep: tuple[str, ...] = ("queued", "running", "done"),
        enqueue: Callable[[Connection, str], None] | None = None,
    ) -> tuple[Job, bool]:
        """Queue a job, or return the one under this id whose status is in `keep` (queued,
        running or done by default), marking it as looked at. Returns (job, True if this call
        queued it). Raises QueueFull. A job with `abandon` (seconds) is cancelled once nobody
        has looked at it (`touch`) for that long. `enqueue(conn, job_id)` runs in the same
        transaction as the new row (a distributed queue's own entry), so both or neither
        are written."""
        now = time.time()
        with self._connect() as conn:
            take_turn(conn, "jobs")
            status = conn.execute(select(jobs.c.status).where(jobs.c.id == job_id)).scalar()
            if status is not None and status in keep:
                conn.execute(update(jobs).where(jobs.c.id == job_id).values(seen=now))
                return self._get(conn, job_id), False  # type: ignore[return-value]
            counts = {
                s: n
                for s, n in conn.execute(
                    select(jobs.c.status, func.count())
                    .where(jobs.c.status.in_(ACTIVE))
                    .group_by(jobs.c.status)
                )
            }
            if counts.get("queued", 0) >= queue_limit:
                raise QueueFull(counts.get("running", 0), counts.get("queued", 0))
            if status is not None:
                conn.execute(delete(jobs).where(jobs.c.id == job_id))
            upsert(
                conn,
                jobs,
                id=job_id,
                kind=kind,
                spec=json.dumps(spec, sort_keys=True),
                status="queued",
                total=total,
                created=now,
                seen=now,
                abandon=abandon,
                secret=secrets.token_urlsafe(24),
            )
            if enqueue is not None:
                enqueue(conn, job_id)
            return self._get(conn, job_id), True  # type: ignore[return-value]

    def claim(self, owner: str, max_running: int) -> Job | None:
        """Take the oldest queued job for `owner` if fewer than `max_running` run anywhere."""
        with self._connect() as conn:
            if (
                conn.execute(select(jobs.c.id).where(jobs.c.status == "queued").limit(1)).first()
                is None
            ):
                return None  # the common case: a read, no write lock
            take_turn(conn, "jobs")
            running = (
                conn.execute(
                    select(func.count()).select_from(jobs).where(jobs.c.status == "running")
                ).scalar()
                or 0
            )
            if running >= max_running:
                return None
            job_id = conn.execute(
                select(jobs.c.id).where(jobs.c.status == "queued").order_by(jobs.c.created).limit(1)
            ).scalar()
            if job_id is None:
                return None
            return self._start(conn, job_id, owner)

    def claim_one(self, job_id: str, owner: str) -> Job | None:
        """Take this queued job for `owner` (a distributed worker was handed it); None if it
        is no longer queued (cancelled meanwhile, or gone)."""
        with self._connect() as conn:
            take_turn(conn, "jobs")
            status = conn.execute(select(jobs.c.status).where(jobs.c.id == job_id)).scalar()
            return self._start(conn, job_id, owner) if status == "queued" else None

    def _start(self, conn: Connection, job_id: str, owner: str) -> Job | None:
        now = time.time()
        conn.execute(
            update(jobs)
            .where(jobs.c.id == job_id)
            .values(status="running", owner=owner, started=now, heartbeat=now)
        )
        return self._get(conn, job_id)

    # ---- while it runs ---------------------------------------------------------------------
    def started(self, job_id: str, pid: int) -> None:
        with self._connect() as conn:
            conn.execute(update(jobs).where(jobs.c.id == job_id).values(pid=pid))

    def progress(
        self, job_id: str, done: int, current: str, results: Any, blob: bytes | None = None
    ) -> None:
        """A running job's progress (and, with `blob`, what it has made so far)."""
        values: dict[str, Any] = {"done": done, "current": current, "results": json.dumps(results)}
        if blob is not None:
            values["blob"] = sign(self.key, blob)
        with self._connect() as conn:
            conn.execute(
                update(jobs).where(jobs.c.id == job_id, jobs.c.status == "running").values(**values)
            )

    def touch(self, job_id: str) -> float:
        """Somebody is still looking at (waiting for) this job; the time written."""
        now = time.time()
        with self._connect() as conn:
            conn.execute(
                update(jobs).where(jobs.c.id == job_id, jobs.c.status.in_(ACTIVE)).values(seen=now)
            )
        return now

    def seen(self, job_id: str) -> float | None:
        """When somebody last looked at this job."""
        with self._connect() as conn:
            return conn.execute(select(jobs.c.seen).where(jobs.c.id == job_id)).scalar()

    def cancel_abandoned(self) -> int:
        """Cancel the active jobs nobody has looked at for their `abandon` seconds: a queued
        one at once, a running one by the worker that runs it."""
        now = time.time()
        stale = (jobs.c.abandon.is_not(None), jobs.c.seen < now - jobs.c.abandon)
        with self._connect() as conn:
            if (
                conn.execute(
                    select(jobs.c.id)
                    .where(jobs.c.status.in_(ACTIVE), *stale, jobs.c.cancel == 0)
                    .limit(1)
                ).first()
                is None
            ):
                return 0  # the common case: a read, no write lock
            queued = conn.execute(
                update(jobs)
                .where(jobs.c.status == "queued", *stale)
                .values(status="cancelled", finished=now, current="nobody was looking")
            ).rowcount
            running = conn.execute(
                update(jobs)
                .where(jobs.c.status == "running", jobs.c.cancel == 0, *stale)
                .values(cancel=1, current="nobody was looking")
            ).rowcount
        return queued + running

    def heartbeat(self, job_ids: list[str]) -> None:
        if not job_ids:
            return
        with self._connect() as conn:
            conn.execute(update(jobs).where(_ids(job_ids)).values(heartbeat=time.time()))

    def cancel_requested(self, job_ids: list[str]) -> list[str]:
        if not job_ids:
            return []
        with self._connect() as conn:
            return list(
                conn.execute(select(jobs.c.id).where(jobs.c.cancel == 1, _ids(job_ids))).scalars()
            )

    def request_cancel(self, job_id: str) -> Job | None:
        """Mark a job for cancelling: a queued one is cancelled at once, a running one by the
        worker that runs it (it kills the training)."""
        with self._connect() as conn:
            conn.execute(
                update(jobs)
                .where(jobs.c.id == job_id, jobs.c.status == "queued")
                .values(status="cancelled", finished=time.time())
            )
            conn.execute(
                update(jobs).where(jobs.c.id == job_id, jobs.c.status == "running").values(cancel=1)
            )
            return self._get(conn, job_id)

    def finish(
        self,
        job_id: str,
        status: str,
        *,
        results: Any = None,
        blob: bytes | None = None,
        error: str | None = None,
        error_kind: str | None = None,
        current: str = "",
    ) -> bool:
        """Record the end of a running job (False if it was no longer running)."""
        values: dict[str, Any] = {
            "status": status,
            "finished": time.time(),
            "current": current,
            "error": error,
            "error_kind": error_kind,
        }
        if results is not None:
            values["results"] = json.dumps(results)
        if blob is not None:
            values["blob"] = sign(self.key, blob)
        with self._connect() as conn:
            ended = (
                conn.execute(
                    update(jobs)
                    .where(jobs.c.id == job_id, jobs.c.status == "running")
                    .values(**values)
                ).rowcount
                == 1
            )
            within_limit(conn)
        return ended

    def delete(self, job_id: str) -> None:
        """Forget a finished job (its result could not be read)."""
        with self._connect() as conn:
            conn.execute(delete(jobs).where(jobs.c.id == job_id, jobs.c.status.in_(FINAL)))

    def interrupt(self, *where: Any, error: str = GONE) -> int:
        """Mark running jobs matching `where` (Core conditions) as interrupted: their worker
        is gone."""
        with self._connect() as conn:
            if (
                conn.execute(
                    select(jobs.c.id).where(jobs.c.status == "running", *where).limit(1)
                ).first()
                is None
            ):
                return 0  # nothing to mark: no write lock taken
            return conn.execute(
                update(jobs)
                .where(jobs.c.status == "running", *where)
                .values(status="interrupted", finished=time.time(), current="", error=error)
            ).rowcount

    def interrupt_job(self, job_id: str, error: str = GONE) -> int:
        return self.interrupt(jobs.c.id == job_id, error=error)

    def interrupt_stale(self, seconds: float) -> int:
        """Jobs whose worker has not beaten its heart for `seconds` were interrupted."""
        return self.interrupt(jobs.c.heartbeat < time.time() - seconds)

    def interrupted(self, kinds: tuple[str, ...]) -> list[str]:
        """The ids of the interrupted jobs of these kinds (their worker died), the oldest first."""
        with self._connect() as conn:
            return list(
                conn.execute(
                    select(jobs.c.id)
                    .where(jobs.c.status == "interrupted", jobs.c.kind.in_(kinds))
                    .order_by(jobs.c.created)
                ).scalars()
            )

    def running_owned(self, owner_prefix: str) -> list[tuple[str, str]]:
        with self._connect() as conn:
            return [
                (r[0], r[1])
                for r in conn.execute(
                    select(jobs.c.id, jobs.c.owner).where(
                        jobs.c.status == "running", jobs.c.owner.startswith(owner_prefix)
                    )
                )
            ]

    def prune(self, keep: int, keep_blobs: int, blob_bytes: int | None = None) -> None:
        """Drop the oldest finished jobs beyond `keep`, and of those that hold a pickled result
        (trained tokenisers, step-through runs: the large rows) beyond `keep_blobs` of them or
        `blob_bytes` of results together (the newest one always stays); then, past the store's
        size limit, the least recently used."""
        with self._connect() as conn:
            finished = conn.execute(
                select(jobs.c.id, jobs.c.blob.is_not(None), func.length(jobs.c.blob))
                .where(jobs.c.status.in_(FINAL))
                .order_by(jobs.c.finished.desc())
            ).all()
            doomed = [row[0] for row in finished[keep:]]
            held = [row for row in finished[:keep] if row[1]]
            doomed += [row[0] for row in held[keep_blobs:]]
            total = 0
            for n, (job_id, _has, size) in enumerate(held[:keep_blobs]):
                total += size or 0
                if blob_bytes is not None and total > blob_bytes and n > 0:
                    doomed.append(job_id)
            if doomed:
                conn.execute(delete(jobs).where(_ids(doomed)))
            within_limit(conn)

"""The running sum of a training's shard counts, kept in its final job's row until every shard
is in: the counts are reduced as the shards finish, not all at the end.

The final job's row is written first, `waiting` (a status no queue, sweeper or pruning
touches), its result the sum so far (a counts file, signed as every result is) and the shards
summed in it (`{"summed": [0, 2]}`). A shard job, once it has counted, adds its counts in
(`add`): it reads the row, merges, and writes the row back only if nobody wrote it meanwhile
(compare and swap on `results`; else it reads again). The shard that completes the sum turns
the row `queued` in the same transaction, and hands it to the workers. A shard counted twice (its
worker killed after adding, before it ended) is added once: the row says it is in.
"""

from __future__ import annotations

import io
import json
import secrets
import time
from typing import Any, Callable

from sqlalchemy import Connection, select, update

import tokenizers_core as tc
from tokenizers_core.implementations.counting import Counts

from ..db.engine import insert_ignore
from ..db.schema import jobs as jobs_table
from ..signing import sign, verify
from .store import JobStore

WAITING = "waiting"
TRIES = 100  # compare-and-swap rounds before giving up (the final job then sums the shards)


def open_sum(jobs: JobStore, job_id: str, kind: str, spec: dict[str, Any], shards: int) -> None:
    """The final job's row, waiting, with nothing summed (a row already there stays)."""
    now = time.time()
    with jobs._connect() as conn:
        insert_ignore(
            conn,
            jobs_table,
            id=job_id,
            kind=kind,
            spec=json.dumps(spec, sort_keys=True),
            status=WAITING,
            total=shards,
            results=json.dumps({"summed": []}),
            created=now,
            seen=now,
            secret=secrets.token_urlsafe(24),
        )


def add(
    jobs: JobStore,
    job_id: str,
    index: int,
    counts: Counts,
    enqueue: Callable[[Connection, str], None] | None,
) -> bool:
    """Add shard `index`'s counts to the sum in the waiting row `job_id`; the shard that
    completes it queues the job. False if there is no waiting row (the final job then adds
    up the shards' own counts)."""
    for _round in range(TRIES):
        with jobs._connect() as conn:
            row = conn.execute(
                select(jobs_table.c.results, jobs_table.c.blob, jobs_table.c.total).where(
                    jobs_table.c.id == job_id, jobs_table.c.status == WAITING
                )
            ).first()
        if row is None:
            return False
        results, blob, total = row
        summed = json.loads(results)["summed"]
        if index in summed:
            return True  # counted again after a kill: it is in already
        so_far = Counts.from_bytes(verify(jobs.key, blob), "the sum") if blob else None
        new = counts if so_far is None else tc.merge_counts([so_far, counts])
        now_summed = sorted([*summed, index])
        values: dict[str, Any] = {
            "results": json.dumps({"summed": now_summed}),
            "blob": sign(jobs.key, _fast_bytes(new)),
            "done": len(now_summed),
        }
        complete = len(now_summed) >= total
        if complete:  # the last shard in: the training's turn
            values.update(status="queued", created=time.time())
        with jobs._connect() as conn:
            swapped = conn.execute(
                update(jobs_table)
                .where(
                    jobs_table.c.id == job_id,
                    jobs_table.c.status == WAITING,
                    jobs_table.c.results == results,
                )
                .values(**values)
            ).rowcount
            if swapped and complete and enqueue is not None:
                enqueue(conn, job_id)
        if swapped:
            return True
    return False


def release(jobs: JobStore, job_id: str, enqueue: Callable[[Connection, str], None] | None) -> bool:
    """Queue the waiting row as it is (every shard is counted, but not all were summed in it:
    the final job adds up the shards' own counts); False if it was not waiting."""
    with jobs._connect() as conn:
        moved = conn.execute(
            update(jobs_table)
            .where(jobs_table.c.id == job_id, jobs_table.c.status == WAITING)
            .values(status="queued", created=time.time())
        ).rowcount
        if moved and enqueue is not None:
            enqueue(conn, job_id)
    return bool(moved)


def whole_sum(jobs: JobStore, job_id: str, shards: int) -> Counts | None:
    """The sum the running job's row holds, if every one of the `shards` is in it."""
    job = jobs.get(job_id)
    summed = job.results.get("summed", []) if job and isinstance(job.results, dict) else []
    if len(summed) < shards:
        return None
    blob = jobs.blob(job_id)
    return Counts.from_bytes(blob, "the sum") if blob is not None else None


def _fast_bytes(counts: Counts) -> bytes:
    """The counts file, compressed fast (it is written again as each shard comes in)."""
    out = io.BytesIO()
    counts.write(out, compresslevel=1)
    return out.getvalue()

"""Handing a job to the `tokvis worker`s: procrastinate's entry, written in the transaction
that writes the job's row (`JobStore.submit(enqueue=...)`), so both or neither are written.

Apart from `distributed` so that a job's own code (`counting`: the last shard queues the
training) can queue a job without the worker's side.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from sqlalchemy import Connection
from sqlalchemy.engine import make_url

from ..db.engine import is_postgres, require_shared_extra

TASK = "tokvis.run_job"
QUEUE = "tokvis"


def conninfo(url: str) -> str:
    """The libpq connection string of a SQLAlchemy PostgreSQL URL.

    >>> conninfo("postgresql+psycopg://tokvis:pw@db:5432/tokvis")
    'postgresql://tokvis:pw@db:5432/tokvis'
    """
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def procrastinate_app(url: str, sync: bool) -> Any:
    require_shared_extra(url)  # it is the `shared` extra: say what to install, if it is not
    import procrastinate  # lazy: only the shared mode needs it

    connector = procrastinate.SyncPsycopgConnector if sync else procrastinate.PsycopgConnector
    return procrastinate.App(connector=connector(conninfo=conninfo(url)))


class Deferrer:
    """`enqueue(conn, job_id)`: defer the job's procrastinate task in `conn`'s transaction
    (procrastinate's app made on first use)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._app: Any = None
        self._lock = threading.Lock()

    def __call__(self, conn: Connection, job_id: str) -> None:
        with self._lock:
            if self._app is None:
                self._app = procrastinate_app(self.url, sync=True)
        driver = conn.connection.driver_connection  # the psycopg connection of this transaction
        self._app.configure_task(TASK, queue=QUEUE, connection=driver).defer(job_id=job_id)


def enqueuer(url: str) -> Callable[[Connection, str], None] | None:
    """Who hands a new job to the workers: procrastinate with PostgreSQL; None for the embedded
    queue (its dispatchers find a queued row in the store)."""
    return Deferrer(url) if is_postgres(url) else None

"""Connections to the store: which database a URL names, one SQLAlchemy engine per process,
and the few statements whose spelling differs between SQLite and PostgreSQL.

    url = database_url("store.sqlite3")         # a path is an SQLite file
    with connect(url) as conn:                  # a transaction, committed on leaving
        take_turn(conn, "store")                # writers of the store go one at a time
        insert_ignore(conn, corpora, sha256=..., text=..., ...)

SQLite is opened in WAL mode with a busy timeout, so several server processes and job workers
share one file; PostgreSQL through psycopg 3. What is dialect-specific stays here: the store and
the job store (`app.store`, `app.jobs.store`) are written once, in Core expressions.
"""

from __future__ import annotations

import importlib.util
import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from sqlalchemy import Connection, Engine, Table, create_engine, event, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from ..setup_errors import SetupError
from .schema import limits

_ENGINES: dict[tuple[str, int], Engine] = {}
_LOCK = threading.Lock()


def database_url(value: str | os.PathLike[str]) -> str:
    """A SQLAlchemy URL: a URL as it is, a path as an SQLite file.

    >>> database_url("/data/store.sqlite3")
    'sqlite:////data/store.sqlite3'
    >>> database_url("postgresql+psycopg://tokvis@db/tokvis")
    'postgresql+psycopg://tokvis@db/tokvis'
    """
    text = os.fspath(value)
    if "://" in text:
        return text
    return f"sqlite:///{Path(text).absolute()}"


def is_postgres(url: str) -> bool:
    return make_url(url).get_backend_name() == "postgresql"


def sqlite_path(url: str) -> Path | None:
    """The file an SQLite URL names (None for another database)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return None
    return Path(parsed.database)


DATABASE_AWAY = (
    "the store's database cannot be reached right now (restarting, or the network to it is "
    "down); try again in a few seconds"
)


def database_unreachable(exc: DBAPIError) -> bool:
    """Whether a database error means the database is away for now (its connection refused,
    dropped or shut down; SQLite locked past its wait), not a bug in a statement."""
    if exc.connection_invalidated:
        return True
    if not isinstance(exc, (OperationalError, InterfaceError)):
        return False
    if isinstance(exc.orig, sqlite3.Error):  # "no such table" is a bug; a lock is a wait
        return "locked" in str(exc.orig) or "busy" in str(exc.orig)
    return True


def shown(url: str) -> str:
    """The URL with its password hidden, for messages."""
    return make_url(url).render_as_string(hide_password=True)


def get_engine(url: str) -> Engine:
    """This process's engine for `url` (a process started by fork gets its own)."""
    key = (url, os.getpid())
    engine = _ENGINES.get(key)
    if engine is None:
        with _LOCK:
            engine = _ENGINES.get(key)
            if engine is None:
                engine = _ENGINES[key] = _create(url)
    return engine


# PostgreSQL's driver and the shared mode's job queue are an extra: the default install serves
# on SQLite without them
SHARED_EXTRA = ("psycopg", "procrastinate")


def require_shared_extra(url: str) -> None:
    """SetupError, saying what to install, when `url` is a PostgreSQL store and the `shared`
    extra's packages are not installed."""
    missing = [name for name in SHARED_EXTRA if importlib.util.find_spec(name) is None]
    if missing and is_postgres(url):
        raise SetupError(
            f"the store {shown(url)} is a PostgreSQL database, which needs the shared "
            f"deployment's packages ({', '.join(missing)} are not installed): "
            "pip install 'tokenizer-visualiser[shared]'"
        )


def _create(url: str) -> Engine:
    path = sqlite_path(url)
    if path is None:
        require_shared_extra(url)
        # a server's threads and its job dispatcher share a small pool; connections checked
        # before use, so a restarted database is reconnected to
        return create_engine(
            url, pool_size=8, max_overflow=16, pool_pre_ping=True, pool_recycle=3600
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})
    event.listen(engine, "connect", _sqlite_setup)
    return engine


def _sqlite_setup(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
    """Every SQLite connection: wait for a lock rather than fail at once, and WAL mode, so
    readers never wait for the writer."""
    dbapi_connection.execute("PRAGMA busy_timeout = 30000")
    enable_wal(dbapi_connection)


def enable_wal(db: sqlite3.Connection, seconds: float = 10.0) -> None:
    """Put the file in WAL mode. Switching modes needs the file to itself, and SQLite may
    answer "database is locked" while another process has it open, as when two uvicorn workers
    start together: retry for up to `seconds`, and stop as soon as the file is in WAL mode,
    whoever switched it."""
    deadline = time.monotonic() + seconds
    attempt = 0
    while True:
        try:
            if db.execute("PRAGMA journal_mode=WAL").fetchone()[0].lower() == "wal":
                return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc):
                raise
        attempt += 1
        if time.monotonic() > deadline:
            raise sqlite3.OperationalError("could not put the store in WAL mode: it stays locked")
        time.sleep(min(0.02 * attempt, 0.2))


@contextmanager
def connect(url: str) -> Iterator[Connection]:
    """A connection in a transaction: committed when the block ends, rolled back on an error."""
    with get_engine(url).begin() as conn:
        yield conn


def take_turn(conn: Connection, name: str) -> None:
    """Wait until no other transaction holds the turn `name`, and hold it to the end of this
    one: what is checked next (the room left, the queue's length) is still true when written.
    An UPDATE of one row of `limits` does it on both databases: SQLite takes the file's write
    lock, PostgreSQL the row's."""
    key = f"turn:{name}"
    if (
        conn.execute(
            update(limits).where(limits.c.name == key).values(value=limits.c.value)
        ).rowcount
        == 0
    ):
        insert_ignore(conn, limits, name=key, value=0)
        conn.execute(update(limits).where(limits.c.name == key).values(value=limits.c.value))


def _insert(conn: Connection, table: Table) -> Any:
    return (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(table)


def insert_ignore(conn: Connection, table: Table, **values: Any) -> int:
    """Insert a row unless one with its primary key exists; how many rows were written."""
    keys = [c.name for c in table.primary_key.columns]
    return conn.execute(
        _insert(conn, table).values(**values).on_conflict_do_nothing(index_elements=keys)
    ).rowcount


def upsert(conn: Connection, table: Table, **values: Any) -> None:
    """Insert a row, or replace the one with its primary key."""
    keys = [c.name for c in table.primary_key.columns]
    statement = _insert(conn, table).values(**values)
    conn.execute(
        statement.on_conflict_do_update(
            index_elements=keys,
            set_={name: statement.excluded[name] for name in values if name not in keys},
        )
    )

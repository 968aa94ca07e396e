"""The store's schema version: `tokvis db upgrade` migrates; a server checks before it starts.

    upgrade(url)        # to the newest schema; idempotent, and safe from two places at once
    ensure_current(url) # a new, empty database is created; an older schema raises SchemaOutdated

The migrations are Alembic's (`app/migrations/versions/`), run on a connection of ours
(`app.db.engine`). Two upgrades at once take turns: PostgreSQL with an advisory lock
(`app/migrations/env.py`), SQLite with a lock on a file beside the store; the threads of one
process, with a lock of its own.
"""

from __future__ import annotations

import fcntl
import threading
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from ..setup_errors import SchemaOutdated
from .engine import get_engine, shown, sqlite_path
from .schema import metadata

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


@lru_cache(maxsize=1)
def head() -> str:
    """The newest schema version this code knows."""
    found = ScriptDirectory.from_config(_config()).get_current_head()
    assert found is not None
    return found


def _known() -> set[str]:
    return {s.revision for s in ScriptDirectory.from_config(_config()).walk_revisions()}


def current(url: str) -> str | None:
    """The database's schema version (None: never migrated, or empty)."""
    with get_engine(url).connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


@contextmanager
def _file_lock(url: str) -> Iterator[None]:
    path = sqlite_path(url)
    if path is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".migrating"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


_UPGRADING = threading.Lock()  # Alembic's context is one per process: one upgrade at a time


@contextmanager
def _migrating(url: str) -> Iterator[None]:
    """This process's turn, and on SQLite the file's: what is read next stays true until the
    block ends (on PostgreSQL a migration is one transaction, and env.py takes a lock)."""
    with _UPGRADING, _file_lock(url):
        yield


def upgrade(url: str) -> tuple[str | None, str]:
    """Migrate the database to the newest schema; (version before, version after)."""
    with _migrating(url):
        return _upgrade(url)


def _upgrade(url: str) -> tuple[str | None, str]:
    before = current(url)
    if before != head():
        config = _config()
        with get_engine(url).begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "head")
    return before, head()


def ensure_current(url: str) -> None:
    """Return if the database is at the newest schema. A database with none of the store's
    tables (a new SQLite file, an empty PostgreSQL database) is created at it; otherwise
    SchemaOutdated says to run `tokvis db upgrade`."""
    if current(url) == head():
        return  # the common case: one read
    with _migrating(url):  # another process may be creating it now
        found = current(url)
        if found == head():
            return
        if found is None and not _has_store_tables(url):
            _upgrade(url)
            return
    if found is not None and found not in _known():
        raise SchemaOutdated(
            f"the store at {shown(url)} has schema {found}, newer than this version of tokvis "
            f"knows (its newest is {head()}): run the newer version, or restore a backup"
        )
    raise SchemaOutdated(
        f"the store at {shown(url)} has schema "
        f"{found or 'from before migrations'}, and this version needs {head()}: run "
        "`tokvis db upgrade` (with the same TOKVIS_DATABASE_URL or TOKVIS_DB), then start "
        "again; it keeps every row"
    )


def _has_store_tables(url: str) -> bool:
    with get_engine(url).connect() as conn:
        have = set(inspect(conn).get_table_names())
    return bool(have & set(metadata.tables))

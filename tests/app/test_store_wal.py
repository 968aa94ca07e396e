"""Two server processes starting together must both open the store: switching SQLite to WAL
mode fails at once with "database is locked" while another connection has the file open, so
`enable_wal` retries until the file is in WAL mode (as two uvicorn workers need)."""

from __future__ import annotations

import sqlite3
import threading

from app.db.engine import enable_wal


def test_wal_is_enabled_once_the_other_connection_lets_go(tmp_path):
    path = tmp_path / "store.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN")
    holder.execute("SELECT * FROM t").fetchall()  # a read transaction holds the file
    other = sqlite3.connect(path, timeout=0.1)
    try:
        other.execute("PRAGMA journal_mode=WAL")
        locked = False
    except sqlite3.OperationalError as exc:
        locked = "locked" in str(exc)
    assert locked  # the failure two workers met
    threading.Timer(0.2, lambda: holder.execute("COMMIT")).start()
    enable_wal(other)
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    enable_wal(sqlite3.connect(path))  # already WAL: returns at once

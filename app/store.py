"""A content-addressed store of corpora (and trained-tokeniser specs) in SQLite.

A corpus is stored once under the sha256 of its UTF-8 bytes, so a URL can name it by hash and
any server worker can read it back. Stdlib `sqlite3`; one short-lived connection per call, so
the store is safe to share between threads and processes.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS corpora (
    sha256  TEXT PRIMARY KEY,
    text    TEXT NOT NULL,
    bytes   INTEGER NOT NULL,
    name    TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS trained (
    handle  TEXT PRIMARY KEY,
    spec    TEXT NOT NULL,
    created REAL NOT NULL
);
"""


# Other blobs kept in the corpora table (uploaded .model files), never listed as corpora.
MODEL_UPLOAD_PREFIX = "sentencepiece-model:base64:"


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_sha256(value: str) -> bool:
    return len(value) == 64 and all(c in "0123456789abcdef" for c in value)


class CorpusStore:
    """Corpora by sha256, plus the specs behind trained-tokeniser handles."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._ready = False  # the file is created on first use, not at import time

    def _connect(self) -> sqlite3.Connection:
        if not self._ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=10)
        if not self._ready:
            db.execute("PRAGMA journal_mode=WAL")
            with db:
                db.executescript(_SCHEMA)
            self._ready = True
        return db

    # ---- corpora ------------------------------------------------------------------------
    def put(self, text: str, name: str = "") -> str:
        """Store `text` (idempotent) and return its sha256."""
        digest = sha256_text(text)
        with closing(self._connect()) as db, db:
            db.execute("INSERT OR IGNORE INTO corpora (sha256, text, bytes, name, created) "
                       "VALUES (?, ?, ?, ?, ?)",
                       (digest, text, len(text.encode("utf-8")), name, time.time()))
        return digest

    def get(self, digest: str) -> str | None:
        with closing(self._connect()) as db:
            row = db.execute("SELECT text FROM corpora WHERE sha256 = ?", (digest,)).fetchone()
        return row[0] if row else None

    def list(self, limit: int = 100) -> list[dict[str, Any]]:
        """The most recent corpora: sha256, bytes, name, created, and a short preview (uploaded
        model files, kept in the same table, are left out)."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT sha256, bytes, name, created, substr(text, 1, 80) "
                              "FROM corpora WHERE substr(text, 1, ?) != ? "
                              "ORDER BY created DESC LIMIT ?",
                              (len(MODEL_UPLOAD_PREFIX), MODEL_UPLOAD_PREFIX, limit)).fetchall()
        return [{"sha256": r[0], "bytes": r[1], "name": r[2], "created": r[3], "preview": r[4]}
                for r in rows]

    # ---- trained-tokeniser specs ----------------------------------------------------------
    def put_spec(self, handle: str, spec: dict[str, Any]) -> None:
        with closing(self._connect()) as db, db:
            db.execute("INSERT OR IGNORE INTO trained (handle, spec, created) VALUES (?, ?, ?)",
                       (handle, json.dumps(spec, sort_keys=True), time.time()))

    def get_spec(self, handle: str) -> dict[str, Any] | None:
        with closing(self._connect()) as db:
            row = db.execute("SELECT spec FROM trained WHERE handle = ?", (handle,)).fetchone()
        return json.loads(row[0]) if row else None

"""A content-addressed store of corpora, trained-tokeniser specs and uploaded tokenizer files
in SQLite.

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

def enable_wal(db: sqlite3.Connection, seconds: float = 10.0) -> None:
    """Put the database in WAL mode. Switching modes needs the file to itself, and SQLite may
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
CREATE TABLE IF NOT EXISTS tokenizer_files (
    sha256  TEXT PRIMARY KEY,          -- of the bytes as uploaded, after gunzip
    data    BLOB NOT NULL,
    bytes   INTEGER NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tokenizers (
    handle     TEXT PRIMARY KEY,       -- upload-<sha256[:16]>[-<options digest>]
    sha256     TEXT NOT NULL REFERENCES tokenizer_files (sha256),
    name       TEXT NOT NULL DEFAULT '',
    format     TEXT NOT NULL,
    options    TEXT NOT NULL,          -- JSON: the load options (pattern, special_tokens, ...)
    algorithm  TEXT NOT NULL,
    vocab_size INTEGER NOT NULL,
    family     TEXT NOT NULL,          -- bpe, wordpiece, unigram or other: which step views apply
    created    REAL NOT NULL
);
"""


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_sha256(value: str) -> bool:
    return len(value) == 64 and all(c in "0123456789abcdef" for c in value)


class StoreFull(Exception):
    """Storing this would take the store past its size limit (TOKVIS_MAX_STORE_MB)."""

    def __init__(self, used: int, adding: int, limit: int) -> None:
        super().__init__(f"the server's store is full: it holds {used / 1e6:,.1f} MB of corpora "
                         f"and tokenizer files, and this {adding / 1e6:,.1f} MB would take it "
                         f"past its limit of {limit / 1e6:,.0f} MB (TOKVIS_MAX_STORE_MB); "
                         "anything stored already still works")


class CorpusStore:
    """Corpora by sha256, plus the specs behind trained-tokeniser handles, and uploaded
    tokenizer files. Corpora and files together may take at most `max_bytes` (None: no limit);
    past it, `put` and `put_file` raise StoreFull, and what is stored is left as it is."""

    def __init__(self, path: Path | str, max_bytes: int | None = None) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self._ready = False  # the file is created on first use, not at import time

    def _connect(self) -> sqlite3.Connection:
        if not self._ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=10)
        if not self._ready:
            enable_wal(db)
            with db:
                db.executescript(_SCHEMA)
            self._ready = True
        return db

    # ---- corpora ------------------------------------------------------------------------
    def put(self, text: str, name: str = "") -> str:
        """Store `text` (idempotent) and return its sha256."""
        digest = sha256_text(text)
        size = len(text.encode("utf-8"))
        with closing(self._connect()) as db, db:
            db.execute("BEGIN IMMEDIATE")          # the room checked is the room written into
            self._check_room(db, "corpora", digest, size)
            db.execute("INSERT OR IGNORE INTO corpora (sha256, text, bytes, name, created) "
                       "VALUES (?, ?, ?, ?, ?)",
                       (digest, text, size, name, time.time()))
        return digest

    def used_bytes(self) -> int:
        """What the stored corpora and tokenizer files take."""
        with closing(self._connect()) as db:
            return self._used(db)

    @staticmethod
    def _used(db: sqlite3.Connection) -> int:
        return db.execute("SELECT (SELECT COALESCE(SUM(bytes), 0) FROM corpora) + "
                          "(SELECT COALESCE(SUM(bytes), 0) FROM tokenizer_files)").fetchone()[0]

    def _check_room(self, db: sqlite3.Connection, table: str, digest: str, size: int) -> None:
        """StoreFull if adding `size` bytes under `digest` would pass the limit (a digest that
        is stored already adds nothing)."""
        if self.max_bytes is None:
            return
        if db.execute(f"SELECT 1 FROM {table} WHERE sha256 = ?", (digest,)).fetchone():
            return
        used = self._used(db)
        if used + size > self.max_bytes:
            raise StoreFull(used, size, self.max_bytes)

    def get(self, digest: str) -> str | None:
        with closing(self._connect()) as db:
            row = db.execute("SELECT text FROM corpora WHERE sha256 = ?", (digest,)).fetchone()
        return row[0] if row else None

    def list(self, limit: int = 100) -> list[dict[str, Any]]:
        """The most recent corpora: sha256, bytes, name, created, and a short preview. (Model
        files the lattice view once kept here as base64 text are not corpora: left out.)"""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT sha256, bytes, name, created, substr(text, 1, 80) "
                              "FROM corpora WHERE substr(text, 1, 27) != ? "
                              "ORDER BY created DESC LIMIT ?",
                              ("sentencepiece-model:base64:", limit)).fetchall()
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

    # ---- uploaded tokenizer files ---------------------------------------------------------
    def put_file(self, data: bytes) -> str:
        """Store a tokenizer file's bytes (idempotent) and return their sha256."""
        digest = hashlib.sha256(data).hexdigest()
        with closing(self._connect()) as db, db:
            db.execute("BEGIN IMMEDIATE")
            self._check_room(db, "tokenizer_files", digest, len(data))
            db.execute("INSERT OR IGNORE INTO tokenizer_files (sha256, data, bytes, created) "
                       "VALUES (?, ?, ?, ?)", (digest, data, len(data), time.time()))
        return digest

    def get_file(self, digest: str) -> bytes | None:
        with closing(self._connect()) as db:
            row = db.execute("SELECT data FROM tokenizer_files WHERE sha256 = ?",
                             (digest,)).fetchone()
        return bytes(row[0]) if row else None

    def put_tokenizer(self, info: dict[str, Any], rename: bool = True) -> None:
        """Remember an uploaded tokeniser (`info`: handle, sha256, name, format, options,
        algorithm, vocab_size, family). Uploading it again keeps the row; with `rename`, a
        non-empty name renames it."""
        with closing(self._connect()) as db, db:
            db.execute("INSERT OR IGNORE INTO tokenizers (handle, sha256, name, format, options, "
                       "algorithm, vocab_size, family, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (info["handle"], info["sha256"], info["name"], info["format"],
                        json.dumps(info["options"], sort_keys=True), info["algorithm"],
                        info["vocab_size"], info["family"], time.time()))
            if rename and info["name"]:
                db.execute("UPDATE tokenizers SET name = ? WHERE handle = ?",
                           (info["name"], info["handle"]))

    def get_tokenizer(self, handle: str) -> dict[str, Any] | None:
        rows = self._tokenizer_rows("WHERE t.handle = ?", (handle,))
        return rows[0] if rows else None

    def list_tokenizers(self, limit: int = 200) -> list[dict[str, Any]]:
        """The uploaded tokenisers, most recent first."""
        return self._tokenizer_rows("ORDER BY t.created DESC LIMIT ?", (limit,))

    def _tokenizer_rows(self, where: str, args: tuple) -> list[dict[str, Any]]:
        with closing(self._connect()) as db:
            rows = db.execute("SELECT t.handle, t.sha256, t.name, t.format, t.options, "
                              "t.algorithm, t.vocab_size, t.family, t.created, f.bytes "
                              "FROM tokenizers t JOIN tokenizer_files f USING (sha256) "
                              + where, args).fetchall()
        keys = ("handle", "sha256", "name", "format", "options", "algorithm", "vocab_size",
                "family", "created", "bytes")
        out = [dict(zip(keys, r)) for r in rows]
        for row in out:
            row["options"] = json.loads(row["options"])
        return out

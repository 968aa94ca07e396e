"""A content-addressed store of corpora, trained-tokeniser specs and uploaded tokenizer files
in SQLite.

A corpus is stored once under the sha256 of its UTF-8 bytes, so a URL can name it by hash and
any server worker can read it back. Stdlib `sqlite3`; one short-lived connection per call, so
the store is safe to share between threads and processes.

The size limit (TOKVIS_MAX_STORE_MB) counts everything the file holds for users: corpora,
tokenizer files, and the background jobs' results (`app.jobs.store`) that share the file. The
limit is written into the file (table `limits`), so that every process using it, the job
workers among them, applies the same one. Past it:

- job results are dropped, least recently used first (they are recomputed when asked for
  again); the most recently used one always stays, as its requester may not have read it yet;
- then, if a corpus or a tokenizer file still does not fit, storing it is refused (StoreFull,
  507 on the web), and what is stored is left as it is.

Orphans, tokenizer files no uploaded tokeniser points to (the bytes of a ranks file kept while
the form asks for its pattern and never completed, or a write killed between storing a file and
recording its tokeniser), are deleted once `ORPHAN_GRACE` old: when a process first opens the
store, and when the limit is hit.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

ORPHAN_GRACE = 3600.0      # seconds an unreferenced tokenizer file may wait for its tokeniser
FINISHED_JOB = "status IN ('done', 'error', 'cancelled', 'interrupted')"
LIMITS_SCHEMA = "CREATE TABLE IF NOT EXISTS limits (name TEXT PRIMARY KEY, value INTEGER NOT NULL);"


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
""" + LIMITS_SCHEMA


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_sha256(value: str) -> bool:
    return len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def store_limit(db: sqlite3.Connection) -> int | None:
    """The size limit written into the store by the server, or None."""
    row = db.execute("SELECT value FROM limits WHERE name = 'max_bytes'").fetchone()
    return row[0] if row else None


def used_bytes(db: sqlite3.Connection) -> int:
    """What the limit counts: corpora, tokenizer files and job results (pickled values and
    their JSON)."""
    used = db.execute("SELECT (SELECT COALESCE(SUM(bytes), 0) FROM corpora) + "
                      "(SELECT COALESCE(SUM(bytes), 0) FROM tokenizer_files)").fetchone()[0]
    if _has_jobs(db):
        used += db.execute("SELECT COALESCE(SUM(COALESCE(length(blob), 0) + length(results)), "
                           "0) FROM jobs").fetchone()[0]
    return used


def drop_job_results(db: sqlite3.Connection, excess: int) -> int:
    """Delete finished jobs, least recently used (finished or asked for) first, until `excess`
    bytes are freed or only the most recently used one is left; the bytes freed."""
    if excess <= 0 or not _has_jobs(db):
        return 0
    rows = db.execute("SELECT id, COALESCE(length(blob), 0) + length(results) FROM jobs "
                      f"WHERE {FINISHED_JOB} ORDER BY MAX(COALESCE(seen, 0), "
                      "COALESCE(finished, 0)) DESC LIMIT -1 OFFSET 1").fetchall()
    freed, doomed = 0, []
    for job_id, size in reversed(rows):             # the least recently used first
        if freed >= excess:
            break
        doomed.append(job_id)
        freed += size
    db.executemany("DELETE FROM jobs WHERE id = ?", [(job_id,) for job_id in doomed])
    return freed


def drop_orphans(db: sqlite3.Connection) -> int:
    """Delete the tokenizer files no uploaded tokeniser points to, once `ORPHAN_GRACE` old;
    how many."""
    return db.execute("DELETE FROM tokenizer_files WHERE created < ? AND sha256 NOT IN "
                      "(SELECT sha256 FROM tokenizers)",
                      (time.time() - ORPHAN_GRACE,)).rowcount


def _has_jobs(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'jobs'"
                      ).fetchone() is not None


class StoreFull(Exception):
    """Storing this would take the store past its size limit (TOKVIS_MAX_STORE_MB)."""

    def __init__(self, used: int, adding: int, limit: int) -> None:
        super().__init__(f"the server's store is full: it holds {used / 1e6:,.1f} MB of corpora, "
                         f"tokenizer files and results being read, and this "
                         f"{adding / 1e6:,.1f} MB would take it past its limit of "
                         f"{limit / 1e6:,.0f} MB (TOKVIS_MAX_STORE_MB); "
                         "anything stored already still works")


class CorpusStore:
    """Corpora by sha256, plus the specs behind trained-tokeniser handles, and uploaded
    tokenizer files. Everything together, job results included, may take at most `max_bytes`
    (None: the limit the file holds, if any); past it, job results are dropped, then `put` and
    `put_file` raise StoreFull, and what is stored is left as it is."""

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
                if self.max_bytes is not None:      # for every process sharing the file
                    db.execute("INSERT OR REPLACE INTO limits (name, value) VALUES "
                               "('max_bytes', ?)", (self.max_bytes,))
                drop_orphans(db)
            self._ready = True
        return db

    def open(self) -> None:
        """Open the file now, as a server starts: its tables, its limit (for the job workers),
        and the old orphans dropped. (Any first call does the same.)"""
        self._connect().close()

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
        """What the stored corpora, tokenizer files and job results take."""
        with closing(self._connect()) as db:
            return used_bytes(db)

    def _check_room(self, db: sqlite3.Connection, table: str, digest: str, size: int) -> None:
        """Make room for `size` bytes under `digest` (dropping orphans and job results), or
        StoreFull if they would still pass the limit (a digest that is stored already adds
        nothing)."""
        limit = self.max_bytes if self.max_bytes is not None else store_limit(db)
        if limit is None:
            return
        if db.execute(f"SELECT 1 FROM {table} WHERE sha256 = ?", (digest,)).fetchone():
            return
        used = used_bytes(db)
        if used + size > limit:
            drop_orphans(db)
            used = used_bytes(db)
            used -= drop_job_results(db, used + size - limit)
        if used + size > limit:
            db.commit()                             # what was dropped stays dropped
            raise StoreFull(used, size, limit)

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

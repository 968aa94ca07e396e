"""A content-addressed store of corpora, trained-tokeniser specs and uploaded tokenizer files,
in the database `TOKVIS_DATABASE_URL` names (an SQLite file by default; `app.db`).

A corpus is stored once under the sha256 of its UTF-8 bytes, so a URL can name it by hash and
any server process, on any machine sharing the database, can read it back. Every call is one
short transaction on a pooled connection, so the store is safe to share between threads and
processes.

The size limit (TOKVIS_MAX_STORE_MB) counts everything the database holds for users: corpora,
tokenizer files, and the background jobs' results (`app.jobs.store`). The limit is written into
the database (table `limits`), so that every process using it, the job workers among them,
applies the same one. Past it:

- job results are dropped, least recently used first (they are recomputed when asked for
  again); the most recently used one always stays, as its requester may not have read it yet;
- then, if a corpus or a tokenizer file still does not fit, storing it is refused (StoreFull,
  507 on the web), and what is stored is left as it is.

Orphans, tokenizer files no uploaded tokeniser points to (the bytes of a ranks file kept while
the form asks for its pattern and never completed, or a write killed between storing a file and
recording its tokeniser), are deleted once `ORPHAN_GRACE` old: when a process first opens the
store, and when the limit is hit.

Uploaded files' bytes go through `DatabaseFiles`, the one place that reads and writes them:
object storage could stand in for it later, with the same accounting.
"""

from __future__ import annotations

import hashlib
import json
import time
from os import PathLike
from typing import Any

from sqlalchemy import Connection, delete, func, select, update
from sqlalchemy.sql import ColumnElement

from tokenizers_core.errors import InvalidInput

from .db import connect, database_url, ensure_current
from .db.engine import insert_ignore, take_turn, upsert
from .db.schema import corpora, jobs, limits, tokenizer_files, tokenizers, trained

ORPHAN_GRACE = 3600.0  # seconds an unreferenced tokenizer file may wait for its tokeniser
FINAL = ("done", "error", "cancelled", "interrupted")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_sha256(value: str) -> bool:
    return len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def store_limit(conn: Connection) -> int | None:
    """The size limit written into the store by the server, or None."""
    return conn.execute(select(limits.c.value).where(limits.c.name == "max_bytes")).scalar()


def result_bytes() -> ColumnElement[int]:
    """What one job's row holds for users: its pickled value and its JSON results."""
    return func.coalesce(func.length(jobs.c.blob), 0) + func.length(jobs.c.results)


def used_bytes(conn: Connection) -> int:
    """What the limit counts: corpora, tokenizer files and job results."""
    total = 0
    for query in (
        select(func.coalesce(func.sum(corpora.c.bytes), 0)),
        DatabaseFiles.total_bytes(),
        select(func.coalesce(func.sum(result_bytes()), 0)),
    ):
        total += int(conn.execute(query).scalar() or 0)
    return total


def drop_job_results(conn: Connection, excess: int) -> int:
    """Delete finished jobs, least recently used (finished or asked for) first, until `excess`
    bytes are freed or only the most recently used one is left; the bytes freed."""
    if excess <= 0:
        return 0
    rows = conn.execute(
        select(jobs.c.id, result_bytes(), jobs.c.seen, jobs.c.finished).where(
            jobs.c.status.in_(FINAL)
        )
    ).all()
    rows.sort(key=lambda r: max(r[2] or 0, r[3] or 0), reverse=True)  # the last use first
    rows = rows[1:]  # the most recently used one stays
    freed, doomed = 0, []
    for job_id, size, _seen, _finished in reversed(rows):  # the least recently used first
        if freed >= excess:
            break
        doomed.append(job_id)
        freed += size
    if doomed:
        conn.execute(delete(jobs).where(jobs.c.id.in_(doomed)))
    return freed


def within_limit(conn: Connection) -> None:
    """Drop finished jobs, least recently used first, while the store is past its limit."""
    limit = store_limit(conn)
    if limit is not None:
        drop_job_results(conn, used_bytes(conn) - limit)


class DatabaseFiles:
    """Uploaded files' bytes, by sha256, in the database itself (table `tokenizer_files`).
    The seam where object storage could go: the store only puts, gets, sums and drops
    orphans through here."""

    @staticmethod
    def put(conn: Connection, digest: str, data: bytes) -> None:
        insert_ignore(
            conn, tokenizer_files, sha256=digest, data=data, bytes=len(data), created=time.time()
        )

    @staticmethod
    def has(conn: Connection, digest: str) -> bool:
        return (
            conn.execute(
                select(tokenizer_files.c.sha256).where(tokenizer_files.c.sha256 == digest)
            ).first()
            is not None
        )

    @staticmethod
    def get(conn: Connection, digest: str) -> bytes | None:
        data = conn.execute(
            select(tokenizer_files.c.data).where(tokenizer_files.c.sha256 == digest)
        ).scalar()
        return bytes(data) if data is not None else None

    @staticmethod
    def total_bytes() -> Any:
        return select(func.coalesce(func.sum(tokenizer_files.c.bytes), 0))

    @staticmethod
    def drop_orphans(conn: Connection) -> int:
        """Delete the files no uploaded tokeniser points to, once `ORPHAN_GRACE` old."""
        return conn.execute(
            delete(tokenizer_files).where(
                tokenizer_files.c.created < time.time() - ORPHAN_GRACE,
                tokenizer_files.c.sha256.not_in(select(tokenizers.c.sha256)),
            )
        ).rowcount


def drop_orphans(conn: Connection) -> int:
    """Delete the tokenizer files no uploaded tokeniser points to, once old; how many."""
    return DatabaseFiles.drop_orphans(conn)


# a counts file kept as a corpus (`app.services.counted`), and a set of them (one per language,
# for parity-aware BPE): not text to train on, so not listed
COUNTS_STEM = "tokvis-counts:"
COUNTS_PREFIX = COUNTS_STEM + "base64:"
COUNTS_SET_PREFIX = COUNTS_STEM + "set:"


class StoreFull(Exception):
    """Storing this would take the store past its size limit (TOKVIS_MAX_STORE_MB)."""

    def __init__(self, used: int, adding: int, limit: int) -> None:
        super().__init__(
            f"the server's store is full: it holds {used / 1e6:,.1f} MB of corpora, "
            f"tokenizer files and results being read, and this "
            f"{adding / 1e6:,.1f} MB would take it past its limit of "
            f"{limit / 1e6:,.0f} MB (TOKVIS_MAX_STORE_MB); "
            "anything stored already still works"
        )


class CorpusStore:
    """Corpora by sha256, plus the specs behind trained-tokeniser handles, and uploaded
    tokenizer files. Everything together, job results included, may take at most `max_bytes`
    (None: the limit the database holds, if any); past it, job results are dropped, then `put`
    and `put_file` raise StoreFull, and what is stored is left as it is.

    `where` is a database URL or an SQLite file's path."""

    def __init__(self, where: str | PathLike[str], max_bytes: int | None = None) -> None:
        self.url = database_url(where)
        self.max_bytes = max_bytes
        self._ready = False  # the database is checked (and created) on first use

    def _connect(self) -> Any:
        if not self._ready:
            self.open()
        return connect(self.url)

    def transaction(self) -> Any:
        """A connection in a transaction on the store's database (its schema checked first),
        for the services whose tables are their own (`app.services.classes`)."""
        return self._connect()

    def open(self) -> None:
        """Check the database now, as a server starts: a new one is created, an older schema
        raises `SchemaOutdated`; then its limit (for the job workers) is written and the old
        orphans are dropped. (Any first call does the same.)"""
        ensure_current(self.url)
        self._ready = True
        with connect(self.url) as conn:
            if self.max_bytes is not None:  # for every process sharing the store
                upsert(conn, limits, name="max_bytes", value=self.max_bytes)
            drop_orphans(conn)

    # ---- corpora ------------------------------------------------------------------------
    def put(self, text: str, name: str = "") -> str:
        """Store `text` (idempotent) and return its sha256."""
        digest = sha256_text(text)
        size = len(text.encode("utf-8"))
        if "\x00" in text and self.url.startswith("postgresql"):
            raise InvalidInput(
                "the text holds a NUL character (U+0000), which the shared "
                "store (PostgreSQL) cannot keep; remove it and try again"
            )
        with self._connect() as conn:
            if conn.execute(select(corpora.c.sha256).where(corpora.c.sha256 == digest)).first():
                return digest
            take_turn(conn, "store")  # the room checked is the room written into
            if conn.execute(select(corpora.c.sha256).where(corpora.c.sha256 == digest)).first():
                return digest  # stored meanwhile by another process
            full = self._check_room(conn, size)
            if full is None:
                insert_ignore(
                    conn,
                    corpora,
                    sha256=digest,
                    text=text,
                    bytes=size,
                    name=name,
                    created=time.time(),
                )
        if full is not None:
            raise full  # what was dropped to make room stays dropped
        return digest

    def used_bytes(self) -> int:
        """What the stored corpora, tokenizer files and job results take."""
        with self._connect() as conn:
            return used_bytes(conn)

    def _check_room(self, conn: Connection, size: int) -> StoreFull | None:
        """Make room for `size` bytes (dropping orphans and job results); StoreFull (to raise
        once the drops are committed) if they would still pass the limit."""
        limit = self.max_bytes if self.max_bytes is not None else store_limit(conn)
        if limit is None:
            return None
        used = used_bytes(conn)
        if used + size > limit:
            drop_orphans(conn)
            used = used_bytes(conn)
            used -= drop_job_results(conn, used + size - limit)
        return StoreFull(used, size, limit) if used + size > limit else None

    def get(self, digest: str) -> str | None:
        with self._connect() as conn:
            return conn.execute(select(corpora.c.text).where(corpora.c.sha256 == digest)).scalar()

    def list(self, limit: int = 100) -> list[dict[str, Any]]:
        """The most recent corpora: sha256, bytes, name, created, and a short preview. (Model
        files the lattice view once kept here as base64 text, and counts files and their sets,
        are not corpora: left out.)"""
        query = (
            select(
                corpora.c.sha256,
                corpora.c.bytes,
                corpora.c.name,
                corpora.c.created,
                func.substr(corpora.c.text, 1, 80),
            )
            .where(func.substr(corpora.c.text, 1, 27) != "sentencepiece-model:base64:")
            .where(func.substr(corpora.c.text, 1, len(COUNTS_STEM)) != COUNTS_STEM)
            .order_by(corpora.c.created.desc())
            .limit(limit)
        )
        with self._connect() as conn:
            rows = conn.execute(query).all()
        return [
            {"sha256": r[0], "bytes": r[1], "name": r[2], "created": r[3], "preview": r[4]}
            for r in rows
        ]

    # ---- trained-tokeniser specs ----------------------------------------------------------
    def put_spec(self, handle: str, spec: dict[str, Any]) -> None:
        with self._connect() as conn:
            insert_ignore(
                conn,
                trained,
                handle=handle,
                spec=json.dumps(spec, sort_keys=True),
                created=time.time(),
            )

    def get_spec(self, handle: str) -> dict[str, Any] | None:
        with self._connect() as conn:
            spec = conn.execute(select(trained.c.spec).where(trained.c.handle == handle)).scalar()
        return json.loads(spec) if spec is not None else None

    # ---- uploaded tokenizer files ---------------------------------------------------------
    def put_file(self, data: bytes) -> str:
        """Store a tokenizer file's bytes (idempotent) and return their sha256."""
        digest = hashlib.sha256(data).hexdigest()
        with self._connect() as conn:
            if DatabaseFiles.has(conn, digest):
                return digest
            take_turn(conn, "store")
            if DatabaseFiles.has(conn, digest):
                return digest
            full = self._check_room(conn, len(data))
            if full is None:
                DatabaseFiles.put(conn, digest, data)
        if full is not None:
            raise full
        return digest

    def get_file(self, digest: str) -> bytes | None:
        with self._connect() as conn:
            return DatabaseFiles.get(conn, digest)

    def put_tokenizer(self, info: dict[str, Any], rename: bool = True) -> None:
        """Remember an uploaded tokeniser (`info`: handle, sha256, name, format, options,
        algorithm, vocab_size, family). Uploading it again keeps the row; with `rename`, a
        non-empty name renames it."""
        with self._connect() as conn:
            insert_ignore(
                conn,
                tokenizers,
                handle=info["handle"],
                sha256=info["sha256"],
                name=info["name"],
                format=info["format"],
                options=json.dumps(info["options"], sort_keys=True),
                algorithm=info["algorithm"],
                vocab_size=info["vocab_size"],
                family=info["family"],
                created=time.time(),
            )
            if rename and info["name"]:
                conn.execute(
                    update(tokenizers)
                    .where(tokenizers.c.handle == info["handle"])
                    .values(name=info["name"])
                )

    def get_tokenizer(self, handle: str) -> dict[str, Any] | None:
        rows = self._tokenizer_rows(tokenizers.c.handle == handle)
        return rows[0] if rows else None

    def list_tokenizers(self, limit: int = 200) -> list[dict[str, Any]]:
        """The uploaded tokenisers, most recent first."""
        return self._tokenizer_rows(None, limit)

    def _tokenizer_rows(self, where: Any, limit: int | None = None) -> list[dict[str, Any]]:
        t, f = tokenizers.c, tokenizer_files.c
        query = select(
            t.handle,
            t.sha256,
            t.name,
            t.format,
            t.options,
            t.algorithm,
            t.vocab_size,
            t.family,
            t.created,
            f.bytes,
        ).join_from(tokenizers, tokenizer_files, t.sha256 == f.sha256)
        if where is not None:
            query = query.where(where)
        if limit is not None:
            query = query.order_by(t.created.desc()).limit(limit)
        with self._connect() as conn:
            rows = conn.execute(query).all()
        keys = (
            "handle",
            "sha256",
            "name",
            "format",
            "options",
            "algorithm",
            "vocab_size",
            "family",
            "created",
            "bytes",
        )
        out = [dict(zip(keys, r)) for r in rows]
        for row in out:
            row["options"] = json.loads(row["options"])
        return out

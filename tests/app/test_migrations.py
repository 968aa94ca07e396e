"""The store's schema versions: a store made before migrations existed is adopted by `tokvis db
upgrade` with every row; a server on an older schema refuses to start and says to run it; an
empty database is created at the newest schema; upgrading twice does nothing the second time."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.db import SchemaOutdated, database_url, migrate
from app.jobs.store import JobStore
from app.main import create_app
from app.store import CorpusStore

ROOT = Path(__file__).resolve().parents[2]

# The tables as the release before migrations created them at start (app/store.py and the first
# app/jobs/store.py): the jobs table still lacks the columns added later (seen, abandon, secret).
OLD_SCHEMA = """
CREATE TABLE corpora (sha256 TEXT PRIMARY KEY, text TEXT NOT NULL, bytes INTEGER NOT NULL,
                      name TEXT NOT NULL DEFAULT '', created REAL NOT NULL);
CREATE TABLE trained (handle TEXT PRIMARY KEY, spec TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE tokenizer_files (sha256 TEXT PRIMARY KEY, data BLOB NOT NULL,
                              bytes INTEGER NOT NULL, created REAL NOT NULL);
CREATE TABLE tokenizers (handle TEXT PRIMARY KEY, sha256 TEXT NOT NULL REFERENCES
    tokenizer_files (sha256), name TEXT NOT NULL DEFAULT '', format TEXT NOT NULL,
    options TEXT NOT NULL, algorithm TEXT NOT NULL, vocab_size INTEGER NOT NULL,
    family TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE limits (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE jobs (id TEXT PRIMARY KEY, kind TEXT NOT NULL, spec TEXT NOT NULL,
    status TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, total INTEGER NOT NULL DEFAULT 0,
    current TEXT NOT NULL DEFAULT '', results TEXT NOT NULL DEFAULT '[]', blob BLOB,
    error TEXT, error_kind TEXT, owner TEXT, pid INTEGER, cancel INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL, started REAL, finished REAL, heartbeat REAL);
CREATE INDEX jobs_status ON jobs (status, created);
"""
TEXT = "an old corpus, kept through the upgrade\n"


def old_store(path: Path) -> Path:
    with closing(sqlite3.connect(path)) as db, db:
        db.executescript(OLD_SCHEMA)
        db.execute(
            "INSERT INTO corpora VALUES (?, ?, ?, 'old', 1.0)",
            (hashlib.sha256(TEXT.encode()).hexdigest(), TEXT, len(TEXT)),
        )
        db.execute("INSERT INTO trained VALUES ('h', '{\"a\": 1}', 1.0)")
        db.execute("INSERT INTO tokenizer_files VALUES ('f', x'00ff', 2, 1.0)")
        db.execute(
            "INSERT INTO tokenizers VALUES ('upload-f', 'f', 'n', 'hf', '{}', 'bpe', 5, 'bpe', 1.0)"
        )
        db.execute(
            "INSERT INTO jobs (id, kind, spec, status, results, created) VALUES "
            "('j', 'sweep', '{}', 'done', '[1]', 1.0)"
        )
    return path


def tokvis(*args: str, db: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args, "--db", str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.heavy
def test_a_store_from_before_migrations_is_refused_then_adopted_with_every_row(tmp_path):
    path = old_store(tmp_path / "old.sqlite3")
    with pytest.raises(SchemaOutdated, match="tokvis db upgrade"):
        CorpusStore(path).open()
    settings = Settings(
        db_path=path,
        max_text_chars=1000,
        max_corpus_bytes=10**6,
        max_upload_bytes=10**6,
        regex_timeout=0.5,
    )
    with pytest.raises(SchemaOutdated, match="from before migrations"):
        with TestClient(create_app(settings)):
            pass
    assert "schema none" in tokvis("db", "current", db=path).stdout
    upgraded = tokvis("db", "upgrade", db=path)
    assert upgraded.returncode == 0 and "none -> " + migrate.head() in upgraded.stdout
    store = CorpusStore(path)
    (corpus,) = store.list()
    assert store.get(corpus["sha256"]) == TEXT and corpus["name"] == "old"
    assert store.get_spec("h") == {"a": 1} and store.get_file("f") == b"\x00\xff"
    assert store.get_tokenizer("upload-f")["name"] == "n"
    jobs = JobStore(path)
    assert jobs.get("j").results == [1]
    assert jobs.submit("k", "sweep", {}, 1, queue_limit=5)[1]  # the added columns work
    again = tokvis("db", "upgrade", db=path)
    assert again.returncode == 0 and "nothing to do" in again.stdout


@pytest.mark.heavy
def test_the_server_says_to_upgrade_in_one_line(tmp_path):
    path = old_store(tmp_path / "old.sqlite3")
    served = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--port", "0", "--db", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert served.returncode == 1
    assert served.stderr.startswith("tokvis serve: error: the store at sqlite:///")
    assert "run `tokvis db upgrade`" in served.stderr and "Traceback" not in served.stderr


def test_a_new_store_is_created_at_the_newest_schema_and_a_newer_one_is_refused(tmp_path):
    url = database_url(tmp_path / "new.sqlite3")
    CorpusStore(url).put("fresh")
    assert migrate.current(url) == migrate.head()
    with closing(sqlite3.connect(tmp_path / "new.sqlite3")) as db, db:
        db.execute("UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(SchemaOutdated, match="newer than this version"):
        migrate.ensure_current(url)


@pytest.mark.heavy
def test_processes_creating_a_new_store_at_once_all_find_it_ready(tmp_path):
    path = tmp_path / "together.sqlite3"
    code = (
        "import sys; from app.store import CorpusStore; "
        "print(CorpusStore(sys.argv[1]).put('text ' + sys.argv[2]))"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(path), str(n)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    results = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-500:] for _out, err in results]
    assert len(CorpusStore(path).list()) == 4


def test_a_store_at_0002_gets_the_class_tables_and_keeps_its_rows(tmp_path):
    """0003 adds `classes` and `class_answers`: a store at 0002 is refused by a server until
    `tokvis db upgrade`, which adds them and keeps every row; a class is then stored."""
    from alembic import command
    from sqlalchemy import inspect

    from app.db.engine import get_engine

    url = database_url(tmp_path / "at-0002.sqlite3")
    config = migrate._config()
    with get_engine(url).begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0002")
    assert migrate.current(url) == "0002"
    with get_engine(url).connect() as conn:
        assert "classes" not in inspect(conn).get_table_names()
    with closing(sqlite3.connect(tmp_path / "at-0002.sqlite3")) as db, db:
        db.execute("INSERT INTO corpora VALUES ('abc', 'kept', 4, 'old', 1.0)")
    with pytest.raises(SchemaOutdated, match="tokvis db upgrade"):
        migrate.ensure_current(url)
    assert migrate.upgrade(url) == ("0002", migrate.head())
    with get_engine(url).connect() as conn:
        tables = set(inspect(conn).get_table_names())
    assert {"classes", "class_answers"} <= tables
    assert CorpusStore(url).get("abc") == "kept"
    assert migrate.upgrade(url) == (migrate.head(), migrate.head())  # again: nothing to do

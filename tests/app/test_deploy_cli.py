"""`tokvis worker` and `tokvis db` say what is wrong in one line: a worker needs the shared
(PostgreSQL) store; a database that cannot be reached is named as such, not as a crash."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def tokvis(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        timeout=120,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )


@pytest.mark.heavy
def test_a_worker_needs_the_shared_store(tmp_path):
    done = tokvis("worker", "--db", str(tmp_path / "s.sqlite3"))
    assert done.returncode == 1
    assert done.stderr.startswith(
        "tokvis worker: error: a worker runs jobs from a shared PostgreSQL store"
    )
    assert tokvis("worker", "--concurrency", "0").stderr.endswith("got 0\n")


@pytest.mark.heavy
def test_an_unreachable_database_is_one_line(tmp_path):
    done = tokvis(
        "worker",
        "--db",
        "postgresql+psycopg://nobody@127.0.0.1:1/none",
        TOKVIS_SECRET_KEY="a-secret-long-enough-for-this",
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("tokvis worker: error: the store's database cannot be reached")
    assert "127.0.0.1" in done.stderr and len(done.stderr.splitlines()) == 1


@pytest.mark.heavy
def test_db_current_and_upgrade_on_a_new_sqlite_store(tmp_path):
    store = tmp_path / "new.sqlite3"
    assert "schema none" in tokvis("db", "current", "--db", str(store)).stdout
    first = tokvis("db", "upgrade", "--db", str(store))
    assert first.returncode == 0 and "schema none -> " in first.stdout
    assert "nothing to do" in tokvis("db", "upgrade", "--db", str(store)).stdout


@pytest.mark.slow
def test_a_server_or_worker_with_another_secret_key_refuses_to_start(pg_url):  # noqa: F811
    """The store keeps a fingerprint of the first TOKVIS_SECRET_KEY it saw. A server or worker
    with another key started silently, and each training through it ran three times and ended
    "cancelled" (it could not read what the others signed): now it refuses to start, in one
    line naming TOKVIS_SECRET_KEY; `tokvis db upgrade --new-secret-key` changes the key."""
    url = pg_url
    first, other = "the-first-secret-key-0123456789", "another-secret-key-0123456789"
    upgrade = tokvis("db", "upgrade", "--new-secret-key", "--db", url, TOKVIS_SECRET_KEY=first)
    assert upgrade.returncode == 0, upgrade.stderr
    for command in (["worker"], ["serve", "--port", "1"]):
        done = tokvis(*command, TOKVIS_DATABASE_URL=url, TOKVIS_SECRET_KEY=other)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert "TOKVIS_SECRET_KEY is not the key this store's results are signed with" in (
            done.stderr
        )
        assert len(done.stderr.splitlines()) == 1, done.stderr
    changed = tokvis("db", "upgrade", "--new-secret-key", "--db", url, TOKVIS_SECRET_KEY=other)
    assert changed.returncode == 0 and "signed with this TOKVIS_SECRET_KEY" in changed.stdout
    done = tokvis("worker", "--db", url, TOKVIS_SECRET_KEY=first)  # the old key is refused now
    assert done.returncode == 1 and "TOKVIS_SECRET_KEY is not the key" in done.stderr

"""The store's contract, on both databases it runs on: SQLite (the embedded default) and a real
PostgreSQL (`tests/postgres.py`; the slow tier). Corpora, specs, files and tokenisers, the size
limit, jobs from queue to result, the queue limit under writers racing, and signed results."""

from __future__ import annotations

import threading
import time

import pytest

from app.jobs.store import JobStore, QueueFull
from app.setup_errors import KeyMismatch
from app.store import CorpusStore, StoreFull

SECRET = "a-test-secret-of-enough-length"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def url(request, tmp_path, monkeypatch):
    monkeypatch.setenv("TOKVIS_SECRET_KEY", SECRET)
    if request.param == "sqlite":
        return str(tmp_path / "store.sqlite3")
    return request.getfixturevalue("pg_url")


def test_corpora_specs_and_files_round_trip(url):
    store = CorpusStore(url)
    text = "low lower newest widest\nनमस्ते 你好 🙂\n"
    digest = store.put(text, name="mixed")
    assert store.put(text) == digest and store.get(digest) == text
    assert store.get("0" * 64) is None
    (row,) = store.list()
    assert row["sha256"] == digest and row["name"] == "mixed" and row["bytes"] == len(text.encode())
    store.put_spec("h1", {"b": 2, "a": [1]})
    store.put_spec("h1", {"other": True})  # the first one stays
    assert store.get_spec("h1") == {"a": [1], "b": 2} and store.get_spec("nope") is None
    data = bytes(range(256)) * 10  # any bytes, NULs included
    file_digest = store.put_file(data)
    assert store.put_file(data) == file_digest and store.get_file(file_digest) == data
    info = {
        "handle": "upload-x",
        "sha256": file_digest,
        "name": "",
        "format": "hf",
        "options": {"pattern": None},
        "algorithm": "bpe",
        "vocab_size": 5,
        "family": "bpe",
    }
    store.put_tokenizer(info)
    store.put_tokenizer({**info, "name": "renamed"})
    store.put_tokenizer({**info, "name": "kept"}, rename=False)
    found = store.get_tokenizer("upload-x")
    assert found["name"] == "renamed" and found["options"] == {"pattern": None}
    assert found["bytes"] == len(data) and [t["handle"] for t in store.list_tokenizers()] == [
        "upload-x"
    ]


def test_the_limit_refuses_what_does_not_fit_and_drops_old_results(url):
    store = CorpusStore(url, max_bytes=2000)
    jobs = JobStore(url)
    for n in range(3):  # three finished results
        jobs.submit(f"j{n}", "train", {}, 1, queue_limit=10)
        jobs.claim("test:1", 10)
        jobs.finish(f"j{n}", "done", blob=b"r" * 500)
        time.sleep(0.01)
    store.put("a" * 900)  # room made: the oldest go
    assert jobs.get("j2") is not None and jobs.get("j0") is None
    with pytest.raises(StoreFull, match="past its limit"):
        store.put("b" * 1500)
    assert jobs.get("j2") is not None  # the newest result stays
    assert store.used_bytes() <= 2000


def test_a_job_from_queue_to_result(url):
    jobs = JobStore(url)
    job, created = jobs.submit("j", "sweep", {"x": 1}, 3, queue_limit=5, abandon=60)
    assert created and job.status == "queued" and job.place == 1 and job.spec == {"x": 1}
    again, created = jobs.submit("j", "sweep", {"x": 1}, 3, queue_limit=5)
    assert not created and again.secret == job.secret
    running = jobs.claim("host:1", max_running=1)
    assert running.id == "j" and running.status == "running" and running.owner == "host:1"
    jobs.progress("j", 2, "two of three", [1, 2], blob=b"partial")
    assert jobs.get("j").done == 2 and jobs.blob("j") == b"partial"
    assert jobs.finish("j", "done", results=[1, 2, 3], blob=b"\x00pickled\xff")
    assert not jobs.finish("j", "error")  # it no longer runs
    done = jobs.get("j")
    assert (
        done.status == "done" and done.results == [1, 2, 3] and jobs.blob("j") == b"\x00pickled\xff"
    )
    assert jobs.counts() == {"done": 1}


def test_cancel_claim_one_and_stale_jobs(url):
    jobs = JobStore(url)
    jobs.submit("q", "train", {}, 1, queue_limit=5)
    assert jobs.request_cancel("q").status == "cancelled"
    assert jobs.claim_one("q", "w:1") is None  # a worker handed it: nothing to run
    jobs.submit("r", "train", {}, 1, queue_limit=5)
    assert jobs.claim_one("r", "w:1").status == "running"
    jobs.request_cancel("r")
    assert jobs.cancel_requested(["r", "zzz"]) == ["r"]
    assert jobs.interrupt_stale(60) == 0
    time.sleep(0.05)
    assert jobs.interrupt_stale(0.01) == 1
    gone = jobs.get("r")
    assert gone.status == "interrupted" and "worker" in gone.error


def test_the_queue_limit_holds_under_racing_writers(url):
    jobs = JobStore(url)
    outcomes: list[str] = []

    def submit(n: int) -> None:
        try:
            jobs.submit(f"race{n}", "train", {}, 1, queue_limit=5)
            outcomes.append("queued")
        except QueueFull:
            outcomes.append("full")
        except Exception as exc:  # anything else is a failure, shown below
            outcomes.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=submit, args=(n,)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["full"] * 7 + ["queued"] * 5, outcomes
    assert jobs.counts() == {"queued": 5}


def test_a_result_written_without_the_key_is_not_read(url, monkeypatch, caplog):
    """SQLite: a process holding another key does not unpickle a result, and forgets it, so it
    is run again. PostgreSQL (shared by servers and workers that must agree): such a process
    refuses to work at all, naming TOKVIS_SECRET_KEY (it started silently, and each training
    through it ran three times and ended "cancelled"); `tokvis db upgrade --new-secret-key`
    makes a new key the store's."""
    jobs = JobStore(url)
    jobs.submit("s", "train", {}, 1, queue_limit=5)
    jobs.claim("h:1", 5)
    jobs.finish("s", "done", blob=b"trusted")
    monkeypatch.setenv("TOKVIS_SECRET_KEY", "another-secret-of-enough-length")
    stranger = JobStore(url)  # a process holding another key reads it
    if url.startswith("postgresql"):
        with pytest.raises(KeyMismatch, match="TOKVIS_SECRET_KEY is not the key"):
            stranger.blob("s")
        stranger.forget_key()  # the key changed for good
        assert JobStore(url).key == b"another-secret-of-enough-length"
        monkeypatch.setenv("TOKVIS_SECRET_KEY", SECRET)
        with pytest.raises(KeyMismatch):
            JobStore(url).key  # the old key is the stranger now
        return
    assert stranger.blob("s") is None  # not unpickled ...
    assert stranger.get("s") is None  # ... and forgotten, so it is run again
    assert "job s: a stored result's signature does not match" in caplog.text  # ... and said
    assert "TOKVIS_SECRET_KEY" in caplog.text

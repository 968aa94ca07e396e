"""Trainings that cannot run away: a bounded pool and queue shared through the store, cancel that
kills the training, CPU and memory budgets, any worker answering for any job, and a client that
leaves cancelling its training. Real worker processes, real SQLite."""

from __future__ import annotations

import os
import time

import pytest
from fastapi.testclient import TestClient
from job_helpers import random_corpus, running

from app.config import Settings
from app.jobs import ClientGone, Engine, QueueFull
from app.main import create_app
from app.store import CorpusStore
from tests.polling import wait_until

LONG = {
    "corpus": "botchan",
    "heldout": "udhr/eng",
    "algorithms": ["unigram", "wordpiece", "bpe"],
    "sizes": [8000, 16000, 32000],
}  # a minute or more of training


def long_spec(n: int) -> dict:
    return {**LONG, "sizes": [8000 + n, 16000, 32000]}


def wait_for(engine: Engine, job_id: str, statuses=("queued", "running"), timeout=60.0):
    deadline = time.monotonic() + timeout
    while True:
        job = engine.get(job_id)
        if job.status not in statuses or time.monotonic() > deadline:
            return job
        time.sleep(0.05)


@pytest.fixture
def engine(tmp_path):
    e = Engine(tmp_path / "jobs.sqlite3", workers=1, queue=2, cpu_seconds=60, memory_mb=4096)
    yield e
    e.stop()


def test_pool_and_queue_are_bounded(engine):
    first, created = engine.submit("sweep", "j1", long_spec(1), total=9)
    assert created
    assert wait_for(engine, "j1", ("queued",)).status == "running"
    engine.submit("sweep", "j2", long_spec(2), total=9)
    engine.submit("sweep", "j3", long_spec(3), total=9)
    # the dispatcher has seen both, and neither starts while j1 runs
    assert wait_until(lambda: engine.get("j2").place == 1 and engine.get("j3").place == 2)
    assert engine.get("j2").status == "queued" and engine.get("j2").place == 1
    assert engine.get("j3").status == "queued" and engine.get("j3").place == 2
    with pytest.raises(QueueFull, match="busy: 1 training running and 2 waiting"):
        engine.submit("sweep", "j4", long_spec(4), total=9)
    # the same spec again is the same job, not a new one
    again, created = engine.submit("sweep", "j2", long_spec(2), total=9)
    assert not created and again.status == "queued"
    for job_id in ("j3", "j2", "j1"):
        engine.cancel(job_id)
    assert wait_for(engine, "j1").status == "cancelled"


def test_cancel_kills_the_training_at_once(engine):
    engine.submit("sweep", "long", LONG, total=9)
    job = wait_for(engine, "long", ("queued",))
    job = wait_until(lambda: (j := engine.get("long")).pid and j)  # its child has started
    assert job.status == "running" and job.pid
    engine.cancel("long")
    job = wait_for(engine, "long", ("running",), timeout=5)
    assert job.status == "cancelled"  # not "done": it was stopped part-way
    assert not running(job.pid)  # the process is gone, not just flagged


@pytest.mark.heavy
def test_a_training_over_its_cpu_budget_is_stopped_and_reported(tmp_path):
    e = Engine(tmp_path / "cpu.sqlite3", workers=1, queue=2, cpu_seconds=1, memory_mb=4096)
    try:
        e.submit("sweep", "cpu", LONG, total=9)
        job = wait_for(e, "cpu", timeout=30)
        assert job.status == "error" and "CPU budget of 1 s" in job.error
    finally:
        e.stop()


@pytest.mark.heavy
def test_a_training_over_its_memory_budget_is_stopped_and_reported(tmp_path):
    text = random_corpus(200_000)
    db = tmp_path / "mem.sqlite3"
    sha = CorpusStore(db).put(text)
    e = Engine(db, workers=1, queue=2, cpu_seconds=60, memory_mb=100)
    try:
        e.submit(
            "train",
            "mem",
            {"algorithm": "bpe", "corpus": sha, "vocab_size": 3000, "options": {}},
            total=1,
        )
        job = wait_for(e, "mem", timeout=60)
        assert job.status == "error" and "memory budget (100 MB" in job.error
    finally:
        e.stop()


def test_any_worker_answers_for_any_job(tmp_path):
    """Two server processes share the store: one runs the job, the other reports it."""
    a = Engine(tmp_path / "shared.sqlite3", workers=1)
    b = Engine(tmp_path / "shared.sqlite3", workers=1)
    try:
        spec = {"corpus": "botchan", "heldout": "udhr/eng", "algorithms": ["bpe"], "sizes": [300]}
        a.submit("sweep", "s", spec, total=1)
        job = wait_for(b, "s")
        assert job.status == "done" and job.results[0]["vocab_size"] == 300
        # asking the other worker for the same sweep gives the finished job, not a new run
        again, created = b.submit("sweep", "s", spec, total=1)
        assert not created and again.status == "done"
    finally:
        a.stop()
        b.stop()


def test_a_waiting_request_whose_client_left_cancels_its_training(engine):
    engine.submit("sweep", "w", LONG, total=9)
    wait_for(engine, "w", ("queued",))
    with pytest.raises(ClientGone):
        engine.wait("w", created=True, gone=lambda: True)
    assert wait_for(engine, "w", ("running",), timeout=5).status == "cancelled"


def test_stopping_the_server_marks_running_jobs_interrupted(tmp_path):
    e = Engine(tmp_path / "stop.sqlite3", workers=1)
    e.submit("sweep", "x", LONG, total=9)
    wait_for(e, "x", ("queued",))
    e.stop()
    assert e.get("x").status == "interrupted"


@pytest.fixture
def busy_client(tmp_path):
    s = Settings(
        db_path=tmp_path / "busy.sqlite3",
        max_text_chars=20_000,
        max_corpus_bytes=2_000_000,
        max_upload_bytes=2_000_000,
        regex_timeout=0.5,
        job_workers=1,
        job_queue=1,
    )
    with TestClient(create_app(s)) as c:
        yield c


def test_api_answers_429_beyond_the_queue_and_shows_the_place(busy_client):
    c = busy_client
    ids = []
    for n in (1, 2):
        r = c.post("/api/sweep", json=long_spec(n))
        assert r.status_code == 202
        ids.append(r.json()["id"])
        deadline = time.monotonic() + 10  # the first runs (not queued) before the second
        while n == 1 and c.get(f"/api/sweep/{ids[0]}").json()["status"] == "queued":
            assert time.monotonic() < deadline
            time.sleep(0.05)
    r = c.post("/api/sweep", json=long_spec(3))
    assert r.status_code == 429 and r.headers["Retry-After"]
    assert "busy" in r.json()["detail"]
    r = c.post(
        "/sweep/run",
        data={"corpus": "botchan", "heldout": "udhr/eng", "algo": ["bpe"], "sizes": "8003"},
    )
    assert r.status_code == 429 and "busy" in r.text
    deadline = time.monotonic() + 10
    while c.get(f"/api/sweep/{ids[0]}").json()["status"] != "running":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    queued = c.get(f"/api/sweep/{ids[1]}").json()
    assert queued["status"] == "queued" and queued["place"] == 1
    page = c.get(
        "/sweep",
        params={
            "corpus": "botchan",
            "heldout": "udhr/eng",
            "algo": LONG["algorithms"],
            "sizes": "8002,16000,32000",
        },
    )
    assert "1st in line" in page.text
    for job_id in ids:
        assert c.delete(f"/api/sweep/{job_id}").json()["status"] in ("cancelled", "running")


def test_api_train_runs_in_the_pool_and_reports_errors(busy_client):
    c = busy_client
    r = c.post("/api/train", json={"algorithm": "bpe", "corpus_name": "botchan", "vocab_size": 300})
    assert r.status_code == 200 and r.json()["vocab_size"] == 300
    r = c.post(
        "/api/train",
        json={"algorithm": "bpe", "corpus_name": "botchan", "vocab_size": 300, "no_such_option": 1},
    )
    assert r.status_code == 422 and "no_such_option" in r.json()["detail"]


def test_pruning_keeps_the_newest_finished_jobs_and_fewer_pickled_results(tmp_path):
    from app.jobs.store import JobStore

    store = JobStore(tmp_path / "prune.sqlite3")
    for n in range(12):
        job_id = f"j{n}"
        store.submit(job_id, "train" if n % 2 else "sweep", {}, 1, queue_limit=100)
        store.claim("test:1", 100)
        store.finish(job_id, "done", results=[n], blob=b"x" * 100 if n % 2 else None)
        time.sleep(0.002)  # distinct finish times
    store.prune(keep=8, keep_blobs=3)
    left = {n for n in range(12) if store.get(f"j{n}") is not None}
    assert left == {4, 6, 8, 9, 10, 11} | {7}  # newest 8, of those 3 with blobs
    assert all(store.blob(f"j{n}") for n in (7, 9, 11))
    store.prune(keep=8, keep_blobs=3, blob_bytes=300)  # 132 bytes each, signed: the newest 2
    assert {n for n in range(12) if store.get(f"j{n}") is not None} == {4, 6, 8, 9, 10, 11}
    store.prune(keep=8, keep_blobs=3, blob_bytes=1)  # the newest one always stays
    assert store.get("j11") is not None and store.get("j9") is None


def test_a_leaving_client_does_not_cancel_a_job_someone_else_is_looking_at(engine):
    """A page polls the job (touches it) while an API request that queued it loses its client:
    the job goes on."""
    engine.submit("sweep", "shared", LONG, total=9)
    wait_for(engine, "shared", ("queued",))

    def gone() -> bool:  # meanwhile somebody else looked
        time.sleep(0.01)
        engine.store.touch("shared")
        return True

    with pytest.raises(ClientGone, match="left to run"):
        engine.wait("shared", created=True, gone=gone)
    time.sleep(0.5)  # sleep: the job must still run a while later (nothing to poll for)
    assert engine.get("shared").status == "running"
    engine.cancel("shared")


def test_a_training_killed_by_something_else_is_not_a_budget_error(engine):
    import signal

    engine.submit("sweep", "killed", LONG, total=9)
    job = wait_for(engine, "killed", ("queued",))
    assert until_pid(engine, "killed")
    os.kill(engine.get("killed").pid, signal.SIGKILL)  # as the out-of-memory killer would
    job = wait_for(engine, "killed", ("running",), timeout=10)
    assert job.status == "error" and job.error_kind == "internal"
    again, created = engine.submit("sweep", "killed", LONG, total=9)
    assert created and again.status in ("queued", "running")  # tried again, not refused
    engine.cancel("killed")


def until_pid(engine, job_id, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not engine.get(job_id).pid:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True

"""The step-through views' trainings as jobs (`app.jobs.runs`): a large corpus trains in a worker
process of the shared pool (CPU and memory budgets, cancel kills it at once), the view reads the
same run a request would have trained, any server worker answers with it, and a page nobody
polls any more stops its training. Real worker processes, real SQLite."""

from __future__ import annotations

import html
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from job_helpers import random_corpus, running, until

from app.config import Settings
from app.jobs import cache
from app.jobs import runs as step_jobs
from app.jobs.store import JobStore
from app.main import create_app
from app.store import CorpusStore
from app.views import bpe_train
from tokenizers_core.corpora import load_corpus
from tokenizers_core.models.bpe.session import BpeSession

HX = {"HX-Request": "true"}


def settings(db: Path, **overrides) -> Settings:
    base = dict(
        db_path=db,
        max_text_chars=20_000,
        max_corpus_bytes=6_000_000,
        max_upload_bytes=6_000_000,
        regex_timeout=0.5,
        job_workers=1,
        job_queue=4,
    )
    return Settings(**{**base, **overrides})


@pytest.fixture(autouse=True)
def fresh_caches(monkeypatch):
    """Each test starts with empty view caches (other tests train the same small runs)."""
    monkeypatch.setattr(cache, "BPE", cache.RunCache(6))
    monkeypatch.setattr(cache, "WORDPIECE", cache.RunCache(32))
    monkeypatch.setattr(cache, "UNIGRAM", cache.RunCache(16))


@pytest.fixture
def make_client(tmp_path):
    """Apps on one store in tmp_path (several: as several uvicorn workers would be)."""
    opened = []

    def make(**overrides) -> TestClient:
        c = TestClient(create_app(settings(tmp_path / "steps.sqlite3", **overrides)))
        c.__enter__()
        opened.append(c)
        return c

    yield make
    for c in opened:
        c.__exit__(None, None, None)


def step_jobs_of(db: Path, kind: str) -> list:
    jobs = JobStore(db)
    return [jobs.get(i) for i in jobs.ids(kind)]


def poll(c: TestClient, url: str, marker: str, timeout=120.0):
    """GET the page until `marker` (the progress panel) is gone; the last response."""
    deadline = time.monotonic() + timeout
    r = c.get(url)
    while marker in r.text:
        assert time.monotonic() < deadline, "the training did not finish"
        time.sleep(0.2)
        r = c.get(url, headers=HX)
    return r


@pytest.mark.heavy
def test_a_large_bpe_run_trains_in_a_worker_process_and_is_the_same_run(make_client, tmp_path):
    c = make_client()
    text = load_corpus("botchan")
    assert len(text) > step_jobs.IN_REQUEST_CHARS
    url = "/bpe/train?corpus=botchan&variant=bpe&vocab_size=1500&step=700"
    first = c.get(url)
    assert 'data-testid="training"' in first.text or 'data-testid="pair-table"' in first.text
    page = poll(c, url, 'data-testid="training"')
    assert page.status_code == 200 and 'data-testid="pair-table"' in page.text
    (job,) = step_jobs_of(tmp_path / "steps.sqlite3", "bpe_steps")
    assert job.status == "done" and job.pid and job.pid != __import__("os").getpid()
    # the run the view reads is exactly the run a request would have trained itself
    here = BpeSession(text, "bpe", 1500, {})
    here.total_steps()
    api = c.get(
        "/api/bpe/train_steps", params={"corpus": "botchan", "variant": "bpe", "vocab_size": 1500}
    ).json()
    assert [s["pair"] for s in api["steps"]] == [list(s.pair) for s in here.steps]
    assert api["stop_reason"] == here.trainer.stop_reason
    assert bpe_train.sentence(here, 700) in html.unescape(page.text)


@pytest.mark.heavy
def test_wordpiece_and_unigram_views_train_in_the_pool_too(make_client, tmp_path, monkeypatch):
    c = make_client()
    monkeypatch.setattr(step_jobs, "IN_REQUEST_CHARS", 0)
    page = poll(
        c, "/wordpiece/train?corpus=udhr/eng&vocab_size=400&step=5", 'data-testid="training"'
    )
    assert page.status_code == 200 and "Merged" in page.text
    page = poll(
        c, "/unigram/train?corpus=udhr/eng&vocab_size=300&step=99", 'data-testid="progress"'
    )
    assert page.status_code == 200 and "Done" in page.text
    db = tmp_path / "steps.sqlite3"
    assert [j.status for j in step_jobs_of(db, "wordpiece_steps")] == ["done"]
    assert [j.status for j in step_jobs_of(db, "unigram_rounds")] == ["done"]
    # in-request and in-pool runs agree
    monkeypatch.setattr(step_jobs, "IN_REQUEST_CHARS", 10**9)
    pooled = c.get("/api/wordpiece/train_steps?corpus=udhr/eng&vocab_size=400").json()
    monkeypatch.setattr(cache, "WORDPIECE", cache.RunCache(32))  # train it here instead
    here = c.get("/api/wordpiece/train_steps?corpus=udhr/eng&vocab_size=400").json()
    assert pooled == here


def test_another_worker_answers_with_the_run_from_the_store(make_client, tmp_path, monkeypatch):
    monkeypatch.setattr(step_jobs, "IN_REQUEST_CHARS", 0)
    a, b = make_client(), make_client()
    url = "/bpe/train?corpus=udhr/deu_1996&variant=byte_bpe&vocab_size=600&step=40"
    done = poll(a, url, 'data-testid="training"')
    monkeypatch.setattr(cache, "BPE", cache.RunCache(6))  # b's memory
    other = b.get(url)
    assert other.status_code == 200 and 'data-testid="pair-table"' in other.text
    assert (
        done.text.split('data-testid="what">')[1][:200]
        == other.text.split('data-testid="what">')[1][:200]
    )
    assert len(step_jobs_of(tmp_path / "steps.sqlite3", "bpe_steps")) == 1  # trained once


@pytest.mark.slow
def test_a_run_over_its_memory_budget_is_killed_and_reported(make_client, tmp_path):
    c = make_client(job_memory_mb=100)
    sha = CorpusStore(tmp_path / "steps.sqlite3").put(random_corpus(200_000))
    page = poll(c, f"/bpe/train?corpus={sha}&variant=bpe&vocab_size=3000", 'data-testid="training"')
    assert page.status_code == 422 and "memory budget (100 MB" in page.text
    assert c.get("/api/tokenizers").status_code == 200  # the server is fine
    again = c.get(f"/bpe/train?corpus={sha}&variant=bpe&vocab_size=3000")
    assert again.status_code == 422 and "memory budget" in again.text  # not tried again ...
    roomier = make_client(job_memory_mb=4096)  # ... but with more room
    page = poll(
        roomier, f"/bpe/train?corpus={sha}&variant=bpe&vocab_size=3000", 'data-testid="training"'
    )
    assert page.status_code == 200 and 'data-testid="pair-table"' in page.text


@pytest.mark.slow
def test_a_run_over_its_cpu_budget_is_killed_and_reported(make_client, tmp_path):
    c = make_client(job_cpu_seconds=1)
    sha = CorpusStore(tmp_path / "steps.sqlite3").put(random_corpus(300_000, seed=3))
    page = poll(c, f"/unigram/train?corpus={sha}&vocab_size=3000", 'data-testid="progress"')
    assert page.status_code == 422 and "CPU budget of 1 s" in page.text
    api = c.get(f"/api/unigram/train?corpus={sha}&vocab_size=3000")
    assert api.status_code == 422 and "CPU budget" in api.json()["detail"]


@pytest.mark.slow
def test_a_page_nobody_polls_stops_its_training(make_client, tmp_path, monkeypatch):
    monkeypatch.setattr(step_jobs, "ABANDON", 1.5)
    c = make_client()
    db = tmp_path / "steps.sqlite3"
    url = f"/unigram/train?corpus={CorpusStore(db).put(random_corpus(300_000))}&vocab_size=3000"
    first = c.get(url)
    assert 'data-testid="progress"' in first.text, first.text[first.text.find('id="step"') :][:600]
    (job,) = step_jobs_of(db, "unigram_rounds")
    job = until(lambda: (j := JobStore(db).get(job.id)).pid and j)
    # nobody polls from here on
    job = until(lambda: (j := JobStore(db).get(job.id)).status != "running" and j, timeout=15)
    assert job.status == "cancelled"  # stopped, not left to finish
    assert until(lambda: not running(job.pid), timeout=3)
    again = c.get(url)
    assert 'data-testid="progress"' in again.text  # a new look starts it again
    assert JobStore(db).get(job.id).status in ("queued", "running")


@pytest.mark.slow
def test_cancel_stops_a_unigram_round_at_once(make_client, tmp_path, monkeypatch):
    """A Unigram round on a large corpus takes seconds; cancel kills it part-way, not after."""
    c = make_client()
    db = tmp_path / "steps.sqlite3"
    sha = CorpusStore(db).put(random_corpus(300_000, seed=2))  # ~2.5 MB
    c.get(f"/unigram/train?corpus={sha}&vocab_size=4000")
    (job,) = step_jobs_of(db, "unigram_rounds")
    engine = c.app.state.jobs
    job = until(lambda: (j := engine.get(job.id)).pid and j)
    time.sleep(1.0)  # sleep: well into its work (the cancel must land mid-training)
    assert engine.get(job.id).status == "running" and running(job.pid)
    engine.cancel(job.id)
    assert until(lambda: not running(job.pid), timeout=5)
    # the worker records the end after the kill: poll for it; "cancelled", not "done",
    # is the proof that the round was stopped part-way
    assert until(lambda: engine.get(job.id).status != "running", timeout=5)
    assert engine.get(job.id).status == "cancelled"


@pytest.mark.heavy
def test_a_busy_pool_shows_the_place_in_line(make_client, tmp_path, monkeypatch):
    monkeypatch.setattr(step_jobs, "IN_REQUEST_CHARS", 0)
    c = make_client()
    r = c.post(
        "/api/sweep",
        json={
            "corpus": "botchan",
            "heldout": "udhr/eng",  # minutes
            "algorithms": ["unigram", "wordpiece", "bpe"],
            "sizes": [8000, 16000, 32000],
        },
    )
    sweep = r.json()["id"]
    until(lambda: c.get(f"/api/sweep/{sweep}").json()["status"] == "running")
    page = c.get("/wordpiece/train?corpus=udhr/eng&vocab_size=301")
    assert "1st in line" in page.text and 'data-testid="training"' in page.text
    c.delete(f"/api/sweep/{sweep}")
    page = poll(c, "/wordpiece/train?corpus=udhr/eng&vocab_size=301", 'data-testid="training"')
    assert "Merged" in page.text or "Every word is split" in page.text


@pytest.mark.slow
def test_check_on_a_large_corpus_trains_its_reference_in_the_pool(
    make_client, tmp_path, monkeypatch
):
    c = make_client()
    steps = c.get("/api/bpe/train_steps?corpus=botchan&variant=bpe&vocab_size=400").json()
    merges = [" ".join(s["pair"]) for s in steps["steps"]]
    merges[30] = "x y"  # theirs goes wrong at merge 31
    body = {
        "algorithm": "bpe",
        "corpus_name": "botchan",
        "vocab_size": 400,
        "theirs": "\n".join(merges),
    }
    pooled = c.post("/api/check", json=body)
    assert pooled.status_code == 200 and pooled.json()["first_divergence"] == 31
    (job,) = step_jobs_of(tmp_path / "steps.sqlite3", "check")
    assert job.status == "done"
    page = c.post(
        "/check",
        data={
            "algorithm": "bpe",
            "corpus": "botchan",
            "vocab_size": "400",
            "theirs": body["theirs"],
        },
    )  # the page: off the loop too
    assert page.status_code == 200 and 'data-testid="divergence">31<' in page.text
    monkeypatch.setattr(step_jobs, "IN_REQUEST_CHARS", 10**9)
    assert c.post("/api/check", json=body).json() == pooled.json()


def test_view_caches_are_bounded_by_the_size_of_what_they_hold():
    runs = cache.RunCache(5, max_bytes=100)
    for n in range(4):
        runs.put(n, f"run {n}", 40)
    assert [runs.get(n) for n in range(4)] == [None, None, "run 2", "run 3"]  # 80 bytes
    runs.put("huge", "a run bigger than the cache", 500)
    assert runs.get("huge") is not None and runs.get(3) is None  # the newest always stays


@pytest.mark.heavy
def test_requests_arriving_together_load_a_finished_run_once(make_client, monkeypatch):
    import threading

    c = make_client()
    url = "/bpe/train?corpus=botchan&variant=bpe&vocab_size=700&step=5"
    poll(c, url, 'data-testid="training"')  # trained, and loaded once
    monkeypatch.setattr(cache, "BPE", cache.RunCache(6))  # a fresh server process
    loads = []
    real_made = step_jobs._made

    def slow_made(engine, job):
        loads.append(job.id)
        time.sleep(0.3)  # sleep: a slow load, so the other requests arrive meanwhile
        return real_made(engine, job)

    monkeypatch.setattr(step_jobs, "_made", slow_made)
    pages = []
    threads = [threading.Thread(target=lambda: pages.append(c.get(url))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(loads) == 1
    assert all(p.status_code == 200 and 'data-testid="pair-table"' in p.text for p in pages)


def test_the_core_keeps_plain_sessions_and_app_jobs_caches_them(make_client):
    """Serving is fenced off: the core's sessions hold no lock, LRU, pickling hook or flag set
    by the web layer, and a new session is new; `app.jobs.cache` keeps the finished runs, those
    trained within a request as well as the pooled ones."""
    import inspect

    from tokenizers_core.corpora import SENNRICH
    from tokenizers_core.models.bpe import session as bpe_sessions
    from tokenizers_core.models.wordpiece import session as wordpiece_sessions

    for module in (bpe_sessions, wordpiece_sessions):
        source = inspect.getsource(module)
        for serving in (
            "threading",
            "Lock",
            "OrderedDict",
            "__getstate__",
            "__setstate__",
            "settled",
            "set by the web layer",
        ):
            assert serving not in source, f"{module.__name__} still has {serving}"
    assert bpe_sessions.training_session(SENNRICH, "bpe", 24) is not bpe_sessions.training_session(
        SENNRICH, "bpe", 24
    )
    c = make_client()
    for step in (1, 5):
        assert c.get(f"/bpe/train?step={step}").status_code == 200
    assert c.get("/wordpiece/train?step=2").status_code == 200
    (session,) = [run for run, _size in cache.BPE._items.values()]
    assert session.finished and session.total_steps() == len(session.steps)
    assert len(cache.WORDPIECE._items) == 1

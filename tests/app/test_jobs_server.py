"""Jobs against a real uvicorn: a client that leaves cancels its training, a server killed with
-9 leaves its jobs marked interrupted (and no training behind), and under `--workers 2` every
status poll is answered, whichever worker takes it."""

from __future__ import annotations

import json
import signal
import socket
import time
import urllib.request
from pathlib import Path

import pytest
from job_helpers import random_corpus, running, until

from app.jobs.store import JobStore
from app.trained import make_spec
from tests.servers import Server, kill_group, start_uvicorn, stop

pytestmark = pytest.mark.slow  # real uvicorn servers and worker processes

ROOT = Path(__file__).resolve().parents[2]
LONG = {
    "corpus": "botchan",
    "heldout": "udhr/eng",
    "algorithms": ["wordpiece", "unigram"],
    "sizes": [8000, 16000, 20000],
}


def start_server(db: Path, *extra: str) -> tuple[Server, str]:
    """A uvicorn on its own store with one job worker (`stop` it; `kill_group` what it left)."""
    server = start_uvicorn(*extra, env={"TOKVIS_DB": str(db), "TOKVIS_JOB_WORKERS": "1"})
    return server, server.url


def call(url: str, method: str = "GET", body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def test_a_client_that_leaves_cancels_its_training(tmp_path):
    db = tmp_path / "gone.sqlite3"
    proc, url = start_server(db)
    try:
        body = json.dumps(
            {"algorithm": "wordpiece", "corpus_name": "botchan", "vocab_size": 20000}
        ).encode()
        host, port = url.removeprefix("http://").split(":")
        sock = socket.create_connection((host, int(port)))
        sock.sendall(
            b"POST /api/train HTTP/1.1\r\nHost: "
            + f"{host}:{port}".encode()
            + b"\r\nContent-Type: application/json\r\nContent-Length: "
            + str(len(body)).encode()
            + b"\r\n\r\n"
            + body
        )
        job_id = "train-" + make_spec("wordpiece", "botchan", 20000, {})[0]
        jobs = JobStore(db)
        assert until(lambda: (j := jobs.get(job_id)) and j.status == "running")
        time.sleep(0.5)  # sleep: into its work, so the leaving client ends a busy job
        sock.close()  # the client leaves
        job = until(lambda: (j := jobs.get(job_id)) and j.status != "running" and j, timeout=10)
        assert job.status == "cancelled"
        assert until(lambda: not running(job.pid), timeout=3)
    finally:
        stop(proc)


def test_kill_9_leaves_jobs_interrupted_and_results_kept(tmp_path):
    db = tmp_path / "restart.sqlite3"
    proc, url = start_server(db)
    try:
        small = call(
            url + "/api/sweep",
            "POST",
            {"corpus": "botchan", "heldout": "udhr/eng", "algorithms": ["bpe"], "sizes": [300]},
        )
        assert until(lambda: call(f"{url}/api/sweep/{small['id']}")["status"] == "done")
        long = call(url + "/api/sweep", "POST", LONG)
        assert until(lambda: call(f"{url}/api/sweep/{long['id']}")["status"] == "running")
        pid = JobStore(db).get(long["id"].partition(".")[0]).pid  # the id without its secret
    finally:
        stop(proc, signal.SIGKILL)  # the server dies mid-training
    try:
        assert until(lambda: not running(pid), timeout=5), "training outlived it"
    finally:
        kill_group(proc)
    proc, url = start_server(db)
    try:
        job = call(f"{url}/api/sweep/{long['id']}")
        assert job["status"] == "interrupted" and "server stopped" in job["error"]
        done = call(f"{url}/api/sweep/{small['id']}")
        assert done["status"] == "done" and done["results"][0]["vocab_size"] == 300
        # starting it again runs it afresh
        again = call(url + "/api/sweep", "POST", LONG)
        assert again["status"] in ("queued", "running")
        call(f"{url}/api/sweep/{again['id']}", "DELETE")  # the id its new run was given
    finally:
        stop(proc)


def test_two_uvicorn_workers_both_answer_for_a_job(tmp_path):
    db = tmp_path / "two.sqlite3"
    proc, url = start_server(db, "--workers", "2")
    try:
        job = call(
            url + "/api/sweep",
            "POST",
            {
                "corpus": "botchan",
                "heldout": "udhr/eng",
                "algorithms": ["bpe", "wordpiece"],
                "sizes": [300, 600],
            },
        )
        seen = set()
        for _ in range(40):  # a new connection each time
            seen.add(call(f"{url}/api/sweep/{job['id']}")["status"])
        assert until(lambda: call(f"{url}/api/sweep/{job['id']}")["status"] == "done")
        assert seen <= {"queued", "running", "done"}
    finally:
        stop(proc)


def test_a_step_view_client_that_leaves_stops_its_training_part_way(tmp_path):
    """A Unigram training on ~2.5 MB (rounds of seconds each) stops within a second or two of
    its only client leaving, part-way through whatever it was doing."""
    from app.store import CorpusStore

    db = tmp_path / "step.sqlite3"
    sha = CorpusStore(db).put(random_corpus(300_000, seed=5))
    proc, url = start_server(db)
    try:
        host, port = url.removeprefix("http://").split(":")
        sock = socket.create_connection((host, int(port)))
        sock.sendall(
            f"GET /api/unigram/train?corpus={sha}&vocab_size=4000 HTTP/1.1\r\n"
            f"Host: {host}:{port}\r\n\r\n".encode()
        )
        jobs = JobStore(db)

        def the_job():
            found = jobs.ids("unigram_rounds")
            return found and jobs.get(found[0])

        job = until(lambda: (j := the_job()) and j.status == "running" and j.pid and j)
        time.sleep(1.5)  # sleep: well into its work (the leaving client must end a busy job)
        assert running(job.pid)
        sock.close()  # the client leaves
        job = until(lambda: (j := jobs.get(job.id)) and j.status != "running" and j, timeout=10)
        assert job.status == "cancelled"
        assert until(lambda: not running(job.pid), timeout=3)
    finally:
        stop(proc)


def test_two_uvicorn_workers_both_answer_a_step_view(tmp_path):
    """A BPE view's run trains once; every poll, on either worker, shows it once it is done."""
    db = tmp_path / "two-views.sqlite3"
    proc, url = start_server(db, "--workers", "2")
    try:
        page = f"{url}/bpe/train?corpus=botchan&variant=byte_bpe&vocab_size=2500&step=2000"

        def get() -> str:
            with urllib.request.urlopen(page, timeout=60) as r:
                assert r.status == 200
                return r.read().decode()

        assert until(lambda: 'data-testid="pair-table"' in get(), timeout=120, step=0.3)
        answers = [get() for _ in range(12)]  # new connections: both workers answer
        assert all('data-testid="pair-table"' in a for a in answers)
        whats = {a.split('data-testid="what">')[1].split("<")[0] for a in answers}
        assert len(whats) == 1  # the same run, whichever worker
        store = JobStore(db)
        kinds = [store.get(job_id).kind for job_id in store.ids()]
        assert kinds == ["bpe_steps"]  # trained once, in the pool
    finally:
        stop(proc)

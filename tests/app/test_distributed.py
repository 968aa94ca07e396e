"""The shared deployment, for real: one PostgreSQL (Debian's, `tests/postgres.py`), `tokvis db
upgrade`, two uvicorn servers on two ports and `tokvis worker` processes, as deploy/compose.yaml
runs them. What one server stores the other uses; a job queued through one is polled and
cancelled through the other; it waits for a worker when none runs; a worker killed with -9
leaves its job `interrupted` and the next job runs on another; the queue limit answers 429
from every server."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from job_helpers import running, until
from test_jobs_server import call

from app.db import migrate
from app.jobs.store import JobStore
from tests.servers import free_port, kill_group, start_uvicorn

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SECRET = "distributed-test-secret-0123456789"
STALE = 3.0  # TOKVIS_JOB_STALE_SECONDS in these tests
LONG = {
    "corpus": "botchan",
    "heldout": "udhr/eng",
    "algorithms": ["wordpiece", "unigram"],
    "sizes": [8000, 16000, 20000],
}


class Cluster:
    """Servers and workers on one database; everything started is stopped by `close`."""

    def __init__(self, url: str, **settings: str) -> None:
        self.url = url
        self.env = {
            **os.environ,
            "TOKVIS_DATABASE_URL": url,
            "TOKVIS_SECRET_KEY": SECRET,
            "TOKVIS_JOB_STALE_SECONDS": str(STALE),
            **settings,
        }
        self.env.pop("TOKVIS_DB", None)
        self.procs: list[subprocess.Popen] = []

    def tokvis(self, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "app.cli", *args],
            cwd=ROOT,
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def server(self) -> str:
        started = start_uvicorn(
            env=self.env, unset=["TOKVIS_DB"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        self.procs.append(started.proc)
        return started.url

    def worker(self, concurrency: int = 1) -> subprocess.Popen:
        return self._start(
            [sys.executable, "-m", "app.cli", "worker", "--concurrency", str(concurrency)]
        )

    def _start(self, argv: list[str]) -> subprocess.Popen:
        proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=self.env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.procs.append(proc)
        return proc

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
            kill_group(proc)


def status(base: str, job_id: str) -> dict:
    return call(f"{base}/api/sweep/{job_id}")


def submit(base: str, spec: dict) -> dict:
    return call(base + "/api/sweep", "POST", spec)


@pytest.fixture
def cluster(pg_url):
    made = Cluster(pg_url, TOKVIS_JOB_QUEUE="3")
    upgraded = made.tokvis("db", "upgrade")
    assert upgraded.returncode == 0 and "-> " + migrate.head() in upgraded.stdout, upgraded.stderr
    again = made.tokvis("db", "upgrade")  # idempotent
    assert again.returncode == 0 and "nothing to do" in again.stdout
    yield made
    made.close()


def test_what_one_server_stores_the_other_uses(cluster):
    a, b = cluster.server(), cluster.server()
    text = "Grüße aus Köln, and a corpus shared by two servers.\n" * 20
    stored = call(a + "/api/corpora", "POST", {"text": text})
    assert call(f"{b}/api/corpora/{stored['sha256']}")["sha256"] == stored["sha256"]
    vocab = gzip.decompress(
        (ROOT / "tokenizers_core/data/vocab/bert-base-uncased-vocab.txt.gz").read_bytes()
    )
    handle = _upload(a, vocab)
    encoded = call(b + "/api/encode", "POST", {"tokenizer": handle, "text": "Hello, shared world"})
    assert encoded["tokens"][:4] == ["[CLS]", "hello", ",", "shared"]


def _upload(base: str, data: bytes) -> str:
    boundary = "tokvisboundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="vocab.txt"\r\nContent-Type: application/octet-stream\r\n\r\n'
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    req = urllib.request.Request(
        base + "/api/tokenizers",
        data=body,
        method="POST",
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())["tokenizer"]


def test_a_job_waits_for_a_worker_and_is_cancelled_through_the_other_server(cluster):
    a, b = cluster.server(), cluster.server()
    small = submit(
        a, {"corpus": "botchan", "heldout": "udhr/eng", "algorithms": ["bpe"], "sizes": [300]}
    )
    time.sleep(1.5)  # sleep: no worker yet, so the job must still be waiting a while later
    assert status(b, small["id"])["status"] == "queued"  # no worker: it waits
    cluster.worker(concurrency=2)
    assert until(lambda: status(b, small["id"])["status"] == "done", 60)
    long = submit(a, LONG)
    job_id = long["id"].split(".")[0]
    assert until(lambda: status(b, job_id)["status"] == "running", 60)
    pid = until(lambda: JobStore(cluster.url).get(job_id).pid, 10)
    assert pid and running(pid)
    with pytest.raises(urllib.error.HTTPError) as refused:  # the public id cannot cancel
        call(f"{b}/api/sweep/{job_id}", "DELETE")
    assert refused.value.code == 403
    t0 = time.monotonic()
    call(f"{b}/api/sweep/{long['id']}", "DELETE")  # the creator's id, elsewhere
    assert until(lambda: not running(pid), 5, 0.02)
    gone = time.monotonic() - t0
    assert until(lambda: status(a, job_id)["status"] == "cancelled", 5)
    assert gone < 1.0, f"the training child lived {gone:.2f} s after the cancel"


def long_job_running(cluster: Cluster, base: str) -> tuple[str, int]:
    """Queue a long sweep through `base` and wait until a worker runs it: its id and the pid
    of its training child."""
    job_id = submit(base, LONG)["id"].split(".")[0]
    assert until(lambda: status(base, job_id)["status"] == "running", 60)
    pid = until(lambda: JobStore(cluster.url).get(job_id).pid, 10)
    assert pid and running(pid)
    return job_id, pid


def test_a_killed_worker_leaves_its_job_interrupted_and_the_next_runs_elsewhere(cluster):
    a = cluster.server()
    doomed = cluster.worker()
    job_id, pid = long_job_running(cluster, a)
    os.kill(doomed.pid, signal.SIGKILL)  # the worker, not its group
    job = until(lambda: (s := status(a, job_id))["status"] != "running" and s, 4 * STALE + 10)
    assert job and job["status"] == "interrupted" and "start it again" in job["error"]
    assert until(lambda: not running(pid), 10)  # its training died with it
    cluster.worker()
    nxt = submit(
        a, {"corpus": "botchan", "heldout": "udhr/eng", "algorithms": ["bpe"], "sizes": [310]}
    )
    assert until(lambda: status(a, nxt["id"])["status"] == "done", 60)


def test_a_worker_stopped_with_sigterm_interrupts_its_job_and_ends_its_training(cluster):
    a = cluster.server()
    worker = cluster.worker()
    job_id, pid = long_job_running(cluster, a)
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=30) == 0  # it stops within its grace
    job = status(a, job_id)
    assert job["status"] == "interrupted" and "worker was stopped" in job["error"]
    assert until(lambda: not running(pid), 5)


def test_a_worker_prints_a_line_when_a_job_starts_and_one_when_it_ends(cluster):
    """`tokvis worker` says which job it runs, its kind, and when it ends how long it took and
    how it ended (done, error, cancelled, interrupted)."""
    a = cluster.server()
    worker = cluster.worker()
    job = submit(
        a, {"corpus": "botchan", "heldout": "udhr/eng", "algorithms": ["bpe"], "sizes": [320]}
    )
    job_id = job["id"].split(".")[0]
    final = until(
        lambda: (s := status(a, job_id))["status"] not in ("queued", "running") and s, 120
    )
    assert final, status(a, job_id)  # done (or, on a machine too busy for its heartbeat, not)
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=30) == 0
    lines = worker.stderr.read().decode().splitlines()
    assert f"tokvis worker: job {job_id} (sweep) started" in lines
    ended = [
        line for line in lines if line.startswith(f"tokvis worker: job {job_id} (sweep) ended")
    ]
    assert len(ended) == 1, lines
    assert re.match(rf".* ended: {final['status']} in \d+\.\d s", ended[0]), (ended, final)


def test_the_queue_limit_answers_429_from_every_server(cluster):
    a, b = cluster.server(), cluster.server()
    for n in range(3):  # TOKVIS_JOB_QUEUE=3, no worker
        submit(
            (a, b)[n % 2],
            {"corpus": "botchan", "heldout": "udhr/eng", "algorithms": ["bpe"], "sizes": [400 + n]},
        )
    for base in (a, b):
        with pytest.raises(urllib.error.HTTPError) as full:
            submit(
                base,
                {"corpus": "botchan", "heldout": "udhr/eng", "algorithms": ["bpe"], "sizes": [500]},
            )
        assert full.value.code == 429 and full.value.headers["Retry-After"]
        assert "busy" in json.loads(full.value.read())["detail"]


def test_shared_mode_refuses_to_start_without_the_secret_or_the_schema(pg_url):
    made = Cluster(pg_url)
    no_secret = {k: v for k, v in made.env.items() if k != "TOKVIS_SECRET_KEY"}
    worker = made.tokvis("worker", env=no_secret)
    assert worker.returncode == 1 and "TOKVIS_SECRET_KEY is not set" in worker.stderr
    made.tokvis("db", "upgrade")
    served = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(free_port())],
        cwd=ROOT,
        env=no_secret,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert served.returncode != 0 and "TOKVIS_SECRET_KEY is not set" in served.stderr

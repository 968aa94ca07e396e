"""Benchmark: the step-through views' trainings in the job pool, on 5 MB corpora, through
TestClient (no network).

- cancel: a Unigram view's training (vocab 8000) on 5 MB of random letter-words (rounds of many
  seconds) is cancelled while it works; how long until its worker process is gone (the bar: a
  second or two, part-way through a round);
- abandon: a page that stops polling; how long until its training is cancelled (ABANDON plus
  the dispatcher's tick);
- memory: a BPE view's training (vocab 8000) on the pinned 1 MB English five times over, in
  the pool and then in-process; the serving
  process's peak RSS in each case and the worker's own peak (what its memory budget bounds).

    .venv/bin/python benchmarks/bench_step_jobs.py
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in "ZX"


def _peak_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def main() -> None:
    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.jobs import cache
    from app.jobs import runs as step_jobs
    from app.main import create_app
    from benchmarks.corpus import english_1mb
    from tests.app.job_helpers import random_corpus

    text = english_1mb() * 5
    app = create_app(
        Settings(
            db_path=Path(tempfile.mkdtemp()) / "bench.sqlite3",
            max_text_chars=100_000,
            max_corpus_bytes=6_000_000,
            max_upload_bytes=6_000_000,
            regex_timeout=0.5,
        )
    )
    client = TestClient(app, base_url="http://127.0.0.1")
    engine = app.state.jobs
    digest = app.state.store.put(text)
    words = random_corpus(590_000, seed=11)
    random_digest = app.state.store.put(words)
    print(
        f"step-through trainings on {len(text.encode()) / 1e6:.1f} MB of English and "
        f"{len(words) / 1e6:.1f} MB of random words:"
    )

    def job_of(kind: str):
        found = engine.store.ids(kind)
        return engine.get(found[0]) if found else None

    def running_job(kind: str, rounds: int = 0):
        """The newest job of `kind` once it runs and has recorded `rounds` steps (looking at
        it meanwhile, as a polling page would, so it is not abandoned)."""
        deadline = time.monotonic() + 600
        while not (
            (job := job_of(kind)) and job.status == "running" and job.pid and job.done >= rounds
        ):
            assert time.monotonic() < deadline and (
                job is None or job.status in ("queued", "running")
            ), job
            if job is not None:
                engine.store.touch(job.id)
            time.sleep(0.02)
        return job

    # cancel, part-way through: while it seeds, and in the middle of a round of EM + pruning
    for rounds, settle in ((0, 2.0), (2, 1.0)):
        client.get(f"/unigram/train?corpus={random_digest}&vocab_size=8000&words=w{rounds}")
        job = running_job("unigram_rounds", rounds)
        time.sleep(settle)
        job = engine.get(job.id)
        assert job.status == "running" and _alive(job.pid), job.status
        t0 = time.perf_counter()
        engine.cancel(job.id)
        while _alive(job.pid):
            time.sleep(0.005)
        gone = time.perf_counter() - t0
        where = f"{settle:.0f} s into round {job.done}" if rounds else "while seeding"
        print(
            f"  cancel a Unigram training {where} ({time.time() - job.started:.0f} s in): "
            f"worker gone in {gone:.2f} s"
        )

    # abandon: one look, then nobody polls
    client.get(f"/unigram/train?corpus={random_digest}&vocab_size=8000&words=abandon")
    last_look = time.perf_counter()
    job = running_job("unigram_rounds")
    while engine.get(job.id).status == "running":
        time.sleep(0.02)
    print(
        f"  abandoned page: training cancelled {time.perf_counter() - last_look:.1f} s after "
        f"the last look (ABANDON = {step_jobs.ABANDON:.0f} s)"
    )

    # memory: the pool, then in-process
    rss0 = _rss_mb()
    url = f"/bpe/train?corpus={digest}&variant=bpe&vocab_size=8000"
    client.get(url)
    job = running_job("bpe_steps")
    worker_peak = 0.0
    while engine.get(job.id).status == "running":
        worker_peak = max(worker_peak, _peak_mb(job.pid))
        time.sleep(0.05)
    t0 = time.perf_counter()
    while 'data-testid="training"' in client.get(url).text:
        time.sleep(0.05)
    peak_pool = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"  BPE vocab 8000 in the pool: worker peak RSS {worker_peak:.0f} MB (budget "
        f"{app.state.settings.job_memory_mb:,} MB); server RSS {rss0:.0f} -> {_rss_mb():.0f} MB "
        f"holding the run (peak {peak_pool:.0f} MB); loading it took {time.perf_counter() - t0:.2f} s"
    )
    cache.BPE = cache.RunCache(6)  # a fresh server process
    step_jobs.IN_REQUEST_CHARS = 10**9
    t0 = time.perf_counter()
    client.get(url)
    peak_here = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"  the same run in-process: {time.perf_counter() - t0:.1f} s, server peak RSS "
        f"{peak_here:.0f} MB"
    )
    engine.stop()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()

"""Benchmark: the BPE, WordPiece and Unigram training step views on the pinned 1 MB corpus
(BPE: byte_bpe at vocab 4000, 3,744 merges, or another variant, the new family's included;
WordPiece at 5000, 4,891 merges; Unigram at the view's default, its EM + pruning rounds), server
time per request through TestClient (no network).

- first visit: trains the whole run once (with the top-pair table recorded at every merge); a
  run longer than ~0.5 s goes on while the page shows progress. Timed both ways: in the job
  pool (a worker process trains it and hands the run back pickled: what the server does for a
  corpus this large) and within the serving process (as a small corpus is trained), so the
  cost of the worker process shows;
- next step: step k -> k+1 (the bar: within a frame, 16.7 ms, plus the round trip);
- jump: to random steps across the run (target: <= 150 ms);
- htmx fragment requests (what the browser actually sends when stepping).

    .venv/bin/python benchmarks/bench_train_view.py [--variant byte_bpe] [--vocab 4000]
        [--corpus wagahai]
    .venv/bin/python benchmarks/bench_train_view.py --family wordpiece [--vocab 5000]
    .venv/bin/python benchmarks/bench_train_view.py --family unigram [--vocab 300]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", choices=("bpe", "wordpiece", "unigram"), default="bpe")
    parser.add_argument("--variant", default="byte_bpe", help="BPE's variant")
    parser.add_argument(
        "--vocab", type=int, help="default: 4000 (BPE), 5000 (WordPiece), 300 (Unigram)"
    )
    parser.add_argument(
        "--corpus", help="a bundled corpus instead of the pinned one (e.g. wagahai: 1.1 MB)"
    )
    args = parser.parse_args()
    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.jobs import cache
    from app.jobs import runs as step_jobs
    from app.main import create_app
    from benchmarks.corpus import english_1mb

    tmp = Path(tempfile.mkdtemp())
    app = create_app(
        Settings(
            db_path=tmp / "bench.sqlite3",
            max_text_chars=100_000,
            max_corpus_bytes=5_000_000,
            max_upload_bytes=5_000_000,
            regex_timeout=0.5,
        )
    )
    client = TestClient(app, base_url="http://127.0.0.1")
    digest = args.corpus or app.state.store.put(english_1mb())
    if args.family == "bpe":
        vocab = args.vocab or 4000
        base = f"/bpe/train?corpus={digest}&variant={args.variant}&vocab_size={vocab}"
        name = f"{args.variant} vocab {vocab}"
    elif args.family == "wordpiece":
        vocab = args.vocab or 5000
        base = f"/wordpiece/train?corpus={digest}&vocab_size={vocab}"
        name = f"WordPiece vocab {vocab}"
    else:
        vocab = args.vocab or 300
        base = f"/unigram/train?corpus={digest}&vocab_size={vocab}"
        name = f"Unigram vocab {vocab}"
    hx = {"HX-Request": "true"}
    print(f"step view, {args.corpus or 'the pinned 1 MB'} corpus, {name}:")
    for mode, limit in (("in the job pool", step_jobs.IN_REQUEST_CHARS), ("in-process", 10**9)):
        step_jobs.IN_REQUEST_CHARS = limit
        cache.WORDPIECE = cache.RunCache(6)  # a first visit for this mode
        cache.BPE = cache.RunCache(6)
        cache.FAMILY = cache.RunCache(6)
        cache.UNIGRAM = cache.RunCache(16)
        start = time.perf_counter()
        r = client.get(base + "&step=0")
        assert r.status_code in (200, 202), r.text[:500]  # 202: at work, no step to show yet
        first_response = time.perf_counter() - start
        while _running(r.text):  # big runs train on while the page polls
            time.sleep(0.05)
            r = client.get(base + "&step=0")
        first = time.perf_counter() - start
        total = _last_step(r.text)
        print(
            f"  {mode}: first visit: a page after {first_response:.2f} s; the whole run "
            f"({total:,} steps) ready after {first:.2f} s"
        )
    app.state.jobs.stop()

    def timed(step: int) -> float:
        t0 = time.perf_counter()
        resp = client.get(f"{base}&step={step}", headers=hx)
        assert resp.status_code == 200
        return (time.perf_counter() - t0) * 1000

    first_next = min(1000, total // 2)
    nexts = [timed(k) for k in range(first_next, min(first_next + 30, total))]
    rng = random.Random(7)
    jumps = [timed(rng.randrange(0, total + 1)) for _ in range(30)]
    ends = [timed(total), timed(total - 1)]
    print(
        f"  next step: median {statistics.median(nexts):.1f} ms, max {max(nexts):.1f} ms"
        " (bar: a frame, 16.7 ms, plus the round trip)"
    )
    print(
        f"  jump:      median {statistics.median(jumps):.1f} ms, max {max(jumps):.1f} ms (target <= 150)"
    )
    print(f"  last steps: {', '.join(f'{t:.1f} ms' for t in ends)}")


def _running(page: str) -> bool:
    """Whether the page still shows a training at work (and polls for the rest)."""
    return any(f'data-testid="{t}"' in page for t in ("training", "progress", "job-progress"))


def _last_step(page: str) -> int:
    """The step slider's end: the run's number of steps."""
    found = re.search(r'name="step" min="0" max="(\d+)"', page)
    assert found, "no step slider on the page"
    return int(found.group(1))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()

"""Benchmark: a training on a corpus of 4 shards in the shared deployment (one PostgreSQL, one
server, two `tokvis worker`s), against one process counting the same shards.

    .venv/bin/python benchmarks/bench_distributed_count.py [--mb 32] [--shards 4]
                                                            [--vocab 1000] [--repeat 3]

The corpus: the bundled Botchan repeated to `--mb` megabytes, cut into `--shards` files in a
temporary folder that TOKVIS_CORPUS_DIRS allows. Then, `--repeat` times, alternating:

1. distributed: `POST /api/corpora/shards/paths`, `POST /api/train/sharded` (byte_bpe, a new
   vocab size each time, so every shard is counted again), polled every 50 ms until done: the
   time from the POST to trained, and how long the shards took to count (from the POST to the
   last shard done). Two workers of `--concurrency 1` on the machine's cores;
2. one process (fresh, `tc.count(files=shards, processes=1)` then `tc.train(counts=...)`):
   the count's time and the whole time.

Before them, one small training (untimed) warms both workers up (a worker's first job starts
its fork server). Prints the best and the median of each, the ratios, and whether the merges
are the same. Every process it starts is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_distributed import Fleet, api, base_env, start_server  # noqa: E402

ONE_PROCESS = """
import sys, time, json; sys.path.insert(0, {root!r})
import tokenizers_core as tc
t = time.perf_counter()
counts = tc.count(algorithm="byte_bpe", files={paths!r}, processes=1)
counted = time.perf_counter() - t
tok = tc.train("byte_bpe", counts=counts, vocab_size={vocab})
print(json.dumps({{"count": counted, "whole": time.perf_counter() - t,
                  "merges": [list(m) for m in tok.model.merges]}}))
"""


def write_shards(folder: Path, mb: float, shards: int) -> list[str]:
    from tokenizers_core.corpora import load_corpus

    text = load_corpus("botchan").lstrip("\ufeff")
    per = int(mb * 1e6 / shards)
    paths = []
    for n in range(shards):
        body = text * (per // len(text.encode()) + 1)
        path = folder / f"shard-{n}.txt"
        path.write_text(body)
        paths.append(str(path))
    return paths


def distributed_once(port: int, paths: list[str], vocab: int) -> dict:
    t0 = time.perf_counter()
    status, corpus = api(port, "POST", "/api/corpora/shards/paths", {"paths": paths})
    if status != 201:
        raise RuntimeError(f"paths: {status} {corpus}")
    body = {"algorithm": "byte_bpe", "corpus": corpus["corpus"], "vocab_size": vocab}
    status, found = api(port, "POST", "/api/train/sharded", body)
    if status != 202:
        raise RuntimeError(f"train: {status} {found}")
    counted = None
    while True:
        status, found = api(port, "GET", f"/api/train/sharded/{found['id']}")
        now = time.perf_counter() - t0
        if counted is None and all(s["state"] == "done" for s in found["shards"]):
            counted = now
        if found["status"] in ("done", "error"):
            break
        time.sleep(0.05)
    if found["status"] != "done":
        raise RuntimeError(f"the training failed: {found.get('error')}")
    return {"whole": now, "count": counted or now, "merges": found["merges"], "found": found}


def one_process(paths: list[str], vocab: int) -> dict:
    code = ONE_PROCESS.format(root=str(ROOT), paths=paths, vocab=vocab)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=1200, check=True
    )
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=32.0)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--vocab", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from tests.postgres import PostgresServer

    with tempfile.TemporaryDirectory(prefix="tokvis-bench-count-") as tmp:
        folder = Path(tmp) / "corpora"
        folder.mkdir()
        paths = write_shards(folder, args.mb, args.shards)
        size = sum(Path(p).stat().st_size for p in paths) / 1e6
        print(f"corpus: {args.shards} shards, {size:.1f} MB in all (Botchan repeated)")
        (Path(tmp) / "logs").mkdir()
        fleet, pg = Fleet(Path(tmp) / "logs"), PostgresServer()
        rows: dict[str, list[dict]] = {"distributed": [], "one process": []}
        try:
            pg.start()
            url = pg.create_database("bench")
            env = {
                **base_env(),
                "TOKVIS_DATABASE_URL": url,
                "TOKVIS_SECRET_KEY": secrets.token_hex(16),
                "TOKVIS_CORPUS_DIRS": str(folder),
            }
            subprocess.run(
                [sys.executable, "-m", "app.cli", "db", "upgrade"],
                cwd=ROOT,
                env=env,
                check=True,
                capture_output=True,
                timeout=120,
            )
            for name in ("worker-1", "worker-2"):
                fleet.start(name, ["-m", "app.cli", "worker", "--concurrency", "1"], env)
            _, port = start_server(fleet, "server", env)
            warm = folder / "warm-up.txt"  # each worker's first job starts its fork server
            warm.write_text(Path(paths[0]).read_text()[:300_000])
            distributed_once(port, [str(warm)] * 4, args.vocab - 1)
            for n in range(args.repeat):
                vocab = args.vocab + n  # a new training: every shard counted again
                rows["distributed"].append(distributed_once(port, paths, vocab))
                rows["one process"].append(one_process(paths, vocab))
                same = rows["distributed"][-1]["merges"] == rows["one process"][-1]["merges"]
                print(
                    f"  run {n + 1}: distributed {rows['distributed'][-1]['whole']:.2f} s, "
                    f"one process {rows['one process'][-1]['whole']:.2f} s, same merges: {same}"
                )
                if not same:
                    raise SystemExit("the merges differ")
            trouble = fleet.trouble()
            jobs = [
                line
                for name in ("worker-1", "worker-2")
                for line in (fleet.logs / f"{name}.log").read_text().splitlines()
                if " ended: " in line
            ]
        finally:
            fleet.stop()
            pg.stop()
    report(rows, args)
    print("the workers' jobs (the last run's):", *jobs[-(args.shards + 1) :], sep="\n  ")
    if trouble:
        print("log lines that say something went wrong:", *trouble[:10], sep="\n  ")


def report(rows: dict[str, list[dict]], args: argparse.Namespace) -> None:
    print(f"\nbyte_bpe to {args.vocab:,}, best / median of {args.repeat}:")
    print(f"{'':<14}{'count':>16}{'count + merges':>20}")
    best = {}
    for name, runs in rows.items():
        count = [r["count"] for r in runs]
        whole = [r["whole"] for r in runs]
        best[name] = (min(count), min(whole))
        print(
            f"{name:<14}{min(count):>8.2f} / {statistics.median(count):<5.2f}"
            f"{min(whole):>12.2f} / {statistics.median(whole):<5.2f}"
        )
    d, o = best["distributed"], best["one process"]
    print(f"one process / distributed (best): count {o[0] / d[0]:.2f}x, whole {o[1] / d[1]:.2f}x")
    print("(distributed times include the HTTP round trips, the store and the 50 ms polling)")


if __name__ == "__main__":
    main()

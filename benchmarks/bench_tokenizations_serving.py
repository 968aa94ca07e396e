"""Issue 38, item 14: `GET /api/tokenizations` under load, against a real uvicorn.

The issue's case: a 2,000-byte text with k=100 and samples=1,000 (a ~5 MB answer: a thousand
sequences of ~1,000 ids). For each text (`--texts`: the first 2,000 bytes of the English UDHR,
and 2,000 spaces, the densest lattice a bundled tokenizer has: ~168,000 edges under cl100k_base):

- the CPU seconds of one request: the server's whole process tree (uvicorn and every descendant:
  a pool's children count), read from /proc before and after, the tokenizer's index warm and
  the server's start-up warm-up over (the tree idle);
- `--rounds` (3) rounds of `--concurrent` (4) such requests at once (each its own seed), while
  one client sends `POST /api/encode` (a short sentence, cl100k_base) ten times a second: the
  big requests' slowest answer per round, and the p50/p95 of the encodes that were sent while
  big requests were in flight (the bar: four at once within 3 s, the encode's p95 within 100 ms).

The server runs the code of `--code` (default: this checkout), with a fresh TOKVIS_DB in a
temporary directory. To compare with the code before the fix:

    mkdir -p /tmp/before && git archive 96fd5d2 | tar -x -C /tmp/before
    .venv/bin/python benchmarks/bench_tokenizations_serving.py --code /tmp/before
    .venv/bin/python benchmarks/bench_tokenizations_serving.py

`--distinct` gives each request of a round a text of its own (the text with its last `seed`
characters cut), so no child answers from a lattice it keeps.

The client runs on the same machine: with 2 cores the figures are noisy. Measured idle, Dec
2026 (English; 2,000 spaces): one text, a seed each: 4 at once 1.08-1.30 s; 2.81-3.21 s. A text
of its own per request: 1.24-1.59 s; 3.69-4.29 s. The encode beside them: p95 12-16 ms.
Before the kept lattices, one text: 3.35-3.92 s; 8.99-11.64 s (at load 1.5-2.5).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")
ENCODE = {"tokenizer": "cl100k_base", "text": "A plain encode beside the big requests."}
ENCODE_EVERY = 0.1  # seconds between the starts of two encodes (fewer when one takes longer)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(code: Path, db: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, "TOKVIS_DB": str(db), "PYTHONPATH": str(code)}
    env.pop("TOKVIS_ALLOWED_HOSTS", None)
    cmd = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--log-level", "warning"]
    if (code / "app" / "serving.py").exists():
        cmd += ["--http", "app.serving:HeaderTimeoutProtocol"]
    proc = subprocess.Popen(cmd, cwd=code, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/api/tokenizers", timeout=2).read()
            return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("uvicorn did not start") from None
            time.sleep(0.2)


def _tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of `pid` and all its living descendants."""
    children: dict[int, list[int]] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / TICKS
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        total += cpu.get(p, 0.0)
        todo.extend(children.get(p, ()))
    return total


def _settle(pid: int, most: float = 180.0) -> None:
    """Wait until the server's tree is idle (its start-up warm-up done: it would count)."""
    deadline = time.monotonic() + most
    before = _tree_cpu(pid)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = _tree_cpu(pid)
        if now - before < 0.03:
            return
        before = now


def _big(url: str, text: str, seed: int) -> tuple[int, float, int]:
    query = urllib.parse.urlencode(
        {"tokenizer": "cl100k_base", "text": text, "k": 100, "samples": 1000, "seed": seed}
    )
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(f"{url}/api/tokenizations?{query}", timeout=120) as r:
            body = r.read()
            status = r.status
    except urllib.error.HTTPError as exc:
        body, status = exc.read(), exc.code
    return status, time.perf_counter() - start, len(body)


def _encode(url: str) -> float:
    req = urllib.request.Request(
        url + "/api/encode",
        data=json.dumps(ENCODE).encode(),
        headers={"Content-Type": "application/json"},
    )
    start = time.perf_counter()
    with urllib.request.urlopen(req, timeout=60) as r:
        r.read()
    return time.perf_counter() - start


def _variant(text: str, seed: int, distinct: bool) -> str:
    """The text each request of a round sends: the same (another seed for one text, which a
    child answers from the lattice it keeps), or with `--distinct` a text of its own (the last
    `seed` characters cut), whose lattice is found afresh."""
    return text[: len(text) - seed] if distinct else text


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _run_text(url: str, pid: int, label: str, text: str, args: argparse.Namespace) -> None:
    _big(url, text, 0)  # the tokenizer's index (and a pool's copy of it) warm
    _encode(url)
    _settle(pid)
    before = _tree_cpu(pid)
    status, wall, size = _big(url, text, 1)
    cpu = _tree_cpu(pid) - before
    print(
        f"  {label}: one request {status}, {size / 1e6:.1f} MB, {wall:.2f} s wall, {cpu:.2f} s CPU"
    )
    in_flight = threading.Event()
    stop = threading.Event()
    latencies: list[float] = []

    def encode_loop() -> None:  # one encode every ENCODE_EVERY seconds, as a user types
        while not stop.is_set():
            busy = in_flight.is_set()
            took = _encode(url)
            if busy and in_flight.is_set():
                latencies.append(took)
            time.sleep(max(0.0, ENCODE_EVERY - took))

    looper = threading.Thread(target=encode_loop, daemon=True)
    looper.start()
    slowest: list[float] = []
    statuses: list[int] = []
    for round_ in range(args.rounds):
        results: list[tuple[int, float, int]] = []
        seeds = range(10 + round_ * args.concurrent, 10 + (round_ + 1) * args.concurrent)
        threads = [
            threading.Thread(
                target=lambda s=s: results.append(_big(url, _variant(text, s, args.distinct), s))
            )
            for s in seeds
        ]
        in_flight.set()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        in_flight.clear()
        slowest.append(max(w for _s, w, _n in results))
        statuses.extend(s for s, _w, _n in results)
        time.sleep(0.5 if round_ + 1 < args.rounds else 0)
    stop.set()
    looper.join()
    codes = ", ".join(f"{c} x{statuses.count(c)}" for c in sorted(set(statuses)))
    print(
        f"    {args.concurrent} at once: slowest answer per round "
        + ", ".join(f"{s:.2f}" for s in slowest)
        + f" s ({codes})"
    )
    if latencies:
        p50, p95 = statistics.median(latencies), _percentile(latencies, 0.95)
        print(
            f"    encode beside them: n={len(latencies)}, p50 {p50 * 1000:.0f} ms, "
            f"p95 {p95 * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=ROOT)
    parser.add_argument("--texts", default="english,spaces")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrent", type=int, default=4)
    parser.add_argument(
        "--distinct", action="store_true", help="each request a text of its own (no kept lattice)"
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tokenizers_core.corpora import load_corpus

    texts = {
        "english": load_corpus("udhr/eng").encode()[:2000].decode("utf-8", "ignore"),
        "spaces": " " * 2000,
    }
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = _start(args.code.resolve(), Path(tmp) / "store.sqlite3")
        try:
            same = "a text of its own per request" if args.distinct else "one text, a seed each"
            print(f"the code of {args.code}, cl100k_base, k=100, samples=1,000, {same}:")
            for label in args.texts.split(","):
                _run_text(url, proc.pid, label, texts[label], args)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    main()

"""Load: 50 clients on a mix of requests against a real uvicorn (1 and 2 workers), on loopback.

The mix (issues 14 and 20): encode 2 KB of text with cl100k_base, bert-base-uncased,
botchan_en_unigram_1000 and an imported tokenizer.json (Llama 3's, uploaded through
`POST /api/tokenizers` before the run when ../shared/data/interop has it; `--import FILE` names
another) with `POST /api/encode`, the compare page (`GET /compare`), and a late step of a BPE
training view (`GET /bpe/train ... step=1900`). Each client keeps one connection
and sends the next request as soon as the last one is answered.

Prints, per worker count: requests, errors (any status >= 400 or a failed connection),
throughput, p50/p95/p99 latency per endpoint, and the resident memory of the server's process
tree before and after the run. Bounded in time: `--duration` seconds per run (default 60),
plus a warm-up that trains and loads what the mix reads.

    python benchmarks/bench_load.py                      # 50 clients, 60 s, 1 and 2 workers
    python benchmarks/bench_load.py --duration 15 --workers 2
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.shared_data import INTEROP  # noqa: E402  (where the shared data is)

HOST = "127.0.0.1"  # loopback only


def _text_2kb() -> str:
    sys.path.insert(0, str(ROOT))
    from tokenizers_core.corpora import load_corpus

    text = load_corpus("botchan")
    start = len(text) // 3
    return text[start : start + 2048]


DEFAULT_IMPORT = INTEROP / "converted" / "llama3.tokenizer.json"


def mix(
    text: str, imported: tuple[str, str] | None = None
) -> list[tuple[str, str, str, bytes | None]]:
    """(name, method, path, body) of each kind of request, in equal shares. `imported` is the
    (label, handle) of an uploaded tokenizer file to encode with as well."""

    def encode(tok: str, label: str | None = None):
        body = json.dumps({"tokenizer": tok, "text": text}).encode()
        return (f"encode {label or tok}", "POST", "/api/encode", body)

    compare_text = urllib.parse.quote(text[:300])
    return [
        encode("cl100k_base"),
        encode("bert-base-uncased"),
        encode("botchan_en_unigram_1000"),
        *([encode(imported[1], imported[0])] if imported else []),
        ("compare", "GET", f"/compare?text={compare_text}", None),
        (
            "bpe step 1900",
            "GET",
            "/bpe/train?corpus=botchan&variant=bpe&vocab_size=2000&step=1900",
            None,
        ),
    ]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants, in MB."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def request(conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None) -> int:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    response.read()
    return response.status


def start_server(workers: int, db: Path) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    env = {**os.environ, "TOKVIS_DB": str(db)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "app.main:app",
            "--host",
            HOST,
            "--port",
            str(port),
            "--workers",
            str(workers),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=5)
            if request(conn, "GET", "/api/tokenizers", None) == 200:
                return proc, port
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.2)


def upload(port: int, path: Path) -> str:
    """Store a tokenizer file through `POST /api/tokenizers` (multipart) and return its handle."""
    boundary = "bench-load-boundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="{path.name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
        ).encode()
        + path.read_bytes()
        + f"\r\n--{boundary}--\r\n".encode()
    )
    conn = http.client.HTTPConnection(HOST, port, timeout=300)
    conn.request(
        "POST",
        "/api/tokenizers",
        body=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    response = conn.getresponse()
    answer = response.read()
    conn.close()
    if response.status != 201:
        raise RuntimeError(f"upload of {path} answered {response.status}: {answer[:300]!r}")
    return json.loads(answer)["tokenizer"]


def warm_up(port: int, requests: list, workers: int) -> None:
    """Every request of the mix a few times (each worker loads vocabularies and trains the
    compare columns and the BPE run once), until each answers 200."""
    deadline = time.monotonic() + 300
    finish_bpe = (
        "bpe run to the end",
        "GET",
        "/api/bpe/train_steps?corpus=botchan&variant=bpe&vocab_size=2000",
        None,
    )
    for name, method, path, body in [finish_bpe, *requests]:
        ok = 0
        while ok < 4 * workers:  # fresh connections reach every worker
            conn = http.client.HTTPConnection(HOST, port, timeout=300)
            status = request(conn, method, path, body)
            conn.close()
            ok = ok + 1 if status == 200 else 0
            if time.monotonic() > deadline:
                raise RuntimeError(f"warm-up of {name} did not settle (last status {status})")
            if status != 200:
                time.sleep(0.5)  # a training view answers 200 while it trains: poll on


def run(port: int, requests: list, clients: int, duration: float) -> dict:
    results: dict[str, list[float]] = {name: [] for name, *_ in requests}
    errors: dict[str, int] = {name: 0 for name, *_ in requests}
    lock = threading.Lock()
    stop_at = time.monotonic() + duration

    def client(seed: int) -> None:
        rnd = random.Random(seed)
        conn = http.client.HTTPConnection(HOST, port, timeout=120)
        while time.monotonic() < stop_at:
            name, method, path, body = rnd.choice(requests)
            t0 = time.perf_counter()
            try:
                status = request(conn, method, path, body)
            except (OSError, http.client.HTTPException):
                status = 0
                conn.close()
                conn = http.client.HTTPConnection(HOST, port, timeout=120)
            elapsed = time.perf_counter() - t0
            with lock:
                results[name].append(elapsed)
                if status >= 400 or status == 0:
                    errors[name] += 1
        conn.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"seconds": time.monotonic() - t0, "latencies": results, "errors": errors}


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def report(workers: int, clients: int, rss: tuple[float, float, float], out: dict) -> None:
    total = sum(len(v) for v in out["latencies"].values())
    errors = sum(out["errors"].values())
    print(
        f"\n== {workers} worker{'s' if workers > 1 else ''}, {clients} clients, "
        f"{out['seconds']:.0f} s: {total} requests, {errors} errors, "
        f"{total / out['seconds']:.1f} req/s"
    )
    print(
        f"   RSS of the server's processes: {rss[0]:.0f} MB idle, {rss[1]:.0f} MB after "
        f"warm-up, {rss[2]:.0f} MB after the run"
    )
    print(f"   {'endpoint':<42}{'n':>7}{'err':>5}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    for name, values in out["latencies"].items():
        print(
            f"   {name:<42}{len(values):>7}{out['errors'][name]:>5}"
            f"{pct(values, 50) * 1000:>9.0f}{pct(values, 95) * 1000:>9.0f}"
            f"{pct(values, 99) * 1000:>9.0f}"
        )
    every = [v for values in out["latencies"].values() for v in values]
    print(
        f"   {'all':<42}{len(every):>7}{errors:>5}{pct(every, 50) * 1000:>9.0f}"
        f"{pct(every, 95) * 1000:>9.0f}{pct(every, 99) * 1000:>9.0f}"
    )


def load_options(parser: argparse.ArgumentParser, duration_help: str) -> None:
    """The options every load benchmark takes: --duration, --clients, --import."""
    parser.add_argument("--duration", type=float, default=60.0, help=duration_help)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument(
        "--import",
        dest="imported",
        type=Path,
        default=DEFAULT_IMPORT if DEFAULT_IMPORT.exists() else None,
        help="a tokenizer file to upload and encode with (default: Llama 3's "
        "tokenizer.json from ../shared/data/interop, when present)",
    )


def check_duration(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not 1 <= args.duration <= 600:
        parser.error("--duration must be between 1 and 600 seconds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    load_options(parser, "seconds per run")
    parser.add_argument("--workers", default="1,2", help="uvicorn worker counts to run")
    args = parser.parse_args()
    check_duration(parser, args)
    text = _text_2kb()
    label = f"imported {args.imported.name}" if args.imported else None
    print(
        f"load: {args.clients} clients, {args.duration:.0f} s per run, on {HOST}; mix: "
        + ", ".join(name for name, *_ in mix(text, (label, "") if label else None))
    )
    for workers in [int(w) for w in args.workers.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            proc, port = start_server(workers, Path(tmp) / "store.sqlite3")
            try:
                idle = tree_rss_mb(proc.pid)
                handle = upload(port, args.imported) if args.imported else None
                requests = mix(text, (label, handle) if handle else None)
                warm_up(port, requests, workers)
                warm = tree_rss_mb(proc.pid)
                out = run(port, requests, args.clients, args.duration)
                after = tree_rss_mb(proc.pid)
            finally:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            report(workers, args.clients, (idle, warm, after), out)


if __name__ == "__main__":
    main()

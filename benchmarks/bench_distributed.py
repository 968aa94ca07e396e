"""The shared mode against the embedded one: load, and how fast jobs start and stop across servers.

Two setups, one after the other, each on real uvicorn servers on loopback (started with the
Makefile's `run` flags):

- embedded: ONE server on a SQLite file (TOKVIS_DB), which runs its jobs (trainings) itself;
- shared: TWO servers on one PostgreSQL (TOKVIS_DATABASE_URL, started by tests/postgres.py and
  migrated with `tokvis db upgrade`), plus one `tokvis worker --concurrency 2` that runs the
  jobs the servers queue (as many at once as the embedded server's default TOKVIS_JOB_WORKERS).

In each setup it measures, in this order:

1. load: `--clients` clients for `--duration` seconds on exactly bench_load.py's mix (encode
   2 KB with several tokenizers, among them Llama 3's tokenizer.json uploaded first when
   ../shared/data/interop has it; the compare page; a late step of a BPE training view), after
   bench_load's warm-up through every server (caches are per process). In the shared setup
   the clients are split evenly between the two servers. Prints requests per second, errors
   (any status >= 400 or a failed connection, broken down by status) and p50/p95 latency per
   endpoint and overall, the two setups side by side;
2. job latency: a small sweep (`POST /api/sweep`, BPE at one vocab size, a new size each time so
   it is a new job) submitted through server A, polled through server B (`GET /api/sweep/{id}`
   every 10 ms) until it leaves "queued": the time from submit to running as B sees it, and on
   to done. `--repeat` times (default 10); median and max. In the embedded setup A and B are
   the one server;
3. cancel latency: a long sweep (WordPiece and Unigram at three large sizes) submitted through
   A; once B sees it running and its training process has started, `DELETE /api/sweep/{id}`
   (the creator's id) through B; the time until A reports it "cancelled", and until the
   training's child process (the job's pid in the store) is gone (a zombie counts as gone).
   Half as many repetitions as `--repeat` (rounded up); median and max.

Every process it starts (servers, worker, PostgreSQL) is stopped at the end, also on Ctrl-C or
an error. `--skip-load` runs the latency parts alone.

    .venv/bin/python benchmarks/bench_distributed.py                  # 50 clients, 60 s
    .venv/bin/python benchmarks/bench_distributed.py --duration 15 --clients 20
    .venv/bin/python benchmarks/bench_distributed.py --skip-load --repeat 6
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_load  # noqa: E402  (the request mix, the client loop, percentiles)
from bench_load import (
    HOST,
    _free_port,
    _text_2kb,
    mix,
    pct,  # noqa: E402
    tree_rss_mb,
    upload,
    warm_up,
)
from bench_step_jobs import _alive  # noqa: E402  (a process that is gone or a zombie: False)

SERVER_FLAGS = [
    "--http",
    "app.serving:HeaderTimeoutProtocol",
    "--timeout-keep-alive",
    "5",
    "--limit-concurrency",
    "500",
    "--h11-max-incomplete-event-size",
    "16384",
    "--log-level",
    "warning",
]  # the Makefile's `run` target
WORKER_CONCURRENCY = 2  # = the embedded server's default TOKVIS_JOB_WORKERS
POLL = 0.01  # seconds between two looks at a job
JOB_TIMEOUT = 300.0  # seconds a sweep may take to start, finish or stop
SETTLE = 0.5  # seconds a long sweep trains before it is cancelled
OWN_ENV = ("TOKVIS_DATABASE_URL", "TOKVIS_DB", "TOKVIS_SECRET_KEY", "TOKVIS_ALLOWED_HOSTS")


# ---- processes ----------------------------------------------------------------------------
class Fleet:
    """The processes this benchmark started, each in its own session (so that a Ctrl-C reaches
    this script alone, which then stops them in order), their output in log files."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.procs: list[tuple[str, subprocess.Popen]] = []

    def start(self, name: str, args: list[str], env: dict[str, str]) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "wb")
        try:
            proc = subprocess.Popen(
                [sys.executable, *args],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            log.close()
        self.procs.append((name, proc))
        return proc

    def stop(self) -> None:
        """SIGTERM to each, up to 20 s to end, then SIGKILL to whatever of its session is left
        (training children, sandbox pools)."""
        for _, proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for _, proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.procs = []

    def trouble(self) -> list[str]:
        """The lines of the logs that say something went wrong (tracebacks, errors)."""
        found = []
        for log in sorted(self.logs.glob("*.log")):
            lines = log.read_text(errors="replace").splitlines()
            bad = [
                line
                for line in lines
                if any(word in line for word in ("Traceback", "ERROR", "Error", "CRITICAL"))
            ]
            found += [f"{log.stem}: {line}" for line in bad]
        return found


def base_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in OWN_ENV}


def start_server(fleet: Fleet, name: str, env: dict[str, str]) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    proc = fleet.start(
        name,
        ["-m", "uvicorn", "app.main:app", "--host", HOST, "--port", str(port), *SERVER_FLAGS],
        env,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=5)
            if bench_load.request(conn, "GET", "/api/tokenizers", None) == 200:
                conn.close()
                return proc, port
        except (OSError, http.client.HTTPException):
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(
                f"{name} did not start (see {fleet.logs / name}.log:\n"
                + (fleet.logs / f"{name}.log").read_text(errors="replace")[-2000:]
            )
        time.sleep(0.2)


def api(port: int, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    """One JSON request on a fresh connection -> (status, answer)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    try:
        data = json.dumps(body).encode() if body is not None else None
        conn.request(
            method, path, body=data, headers={"Content-Type": "application/json"} if data else {}
        )
        response = conn.getresponse()
        answer = response.read()
    finally:
        conn.close()
    try:
        return response.status, json.loads(answer)
    except ValueError:
        return response.status, {"raw": answer[:300].decode(errors="replace")}


# ---- 1. load ------------------------------------------------------------------------------
def load(ports: list[int], requests: list, clients: int, duration: float) -> dict:
    """bench_load's client loop on each server at once, the clients split evenly; the
    statuses >= 400 counted on the way."""
    statuses: Counter = Counter()
    lock = threading.Lock()
    plain = bench_load.request

    def counting(conn, method, path, body):  # noqa: ANN001, ANN202
        status = plain(conn, method, path, body)
        if status >= 400:
            with lock:
                statuses[status] += 1
        return status

    shares = [clients // len(ports) + (i < clients % len(ports)) for i in range(len(ports))]
    outs: list[dict] = [{} for _ in ports]

    def one(i: int) -> None:
        outs[i] = bench_load.run(ports[i], requests, shares[i], duration)

    bench_load.request = counting  # run() looks it up at each request
    try:
        threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(len(ports))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        bench_load.request = plain
    merged = {
        "seconds": max(o["seconds"] for o in outs),
        "latencies": {
            name: [v for o in outs for v in o["latencies"][name]] for name, *_ in requests
        },
        "errors": {name: sum(o["errors"][name] for o in outs) for name, *_ in requests},
        "statuses": statuses,
    }
    return merged


# ---- 2. and 3. job latency ----------------------------------------------------------------
def wait_status(port: int, job_id: str, leave: tuple[str, ...]) -> dict:
    """Poll `GET /api/sweep/{id}` until the status is no longer one of `leave`."""
    deadline = time.monotonic() + JOB_TIMEOUT
    while True:
        status, job = api(port, "GET", f"/api/sweep/{job_id}")
        if status != 200:
            raise RuntimeError(f"GET /api/sweep/{job_id} answered {status}: {job}")
        if job["status"] not in leave:
            return job
        if time.monotonic() > deadline:
            raise RuntimeError(f"sweep {job_id} still {job['status']} after {JOB_TIMEOUT:.0f} s")
        time.sleep(POLL)


def submit(port: int, spec: dict) -> dict:
    status, job = api(port, "POST", "/api/sweep", spec)
    if status != 202:
        raise RuntimeError(f"POST /api/sweep answered {status}: {job}")
    return job


def job_latency(a: int, b: int, sizes: list[int]) -> dict:
    """For each size, a BPE sweep submitted through A and polled through B: seconds to running,
    and to done."""
    running, done, outcomes = [], [], Counter()
    for size in sizes:
        t0 = time.perf_counter()
        job = submit(
            a, {"corpus": "botchan", "heldout": "udhr/eng", "algorithms": ["bpe"], "sizes": [size]}
        )
        seen = wait_status(b, job["id"], ("queued",))
        running.append(time.perf_counter() - t0)
        if seen["status"] == "running":
            seen = wait_status(b, job["id"], ("running",))
        done.append(time.perf_counter() - t0)
        outcomes[seen["status"]] += 1
    return {"running": running, "done": done, "outcomes": outcomes}


def cancel_latency(a: int, b: int, store, sizes: list[int]) -> dict:
    """For each size k, a long sweep submitted through A, cancelled through B once it trains:
    seconds until A says cancelled, and until its training process is gone."""
    seen_a, gone, outcomes = [], [], Counter()
    for k in sizes:
        job = submit(
            a,
            {
                "corpus": "botchan",
                "heldout": "udhr/eng",
                "algorithms": ["wordpiece", "unigram"],
                "sizes": [8000 + k, 16000 + k, 20000 + k],
            },
        )
        creator_id = job["id"]
        job_id = creator_id.partition(".")[0]
        wait_status(b, job_id, ("queued",))
        deadline = time.monotonic() + JOB_TIMEOUT
        while not (pid := store.get(job_id).pid):  # the child is started just after
            if time.monotonic() > deadline:
                raise RuntimeError(f"sweep {job_id} runs but no training process is recorded")
            api(b, "GET", f"/api/sweep/{job_id}")  # a look, as a polling page would
            time.sleep(POLL)
        time.sleep(SETTLE)
        if not _alive(pid):
            outcomes["finished before the cancel"] += 1
            continue
        t0 = time.perf_counter()
        status, answer = api(b, "DELETE", f"/api/sweep/{creator_id}")
        if status != 200:
            raise RuntimeError(f"DELETE /api/sweep/{creator_id} answered {status}: {answer}")
        t_a = t_gone = None
        deadline = time.monotonic() + 60
        while t_a is None or t_gone is None:
            if t_gone is None and not _alive(pid):
                t_gone = time.perf_counter() - t0
            if t_a is None:
                seen = api(a, "GET", f"/api/sweep/{job_id}")[1]["status"]
                if seen not in ("queued", "running"):
                    t_a = time.perf_counter() - t0
                    outcomes[seen] += 1
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"sweep {job_id}: not cancelled or its process {pid} not gone 60 s after DELETE"
                )
            time.sleep(POLL / 2)
        seen_a.append(t_a)
        gone.append(t_gone)
    return {"seen_a": seen_a, "gone": gone, "outcomes": outcomes}


# ---- the two setups -----------------------------------------------------------------------
class Sizes:
    """Vocab sizes never asked before in this run, so that every sweep is a new job."""

    def __init__(self) -> None:
        self.next = 300

    def take(self, n: int) -> list[int]:
        out = list(range(self.next, self.next + n))
        self.next += n
        return out


def measure(
    name: str, ports: list[int], store, procs: list[subprocess.Popen], args, text: str, sizes: Sizes
) -> dict:
    """Load (unless skipped), then job and cancel latency, on running servers."""
    out: dict = {}
    a, b = ports[0], ports[-1]
    if not args.skip_load:
        label = f"imported {args.imported.name}" if args.imported else None
        handle = upload(a, args.imported) if args.imported else None
        requests = mix(text, (label, handle) if handle else None)
        for i, port in enumerate(ports):
            print(f"  {name}: warming up server {i + 1} of {len(ports)}", flush=True)
            warm_up(port, requests, 1)
        print(f"  {name}: {args.clients} clients for {args.duration:.0f} s", flush=True)
        out["load"] = load(ports, requests, args.clients, args.duration)
        out["rss"] = sum(tree_rss_mb(p.pid) for p in procs)
    print(f"  {name}: {args.repeat} small sweeps, submit to running", flush=True)
    out["jobs"] = job_latency(a, b, sizes.take(args.repeat))
    cancels = (args.repeat + 1) // 2
    print(f"  {name}: {cancels} long sweeps, cancelled", flush=True)
    out["cancel"] = cancel_latency(a, b, store, sizes.take(cancels))
    return out


def embedded(fleet: Fleet, tmp: Path, args, text: str, sizes: Sizes) -> dict:
    from app.jobs.store import JobStore

    db = tmp / "store.sqlite3"
    proc, port = start_server(fleet, "embedded-server", {**base_env(), "TOKVIS_DB": str(db)})
    try:
        return measure("embedded", [port], JobStore(db), [proc], args, text, sizes)
    finally:
        fleet.stop()


def shared(fleet: Fleet, args, text: str, sizes: Sizes) -> dict:
    from app.jobs.store import JobStore
    from tests.postgres import PostgresServer

    pg = PostgresServer()
    try:
        pg.start()
        url = pg.create_database("bench")
        env = {**base_env(), "TOKVIS_DATABASE_URL": url, "TOKVIS_SECRET_KEY": secrets.token_hex(16)}
        done = subprocess.run(
            [sys.executable, "-m", "app.cli", "db", "upgrade"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"tokvis db upgrade failed:\n{done.stdout}{done.stderr}")
        worker = fleet.start(
            "shared-worker",
            ["-m", "app.cli", "worker", "--concurrency", str(WORKER_CONCURRENCY)],
            env,
        )
        started = [start_server(fleet, f"shared-server-{x}", env) for x in "AB"]
        if worker.poll() is not None:
            raise RuntimeError(
                "the worker stopped: "
                + (fleet.logs / "shared-worker.log").read_text(errors="replace")[-2000:]
            )
        return measure(
            "shared",
            [port for _, port in started],
            JobStore(url),
            [worker, *(proc for proc, _ in started)],
            args,
            text,
            sizes,
        )
    finally:
        fleet.stop()
        pg.stop()


# ---- report -------------------------------------------------------------------------------
def ms(values: list[float], q: float) -> str:
    return f"{pct(values, q) * 1000:.0f}" if values else "-"


def report_load(args, results: dict[str, dict]) -> None:
    setups = [(k, r["load"]) for k, r in results.items() if "load" in r]
    if not setups:
        return
    print(
        f"\n== load: {args.clients} clients, {args.duration:.0f} s; "
        + "; ".join(f"{k}: {TITLES[k]}" for k, _ in setups)
    )
    head = "".join(f"{k + ' n':>14}{'err':>6}{'p50 ms':>8}{'p95 ms':>8}" for k, _ in setups)
    print(f"   {'endpoint':<40}{head}")
    names = list(setups[0][1]["latencies"])
    for name in names:
        row = "".join(
            f"{len(o['latencies'][name]):>14}{o['errors'][name]:>6}"
            f"{ms(o['latencies'][name], 50):>8}{ms(o['latencies'][name], 95):>8}"
            for _, o in setups
        )
        print(f"   {name:<40}{row}")
    row = ""
    for _, o in setups:
        every = [v for values in o["latencies"].values() for v in values]
        row += f"{len(every):>14}{sum(o['errors'].values()):>6}{ms(every, 50):>8}{ms(every, 95):>8}"
    print(f"   {'all':<40}{row}")
    for k, o in setups:
        total = sum(len(v) for v in o["latencies"].values())
        errors = sum(o["errors"].values())
        by_status = ", ".join(f"{n} x {s}" for s, n in sorted(o["statuses"].items()))
        failed = errors - sum(o["statuses"].values())
        detail = ", ".join(
            x for x in (by_status, f"{failed} failed connections" if failed else "") if x
        )
        print(
            f"   {k}: {total / o['seconds']:.1f} req/s over {o['seconds']:.1f} s, "
            f"{errors} errors{f' ({detail})' if detail else ''}; RSS of its processes after "
            f"the run {results[k]['rss']:.0f} MB"
        )


def median_max(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values) * 1000:.0f} / {max(values) * 1000:.0f}"


def report_latency(args, results: dict[str, dict]) -> None:
    keys = list(results)
    cols = "".join(f"{k + ' (' + VIA[k] + ')':>28}" for k in keys)
    print(
        f"\n== job latency: {args.repeat} small sweeps (BPE, one size) submitted through A, "
        f"polled through B every {POLL * 1000:.0f} ms; ms, median / max"
    )
    _latency_rows(
        results,
        "jobs",
        cols,
        (
            ("submit -> running (seen through B)", "running"),
            ("submit -> finished (seen through B)", "done"),
        ),
    )
    cancels = (args.repeat + 1) // 2
    print(
        f"\n== cancel latency: {cancels} long sweeps (WordPiece and Unigram, 8000-20000) "
        f"submitted through A, DELETE through B {SETTLE:.1f} s after their training started; "
        "ms, median / max"
    )
    _latency_rows(
        results,
        "cancel",
        cols,
        (
            ('DELETE -> "cancelled" seen through A', "seen_a"),
            ("DELETE -> training process gone", "gone"),
        ),
    )


def _latency_rows(
    results: dict[str, dict], part: str, cols: str, rows: tuple[tuple[str, str], ...]
) -> None:
    """One latency table: a row per (label, field), a column per setup, then the outcomes."""
    print(f"   {'':<40}{cols}")
    for label, field in rows:
        print(
            f"   {label:<40}"
            + "".join(f"{median_max(results[k][part][field]):>28}" for k in results)
        )
    print(
        "   outcomes: "
        + "; ".join(
            f"{k}: " + ", ".join(f"{n} {s}" for s, n in results[k][part]["outcomes"].items())
            for k in results
        )
    )


TITLES = {
    "embedded": "1 server on SQLite (runs its jobs)",
    "shared": "2 servers on PostgreSQL + 1 worker",
}
VIA = {"embedded": "A = B", "shared": "A -> B"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    bench_load.load_options(parser, "seconds of load per setup")
    parser.add_argument(
        "--repeat",
        type=int,
        default=10,
        help="small sweeps per setup (and half as many cancelled long ones)",
    )
    parser.add_argument("--skip-load", action="store_true", help="only the latency parts")
    args = parser.parse_args()
    bench_load.check_duration(parser, args)
    if args.clients < 2 or args.repeat < 1:
        parser.error("--clients must be at least 2 and --repeat at least 1")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop what we started, as Ctrl-C
    text = _text_2kb()
    what = "no load" if args.skip_load else f"{args.clients} clients, {args.duration:.0f} s of load"
    print(
        f"distributed: {what}, {args.repeat} sweeps per setup, on {HOST}, {os.cpu_count()} CPUs",
        flush=True,
    )
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="bench-distributed-") as tmp:
        fleet = Fleet(Path(tmp))
        try:
            results["embedded"] = embedded(fleet, Path(tmp), args, text, sizes := Sizes())
            results["shared"] = shared(fleet, args, text, sizes)
        finally:
            fleet.stop()
            trouble = fleet.trouble()
        if not args.skip_load:
            report_load(args, results)
        report_latency(args, results)
        if trouble:
            print(f"\nthe processes logged {len(trouble)} error lines; the first 20:")
            for line in trouble[:20]:
                print(f"   {line}")


if __name__ == "__main__":
    main()

"""Issue 38, items 11 and 13: the sandbox on a busy machine and under a flood of heavy templates,
against a real uvicorn started as `make run` starts it (`bench_sandbox.Server`).

`--upload` (item 11): the real Llama 4 tokenizer.json (12 MB, from the shared data) uploaded
through `POST /api/tokenizers`, `--repeat` times on an idle machine, then as many times beside
`--hogs` (6) CPU hogs (`python3 -c 'while True: pass'`, killed after): each upload's status and
time, and the 422's detail when it was refused.

`--hostile` (item 13): `--loops` (8) clients, each from its own loopback address
(127.0.0.2, 127.0.0.3, ...: to the server, different clients), loop `POST /api/chat` with a
template that runs until its CPU budget stops it (two nested `range(100000)` loops), while one
legitimate client (127.0.0.1) sends a small chat (the bundled chatml template, cl100k_base,
three messages) every `--every` s for `--duration` s: the legitimate chats' statuses and
p50/p95/max time, and the hostile requests' statuses.

    .venv/bin/python benchmarks/bench_sandbox_contention.py --upload --hostile
    mkdir -p /tmp/before && git archive 96fd5d2 | tar -x -C /tmp/before
    .venv/bin/python benchmarks/bench_sandbox_contention.py --upload --hostile --code /tmp/before

Measured on 2 cores shared with other work (load 13-20), Dec 2026: the upload 6 of 6 201 in
10-25 s (96fd5d2: 4 of 6 refused, "took longer than 8.25 s of wall-clock time", 3 of 3 beside
the hogs); the legitimate chats beside 8 loops 49 of 49 200, p50 0.34 s, p95 0.50 s, max 6.1 s
(the first, before the loops had used anything), 48 within 2 s (96fd5d2: 3 of 4 503 after
8.3 s, p50 8.30 s).

Bounded in time: each upload has a client timeout of 120 s; the hostile run lasts `--duration`
s (30) plus at most 60 s for the last requests. The client runs on the same machine as the
server, so on 2 cores the figures are noisy.
"""

from __future__ import annotations

import argparse
import http.client
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_load import pct  # noqa: E402
from bench_sandbox import ROOT, Server  # noqa: E402

from tests.shared_data import SHARED  # noqa: E402  (where the shared data is)

HOSTILE_TEMPLATE = (
    "{% for i in range(100000) %}{% for j in range(100000) %}{{ '' }}{% endfor %}{% endfor %}"
)
# the uploads come from an address of their own: the sandbox serves first the clients that used
# it least lately, and six large uploads would put the legitimate chats' client behind the loops
UPLOADER = "127.0.0.200"
LEGIT_CHAT = {
    "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "What is the capital of France?"},
        {"role": "assistant", "content": "Paris."},
    ],
    "template_name": "chatml",
    "tokenizer": "cl100k_base",
}


def post(
    port: int, path: str, body: bytes, headers: dict, timeout: float, source: str = "127.0.0.1"
) -> tuple[int, bytes]:
    """One request from the loopback address `source` on a fresh connection: (status, body);
    status 0 when the connection failed or timed out."""
    conn = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0)
    )
    try:
        conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    except OSError:
        return 0, b""
    finally:
        conn.close()


def chat(port: int, payload: dict, timeout: float, source: str) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json"}
    return post(port, "/api/chat", json.dumps(payload).encode(), headers, timeout, source)


def upload(port: int, data: bytes, timeout: float) -> tuple[int, bytes]:
    boundary = "bench-contention-boundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            'filename="tokenizer.json"\r\nContent-Type: application/json\r\n\r\n'
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    return post(port, "/api/tokenizers", body, headers, timeout, UPLOADER)


def detail(body: bytes) -> str:
    try:
        return str(json.loads(body).get("detail", ""))[:160]
    except (ValueError, AttributeError):
        return body[:160].decode(errors="replace")


class Hogs:
    """`count` CPU hogs (busy Python loops) while in the `with` block."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> "Hogs":
        cmd = [sys.executable, "-c", "while True: pass"]
        self.procs = [subprocess.Popen(cmd) for _ in range(self.count)]
        time.sleep(1)  # the load settles
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()


def run_upload(args: argparse.Namespace, server: Server) -> None:
    path = args.shared / "data" / "interop" / "converted" / "llama4.tokenizer.json"
    if not path.is_file():
        print(f"upload: skipped, {path} is absent")
        return
    data = path.read_bytes()
    print(f"upload of {path.name} ({len(data) / 1e6:.1f} MB), {args.code}")
    for label, hogs in (("idle", 0), (f"beside {args.hogs} CPU hogs", args.hogs)):
        with Hogs(hogs):
            for i in range(args.repeat):
                start = time.monotonic()
                status, body = upload(server.port, data, 120)
                took = time.monotonic() - start
                load = Path("/proc/loadavg").read_text().split()[0]
                note = "" if status in (200, 201) else f"  {detail(body)}"
                print(f"  {label:>22} #{i + 1}: {status} in {took:5.1f} s (load {load}){note}")


def hostile_loop(port: int, source: str, stop: threading.Event, statuses: Counter) -> None:
    payload = {"messages": [{"role": "user", "content": "hi"}], "template": HOSTILE_TEMPLATE}
    while not stop.is_set():
        status, _ = chat(port, payload, 60, source)
        statuses[status] += 1
        if status == 0:
            time.sleep(0.1)


def run_hostile(args: argparse.Namespace, server: Server) -> None:
    print(f"{args.loops} hostile loops and a legitimate chat every {args.every} s, {args.code}")
    alone: list[float] = []
    statuses: Counter[int] = Counter()
    for _ in range(10):
        start = time.monotonic()
        statuses[chat(server.port, LEGIT_CHAT, 60, "127.0.0.1")[0]] += 1
        alone.append(time.monotonic() - start)
    print(
        f"  the legitimate chat alone: statuses {dict(statuses)}; p50 {pct(alone, 50):.2f} s, "
        f"max {max(alone):.2f} s (load {Path('/proc/loadavg').read_text().split()[0]})"
    )
    stop, hostile = threading.Event(), Counter[int]()
    loops = [
        threading.Thread(
            target=hostile_loop, args=(server.port, f"127.0.0.{2 + i}", stop, hostile), daemon=True
        )
        for i in range(args.loops)
    ]
    for loop in loops:
        loop.start()
    time.sleep(2)  # the loops fill the sandbox
    times: list[float] = []
    statuses, details = Counter[int](), Counter[str]()
    end = time.monotonic() + args.duration
    while time.monotonic() < end:
        start = time.monotonic()
        status, body = chat(server.port, LEGIT_CHAT, 60, "127.0.0.1")
        times.append(time.monotonic() - start)
        statuses[status] += 1
        if status != 200:
            details[detail(body)] += 1
        time.sleep(max(0.0, args.every - (time.monotonic() - start)))
    stop.set()
    for loop in loops:
        loop.join(60)
    print(
        f"  legitimate chats: {len(times)}, statuses {dict(statuses)}; "
        f"p50 {pct(times, 50):.2f} s, p95 {pct(times, 95):.2f} s, max {max(times):.2f} s; "
        f"within 2 s: {sum(t <= 2 for t in times)} of {len(times)}"
    )
    for text, count in details.most_common(3):
        print(f"    {count} x {text}")
    print(f"  hostile requests: statuses {dict(hostile)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upload", action="store_true", help="item 11: Llama 4 beside CPU hogs")
    parser.add_argument("--hostile", action="store_true", help="item 13: heavy-template loops")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout to serve")
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--hogs", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--loops", type=int, default=8)
    parser.add_argument("--every", type=float, default=0.5)
    parser.add_argument("--duration", type=float, default=30.0)
    args = parser.parse_args()
    if not (args.upload or args.hostile):
        args.upload = args.hostile = True
    with tempfile.TemporaryDirectory() as workdir:
        server = Server(args.code.resolve(), Path(workdir))
        server.start()
        try:
            if args.upload:
                run_upload(args, server)
            if args.hostile:
                run_hostile(args, server)
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Issue 27: each way one request stalls the server, against a real uvicorn started as `make run`
starts it; then the interactive latency and a 50-client load with an uploaded Llama 3 tokenizer.

Three modes (any together; with none, the reproducers):

`--reproducers`: the issue's reproducers, one after another, on one worker. Each request is sent
with a client timeout (`--timeout`, default 30 s) while a prober thread sends `GET /` on a fresh
connection every 100 ms, and a sampler reads the resident memory (VmRSS) of the server's whole
process tree (uvicorn and all its descendants: a sandbox's children count) every 100 ms.

    1  chat templates (render only): `([l] * 300)|sum(start=[])` of a 100,000-list,
       `lipsum(n=100000)`, `[1]|slice(10000000)`
    2  `[1]|batch(100000000, 0)`, `([s] * 1000)|tojson` and `|pprint` of a 1,000,000-char `s`
    3  a tokenizer.json whose normalizer is 20 x Replace "a" -> "aa", uploaded, then "aaaa" encoded
    4  DNS rebinding: `POST /api/corpora` with `Host: evil.example:8000` and a matching Origin
    5  uploads the bounds allow: a tokenizer.json of ~999,000 merges (~26 MB), a zip of 300,000
       members (with a vocab.json + merges.txt), a sentencepiece .model of 2,000,000 pieces
    7  the visualiser page (`POST /`) on one 100,000-character word with cl100k_base, and its
       time over that of `POST /api/encode` on such a word (the issue's bar: 3 x)
    8  slowloris: 300 sockets each holding a partial request; are they closed within 60 s?

Printed, one row each: the status (or "timed out"), the time, the worst wait of a concurrent
`GET /` (">" when a probe was still unanswered at the end) and the growth of the tree's RSS
(peak minus before). A server that does not answer `GET /` within 5 s after a reproducer is
stalled: it is killed and a fresh one started before the next, and the row says so (marked "*");
so is one whose reproducer timed out though it still answers (marked "+"): the work the client
gave up on may go on in it, and would weigh on the next row.

`--latency`: Llama 3's tokenizer.json (from the shared data) uploaded through
`POST /api/tokenizers`, then `--requests` (200) sequential `POST /api/encode` of 2 KB slices of
Botchan with it, and with the bundled cl100k_base for reference: p50/p95/p99 of the server's own
time (its `Server-Timing: app;dur=` header) and of the client's; then the same for the
visualiser's fragment (`POST /` with `HX-Request`, what the page asks for as one types), whose
HTML (chips, tooltips, the pipeline's steps) costs far more than the encode.

`--load`: `--clients` (50) clients for `--duration` s (60), each on one keep-alive connection,
on a mix in equal shares: encode 2 KB with the uploaded Llama 3, with cl100k_base and with
bert-base-uncased, `POST /api/chat` with the bundled llama3 template, and `GET /`; per
endpoint the count, 4xx (422s apart), 5xx, failed connections and p50/p95/p99, for each of
`--workers` (default 1,2: uvicorn's `--workers`).

The server runs the code of `--code` (default: this checkout) with this interpreter, with the
flags of that checkout's `make run` (an `--http app.serving:...` flag is dropped when the code has
no app/serving.py), a fresh TOKVIS_DB in a temporary directory, TOKVIS_ALLOWED_HOSTS unset, and
TOKVIS_SANDBOX_WORKERS set to `--sandbox-workers` when given (0: untrusted work in the serving
process). The client runs on the same machine: with 2 cores the figures are noisy.

    .venv/bin/python benchmarks/bench_sandbox.py                         # the reproducers
    .venv/bin/python benchmarks/bench_sandbox.py --only sum,rebinding --timeout 10
    .venv/bin/python benchmarks/bench_sandbox.py --latency --sandbox-workers 0
    .venv/bin/python benchmarks/bench_sandbox.py --load --duration 30 --workers 1
    mkdir -p /tmp/before && git archive 3e274a8 | tar -x -C /tmp/before
    .venv/bin/python benchmarks/bench_sandbox.py --code /tmp/before --timeout 20

Bounded in time: each reproducer `--timeout` s (the slowloris 60 s) plus 5 s to see whether the
server answers and, if not, a restart; making the three large upload files takes ~10 s; each load
run `--duration` s plus its warm-up (at most 300 s). On 3e274a8 with `--timeout 20`, the
reproducers took 200 s, the latency 3 s, a 30 s load on one worker 33 s.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import random
import re
import select
import shlex
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_hostile_load import UPLOAD_LIMIT, cjk_pairs_file  # noqa: E402
from bench_load import _free_port, pct  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.shared_data import SHARED  # noqa: E402  (where the shared data is)

HOST = "127.0.0.1"  # loopback only
STALL_CHECK = 5.0  # seconds a server has to answer GET / after a reproducer
SLOWLORIS_SOCKETS = 300
SLOWLORIS_WINDOW = 60.0
DEFAULT_FLAGS = ["app.main:app", "--host", "$(HOST)", "--port", "$(PORT)"]


# ---- the server ----------------------------------------------------------------------------------
def make_run_args(code: Path) -> tuple[list[str], str]:
    """The arguments `make run` gives uvicorn in `code`'s Makefile (with `$(HOST)` and `$(PORT)`
    left to fill in), and a remark on what was changed or assumed ("" when nothing).

    The recipe's lines are joined at their trailing backslashes; the arguments are what follows
    the word `uvicorn`. An `--http app.serving:...` protocol class is dropped when the code has no
    app/serving.py. No Makefile, or no uvicorn in its run target: uvicorn's defaults."""
    makefile = code / "Makefile"
    lines = makefile.read_text().splitlines() if makefile.exists() else []
    commands, current = [], ""
    for i, line in enumerate(lines):
        if re.match(r"run\s*:", line):
            for body in lines[i + 1 :]:
                if not body.startswith("\t"):
                    break
                current += " " + body.strip().removesuffix("\\")
                if not body.rstrip().endswith("\\"):
                    commands.append(current)
                    current = ""
            break
    words = next((shlex.split(c) for c in commands + [current] if "uvicorn" in shlex.split(c)), [])
    if not words:
        return list(DEFAULT_FLAGS), f"no uvicorn in {makefile}'s run target: uvicorn's defaults"
    args = words[words.index("uvicorn") + 1 :]
    remark = ""
    for at, word in enumerate(args):
        if word == "--http" or word.startswith("--http="):
            joined = word.startswith("--http=")
            protocol = word[7:] if joined else (args[at + 1] if at + 1 < len(args) else "")
            if protocol.startswith("app.serving:") and not (code / "app" / "serving.py").exists():
                del args[at : at + (1 if joined else 2)]
                remark = f"dropped --http {protocol} (the code has no app/serving.py)"
            break
    return args, remark


@dataclass
class Server:
    """A uvicorn serving `code`, in its own process group; its log goes to a file."""

    code: Path
    workdir: Path
    workers: int = 1
    sandbox_workers: int | None = None
    proc: subprocess.Popen | None = None
    port: int = 0
    starts: int = 0

    def command(self) -> list[str]:
        args, _ = make_run_args(self.code)
        filled = [a.replace("$(HOST)", HOST).replace("$(PORT)", str(self.port)) for a in args]
        if any("$(" in a for a in filled):
            raise RuntimeError(
                f"make run's arguments name a variable this benchmark does not know: {filled}"
            )
        if self.workers > 1:
            filled += ["--workers", str(self.workers)]
        return [sys.executable, "-m", "uvicorn", *filled]

    def start(self) -> None:
        self.starts += 1
        self.port = _free_port()
        db = self.workdir / f"store-{self.starts}.sqlite3"
        env = {k: v for k, v in os.environ.items() if k != "TOKVIS_ALLOWED_HOSTS"}
        env.update(TOKVIS_DB=str(db), PYTHONPATH=str(self.code))
        if self.sandbox_workers is not None:
            env["TOKVIS_SANDBOX_WORKERS"] = str(self.sandbox_workers)
        log = open(self.workdir / f"server-{self.starts}.log", "wb")
        self.proc = subprocess.Popen(
            self.command(),
            cwd=self.code,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                if call(self.port, "GET", "/api/tokenizers", timeout=5).status == 200:
                    call(self.port, "GET", "/", timeout=60)  # the page once, cold
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.kill()
        tail = (self.workdir / f"server-{self.starts}.log").read_text(errors="replace")[-2000:]
        raise RuntimeError(f"uvicorn did not start; its log ends:\n{tail}")

    def answers(self, timeout: float = STALL_CHECK) -> bool:
        try:
            return call(self.port, "GET", "/", timeout=timeout).status == 200
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL to the server's process group and to any descendant that left it."""
        if self.proc is None:
            return
        pids = tree_pids(self.proc.pid)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()
        self.proc = None

    def stop(self) -> None:
        """SIGTERM (uvicorn shuts down its workers), SIGKILL after 20 s."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        self.kill()


# ---- memory of a process tree --------------------------------------------------------------------
def tree_pids(pid: int) -> list[int]:
    """`pid` and all its descendants. From /proc/<pid>/task/*/children when the kernel has it
    (CONFIG_PROC_CHILDREN), else from every process's parent in /proc/<pid>/stat."""
    if Path(f"/proc/{pid}/task/{pid}/children").exists():
        found, todo = [], [pid]
        while todo:
            p = todo.pop()
            found.append(p)
            for task in Path(f"/proc/{p}/task").glob("*/children"):
                try:
                    todo.extend(int(c) for c in task.read_text().split())
                except OSError:
                    pass
        return found
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found


def tree_rss_mb(pid: int) -> float:
    """The VmRSS of `pid` and its descendants together, in MB."""
    total = 0
    for p in tree_pids(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                total += next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0)
        except OSError:
            pass
    return total / 1024


class RssSampler(threading.Thread):
    """The peak of `tree_rss_mb(pid)`, sampled every 100 ms until `stop()`."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.before = tree_rss_mb(pid)
        self.peak = self.before
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(0.1):
            self.peak = max(self.peak, tree_rss_mb(self.pid))

    def stop(self) -> float:
        """The growth: peak minus before, in MB."""
        self._stop_event.set()
        self.join()
        self.peak = max(self.peak, tree_rss_mb(self.pid))
        return self.peak - self.before


# ---- HTTP ----------------------------------------------------------------------------------------
@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes


def call(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> Answer:
    """One request on a fresh connection (a `Host` in `headers` replaces http.client's)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return Answer(response.status, response.headers, response.read())
    finally:
        conn.close()


def post_json(port: int, path: str, payload: dict, timeout: float) -> Answer:
    return call(
        port,
        "POST",
        path,
        json.dumps(payload).encode(),
        {"Content-Type": "application/json"},
        timeout,
    )


def upload(port: int, name: str, data: bytes, timeout: float) -> Answer:
    """`POST /api/tokenizers` with `data` as the multipart field `file`."""
    boundary = "bench-sandbox-boundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return call(
        port,
        "POST",
        "/api/tokenizers",
        body,
        {"Content-Type": f"multipart/form-data; boundary={boundary}"},
        timeout,
    )


def server_ms(answer: Answer) -> float | None:
    """The server's own time from `Server-Timing: app;dur=12.3`, in ms."""
    found = re.search(r"app;dur=([0-9.]+)", answer.headers.get("Server-Timing") or "")
    return float(found.group(1)) if found else None


class Prober(threading.Thread):
    """`GET /` on a fresh connection, again 100 ms after each answer, until `stop()`."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.waits: list[float] = []
        self.failed = 0  # not 200, or the connection failed
        self.pending_since: float | None = None
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            start = self.pending_since = time.monotonic()
            try:
                ok = call(self.port, "GET", "/", timeout=600).status == 200
            except OSError:
                ok = False
            self.pending_since = None
            if self._stop_event.is_set() and not ok:
                return  # the server was killed under it
            self.waits.append(time.monotonic() - start)
            self.failed += not ok
            self._stop_event.wait(0.1)

    def stop(self) -> str:
        """The worst wait, as text: ">12.3" when a probe was still unanswered at the end."""
        self._stop_event.set()
        pending = self.pending_since
        waiting = time.monotonic() - pending if pending is not None else 0.0
        worst = max([*self.waits, waiting], default=0.0)
        text = f"{'>' if waiting >= worst and pending is not None else ''}{worst:.2f}"
        if self.failed:
            text += f" ({self.failed} failed)"
        return text


# ---- the files the reproducers send --------------------------------------------------------------
def replace_chain(times: int = 20) -> bytes:
    """A WordLevel tokenizer.json whose normalizer doubles every "a", `times` times."""
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": {
                "type": "Sequence",
                "normalizers": [{"type": "Replace", "pattern": {"String": "a"}, "content": "aa"}]
                * times,
            },
            "pre_tokenizer": {"type": "WhitespaceSplit"},
            "post_processor": None,
            "decoder": None,
            "model": {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"},
        }
    ).encode()


def many_merges() -> bytes:
    """A BPE tokenizer.json of 1,000 CJK characters, ~999,000 of their pairs and a merge for
    each (bench_hostile_load.py's worst allowed file, without its added tokens): as many
    pairs as fit the upload limit."""
    return cjk_pairs_file(limit=UPLOAD_LIMIT)


def many_members(count: int = 300_000) -> bytes:
    """A zip of a small vocab.json + merges.txt and `count` empty members beside them."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("vocab.json", json.dumps({"a": 0, "b": 1, "ab": 2}))
        archive.writestr("merges.txt", "#version: 0.2\na b\n")
        for i in range(count):
            archive.writestr(f"m/{i:06d}", b"")
    return buffer.getvalue()


def _varint(n: int) -> bytes:
    """Protobuf's base-128 varint: 150 -> b"\\x96\\x01"."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _piece(text: str, score: float, kind: int) -> bytes:
    """One `ModelProto.pieces` entry (field 1): piece (1), score (2, float), type (3, not when
    NORMAL, 1)."""
    raw = text.encode()
    inner = b"\x0a" + _varint(len(raw)) + raw + b"\x15" + struct.pack("<f", score)
    if kind != 1:
        inner += b"\x18" + _varint(kind)
    return b"\x0a" + _varint(len(inner)) + inner


def many_pieces(count: int = 2_000_000) -> bytes:
    """A sentencepiece unigram .model written by hand (the wire format
    tokenizers_core/formats/sentencepiece_model.py reads): <unk>, <s>, </s> and `count` - 3
    five-character pieces, ~28 MB."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    parts = [_piece("<unk>", 0.0, 2), _piece("<s>", 0.0, 3), _piece("</s>", 0.0, 3)]
    for n in range(count - 3):
        name = "".join(digits[n // 36**k % 36] for k in (4, 3, 2, 1, 0))
        parts.append(_piece(name, -1.0 - n / count, 1))
    trainer = b"\x18\x01" + b"\x20" + _varint(count)  # model_type unigram, vocab_size
    normalizer = b"\x0a\x08identity"  # name; no charsmap
    parts.append(b"\x12" + _varint(len(trainer)) + trainer)
    parts.append(b"\x1a" + _varint(len(normalizer)) + normalizer)
    return b"".join(parts)


# ---- the reproducers -----------------------------------------------------------------------------
MESSAGES = [{"role": "user", "content": "Hello!"}]
TEMPLATES = {
    "sum": "{% set l = range(100000)|list %}{{ ([l] * 300)|sum(start=[])|length }}",
    "lipsum": "{{ lipsum(n=100000)|length }}",
    "slice": "{{ ([1]|slice(10000000))|list|length }}",
    "batch": "{{ ([1]|batch(100000000, 0)|list)[0]|length }}",
    "tojson": "{% set s = 'x' * 1000000 %}{{ ([s] * 1000)|tojson|length }}",
    "pprint": "{% set s = 'x' * 1000000 %}{{ ([s] * 1000)|pprint|length }}",
}


class Files:
    """The upload files, made on first use (each once)."""

    def __init__(self) -> None:
        self._made: dict[str, bytes] = {}

    def get(self, name: str, make: Callable[[], bytes]) -> bytes:
        if name not in self._made:
            start = time.perf_counter()
            self._made[name] = make()
            print(
                f"   (made {name}: {len(self._made[name]) / 1e6:.1f} MB in "
                f"{time.perf_counter() - start:.1f} s)",
                flush=True,
            )
        return self._made[name]


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def _detail(answer: Answer) -> str:
    """The status, with a 4xx/5xx's detail."""
    if answer.status < 400:
        return str(answer.status)
    try:
        detail = str(json.loads(answer.body).get("detail", ""))
    except (ValueError, AttributeError):
        detail = answer.body[:200].decode(errors="replace")
    return f"{answer.status} {detail}".rstrip()


def compact(status: str, width: int = 60) -> str:
    """`status` for the table: a 4xx/5xx's detail loses its leading clauses (up to ": ") while it
    is too long, then is cut.

    >>> compact("422 the chat template failed at line 1: it was stopped: it built more", 30)
    '422 it built more'
    """
    found = re.search(r"\b[45]\d\d ", status)
    if found is None:
        return status[:width]
    head, detail = status[: found.end()], status[found.end() :]
    while len(head) + len(detail) > width and ": " in detail:
        detail = detail.split(": ", 1)[1]
    text = head + detail
    return text if len(text) <= width else text[: width - 3] + "..."


def chat_reproducer(key: str) -> Callable[[int, float, Files], str]:
    def run(port: int, deadline: float, files: Files) -> str:
        answer = post_json(
            port,
            "/api/chat",
            {"messages": MESSAGES, "template": TEMPLATES[key]},
            _remaining(deadline),
        )
        text = json.loads(answer.body).get("text", "") if answer.status == 200 else ""
        return _detail(answer) + (f" (renders {text[:12]})" if text else "")

    return run


def replace_reproducer(port: int, deadline: float, files: Files) -> str:
    stored = upload(port, "tokenizer.json", files.get(*REPLACE), _remaining(deadline))
    if stored.status != 201:
        return f"upload {_detail(stored)}"
    handle = json.loads(stored.body)["tokenizer"]
    answer = post_json(
        port, "/api/encode", {"tokenizer": handle, "text": "aaaa"}, _remaining(deadline)
    )
    tokens = len(json.loads(answer.body).get("ids", [])) if answer.status == 200 else 0
    return f"upload 201, encode {_detail(answer)}" + (f" ({tokens:,} ids)" if tokens else "")


def rebinding_reproducer(port: int, deadline: float, files: Files) -> str:
    answer = call(
        port,
        "POST",
        "/api/corpora",
        json.dumps({"text": "stored through a rebound name", "name": "rebound"}).encode(),
        {
            "Content-Type": "application/json",
            "Host": "evil.example:8000",
            "Origin": "http://evil.example:8000",
        },
        _remaining(deadline),
    )
    return _detail(answer) + (" (stored)" if answer.status == 201 else "")


def upload_reproducer(
    file: tuple[str, Callable[[], bytes]], filename: str
) -> Callable[[int, float, Files], str]:
    def run(port: int, deadline: float, files: Files) -> str:
        data = files.get(*file)
        return _detail(upload(port, filename, data, _remaining(deadline)))

    return run


LONG_WORD = "a" * 100_000


def long_word_reference(port: int, timeout: float) -> float:
    """Seconds `POST /api/encode` takes on a word like the page's (the page's bar is 3 x this):
    "x" * 100,000, which cl100k_base encodes in as many tokens as "a" * 100,000, after a short
    text that loads the vocabulary. Not the page's own word: the BPE model keeps each word's
    tokens, and the page would then skip the encoding."""
    post_json(port, "/api/encode", {"tokenizer": "cl100k_base", "text": "warm up"}, timeout)
    start = time.perf_counter()
    answer = post_json(
        port, "/api/encode", {"tokenizer": "cl100k_base", "text": "x" * 100_000}, timeout
    )
    if answer.status != 200:
        raise RuntimeError(f"/api/encode of the long word answered {_detail(answer)}")
    return time.perf_counter() - start


def long_word_reproducer(port: int, deadline: float, files: Files) -> str:
    body = "tokenizer=cl100k_base&text=" + LONG_WORD
    answer = call(
        port,
        "POST",
        "/",
        body.encode(),
        {"Content-Type": "application/x-www-form-urlencoded"},
        _remaining(deadline),
    )
    return _detail(answer) + f" ({len(answer.body) / 1e6:.1f} MB page)"


def slowloris_reproducer(port: int, deadline: float, files: Files) -> str:
    """300 sockets each send a request line and one header, never the blank line; then how
    many the server closes (EOF, a reset, or an answer such as 408) within 60 s."""
    partial = f"GET / HTTP/1.1\r\nHost: {HOST}:{port}\r\nX-Slow: ".encode()
    sockets = []
    try:
        for _ in range(SLOWLORIS_SOCKETS):
            s = socket.create_connection((HOST, port), timeout=5)
            s.sendall(partial)
            s.setblocking(False)
            sockets.append(s)
        start = time.monotonic()
        open_ = set(sockets)
        last_close = None
        while open_ and time.monotonic() - start < SLOWLORIS_WINDOW:
            readable, _, _ = select.select(list(open_), [], [], 0.5)
            for s in readable:
                try:
                    s.recv(65536)
                except OSError:
                    pass
                open_.discard(s)  # EOF, reset or an answer: the server let go
                last_close = time.monotonic() - start
        closed = len(sockets) - len(open_)
        when = f", the last after {last_close:.1f} s" if closed else ""
        return f"{closed}/{len(sockets)} closed within {SLOWLORIS_WINDOW:.0f} s{when}"
    finally:
        for s in sockets:
            s.close()


@dataclass
class Reproducer:
    key: str
    label: str
    run: Callable[[int, float, Files], str]
    file: tuple[str, Callable[[], bytes]] | None = None  # what it uploads: (name, maker)
    reference: Callable[[int, float], float] | None = None  # seconds of what it is compared to
    window: float | None = None  # its own time bound, instead of --timeout


REPLACE = ("20 x Replace", replace_chain)
MERGES = ("999,000 merges", many_merges)
MEMBERS = ("300,000-member zip", many_members)
PIECES = ("2e6-piece .model", many_pieces)
REPRODUCERS = [
    Reproducer("sum", "1 sum(start=[]) of [l]*300", chat_reproducer("sum")),
    Reproducer("lipsum", "1 lipsum(n=100000)", chat_reproducer("lipsum")),
    Reproducer("slice", "1 [1]|slice(10000000)", chat_reproducer("slice")),
    Reproducer("batch", "2 [1]|batch(100000000, 0)", chat_reproducer("batch")),
    Reproducer("tojson", "2 ([s]*1000)|tojson", chat_reproducer("tojson")),
    Reproducer("pprint", "2 ([s]*1000)|pprint", chat_reproducer("pprint")),
    Reproducer("replace", "3 20 x Replace a->aa, 'aaaa'", replace_reproducer, REPLACE),
    Reproducer("rebinding", "4 rebinding POST /api/corpora", rebinding_reproducer),
    Reproducer(
        "merges",
        "5 999,000 merges tokenizer.json",
        upload_reproducer(MERGES, "tokenizer.json"),
        MERGES,
    ),
    Reproducer(
        "zip", "5 zip of 300,000 members", upload_reproducer(MEMBERS, "vocab_merges.zip"), MEMBERS
    ),
    Reproducer(
        "sentencepiece",
        "5 sentencepiece, 2e6 pieces",
        upload_reproducer(PIECES, "tokenizer.model"),
        PIECES,
    ),
    Reproducer(
        "longword",
        "7 POST / one 100,000-char word",
        long_word_reproducer,
        reference=long_word_reference,
    ),
    Reproducer(
        "slowloris",
        "8 slowloris, 300 partial sockets",
        slowloris_reproducer,
        window=SLOWLORIS_WINDOW + 30,
    ),
]


@dataclass
class Row:
    label: str
    status: str
    seconds: str
    worst_wait: str
    rss_growth: float
    mark: str = ""  # "*": stalled, restarted; "+": timed out, restarted


def run_reproducer(server: Server, reproducer: Reproducer, timeout: float, files: Files) -> Row:
    """One reproducer with the prober and the sampler around it; a stalled server is killed
    and restarted afterwards."""
    window = reproducer.window or timeout
    if reproducer.file:
        files.get(*reproducer.file)  # made before the clock starts
    reference = reproducer.reference(server.port, window) if reproducer.reference else None
    assert server.proc is not None
    sampler = RssSampler(server.proc.pid)
    prober = Prober(server.port)
    sampler.start()
    prober.start()
    time.sleep(0.3)  # a probe or two of the idle server
    start = time.perf_counter()
    timed_out = False
    try:
        status = reproducer.run(server.port, time.monotonic() + window, files)
        seconds = f"{time.perf_counter() - start:.2f}"
    except (TimeoutError, socket.timeout):
        timed_out = True
        status, seconds = "timed out", f">{window:.0f}"
    except (OSError, http.client.HTTPException) as exc:
        status, seconds = f"failed: {type(exc).__name__}", f"{time.perf_counter() - start:.2f}"
    worst = prober.stop()
    if reference:
        took = time.perf_counter() - start
        status += (
            f"; {'>' if timed_out else ''}{took / reference:.1f} x /api/encode's {reference:.2f} s"
        )
    stalled = not server.answers()
    growth = sampler.stop()
    row = Row(reproducer.label, status, seconds, worst, growth)
    if stalled or timed_out:
        server.kill()
        server.start()
        row.mark = "*" if stalled else "+"
    prober.join(timeout=5)
    return row


def run_reproducers(args: argparse.Namespace, workdir: Path) -> None:
    chosen = [r for r in REPRODUCERS if not args.only or r.key in args.only]
    server = Server(args.code, workdir, sandbox_workers=args.sandbox_workers)
    files = Files()
    rows: list[Row] = []
    server.start()
    print(f"uvicorn: {' '.join(server.command()[1:])}", flush=True)
    try:
        for reproducer in chosen:
            print(f" - {reproducer.label} ...", flush=True)
            row = run_reproducer(server, reproducer, args.timeout, files)
            rows.append(row)
            print(
                f"   {row.status}; {row.seconds} s; worst GET / {row.worst_wait} s; "
                f"+{row.rss_growth:.0f} MB" + (f"; {RESTARTS[row.mark]}" if row.mark else ""),
                flush=True,
            )
    finally:
        server.stop()
    print_table(rows, args.timeout)


RESTARTS = {
    "*": f"the server did not answer GET / within {STALL_CHECK:.0f} s after it: killed "
    "and restarted",
    "+": f"it timed out, and the server answered GET / within {STALL_CHECK:.0f} s, but "
    "its work may go on there: killed and restarted",
}


def print_table(rows: list[Row], timeout: float) -> None:
    header = ("reproducer", "status", "time s", "worst GET / wait s", "tree RSS growth MB")
    cells = [
        (
            r.label + (f" {r.mark}" if r.mark else ""),
            compact(r.status),
            r.seconds,
            r.worst_wait,
            f"{r.rss_growth:.0f}",
        )
        for r in rows
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header)]
    print()
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
    print("-|-".join("-" * w for w in widths))
    for c in cells:
        print(" | ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip())
    print(
        f"client timeout {timeout:.0f} s (the slowloris: {SLOWLORIS_WINDOW:.0f} s); "
        f'">" in the wait: a probe still unanswered when the reproducer ended'
    )
    for mark in sorted({r.mark for r in rows if r.mark}):
        print(f"{mark} {RESTARTS[mark]}")


# ---- interactive latency and load ----------------------------------------------------------------
def text_slices(shared: Path, size: int = 2048) -> list[str]:
    """2 KB slices of Botchan (from the shared data), from its second third on."""
    text = (shared / "data" / "corpora" / "botchan.txt").read_text(encoding="utf-8")
    start = len(text) // 3
    return [text[i : i + size] for i in range(start, len(text) - size, size)]


def llama3_path(shared: Path) -> Path:
    path = shared / "data" / "interop" / "converted" / "llama3.tokenizer.json"
    if not path.exists():
        raise SystemExit(f"{path} is missing: --shared names the folder holding data/")
    return path


def upload_llama3(port: int, shared: Path) -> str:
    stored = upload(port, "llama3.tokenizer.json", llama3_path(shared).read_bytes(), 300)
    if stored.status != 201:
        raise RuntimeError(f"uploading Llama 3 answered {_detail(stored)}")
    return json.loads(stored.body)["tokenizer"]


def run_latency(args: argparse.Namespace, workdir: Path) -> None:
    server = Server(args.code, workdir, sandbox_workers=args.sandbox_workers)
    server.start()
    print(
        f"\n== interactive latency: {args.requests} sequential POST /api/encode (and the "
        f"visualiser's fragment, POST /) of 2 KB, one "
        f"worker; uvicorn {' '.join(server.command()[3:])}",
        flush=True,
    )
    try:
        handle = upload_llama3(server.port, args.shared)
        slices = text_slices(args.shared)
        print(
            f"   {'tokenizer':<26}{'n':>5}{'non-200':>9}   server ms p50/p95/p99"
            f"   client ms p50/p95/p99"
        )
        rows = [
            ("uploaded Llama 3", handle, encode),
            ("bundled cl100k_base", "cl100k_base", encode),
            ("uploaded Llama 3, page", handle, fragment),
            ("bundled cl100k_base, page", "cl100k_base", fragment),
        ]
        for label, name, send in rows:
            for text in slices[:10]:  # warm-up
                send(server.port, name, text)
            own, client, bad = [], [], 0
            for i in range(args.requests):
                start = time.perf_counter()
                answer = send(server.port, name, slices[i % len(slices)])
                client.append(time.perf_counter() - start)
                bad += answer.status != 200
                if (ms := server_ms(answer)) is not None:
                    own.append(ms / 1000)
            print(f"   {label:<26}{len(client):>5}{bad:>9}   {_three(own):<24}{_three(client)}")
    finally:
        server.stop()


def encode(port: int, name: str, text: str) -> Answer:
    """`POST /api/encode`: what the live visualiser's encode costs."""
    return post_json(port, "/api/encode", {"tokenizer": name, "text": text}, 60)


def fragment(port: int, name: str, text: str) -> Answer:
    """The visualiser's own fragment as htmx asks for it while one types (`POST /`, the form,
    `HX-Request`): the encode and the page's HTML (chips, tooltips, the pipeline's steps)."""
    body = urllib.parse.urlencode({"tokenizer": name, "text": text}).encode()
    return call(
        port,
        "POST",
        "/",
        body,
        {"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"},
        60,
    )


def _three(values: list[float]) -> str:
    return "/".join(f"{pct(values, q) * 1000:.1f}" for q in (50, 95, 99))


Request = tuple[str, str, bytes | None]  # method, path, body


def load_mix(
    slices: list[str], handle: str
) -> list[tuple[str, Callable[[random.Random], Request]]]:
    """(name, a function of a random source giving (method, path, body)) of each kind."""

    def encode(tokenizer: str):
        return lambda rnd: (
            "POST",
            "/api/encode",
            json.dumps({"tokenizer": tokenizer, "text": rnd.choice(slices)}).encode(),
        )

    def chat(rnd: random.Random):
        text = rnd.choice(slices)
        return (
            "POST",
            "/api/chat",
            json.dumps(
                {
                    "tokenizer": "cl100k_base",
                    "template_name": "llama3",
                    "messages": [
                        {"role": "system", "content": "You are a careful reader."},
                        {"role": "user", "content": text[:600]},
                        {"role": "assistant", "content": text[600:1200]},
                    ],
                }
            ).encode(),
        )

    return [
        ("encode uploaded Llama 3", encode(handle)),
        ("encode cl100k_base", encode("cl100k_base")),
        ("encode bert-base-uncased", encode("bert-base-uncased")),
        ("chat llama3 template", chat),
        ("GET /", lambda rnd: ("GET", "/", None)),
    ]


def _send(conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None) -> int:
    conn.request(
        method,
        path,
        body=body,
        headers={"Content-Type": "application/json"} if body is not None else {},
    )
    response = conn.getresponse()
    response.read()
    return response.status


def warm_up(port: int, mix: list, workers: int) -> None:
    """Each kind of request answered 200 on fresh connections, 4 times per worker (every
    worker parses the uploaded tokenizer once)."""
    deadline = time.monotonic() + 300
    rnd = random.Random(0)
    for name, make in mix:
        ok = 0
        while ok < 4 * workers:
            status = call(
                port, *make(rnd), headers={"Content-Type": "application/json"}, timeout=300
            ).status
            ok = ok + 1 if status == 200 else 0
            if time.monotonic() > deadline:
                raise RuntimeError(f"warm-up of {name} did not settle (last status {status})")


def load_run(port: int, mix: list, clients: int, duration: float) -> tuple[float, dict, dict]:
    """(seconds, latencies per name, statuses per name: 0 for a failed connection)."""
    latencies: dict[str, list[float]] = {name: [] for name, _ in mix}
    statuses: dict[str, Counter] = {name: Counter() for name, _ in mix}
    lock = threading.Lock()
    stop_at = time.monotonic() + duration

    def client(seed: int) -> None:
        rnd = random.Random(seed)
        conn = http.client.HTTPConnection(HOST, port, timeout=120)
        while time.monotonic() < stop_at:
            name, make = rnd.choice(mix)
            start = time.perf_counter()
            try:
                status = _send(conn, *make(rnd))
            except (OSError, http.client.HTTPException):
                status = 0
                conn.close()
                conn = http.client.HTTPConnection(HOST, port, timeout=120)
            elapsed = time.perf_counter() - start
            with lock:
                latencies[name].append(elapsed)
                statuses[name][status] += 1
        conn.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.monotonic() - start, latencies, statuses


def run_load(args: argparse.Namespace, workdir: Path) -> None:
    slices = text_slices(args.shared)
    for workers in args.workers:
        server = Server(args.code, workdir, workers=workers, sandbox_workers=args.sandbox_workers)
        server.start()
        try:
            assert server.proc is not None
            idle = tree_rss_mb(server.proc.pid)
            mix = load_mix(slices, upload_llama3(server.port, args.shared))
            warm_up(server.port, mix, workers)
            sampler = RssSampler(server.proc.pid)
            sampler.start()
            seconds, latencies, statuses = load_run(server.port, mix, args.clients, args.duration)
            sampler.stop()
        finally:
            server.stop()
        total = sum(len(v) for v in latencies.values())
        print(
            f"\n== load: {workers} worker{'s' if workers > 1 else ''}, {args.clients} clients, "
            f"{seconds:.0f} s: {total} requests, {total / seconds:.1f} req/s; RSS of the "
            f"server's tree {idle:.0f} MB idle, {sampler.before:.0f} MB after warm-up, "
            f"peak {sampler.peak:.0f} MB"
        )
        print(f"   uvicorn {' '.join(server.command()[3:])}")
        print(
            f"   {'endpoint':<26}{'n':>7}{'4xx':>6}{'422':>6}{'5xx':>6}{'conn':>6}"
            f"{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}"
        )
        every: list[float] = []
        sums = Counter()
        for name, _ in mix:
            counts = statuses[name]
            row = (
                sum(n for s, n in counts.items() if 400 <= s < 500),
                counts[422],
                sum(n for s, n in counts.items() if s >= 500),
                counts[0],
            )
            sums.update(dict(zip("abcd", row)))
            every += latencies[name]
            print(
                f"   {name:<26}{len(latencies[name]):>7}"
                + "".join(f"{v:>6}" for v in row)
                + "".join(f"{pct(latencies[name], q) * 1000:>9.0f}" for q in (50, 95, 99))
            )
        print(
            f"   {'all':<26}{len(every):>7}"
            + "".join(f"{sums[k]:>6}" for k in "abcd")
            + "".join(f"{pct(every, q) * 1000:>9.0f}" for q in (50, 95, 99))
        )


# ---- main ----------------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--code", type=Path, default=ROOT, help="the checkout to serve (default: this one)"
    )
    parser.add_argument(
        "--shared",
        type=Path,
        default=SHARED,
        help="the folder holding data/ (Llama 3's tokenizer.json, Botchan)",
    )
    parser.add_argument(
        "--reproducers",
        action="store_true",
        help="the reproducers (the default when no mode is given)",
    )
    parser.add_argument("--latency", action="store_true", help="interactive latency")
    parser.add_argument("--load", action="store_true", help="the 50-client load")
    parser.add_argument(
        "--only",
        default="",
        help="reproducers to run, comma-separated: " + ",".join(r.key for r in REPRODUCERS),
    )
    parser.add_argument(
        "--timeout", type=float, default=30.0, help="client timeout of each reproducer, seconds"
    )
    parser.add_argument(
        "--sandbox-workers",
        type=int,
        default=None,
        help="TOKVIS_SANDBOX_WORKERS for the server (0: untrusted work in the "
        "serving process); default: unset",
    )
    parser.add_argument("--requests", type=int, default=200, help="--latency: requests")
    parser.add_argument("--duration", type=float, default=60.0, help="--load: seconds per run")
    parser.add_argument("--clients", type=int, default=50, help="--load: clients")
    parser.add_argument("--workers", default="1,2", help="--load: uvicorn worker counts")
    args = parser.parse_args()
    args.code = args.code.resolve()
    args.shared = args.shared.resolve()
    args.only = {k.strip() for k in args.only.split(",") if k.strip()}
    unknown = args.only - {r.key for r in REPRODUCERS}
    if unknown:
        parser.error(f"--only: no reproducer {', '.join(sorted(unknown))}")
    args.workers = [int(w) for w in args.workers.split(",")]
    if not 1 <= args.timeout <= 300:
        parser.error("--timeout must be between 1 and 300 seconds")
    if not 1 <= args.duration <= 600:
        parser.error("--duration must be between 1 and 600 seconds")
    if not 1 <= args.requests <= 10_000 or not 1 <= args.clients <= 500:
        parser.error("--requests must be 1..10000 and --clients 1..500")
    if not args.latency and not args.load:
        args.reproducers = True
    _, remark = make_run_args(args.code)
    sandbox = "unset" if args.sandbox_workers is None else str(args.sandbox_workers)
    print(
        f"code {args.code}; TOKVIS_SANDBOX_WORKERS {sandbox}; {os.cpu_count()} cores, load "
        f"average {os.getloadavg()[0]:.1f}" + (f"; {remark}" if remark else ""),
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="bench_sandbox-") as tmp:
        started = time.monotonic()
        if args.reproducers:
            run_reproducers(args, Path(tmp))
        if args.latency:
            run_latency(args, Path(tmp))
        if args.load:
            run_load(args, Path(tmp))
        print(f"\n(the run took {time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

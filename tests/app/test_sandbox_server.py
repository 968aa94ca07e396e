"""Hostile requests (the sandbox's reproducers) against a real uvicorn with one worker (as `make
run` serves): each ends in a clear 4xx, every `GET /` sent meanwhile is answered, and the server's
whole process tree (the sandbox's children included, by their proportional set sizes) grows by less
than 500 MB while it runs.

Nothing here asserts a duration: a probe or a request that gets no answer in 60 s is a failure,
which is a hang, not a slow machine. benchmarks/bench_sandbox.py measures the times."""

from __future__ import annotations

import http.client
import json
import threading
import time
from pathlib import Path

import pytest
from job_helpers import until

from tests.servers import run_uvicorn

ROOT = Path(__file__).resolve().parents[2]
MB = 2**20

CHAT_REPRODUCERS = {
    "sum": "{% set l = range(100000)|list %}{{ ([l] * 300)|sum(start=[])|length }}",
    "lipsum": "{{ lipsum(n=100000) }}",
    "slice": "{{ [1]|slice(10000000) }}",
    "batch": "{{ [1]|batch(100000000, 0)|list|length }}",
    "tojson": "{% set s = 'x' * 1000000 %}{{ ([s] * 1000)|tojson|length }}",
    "pprint": "{% set s = 'x' * 1000000 %}{{ ([s] * 1000)|pprint|length }}",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """(port, pid) of a uvicorn serving the app with one worker, on its own store."""
    env = {"TOKVIS_DB": str(tmp_path_factory.mktemp("sandbox") / "store.sqlite3")}
    with run_uvicorn(env=env, stop_timeout=30) as started:
        yield started.port, started.pid


def _request(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict | None = None,
    timeout: float = 60,
) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def _get(port: int, path: str, timeout: float = 60) -> tuple[int, bytes]:
    try:
        return _request(port, "GET", path, timeout=timeout)
    except OSError:
        return 0, b""


def _tree_memory(pid: int) -> int:
    """Bytes of memory `pid` and all its descendants take: the sum of their proportional set
    sizes (Pss, /proc/PID/smaps_rollup), where a page shared by n processes counts 1/n in each.
    The sandbox's children come from one fork server and share most of their pages: summing
    their resident sizes (VmRSS) counted those pages once per child, so a pool's children
    starting during a test looked like 65 MB each of growth where they take 9. (VmRSS where the
    kernel has no smaps_rollup.)"""
    total = 0
    for p in [pid, *_descendants(pid)]:
        try:
            rollup = Path(f"/proc/{p}/smaps_rollup").read_text()
            total += int(rollup.split("Pss:")[1].split()[0]) * 1024
            continue
        except (OSError, IndexError):
            pass
        try:
            status = Path(f"/proc/{p}/status").read_text()
            total += int(status.split("VmRSS:")[1].split()[0]) * 1024
        except (OSError, IndexError):
            continue
    return total


def _while_probing(server, send):
    """Run `send()` while one thread sends `GET /` every 100 ms and another samples the
    server's tree memory (`_tree_memory`): (send's result, the probes' statuses, the peak growth
    in bytes)."""
    port, pid = server
    base = _tree_memory(pid)
    peak = [base]
    statuses: list[int] = []
    done = threading.Event()

    def probe():
        while not done.is_set():
            statuses.append(_get(port, "/")[0])
            done.wait(0.1)

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], _tree_memory(pid))
            done.wait(0.05)

    threads = [threading.Thread(target=probe), threading.Thread(target=sample)]
    for t in threads:
        t.start()
    try:
        result = send()
    finally:
        done.set()
        for t in threads:
            t.join()
    return result, statuses, peak[0] - base


@pytest.mark.heavy
@pytest.mark.parametrize("name", sorted(CHAT_REPRODUCERS))
def test_a_hostile_chat_template_ends_in_a_4xx_and_stalls_nobody(server, name):
    body = json.dumps(
        {"messages": [{"role": "user", "content": "hi"}], "template": CHAT_REPRODUCERS[name]}
    ).encode()
    (status, answer), probes, growth = _while_probing(
        server,
        lambda: _request(
            server[0], "POST", "/api/chat", body, {"Content-Type": "application/json"}
        ),
    )
    assert 400 <= status < 500, answer[:300]
    assert "detail" in json.loads(answer)
    assert probes and set(probes) == {200}, probes
    assert growth < 500 * MB, f"the process tree grew by {growth / MB:.0f} MB"


@pytest.mark.heavy
def test_an_amplifying_normaliser_ends_in_a_422_naming_it(server):
    """Issue 27, item 3: 20 Replace "a" -> "aa" made "aaaa" 4,194,304 characters."""
    port, _ = server
    data = json.dumps(
        {
            "version": "1.0",
            "added_tokens": [],
            "pre_tokenizer": None,
            "post_processor": None,
            "decoder": None,
            "truncation": None,
            "padding": None,
            "normalizer": {
                "type": "Sequence",
                "normalizers": [{"type": "Replace", "pattern": {"String": "a"}, "content": "aa"}]
                * 20,
            },
            "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]"},
        }
    ).encode()
    boundary = "tokvisboundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="tokenizer.json"\r\nContent-Type: application/json\r\n\r\n'
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    status, answer = _request(
        port,
        "POST",
        "/api/tokenizers",
        body,
        {"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert status == 201, answer[:300]
    handle = json.loads(answer)["tokenizer"]
    encode = json.dumps({"tokenizer": handle, "text": "aaaa"}).encode()
    (status, answer), probes, growth = _while_probing(
        server,
        lambda: _request(port, "POST", "/api/encode", encode, {"Content-Type": "application/json"}),
    )
    assert status == 422, answer[:300]
    assert "Replace" in json.loads(answer)["detail"]
    assert set(probes) <= {200} and growth < 500 * MB


@pytest.mark.heavy
def test_the_sandboxs_children_are_the_servers_and_go_with_it(server):
    """The warm pool is there (children of the server process), ready before any request."""
    port, pid = server
    assert until(lambda: len(_descendants(pid)) >= 2, timeout=60)
    assert time.monotonic()  # (nothing timed: the pool's children exist)


def _descendants(pid: int) -> list[int]:
    """Every process below `pid`, from the parent ids in /proc/*/stat (this kernel has no
    /proc/<pid>/task/*/children)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, stack = [], [pid]
    while stack:
        below = children.get(stack.pop(), [])
        found += below
        stack += below
    return found

"""A real server for the tests that need one: `run_uvicorn` starts the app in a subprocess on a
free port, polls until it answers, and stops it (and its process group) at the end.

The one way the tests start a server: a fixed sleep would guess how long a start takes on a busy
machine, so the start polls (tests/polling.py) and its timeout is only a ceiling for a server that
never answers. A test that must stop the server its own way (kill it with -9 mid-request, say) uses
`start_uvicorn` and `stop`, which `run_uvicorn` is made of.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.polling import wait_until

ROOT = Path(__file__).resolve().parent.parent
HTTP_PROTOCOL = "app.serving:HeaderTimeoutProtocol"  # uvicorn's --http, as `make run` serves
READY_PATH = "/api/tokenizers"  # a cheap page every app answers once it is up


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (the system picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A started server: its process, its port and its base URL (no slash at the end)."""

    proc: subprocess.Popen
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.proc.pid


def answers(url: str) -> bool:
    """Whether `url` answers at all (any complete response; a refused connection is False)."""
    try:
        urllib.request.urlopen(url, timeout=2).read()
        return True
    except OSError:
        return False


def start_uvicorn(
    *args: str,
    env: dict[str, str] | None = None,
    unset: Sequence[str] = (),
    command: Sequence[str] | None = None,
    log_level: str = "warning",
    cwd: Path = ROOT,
    timeout: float = 60,
    stdout=None,
    stderr=None,
) -> Server:
    """Start the app's server on a free port and return it once `READY_PATH` answers.

    By default `python -m uvicorn app.main:app` on 127.0.0.1 with `args` added (`"--workers",
    "2"`); `command` replaces that prefix (`["tokvis", "serve", "--db", ...]`), and `--port N` is
    appended either way. `env` is added to this process's environment, and the names in `unset`
    taken out of it. The server starts in a
    session of its own, so that `stop` reaches its children too. A server that exits or does not
    answer within `timeout` seconds is stopped and a RuntimeError says so (with its stderr when
    that is a pipe)."""
    port = free_port()
    if command is None:
        command = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1"]
        command = [*command, "--log-level", log_level]
    environ = {**os.environ, **(env or {})}
    for name in unset:
        environ.pop(name, None)
    proc = subprocess.Popen(
        [*command, *args, "--port", str(port)],
        cwd=cwd,
        env=environ,
        stdout=stdout,
        stderr=stderr,
        start_new_session=True,
    )
    server = Server(proc, port)
    up = wait_until(
        lambda: answers(server.url + READY_PATH) or proc.poll() is not None, timeout, 0.2
    )
    if not up or proc.poll() is not None:
        said = (
            proc.stderr.read().decode(errors="replace")[-2000:] if stderr == subprocess.PIPE else ""
        )
        stop(server, signal.SIGKILL)
        kill_group(server)
        raise RuntimeError(f"the server did not start: {' '.join(map(str, command))} {said}")
    return server


def stop(server: Server, sig: int = signal.SIGTERM, timeout: float = 15) -> None:
    """Send `sig` to the server process alone and wait for it: its children must end on their
    own, as they do when a supervisor stops it (a test checks that they do before `kill_group`)."""
    proc = server.proc
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def kill_group(process: Server | subprocess.Popen) -> None:
    """SIGKILL the process group a server (or another process started in a session of its own)
    leads: the process and every child it left."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@contextmanager
def run_uvicorn(*args: str, stop_timeout: float = 15, **options) -> Iterator[Server]:
    """`start_uvicorn(*args, **options)`, stopped (with its group) when the block ends: `with
    run_uvicorn(env={"TOKVIS_DB": db}) as server:` then requests to `server.url`."""
    server = start_uvicorn(*args, **options)
    try:
        yield server
    finally:
        stop(server, timeout=stop_timeout)
        kill_group(server)


def post_shards(base: str, texts: list[str], stem: str = "part") -> dict:
    """POST `texts` to a running server's `/api/corpora/shards`, one file a shard
    (`{stem}-{n}.txt`), as a multipart upload; its JSON answer (the corpus and its shards)."""
    boundary = uuid.uuid4().hex
    body = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
        f'filename="{stem}-{n}.txt"\r\nContent-Type: text/plain\r\n\r\n'.encode()
        + text.encode()
        + b"\r\n"
        for n, text in enumerate(texts)
    )
    req = urllib.request.Request(
        base + "/api/corpora/shards",
        data=body + f"--{boundary}--\r\n".encode(),
        method="POST",
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())

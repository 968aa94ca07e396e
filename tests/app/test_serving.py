"""Slow clients (slowloris): a connection whose request head (request line and headers)
is not all here within TOKVIS_HEADER_TIMEOUT seconds is closed (app/serving.py), while requests
that arrive in pieces but in time are answered as before.

Against a real uvicorn, as `make run` starts it, with a 2-second deadline. The tests never assert
how fast the server closes a socket, only that it does, within a generous bound: the machine
running them may be busy.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.servers import HTTP_PROTOCOL, run_uvicorn

ROOT = Path(__file__).resolve().parents[2]
HEADER_TIMEOUT = 2  # seconds, for the server under test
BOUND = 30  # seconds within which a late socket must be closed


@pytest.fixture(scope="module")
def server_and_log(tmp_path_factory) -> tuple[str, int, Path, Path]:
    """The server, the file its log goes to (uvicorn's INFO lines, no access log) and its store."""
    folder = tmp_path_factory.mktemp("serving")
    store, log = folder / "store.sqlite3", folder / "server.log"
    env = {
        "TOKVIS_HEADER_TIMEOUT": str(HEADER_TIMEOUT),
        "TOKVIS_DB": str(store),
        "TOKVIS_SANDBOX_WORKERS": "0",
    }
    with (
        log.open("w") as log_file,
        run_uvicorn(
            *("--no-access-log", "--http", HTTP_PROTOCOL, "--timeout-keep-alive", "5"),
            env=env,
            unset=["TOKVIS_DATABASE_URL"],
            log_level="info",
            stderr=log_file,
        ) as server,
    ):
        yield "127.0.0.1", server.port, log, store


@pytest.fixture(scope="module")
def server(server_and_log) -> tuple[str, int]:
    return server_and_log[:2]


def _connect(server) -> socket.socket:
    sock = socket.create_connection(server, timeout=BOUND)
    sock.settimeout(0.2)
    return sock


def _closed_within(sock: socket.socket, seconds: float, trickle: bytes = b"") -> bytes:
    """Poll until the server closes `sock` (returns what it sent before closing), sending one
    byte of `trickle` between polls as a slow client would; fails after `seconds`."""
    got, deadline = b"", time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if trickle:
                sock.sendall(trickle[:1])
                trickle = trickle[1:]
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return got
        if not chunk:
            return got
        got += chunk
    pytest.fail(f"the server kept the socket open for {seconds} s")


def _answer(sock: socket.socket) -> bytes:
    """Read one response to a `Connection: close` request (the server closes after it)."""
    sock.settimeout(BOUND)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


@pytest.mark.heavy
def test_a_partial_request_line_is_closed(server):
    sock = _connect(server)
    sock.sendall(b"GET /api/tokeni")
    got = _closed_within(sock, BOUND)
    assert got.startswith(b"HTTP/1.1 408 ") and b"TOKVIS_HEADER_TIMEOUT" in got


@pytest.mark.heavy
def test_headers_sent_a_byte_at_a_time_forever_are_closed(server):
    """The slowloris client: each poll sends one more byte of a header that never ends."""
    sock = _connect(server)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    got = _closed_within(sock, BOUND, trickle=b"X-Slow: " + b"a" * 10_000)
    assert got == b"" or got.startswith(b"HTTP/1.1 408 ")


@pytest.mark.heavy
def test_a_connection_that_sends_nothing_is_closed_silently(server):
    assert _closed_within(_connect(server), BOUND) == b""


@pytest.mark.heavy
def test_many_slow_sockets_are_all_closed_and_others_are_served_meanwhile(server):
    socks = [_connect(server) for _ in range(30)]
    for sock in socks:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    with urllib.request.urlopen("http://%s:%d/api/tokenizers" % server, timeout=BOUND) as r:
        assert r.status == 200
    for sock in socks:
        _closed_within(sock, BOUND)


@pytest.mark.heavy
def test_a_complete_request_is_answered(server):
    sock = _connect(server)
    sock.sendall(b"GET /api/tokenizers HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert _answer(sock).startswith(b"HTTP/1.1 200 ")


@pytest.mark.heavy
def test_a_head_that_trickles_in_but_completes_in_time_is_answered(server):
    """Five pieces 0.05 s apart: complete well within the 2-second deadline."""
    sock = _connect(server)
    head = b"GET /api/tokenizers HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    for i in range(0, len(head), len(head) // 5 + 1):
        sock.sendall(head[i : i + len(head) // 5 + 1])
        time.sleep(0.05)
    assert _answer(sock).startswith(b"HTTP/1.1 200 ")


@pytest.mark.heavy
def test_a_kept_alive_connection_serves_its_next_request_but_not_a_late_head(server):
    """After an answered request the clock restarts with the next request's first bytes."""
    sock = _connect(server)
    sock.settimeout(BOUND)
    sock.sendall(b"GET /api/tokenizers HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    first = sock.recv(65536)
    assert first.startswith(b"HTTP/1.1 200 ")
    sock.settimeout(0.2)
    try:  # the rest of the first answer, if it came in pieces
        while sock.recv(65536):
            pass
    except socket.timeout:
        pass
    sock.sendall(b"GET /api/tokenizers HTTP/1.1\r\nHo")
    got = _closed_within(sock, BOUND)
    assert got == b"" or got.startswith(b"HTTP/1.1 408 ")


# ---- what serves through it ----------------------------------------------------------------------------
def test_tokvis_serve_uses_the_protocol(monkeypatch):
    import uvicorn

    from app.cli import main
    from app.serving import HeaderTimeoutProtocol

    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: seen.update(kw))
    main(["serve", "--port", "8123"])
    assert seen["http"] is HeaderTimeoutProtocol and seen["timeout_keep_alive"] == 5
    main(["serve", "--port", "8123", "--workers", "2"])
    assert seen["http"] == HTTP_PROTOCOL


def test_make_run_and_the_test_server_use_the_protocol():
    servers = (ROOT / "tests" / "servers.py").read_text(encoding="utf-8")
    assert f'HTTP_PROTOCOL = "{HTTP_PROTOCOL}"' in servers
    conftest = (ROOT / "tests" / "conftest.py").read_text(encoding="utf-8")
    assert '"--http", HTTP_PROTOCOL' in conftest
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    run = makefile[makefile.index("\nrun:") : makefile.index("\ntest:")]
    assert f"--http {HTTP_PROTOCOL}" in run and "--timeout-keep-alive 5" in run


def test_a_bad_timeout_is_a_value_error_naming_the_setting(monkeypatch):
    from app.config import header_timeout_from_env

    for bad in ("soon", "0", "-1", "inf"):
        monkeypatch.setenv("TOKVIS_HEADER_TIMEOUT", bad)
        with pytest.raises(ValueError, match="TOKVIS_HEADER_TIMEOUT"):
            header_timeout_from_env()
    monkeypatch.setenv("TOKVIS_HEADER_TIMEOUT", "2.5")
    assert header_timeout_from_env() == 2.5


# ---- where the store is --------------------------------------------------------------------
@pytest.mark.heavy
def test_the_server_says_which_store_it_opened(server_and_log):
    """Its first lines name the store (issue 38, item 8: a fresh clone's pickers listed another
    checkout's corpora, from the per-user default store, and nothing said so)."""
    from app.db import database_url

    _host, _port, log, store = server_and_log
    said = [line for line in log.read_text(encoding="utf-8").splitlines() if "store: " in line]
    assert said, f"no 'store: ' line in the server's log: {log.read_text(encoding='utf-8')}"
    assert said[0].endswith(f"store: {database_url(store)}"), said


def _make_run_lines(**env: str) -> list[str]:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    environ = {k: v for k, v in os.environ.items() if k not in ("TOKVIS_DB", "MAKEFLAGS")}
    out = subprocess.run(
        ["make", "-n", "run"], cwd=ROOT, env={**environ, **env}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return [
        line
        for line in out.stdout.splitlines()
        if "app.cli db upgrade" in line or "uvicorn" in line
    ]


def test_make_run_keeps_its_store_in_the_checkout():
    """`make run` serves (and migrates) a store in this checkout, which git ignores, unless
    TOKVIS_DB names another."""
    lines = _make_run_lines()
    assert len(lines) == 2, lines
    own = f"TOKVIS_DB='{ROOT}/.tokvis/store.sqlite3' "
    assert all(line.startswith(own) for line in lines), lines
    assert "/.tokvis/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    chosen = _make_run_lines(TOKVIS_DB="/srv/tokvis/store.sqlite3")
    assert all(line.startswith("TOKVIS_DB='/srv/tokvis/store.sqlite3' ") for line in chosen)

"""The server answers only the hosts it is configured for (DNS rebinding).

A page on evil.example whose DNS name an attacker rebinds to 127.0.0.1 makes the browser send
`Host: evil.example:8000` and, for its writes, `Origin: http://evil.example:8000`: the same
origin as far as the cross-site check can tell, so only the Host says the request is not for
us. Allowed: 127.0.0.1, localhost and [::1] (any port), and what TOKVIS_ALLOWED_HOSTS adds
(tests/conftest.py adds `testserver`, the TestClient's own Host). Everything else gets 400.
"""

from __future__ import annotations

import hashlib

import pytest
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from app.config import Settings, allowed_hosts_from_env, host_patterns
from app.main import create_app
from app.security import HostCheck

EVIL = "evil.example:8000"
ADDED = "tokvis.example.org *.course.example"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """The app with TOKVIS_ALLOWED_HOSTS naming testserver and two more (no sandbox: nothing
    here parses a file)."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("TOKVIS_ALLOWED_HOSTS", f"testserver {ADDED}")
        settings = Settings(
            db_path=tmp_path_factory.mktemp("hosts") / "store.sqlite3",
            max_text_chars=20_000,
            max_corpus_bytes=2_000_000,
            max_upload_bytes=2_000_000,
            regex_timeout=0.5,
            sandbox_workers=0,
        )
    with TestClient(create_app(settings)) as c:
        yield c


def _stored(client, text: str) -> bool:
    sha = hashlib.sha256(text.encode()).hexdigest()
    return client.get(f"/api/corpora/{sha}").status_code == 200


# ---- refused ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "method, path, kwargs",
    [
        ("GET", "/", {}),
        ("GET", "/api/tokenizers", {}),
        ("POST", "/corpora", {"data": {"text": "rebound page form"}}),
        ("POST", "/api/corpora", {"json": {"text": "rebound page json"}}),
        ("POST", "/api/corpora/upload", {"files": {"file": ("c.txt", b"rebound page upload")}}),
        ("POST", "/api/tokenizers", {"files": {"file": ("v.txt", b"[UNK]\nplay\n##ing\n")}}),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_rebound_page_gets_400_and_stores_nothing(client, method, path, kwargs):
    """The attacker's page sends its own name as Host and a matching Origin."""
    r = client.request(method, path, headers={"Host": EVIL, "Origin": f"http://{EVIL}"}, **kwargs)
    assert r.status_code == 400
    if path.startswith("/api"):
        detail = r.json()["detail"]
    else:
        assert r.headers["content-type"].startswith("text/plain")
        detail = r.text
    assert "'evil.example:8000'" in detail and "TOKVIS_ALLOWED_HOSTS" in detail
    for text in ("rebound page form", "rebound page json", "rebound page upload"):
        assert not _stored(client, text)


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "127.0.0.1.evil.example",
        "localhost.evil.example",
        "course.example",
        "evilcourse.example",
        "[::2]:8000",
        "tokvis.example.org.evil.example",
    ],
)
def test_names_that_only_look_allowed_are_refused(client, host):
    """A wildcard allows subdomains only, and no name is matched by its prefix."""
    assert client.get("/api/tokenizers", headers={"Host": host}).status_code == 400


def test_the_refusal_still_carries_the_security_headers(client):
    r = client.get("/", headers={"Host": EVIL})
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert "default-src 'self'" in r.headers["Content-Security-Policy"]


# ---- answered ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "host",
    [
        "localhost:8000",
        "localhost",
        "127.0.0.1",
        "127.0.0.1:8000",
        "[::1]:8000",
        "[::1]",
        "LocalHost:8000",  # host names are case-insensitive
        "testserver",
        "tokvis.example.org",
        "tokvis.example.org:443",
        "a.course.example",
        "b.a.course.example:8000",
    ],
)
def test_the_configured_hosts_are_answered_on_any_port(client, host):
    """`[::1]:8000` is host `[::1]`, port 8000: Starlette's parser keeps the brackets (one that
    split at the first colon would see `[`, and refuse the loopback address)."""
    r = client.get("/api/tokenizers", headers={"Host": host})
    assert r.status_code == 200, (host, r.text)


def test_a_write_from_an_allowed_host_goes_through(client):
    r = client.post(
        "/api/corpora",
        json={"text": "from localhost"},
        headers={"Host": "localhost:8000", "Origin": "http://localhost:8000"},
    )
    assert r.status_code == 201
    assert _stored(client, "from localhost")


# ---- the setting ---------------------------------------------------------------------------------------
def test_the_setting_adds_to_the_defaults(monkeypatch, tmp_path):
    """Settings built directly (as the tests build them) read the variable too."""
    monkeypatch.setenv("TOKVIS_ALLOWED_HOSTS", "Tokvis.Example.org, 10.0.0.7 ::1  localhost")
    settings = Settings(
        db_path=tmp_path / "s.sqlite3",
        max_text_chars=1,
        max_corpus_bytes=1,
        max_upload_bytes=1,
        regex_timeout=0.5,
    )
    assert settings.allowed_hosts == (
        "127.0.0.1",
        "localhost",
        "[::1]",
        "tokvis.example.org",
        "10.0.0.7",
    )
    monkeypatch.delenv("TOKVIS_ALLOWED_HOSTS")
    assert allowed_hosts_from_env() == ("127.0.0.1", "localhost", "[::1]")


@pytest.mark.parametrize(
    "raw, says",
    [
        ("tokvis.example.org:8000", "has a port"),
        ("http://tokvis.example.org", "is a URL"),
        ("tokvis.*.org", "is not a host name"),
        ("*example.org", "is not a host name"),
        ("[::1]:8000", "has a port"),
    ],
)
def test_a_bad_name_is_a_value_error_naming_the_setting(monkeypatch, raw, says):
    monkeypatch.setenv("TOKVIS_ALLOWED_HOSTS", raw)
    with pytest.raises(ValueError, match=f"TOKVIS_ALLOWED_HOSTS: .*{says}"):
        Settings.from_env()


def test_ipv6_addresses_are_written_as_the_host_header_carries_them():
    assert host_patterns("::1 [0:0::1] 2001:DB8::1") == ("[::1]", "[2001:db8::1]")


def test_a_star_answers_every_host(monkeypatch):
    monkeypatch.setenv("TOKVIS_ALLOWED_HOSTS", "*")
    app = _tiny(allowed_hosts_from_env())
    assert TestClient(app).get("/", headers={"Host": EVIL}).status_code == 200


# ---- what Starlette's middleware decides, seen on a tiny app ---------------------------------------------
def _tiny(allowed: tuple[str, ...]) -> HostCheck:
    hello = Starlette(routes=[Route("/", lambda request: PlainTextResponse("hello"))])
    return HostCheck(hello, allowed_hosts=allowed)


def test_a_request_with_no_host_header_is_refused():
    """HTTP/1.0 allows leaving Host out; such a request names no host we serve."""
    import asyncio

    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/",
        "headers": [],
        "query_string": b"",
        "http_version": "1.0",
        "scheme": "http",
        "server": ("127.0.0.1", 8000),
    }
    asyncio.run(_tiny(("localhost",))(scope, receive, send))
    assert sent[0]["status"] == 400
    assert b"no Host header" in sent[1]["body"]


def test_only_the_listed_www_name_is_answered_no_redirect():
    """Starlette would redirect example.org to www.example.org when only the latter is listed
    (`www_redirect`); here a name not listed is simply refused."""
    client = TestClient(_tiny(("www.example.org",)))
    r = client.get("/", headers={"Host": "example.org"}, follow_redirects=False)
    assert r.status_code == 400
    assert client.get("/", headers={"Host": "www.example.org"}).text == "hello"

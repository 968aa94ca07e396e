"""Security headers on every response, and cross-site state-changing requests refused."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "path", ["/", "/bpe/train", "/api/tokenizers", "/static/app.js", "/no-such-page"]
)
def test_security_headers_on_every_response(client, path):
    r = client.get(path)
    csp = r.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "frame-ancestors 'self'" in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"] == "same-origin"
    assert r.headers["X-Frame-Options"] == "SAMEORIGIN"


@pytest.mark.heavy
def test_pages_have_no_inline_script_or_style(client):
    for path in [
        "/",
        "/bpe/train",
        "/bpe/encode",
        "/wordpiece/train",
        "/wordpiece/encode",
        "/unigram/lattice",
        "/unigram/train",
        "/compare",
        "/sweep",
        "/corpora",
        "/tokenizers",
    ]:
        html = client.get(path).text
        assert "<style" not in html and "<script>" not in html, path
        assert " style=" not in html and "oninput=" not in html and "onclick=" not in html, path


def test_frame_ancestors_from_the_environment(monkeypatch, tmp_path):
    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.main import create_app

    monkeypatch.setenv("TOKVIS_DB", str(tmp_path / "s.sqlite3"))
    monkeypatch.setenv("TOKVIS_FRAME_ANCESTORS", "'self'  https://course.example")
    with TestClient(create_app(Settings.from_env())) as c:
        r = c.get("/?embed=1")
    assert "frame-ancestors 'self' https://course.example" in r.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in r.headers  # it cannot name another site
    monkeypatch.setenv("TOKVIS_FRAME_ANCESTORS", "'self'; script-src *")
    with pytest.raises(ValueError, match="TOKVIS_FRAME_ANCESTORS"):
        Settings.from_env()


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site", "Origin": "http://testserver"},
        {"Origin": "null"},
    ],
)
def test_cross_site_posts_are_refused(store_client, headers):
    r = store_client.post(
        "/sweep/run",
        data={"corpus": "botchan", "algo": ["bpe"], "sizes": "300"},
        headers=headers,
        follow_redirects=False,
    )
    assert r.status_code == 403 and "cross-site" in r.text
    r = store_client.post("/api/corpora", json={"text": "x"}, headers=headers)
    assert r.status_code == 403 and "cross-site" in r.json()["detail"]
    r = store_client.delete("/api/sweep/0123456789abcdef", headers=headers)
    assert r.status_code == 403


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Origin": "http://testserver"},
        {"Sec-Fetch-Site": "same-origin", "Origin": "http://testserver"},
        {"Sec-Fetch-Site": "none"},
    ],
)
def test_same_site_and_non_browser_posts_pass(store_client, headers):
    r = store_client.post("/api/corpora", json={"text": "a same-origin corpus"}, headers=headers)
    assert r.status_code == 201


def test_cross_site_gets_still_work(client):
    r = client.get(
        "/api/tokenizers", headers={"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}
    )
    assert r.status_code == 200

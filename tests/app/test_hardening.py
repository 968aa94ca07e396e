"""Serving hardening: only a job's creator can cancel it; GETs that
start work are refused when another site makes a browser send them; 500s carry the security
headers; the CSP covers every page but the API docs; downloads answer the content type their
schema says; a 5,000-digit number gets a plain message."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.jobs import cache, runs
from app.jobs.engine import SweepSpec
from app.jobs.store import JobStore
from app.main import create_app

LONG = {
    "corpus": "botchan",
    "heldout": "udhr/eng",
    "algorithms": ["bpe"],
    "sizes": [3000, 3100, 3200, 3300],
}
CROSS = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"}


@pytest.fixture
def fresh(tmp_path):
    """An app on its own store (so the jobs it makes are its own)."""
    s = Settings(
        db_path=tmp_path / "h.sqlite3",
        max_text_chars=20_000,
        max_corpus_bytes=2_000_000,
        max_upload_bytes=2_000_000,
        regex_timeout=0.5,
        job_workers=1,
        job_queue=4,
    )
    with TestClient(create_app(s)) as c:
        yield c


def job_ids(db: Path) -> list[str]:
    return JobStore(db).ids()


# ---- item 6: cancelling needs the id the creator got -------------------------------------------
def test_only_the_creator_can_cancel_a_sweep(fresh):
    spec = SweepSpec(
        LONG["corpus"], LONG["heldout"], tuple(LONG["algorithms"]), tuple(LONG["sizes"])
    )
    mine = fresh.post("/api/sweep", json=LONG).json()["id"]
    assert mine != spec.id and len(mine) > len(spec.id) + 20  # not derived from the spec
    theirs = fresh.post("/api/sweep", json=LONG).json()["id"]  # the same sweep, found
    assert theirs != mine
    assert fresh.get(f"/api/sweep/{theirs}").json()["status"] in ("queued", "running")
    for guess in (spec.id, theirs, mine[:-1] + ("A" if mine[-1] != "A" else "B")):
        r = fresh.delete(f"/api/sweep/{guess}")
        assert r.status_code == 403 and "started" in r.json()["detail"], guess
    assert fresh.get(f"/api/sweep/{mine}").json()["status"] in ("queued", "running")
    assert fresh.delete(f"/api/sweep/{mine}").json()["status"] in ("cancelled", "running")


def test_the_sweep_api_does_not_cancel_other_jobs(fresh):
    engine = fresh.app.state.jobs
    job, _ = engine.submit("train", "train-0123abcd", {"nothing": 1})
    r = fresh.delete("/api/sweep/train-0123abcd")
    assert r.status_code == 404
    assert not engine.get("train-0123abcd").cancel
    assert engine.get("train-0123abcd").status != "cancelled"


def test_the_sweep_page_cancels_only_for_the_browser_that_started_it(fresh):
    form = {"corpus": "botchan", "heldout": "udhr/eng", "algo": ["bpe"], "sizes": "3000,3100,3200"}
    spec_id = SweepSpec("botchan", "udhr/eng", ("bpe",), (3000, 3100, 3200)).id
    other = TestClient(fresh.app)  # another browser: no cookie
    r = other.post("/sweep/cancel", data={"job": spec_id}, follow_redirects=False)
    assert r.status_code == 404  # nothing runs yet
    r = fresh.post("/sweep/run", data=form, follow_redirects=False)
    assert r.status_code == 303
    r = other.post("/sweep/cancel", data={"job": spec_id}, follow_redirects=False)
    assert r.status_code == 403 and "started" in r.text
    assert fresh.app.state.jobs.get(spec_id).status in ("queued", "running")
    r = fresh.post("/sweep/cancel", data={"job": spec_id}, follow_redirects=False)
    assert r.status_code == 303
    job = fresh.app.state.jobs.get(spec_id)
    assert job.status == "cancelled" or job.cancel


# ---- item 6: GETs that start work are not reachable cross-site ----------------------------------
WORK_GETS = [
    "/trained/open?algorithm=bpe&vocab_size=40",
    "/api/bpe/train_vocab?vocab_size=41",
    "/api/wordpiece/train_steps?vocab_size=42",
    "/api/download/bpe/train.vocab.csv?vocab_size=43",
]


@pytest.mark.parametrize("url", WORK_GETS)
@pytest.mark.parametrize(
    "headers",
    [
        CROSS,
        {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"},
        {"Origin": "http://evil.example"},
    ],
)
def test_gets_that_start_work_are_refused_cross_site(client, url, headers):
    r = client.get(url, headers=headers, follow_redirects=False)
    assert r.status_code == 403 and "cross-site" in r.text


@pytest.mark.parametrize("url", WORK_GETS)
@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Sec-Fetch-Site": "same-origin"},
        {"Sec-Fetch-Site": "same-site"},
        {"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate"},
        {"Origin": "http://testserver"},
    ],
)
def test_gets_that_start_work_pass_same_site_and_direct(client, url, headers):
    r = client.get(url, headers=headers, follow_redirects=False)
    assert r.status_code in (200, 303), r.text[:300]


def test_a_page_whose_get_queues_a_job_is_refused_to_other_sites_subresources(
    fresh, tmp_path, monkeypatch
):
    monkeypatch.setattr(runs, "IN_REQUEST_CHARS", 0)
    monkeypatch.setattr(cache, "BPE", cache.RunCache(6))
    url = "/bpe/train?corpus=udhr/eng&vocab_size=301"
    r = fresh.get(url, headers=CROSS)  # an <img> on another site
    assert r.status_code == 403 and "cross-site" in r.text
    assert job_ids(tmp_path / "h.sqlite3") == []  # nothing was queued
    # a permalink followed from another site (a navigation) still works, and so does a direct GET
    r = fresh.get(
        url,
        headers={
            "Sec-Fetch-Site": "cross-site",
            "Sec-Fetch-Mode": "navigate",
            "Sec-Fetch-Dest": "document",
        },
    )
    assert r.status_code == 200
    assert len(job_ids(tmp_path / "h.sqlite3")) == 1
    # ... and once queued, the same job is found from anywhere
    assert fresh.get(url, headers=CROSS).status_code == 200
    assert fresh.get(url).status_code == 200


# ---- item 7 ------------------------------------------------------------------------------------
def test_500s_carry_the_security_headers_and_json_under_api(tmp_path):
    s = Settings(
        db_path=tmp_path / "e.sqlite3",
        max_text_chars=20_000,
        max_corpus_bytes=2_000_000,
        max_upload_bytes=2_000_000,
        regex_timeout=0.5,
    )
    app = create_app(s)

    @app.get("/api/boom")
    def api_boom():
        raise RuntimeError("an internal secret")

    @app.get("/boom")
    def page_boom():
        raise RuntimeError("an internal secret")

    with TestClient(app, raise_server_exceptions=False) as c:
        for path in ("/api/boom", "/boom"):
            r = c.get(path)
            assert r.status_code == 500
            assert "script-src 'self'" in r.headers["Content-Security-Policy"], path
            assert r.headers["X-Content-Type-Options"] == "nosniff"
            assert r.headers["Referrer-Policy"] == "same-origin"
            assert r.headers["X-Frame-Options"] == "SAMEORIGIN"
            # (the page's embed snippet names its own path; the error's message stays inside)
            assert "internal secret" not in r.text and "Traceback" not in r.text
        assert c.get("/api/boom").json() == {"detail": "internal server error"}


@pytest.mark.parametrize("path", ["/docsX", "/docs/", "/redocs", "/docs.html", "/redoc"])
def test_only_the_docs_page_goes_without_the_csp(client, path):
    assert "Content-Security-Policy" in client.get(path, follow_redirects=False).headers
    assert "Content-Security-Policy" not in client.get("/docs").headers


@pytest.mark.parametrize(
    "format,name",
    [
        ("hf_json", "gpt2"),
        ("tiktoken", "gpt2"),
        ("vocab_txt", "bert-base-uncased"),
        ("sentencepiece", "botchan_en_unigram_1000"),
    ],
)
def test_tokenizer_download_answers_a_content_type_its_schema_lists(client, format, name):
    r = client.get("/api/download/tokenizer", params={"tokenizer": name, "format": format})
    assert r.status_code == 200, r.text[:200]
    op = client.get("/openapi.json").json()["paths"]["/api/download/tokenizer"]["get"]
    listed = op["responses"]["200"]["content"]
    assert r.headers["content-type"].split(";")[0].strip() in listed


@pytest.mark.parametrize(
    "url",
    [
        "/vocab?tokenizer=gpt2&q=" + "9" * 5000,
        "/vocab?tokenizer=gpt2&q=%C2%B2",
        "/api/bpe/train_vocab?vocab_size=" + "9" * 5000,
        "/api/sweep/" + "9" * 5000,
    ],
    ids=lambda u: u[:40],
)
def test_a_5000_digit_number_gets_a_plain_message(client, url):
    r = client.get(url)
    assert r.status_code < 500
    assert "4300" not in r.text and "set_int_max_str_digits" not in r.text
    assert "invalid literal" not in r.text


def test_pythons_own_refusal_of_long_numbers_is_said_plainly():
    from app.main import plain_message

    try:
        int("9" * 5000)
    except ValueError as exc:
        message = plain_message(exc)
    assert message.startswith("a number of 5,000 digits is too long")


def test_serve_bounds_connections(monkeypatch):
    """`tokvis serve` sets uvicorn's own bounds (the header-read timeout is app.serving's)."""
    import uvicorn

    from app.cli import main

    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: seen.update(kw))
    main(["serve", "--port", "8123"])
    assert seen["timeout_keep_alive"] == 5 and seen["limit_concurrency"] >= 100
    assert seen["h11_max_incomplete_event_size"] <= 64 * 1024

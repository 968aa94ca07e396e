"""/audit/mix and GET /api/audit/mix: the estimate runs in the job pool (202 while it runs),
works for trained and uploaded tokenizers, and says what is wrong in a sentence."""

from __future__ import annotations

import time

import pytest

import tokenizers_core as tc
from tests.no_scipy import run_without_scipy
from tokenizers_core.corpora import load_corpus


def wait_mix(client, tokenizer: str, timeout: float = 240) -> object:
    deadline = time.monotonic() + timeout
    while True:
        r = client.get("/api/audit/mix", params={"tokenizer": tokenizer})
        if r.status_code != 202 or time.monotonic() > deadline:
            return r
        assert {"status", "done", "total"} <= set(r.json())
        time.sleep(0.3)


@pytest.fixture(scope="module")
def french(client) -> str:
    """A byte-level BPE trained on the French UDHR alone (a trained handle)."""
    r = client.post(
        "/api/train", json={"algorithm": "byte_bpe", "corpus_name": "udhr/fra", "vocab_size": 500}
    )
    assert r.status_code == 200, r.text
    return r.json()["tokenizer"]


# ---- /audit/mix ----------------------------------------------------------------------------------
@pytest.mark.heavy
def test_the_api_answers_202_then_the_estimate_of_a_trained_tokenizer(client, french):
    first = client.get("/api/audit/mix", params={"tokenizer": french})
    assert first.status_code in (200, 202)
    r = wait_mix(client, french)
    assert r.status_code == 200, r.text
    body = r.json()
    shares = [s["share"] for s in body["shares"]]
    assert body["shares"][0]["category"] == "fra" and body["shares"][0]["name"] == "French"
    assert body["shares"][0]["share"] > 0.9
    assert sum(shares) == pytest.approx(1.0) and body["residual"] >= 0
    assert body["merges"] == 500 - 256 and body["constraints"] > 0 and body["rounds"] >= 1


@pytest.mark.heavy
def test_the_page_draws_the_estimate_with_its_residual_and_how_to_read_it(client, french):
    wait_mix(client, french)
    page = client.get("/audit/mix", params={"tokenizer": french})
    assert page.status_code == 200
    assert 'data-testid="mix-chart"' in page.text and "<svg" in page.text
    assert "residual (total slack)" in page.text and "How to read it" in page.text
    assert "French" in page.text and "merges used" in page.text
    fragment = client.get(
        "/audit/mix", params={"tokenizer": french}, headers={"HX-Request": "true"}
    )
    assert fragment.text.lstrip().startswith("<h2") and "<html" not in fragment.text


@pytest.mark.heavy
def test_an_uploaded_tokenizer_json_is_estimated_too(store_client, tmp_path):
    """Handed to the worker pickled: an upload lives in the server's store, not the worker's."""
    path = tmp_path / "de.json"
    tc.train("byte_bpe", [load_corpus("udhr/deu_1996")], vocab_size=400).save(str(path))
    up = store_client.post("/api/tokenizers", files={"file": ("de.json", path.read_bytes())})
    assert up.status_code == 201, up.text
    r = wait_mix(store_client, up.json()["tokenizer"])
    assert r.status_code == 200 and r.json()["shares"][0]["category"] == "deu_1996"


def test_the_page_without_a_tokenizer_offers_only_bpe_ones(client):
    page = client.get("/audit/mix")
    assert page.status_code == 200 and "Estimate the mix" in page.text
    assert 'value="cl100k_base"' in page.text and 'value="mistral_v3"' in page.text
    assert 'value="bert-base-uncased"' not in page.text and 'value="char"' not in page.text


def test_a_tokenizer_without_merges_is_a_422_with_the_reason(client):
    r = client.get("/api/audit/mix", params={"tokenizer": "bert-base-uncased"})
    assert r.status_code == 422 and "has no merge list" in r.json()["detail"]
    page = client.get("/audit/mix", params={"tokenizer": "bert-base-uncased"})
    assert page.status_code == 422 and "it is a WordPiece model" in page.text


def test_an_unknown_tokenizer_is_a_404_and_is_escaped(client):
    payload = '<script>alert("mix")</script>'
    r = client.get("/api/audit/mix", params={"tokenizer": payload})
    assert r.status_code == 404 and "unknown tokeniser" in r.json()["detail"]
    page = client.get("/audit/mix", params={"tokenizer": payload})
    assert page.status_code == 404 and payload not in page.text
    assert "&lt;script&gt;" in page.text


@pytest.mark.heavy
def test_without_scipy_the_page_and_the_api_say_so(tmp_path):
    """A subprocess in which importing scipy fails, as on an install without the extra."""
    script = (
        "from fastapi.testclient import TestClient\n"
        "from app.config import Settings\n"
        "from app.main import create_app\n"
        f"app = create_app(Settings(db_path={str(tmp_path / 'db.sqlite3')!r}, "
        "max_text_chars=20_000, max_corpus_bytes=2_000_000, max_upload_bytes=2_000_000, "
        "regex_timeout=0.5))\n"
        "with TestClient(app) as client:\n"
        "    r = client.get('/api/audit/mix', params={'tokenizer': 'r50k_base'})\n"
        "    print(r.status_code, r.json()['detail'])\n"
        "    page = client.get('/audit/mix', params={'tokenizer': 'r50k_base'})\n"
        "    print(page.status_code, 'data-testid=\"no-solver\"' in page.text)\n"
    )
    out = run_without_scipy(script)
    assert out.returncode == 0, out.stderr
    api, page = out.stdout.strip().splitlines()
    assert api.startswith("503 ") and "pip install 'tokenizer-visualiser[mix]'" in api
    assert page == "503 True"

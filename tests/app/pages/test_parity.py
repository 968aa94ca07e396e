"""/parity and `POST /api/parity`: one tokenizer as each runtime reads it, a row per text and a
column per runtime, the cells that differ marked and the first mismatch explained; a text is
drawn as text (never markup); bad input is a 4xx with its detail, in place on the page. An
uploaded model folder's zip is read by transformers with its tokenizer_config."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

import tokenizers_core as tc
from app.services import parity as parity_service

XSS = '<script>alert(1)</script> "quoted" <img src=x onerror=alert(2)>'
ACCENT = "cafe\u0301"


# ---- the page ---------------------------------------------------------------------------------
@pytest.mark.heavy
def test_the_page_opens_on_qwen3s_example_with_the_mismatch_marked(client):
    r = client.get("/parity")
    assert r.status_code == 200
    html = r.text
    assert "They differ" in html and 'data-rule="normaliser"' in html
    assert html.count('data-testid="parity-row"') == len(parity_service.DEFAULT_TEXTS)
    assert 'data-same="false"' in html and 'data-same="true"' in html
    mismatch = html.split('data-same="false"', 1)[1].split("</tr>", 1)[0]
    assert 'data-label="llama.cpp" class="parity-differs"' in mismatch
    assert 'data-label="tokenizers (reference)" class' not in mismatch  # the reference
    assert 'data-testid="diff-row" data-stage="normaliser"' in html  # the diff's own drawing
    assert html.count('data-testid="skipped"') == 2


def test_a_text_is_drawn_as_text(client):
    r = client.get("/parity", params={"tokenizer": "bert-base-uncased", "texts": XSS})
    assert r.status_code == 200
    assert "<script>alert(1)" not in r.text and "<img src=x" not in r.text
    assert "&lt;script&gt;" in r.text
    assert "All agree" in r.text


def test_an_htmx_request_gets_the_results_alone(client):
    r = client.get(
        "/parity",
        params={"tokenizer": "bert-base-uncased", "texts": "one\ntwo"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200 and "<html" not in r.text
    assert r.text.count('data-testid="parity-row"') == 2


@pytest.mark.parametrize(
    "params, status, says",
    [
        ({"tokenizer": "no-such-tokenizer"}, 404, "unknown tokeniser"),
        ({"tokenizer": "bert-base-uncased", "texts": "\n\n"}, 422, "at least one text"),
        ({"tokenizer": "bert-base-uncased", "texts": "x\n" * 201}, 413, "at most 200"),
        ({"tokenizer": "char", "texts": "x"}, 422, "no runtime reads char"),
        ({"tokenizer": "bert-base-uncased", "special": "maybe"}, 422, "special must be"),
    ],
)
def test_bad_input_is_said_in_place_with_the_form_kept(client, params, status, says):
    r = client.get("/parity", params=params)
    assert r.status_code == status
    assert says in r.text and 'id="parity-form"' in r.text


# ---- the API ----------------------------------------------------------------------------------
def test_the_api_answers_the_contracts_keys(client):
    r = client.post("/api/parity", json={"tokenizer": "bert-base-uncased", "texts": ["Hi", XSS]})
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["runtimes"] == ["tokenizers", "transformers", "llama.cpp"]
    assert [row["text"] for row in data["rows"]] == ["Hi", XSS]
    assert all(set(row["ids"]) == set(data["runtimes"]) and row["same"] for row in data["rows"])
    assert data["first_mismatch"] is None
    assert data == tc.parity("bert-base-uncased", ["Hi", XSS]).to_dict()


@pytest.mark.heavy
def test_the_api_names_the_first_mismatch(client):
    r = client.post("/api/parity", json={"tokenizer": "qwen3", "texts": ["Hello", ACCENT]})
    first = r.json()["first_mismatch"]
    assert first["index"] == 1 and first["runtimes"] == ["tokenizers", "llama.cpp"]
    # "ca" alike, then "fé" (NFC) against "fe" and the accent's bytes; the NFC at character 3
    assert first["rule"] == "normaliser" and (first["position"], first["char"]) == (1, 3)
    assert [t["token"] for t in first["a"]] == ["fÃ©"]
    assert [t["token"] for t in first["b"]] == ["fe", "Ìģ"]


def test_the_special_switch_reaches_tiktoken(client):
    body = {"tokenizer": "gpt2", "texts": ["<|endoftext|>"]}
    refused = client.post("/api/parity", json=body).json()
    assert refused["first_mismatch"]["rule"] == "refused"
    assert refused["rows"][0]["ids"]["tiktoken"] is None
    allowed = client.post("/api/parity", json={**body, "special": True}).json()
    assert allowed["first_mismatch"] is None and allowed["rows"][0]["ids"]["tiktoken"] == [50256]


@pytest.mark.parametrize(
    "body, status, says",
    [
        ({"tokenizer": "no-such-tokenizer", "texts": ["x"]}, 404, "unknown tokeniser"),
        ({"tokenizer": "gpt2", "texts": ["x"] * 201}, 413, "at most 200"),
        ({"tokenizer": "gpt2", "texts": []}, 422, "at least one text"),
        ({"tokenizer": "gpt2", "texts": ["x" * 30_000]}, 413, "limit"),
        ({"tokenizer": "gpt2", "texts": "one text"}, 422, "texts"),
        ({"tokenizer": "gpt2"}, 422, "texts"),
        ({"tokenizer": "regex", "texts": ["x"]}, 422, "custom regex"),
    ],
)
def test_bad_requests_are_4xx_with_a_detail(client, body, status, says):
    r = client.post("/api/parity", json=body)
    assert r.status_code == status, r.text
    assert says in r.json()["detail"]


# ---- an uploaded model folder ----------------------------------------------------------------
@pytest.fixture(scope="module")
def folder_zip() -> bytes:
    """bert-base-uncased's tokenizer.json, its decoder leaving spaces before punctuation, in a
    folder whose config names BertTokenizer cased: transformers rebuilds it without
    lowercasing, where the tokenizer.json alone lowercases."""
    data = tc.load("bert-base-uncased").to_hf_json()
    config = {"tokenizer_class": "BertTokenizer", "do_lower_case": False}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("bert/tokenizer.json", json.dumps(data))
        zf.writestr("bert/tokenizer_config.json", json.dumps(config))
    return out.getvalue()


def test_an_uploaded_folder_is_read_by_transformers_with_its_config(store_client, folder_zip):
    r = store_client.post("/api/tokenizers", files={"file": ("bert.zip", folder_zip)})
    assert r.status_code == 201, r.text
    handle = r.json()["tokenizer"]
    r = store_client.post("/api/parity", json={"tokenizer": handle, "texts": ["Hello", "hello"]})
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["runtimes"][:2] == ["transformers", "tokenizers"]
    upper, lower = data["rows"]
    assert not upper["same"] and lower["same"]
    assert upper["ids"]["tokenizers"] == lower["ids"]["tokenizers"]  # lowercased: "hello"
    assert data["first_mismatch"]["rule"] == "normaliser"
    page = store_client.get("/parity", params={"tokenizer": handle, "texts": "Hello"})
    assert page.status_code == 200 and "They differ" in page.text

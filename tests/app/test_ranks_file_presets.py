"""A raw ranks file (Meta's `tokenizer.model` for Llama 3 and 4) uploaded with nothing else
gets its model's pattern and special tokens from its rank count, so `<|begin_of_text|>` is one
token as tiktoken gives it; a file of no known size asks; "none" loads without them and the
page says what that means."""

from __future__ import annotations

import base64
import json

import pytest

from tests.shared_data import INTEROP
from tokenizers_core.implementations.openai_public import load_ranks

HX = {"HX-Request": "true"}


def upload(client, data: bytes, **fields):
    files = {"file": ("tokenizer.model", data)}
    return client.post("/api/tokenizers", files=files, data=fields)


@pytest.mark.heavy
@pytest.mark.parametrize("model, pattern", [("llama3", "llama3"), ("llama4", "o200k")])
def test_a_raw_llama_file_alone_loads_as_its_model(store_client, shared_data, model, pattern):
    data = (INTEROP / "raw" / model / "tokenizer.model").read_bytes()
    r = upload(store_client, data)
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["options"] == {"pattern": pattern, "special_tokens": model}
    expected = INTEROP / "expected" / f"{model}.tiktoken.expected.jsonl"
    for line in expected.read_text().splitlines():
        case = json.loads(line)
        enc = store_client.post(
            "/api/encode",
            json={"tokenizer": body["tokenizer"], "text": case["text"], "allowed_special": "all"},
        ).json()
        assert enc["ids"] == case["tiktoken"]["ids_allowed_all"], case["id"]
    page = store_client.get("/", params={"tokenizer": body["tokenizer"], "text": "hi"}).text
    assert f"special tokens (preset &#39;{model}&#39;)" in page
    assert 'data-testid="load-warning"' not in page


@pytest.mark.heavy
def test_none_loads_without_specials_and_the_page_warns(store_client, shared_data):
    data = (INTEROP / "raw" / "llama3" / "tokenizer.model").read_bytes()
    r = upload(store_client, data, pattern="llama3", special_preset="none")
    assert r.status_code == 201 and r.json()["options"]["special_tokens"] == {}
    h = r.json()["tokenizer"]
    enc = store_client.post(
        "/api/encode", json={"tokenizer": h, "text": "<|begin_of_text|>", "allowed_special": "all"}
    ).json()
    assert len(enc["ids"]) > 1 and 128000 not in enc["ids"]
    page = store_client.get("/", params={"tokenizer": h, "text": "hi"}).text
    assert 'data-testid="load-warning"' in page and "special-token preset &#39;llama3&#39;" in page


@pytest.mark.heavy
def test_typed_tokens_win_over_the_preset_and_a_bad_preset_is_422(store_client, shared_data):
    data = (INTEROP / "raw" / "llama3" / "tokenizer.model").read_bytes()
    r = upload(store_client, data, special_tokens="<|x|> 128000", special_preset="llama3")
    assert r.status_code == 201 and r.json()["options"]["special_tokens"] == {"<|x|>": 128000}
    r = upload(store_client, data, special_preset="llama9")
    assert r.status_code == 422 and "llama4" in r.json()["detail"]


@pytest.mark.heavy
def test_a_file_of_no_known_size_still_asks_for_its_pattern(store_client):
    ranks = sorted(load_ranks("cl100k_base").items(), key=lambda kv: kv[1])[:300]
    data = b"".join(base64.b64encode(t) + b" %d\n" % r for t, r in ranks)
    r = upload(store_client, data)
    assert r.status_code == 422 and "no known encoding" in r.json()["detail"]
    r = upload(store_client, data, pattern="cl100k", special_preset="gpt2")
    assert r.status_code == 201 and r.json()["options"]["special_tokens"] == "gpt2"


def test_the_form_offers_the_presets_and_disables_its_button(store_client):
    page = store_client.get("/").text
    assert 'name="special_preset"' in page and "Llama 3 (256 tokens from 128000)" in page
    assert 'hx-disabled-elt="find button[type=submit]"' in page
    assert 'data-testid="upload-progress"' in page

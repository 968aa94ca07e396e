"""The real tokenisers bundled from registry packages appear wherever the bundled ones
do: the pickers, the visualiser, /compare, /vocab (with an entry's detail) and /tax."""

from __future__ import annotations

import html

import pytest

from app.services.compare import MAX_COLUMNS

NEW = [
    "p50k_base",
    "p50k_edit",
    "whisper_multilingual",
    "whisper_en",
    "claude_2023",
    "qwen3",
    "mistral_tekken",
    "clip",
    "mistral_v1",
    "mistral_v3",
    "mistral_v7",
]
XSS = "<script>alert(1)</script> Hello"


def test_every_new_tokeniser_is_in_the_picker(client):
    page = client.get("/").text
    for name in NEW:
        assert f'value="{name}"' in page, name


@pytest.mark.heavy
@pytest.mark.parametrize("name", NEW)
def test_the_visualiser_and_the_api_encode_with_it(client, name):
    r = client.get("/", params={"text": XSS, "tokenizer": name})
    assert r.status_code == 200 and "<script>alert(1)" not in r.text
    r = client.post("/api/encode", json={"tokenizer": name, "text": "Hello, world!"})
    assert r.status_code == 200 and r.json()["ids"]


@pytest.mark.heavy
def test_compare_shows_every_real_one_at_once(client):
    """The issue's bar: 12+ bundled real tokenisers compared offline, on one page."""
    names = ["r50k_base", "cl100k_base", "o200k_base", "bert-base-uncased", *NEW]
    assert 12 <= len(names) <= MAX_COLUMNS
    r = client.get(
        "/compare", params=[("text", "Grüße, 世界! 12345"), *(("col", n) for n in names)]
    )
    assert r.status_code == 200
    assert f"{len(names)} of at most {MAX_COLUMNS}" in r.text
    for name in names:
        assert name in r.text
    too_many = client.get("/compare", params=[("col", "r50k_base")] * (MAX_COLUMNS + 1))
    assert too_many.status_code == 422


@pytest.mark.heavy
@pytest.mark.parametrize(
    "name", ["clip", "mistral_tekken", "whisper_multilingual", "claude_2023", "mistral_v3"]
)
def test_vocab_browses_them(client, name):
    r = client.get("/vocab", params={"tokenizer": name, "q": "hello"})
    assert r.status_code == 200 and "hello" in html.unescape(r.text).lower()
    r = client.get("/vocab", params={"tokenizer": name, "id": 1000})
    assert r.status_code == 200


def test_tax_counts_them(client):
    counts = client.get("/api/tax").json()["counts"]
    for name in NEW:
        assert counts[name]["eng"] > 0, name


def test_the_tax_page_shows_every_one_and_a_ticked_few(isolated_client):
    """/tax opens on every bundled tokeniser's premiums (issue 22: the table scrolls, the
    language stays in view); ticking some narrows it to them. (Its own store: other tests'
    uploads would be columns too.)"""
    client = isolated_client
    from app.tax import vocab_tokenizers

    page = client.get("/tax").text
    assert page.count('class="num tok-head') == len(vocab_tokenizers())
    for name in NEW:
        assert f'value="{name}"' in page, name
    chosen = client.get("/tax", params=[("tok", "qwen3"), ("tok", "clip")]).text
    assert chosen.count('class="num tok-head') == 2

"""Everything a user types is text: every page that echoes input escapes it."""

from __future__ import annotations

import pytest

PAYLOAD = "</textarea><script>alert(1)</script><img src=x onerror=alert(2)>\"'&"

PAGES = [
    ("/", {"tokenizer": "cl100k_base"}),
    ("/", {"tokenizer": "bert-base-uncased"}),
    ("/", {"tokenizer": "regex", "pattern": "<script>|."}),
    ("/compare", {"col": ["word", "char", "bert-base-uncased"]}),
    ("/unicode", {"tok": ["word"]}),
    ("/bpe/encode", {"tokenizer": "gpt2"}),
    ("/wordpiece/encode", {"vocab": "bert-base-uncased"}),
    ("/unigram/lattice", {"model": "botchan_en_unigram_1000"}),
]


@pytest.mark.parametrize("path,params", PAGES)
def test_payload_is_escaped(client, path, params):
    for headers in ({}, {"HX-Request": "true"}):
        r = client.get(path, params={"text": PAYLOAD, **params}, headers=headers)
        assert r.status_code == 200, r.text[:300]
        body = r.text
        assert "<script>alert" not in body and "<img src=x" not in body
        assert "onerror=alert(2)>" not in body.replace("&gt;", "")  # only ever as text


def test_bad_tokeniser_name_is_escaped_in_the_error(client):
    r = client.get("/", params={"text": "x", "tokenizer": "<b>bold</b>"})
    assert r.status_code == 404 and "<b>bold</b>" not in r.text and "&lt;b&gt;bold" in r.text

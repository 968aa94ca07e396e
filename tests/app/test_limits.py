"""Uploads and pasted text within one limit: gzip bombs, broken gzip, lone surrogates, and the
documented corpus limit for every way in (the test settings put it at 2 MB, over Starlette's
1 MB default for a multipart field)."""

from __future__ import annotations

import gzip
import json

import pytest
from fastapi import HTTPException

from app import limits

BOMB = gzip.compress(b"\0" * 50_000_000, compresslevel=9)  # ~50 KB that grow to 50 MB


def test_gunzip_capped_stops_at_the_limit():
    with pytest.raises(HTTPException) as info:
        limits.gunzip_capped(BOMB, 1_000_000)
    assert info.value.status_code == 413 and "decompressed" in info.value.detail
    assert limits.gunzip_capped(gzip.compress(b"x" * 1000), 1000) == b"x" * 1000


@pytest.mark.parametrize(
    "data, words",
    [
        (gzip.compress(b"hello world " * 1000, mtime=0)[:-30], "truncated"),
        (b"\x1f\x8b" + b"garbage that is not deflate", "not valid gzip"),
        (gzip.compress(b"hello", mtime=0)[:5], "truncated"),
    ],
)
def test_gunzip_capped_refuses_broken_gzip(data, words):
    with pytest.raises(HTTPException) as info:
        limits.gunzip_capped(data, 1_000_000)
    assert info.value.status_code == 422 and words in info.value.detail


def test_gzip_bomb_model_upload_is_413(client):
    r = client.post("/unigram/lattice", files={"file": ("bomb.model", BOMB)}, data={"text": "cats"})
    assert r.status_code == 413
    assert "decompress" in r.text


def test_gzip_bomb_tokenizer_upload_is_413(store_client):
    r = store_client.post("/api/tokenizers", files={"file": ("bomb.json.gz", BOMB)})
    assert r.status_code == 413 and "decompress" in r.json()["detail"]


@pytest.mark.parametrize(
    "data", [gzip.compress(b"\x0a\x05hello" * 100, mtime=0)[:-12], b"\x1f\x8b\x08\x00 not gzip"]
)
def test_broken_gzip_model_upload_is_422(client, data):
    r = client.post("/unigram/lattice", files={"file": ("bad.model", data)}, data={"text": "cats"})
    assert r.status_code == 422
    assert "gzip" in r.text


def test_gzip_bomb_corpus_upload_is_413(store_client):
    r = store_client.post("/api/corpora/upload", files={"file": ("bomb.txt.gz", BOMB)})
    assert r.status_code == 413 and "decompressed" in r.json()["detail"]


def test_gzipped_corpus_upload_is_read(store_client):
    r = store_client.post(
        "/api/corpora/upload",
        files={"file": ("c.txt.gz", gzip.compress("zipped corpus\n".encode()))},
    )
    assert r.status_code == 201 and r.json()["lines"] == 1


def test_broken_gzip_in_the_core_is_a_value_error():
    from tokenizers_core.formats.sentencepiece_model import parse_model_proto

    with pytest.raises(ValueError, match="gzip"):
        parse_model_proto(gzip.compress(b"\x0a\x05hello")[:-8])


@pytest.mark.parametrize(
    "tokenizer",
    ["char", "word", "sentence", "botchan_en_unigram_1000", "botchan_en_bpe_1000", "cl100k_base"],
)
def test_lone_surrogate_becomes_replacement_character(client, tokenizer):
    # as tiktoken: a lone surrogate is read as U+FFFD, one character, so offsets still fit
    body = '{"tokenizer": "%s", "text": "ab\\ud800 cd"}' % tokenizer
    r = client.post("/api/encode", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert "\ud800" not in json.dumps(out, ensure_ascii=False)
    text = "ab\ufffd cd"
    assert max(e for _s, e in out["offsets"]) <= len(text)


def test_lone_surrogate_corpus_is_stored(store_client):
    r = store_client.post(
        "/api/corpora",
        content='{"text": "corpus \\udc80 with a lone half"}',
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 201, r.text


def _corpus(size: int) -> str:
    line = "a line of a corpus that is pasted into a form\n"
    return (line * (size // len(line) + 1))[:size]


def test_pasted_corpus_over_one_megabyte_is_accepted_in_every_form(store_client):
    text = _corpus(1_500_000)
    r = store_client.post(
        "/corpora", files={"file": ("", b"")}, data={"text": text}, follow_redirects=False
    )
    assert r.status_code == 303, r.text[:300]
    r = store_client.post(
        "/bpe/train", data={"corpus_text": text, "vocab_size": "300"}, follow_redirects=False
    )
    assert r.status_code == 303
    r = store_client.post("/api/corpora", json={"text": text})
    assert r.status_code == 201


def test_corpus_over_the_limit_is_413_with_the_setting_named(store_client):
    text = _corpus(2_000_001)
    r = store_client.post("/corpora", files={"file": ("", b"")}, data={"text": text})
    assert r.status_code == 413 and "TOKVIS_MAX_CORPUS_BYTES" in r.text
    r = store_client.post("/wordpiece/train", data={"corpus_text": text})
    assert r.status_code == 413 and "TOKVIS_MAX_CORPUS_BYTES" in r.text
    r = store_client.post("/api/corpora", json={"text": text})
    assert r.status_code == 413 and "TOKVIS_MAX_CORPUS_BYTES" in r.json()["detail"]


def test_a_body_far_over_every_limit_is_refused_unread(store_client, settings):
    too_much = (
        limits.body_limit(
            settings.max_corpus_bytes, settings.max_upload_bytes, settings.max_tokenizer_bytes
        )
        + 1
    )
    r = store_client.post(
        "/api/corpora", content=b"x" * too_much, headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 413

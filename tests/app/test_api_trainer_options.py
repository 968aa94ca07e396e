"""POST /api/train passes Hugging Face's trainer options through, and trains char_bpe and
wordlevel; a bad option is a 422 with a message."""

from __future__ import annotations

import pytest

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus

CORPUS = "\n".join(load_corpus("botchan").splitlines()[:400])


def test_train_char_bpe_with_options_then_encode(client):
    r = client.post(
        "/api/train",
        json={
            "algorithm": "char_bpe",
            "corpus": CORPUS,
            "vocab_size": 400,
            "limit_alphabet": 40,
            "min_frequency": 3,
        },
    )
    assert r.status_code == 200, r.text
    body = r.json()
    expected = tc.train("char_bpe", CORPUS.splitlines(), 400, limit_alphabet=40, min_frequency=3)
    assert [tuple(m) for m in body["merges"]] == expected.model.merges
    enc = client.post("/api/encode", json={"tokenizer": body["tokenizer"], "text": "I was young"})
    assert enc.json()["tokens"] == expected.encode("I was young").tokens


def test_train_byte_bpe_with_max_token_length_and_wordlevel(client):
    r = client.post(
        "/api/train",
        json={"algorithm": "byte_bpe", "corpus": CORPUS, "vocab_size": 500, "max_token_length": 3},
    )
    assert r.status_code == 200, r.text
    assert max(len(a + b) for a, b in r.json()["merges"]) == 2
    r = client.post(
        "/api/train", json={"algorithm": "wordlevel", "corpus": CORPUS, "vocab_size": 300}
    )
    assert r.status_code == 200, r.text
    enc = client.post("/api/encode", json={"tokenizer": r.json()["tokenizer"], "text": "the cat"})
    assert enc.json()["tokens"] == ["the", "<unk>"]


def test_a_bad_option_is_a_422_with_a_message(client):
    r = client.post(
        "/api/train",
        json={
            "algorithm": "byte_bpe",
            "corpus": CORPUS,
            "vocab_size": 500,
            "limit_alphabet": "many",
        },
    )
    assert r.status_code == 422
    assert "limit_alphabet must be a whole number" in r.json()["detail"]


@pytest.mark.heavy
def test_compare_trains_char_bpe_and_wordlevel_columns(store_client):
    corpus = store_client.post("/api/corpora", json={"text": CORPUS}).json()["sha256"]
    r = store_client.get(
        "/api/compare",
        params={
            "text": "I was young",
            "col": ["char_bpe", "wordlevel"],
            "corpus": corpus,
            "vocab": 300,
            "ref": 1,
        },
    )
    assert r.status_code == 200, r.text
    char_bpe, wordlevel = r.json()
    lines = CORPUS.splitlines()
    assert char_bpe["tokens"] == tc.train("char_bpe", lines, 300).encode("I was young").tokens
    assert wordlevel["tokens"] == tc.train("wordlevel", lines, 300).encode("I was young").tokens
    page = store_client.get("/compare", params={"text": "x"})
    assert (
        "Character BPE (&lt;/w&gt;) (trained)" in page.text and "WordLevel (trained)" in page.text
    )


def test_the_visualiser_and_vocab_pages_show_trained_char_bpe_and_wordlevel(client):
    for algorithm in ("char_bpe", "wordlevel"):
        handle = client.post(
            "/api/train", json={"algorithm": algorithm, "corpus": CORPUS, "vocab_size": 300}
        ).json()["tokenizer"]
        page = client.get("/", params={"tokenizer": handle, "text": "I was young, naïve"})
        assert page.status_code == 200, page.text
        assert "young" in page.text or "&lt;unk&gt;" in page.text
        vocab = client.get("/vocab", params={"tokenizer": handle})
        assert vocab.status_code == 200, vocab.text

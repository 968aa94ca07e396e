"""The JSON API's bytes and words: `POST /api/encode` with `"words"`
(pre-tokenized input) and `"bytes": true` (each token's bytes as hex), `POST /api/decode` with
`"bytes": true` (tiktoken's decode_bytes as hex), and OpenAI model names as tokeniser names."""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc


def test_encode_answers_each_tokens_bytes_as_hex(client):
    r = client.post(
        "/api/encode", json={"tokenizer": "cl100k_base", "text": "Hi 🙂", "bytes": True}
    )
    assert r.status_code == 200
    body = r.json()
    tok = tc.load("cl100k_base")
    assert body["bytes"] == [b.hex() for b in tok.decode_tokens_bytes(body["ids"])]
    assert bytes.fromhex("".join(body["bytes"])) == "Hi 🙂".encode()
    assert (
        "bytes"
        not in client.post("/api/encode", json={"tokenizer": "cl100k_base", "text": "Hi"}).json()
    )


def test_bytes_of_tokenisers_that_are_not_byte_level(client):
    body = client.post(
        "/api/encode", json={"tokenizer": "char", "text": "hé", "bytes": True}
    ).json()
    assert body["bytes"] == ["68", "c3a9"]
    body = client.post(
        "/api/encode", json={"tokenizer": "bert-base-uncased", "text": "playing", "bytes": True}
    ).json()
    assert body["tokens"] == ["[CLS]", "playing", "[SEP]"]
    assert body["bytes"] == [t.encode().hex() for t in body["tokens"]]


def test_encode_takes_pre_tokenized_words(client):
    r = client.post(
        "/api/encode",
        json={
            "tokenizer": "bert-base-uncased",
            "words": ["Hello", "playing"],
            "pair_words": ["a b"],
        },
    )
    assert r.status_code == 200
    body = r.json()
    enc = tc.load("bert-base-uncased").encode(["Hello", "playing"], ["a b"], is_pretokenized=True)
    assert body["ids"] == enc.ids and body["word_ids"] == enc.word_ids
    assert body["word_ids"] == [None, 0, 1, None, 0, 0, None]
    assert body["offsets"][1:3] == [[0, 5], [0, 7]]


@pytest.mark.heavy
def test_words_with_an_openai_encoding(client):
    body = client.post(
        "/api/encode",
        json={"tokenizer": "gpt-4o-mini", "words": ["Hello", " world"], "bytes": True},
    ).json()
    assert body["tokenizer"] == "gpt-4o-mini" and body["word_ids"] == [0, 1]
    assert body["bytes"] == ["48656c6c6f", "20776f726c64"]


@pytest.mark.parametrize(
    "payload, says",
    [
        ({"tokenizer": "char"}, "exactly one of 'text'"),
        ({"tokenizer": "char", "text": "a", "words": ["a"]}, "exactly one of 'text'"),
        ({"tokenizer": "char", "words": ["a"], "pair": "b"}, "pair_words"),
        ({"tokenizer": "char", "text": "a", "pair_words": ["b"]}, "'pair_words' goes with 'words'"),
        ({"tokenizer": "char", "words": "ab"}, "words"),
        ({"tokenizer": "char", "words": ["a", 3]}, "words"),
    ],
)
def test_bad_words_requests_are_422_with_a_sentence(client, payload, says):
    r = client.post("/api/encode", json=payload)
    assert r.status_code == 422 and says in str(r.json()["detail"])


def test_words_count_against_the_text_limit(client):
    r = client.post("/api/encode", json={"tokenizer": "char", "words": ["a"] * 200_000})
    assert r.status_code == 413 and "limit" in r.json()["detail"]


def test_decode_answers_text_and_the_raw_bytes(client):
    ids = tc.load("r50k_base").encode("🙂").ids[:1]  # half an emoji
    r = client.post("/api/decode", json={"tokenizer": "gpt2", "ids": ids, "bytes": True})
    assert r.status_code == 200
    assert r.json() == {"tokenizer": "gpt2", "text": "\ufffd", "hex": "f09f", "dropped": []}
    r = client.post("/api/decode", json={"tokenizer": "cl100k_base", "ids": [9906, 100257]})
    assert r.json() == {"tokenizer": "cl100k_base", "text": "Hello<|endoftext|>", "dropped": []}
    r = client.post(
        "/api/decode",
        json={
            "tokenizer": "cl100k_base",
            "ids": [9906, 100257],
            "skip_special_tokens": True,
            "bytes": True,
        },
    )
    assert r.json()["text"] == "Hello" and r.json()["hex"] == b"Hello".hex()


@pytest.mark.parametrize("ids", [[10**9], [-1], [100261]])
def test_decode_of_a_non_token_is_422(client, ids):
    for asked in (False, True):
        r = client.post(
            "/api/decode", json={"tokenizer": "cl100k_base", "ids": ids, "bytes": asked}
        )
        assert r.status_code == 422 and "not in the vocabulary" in r.json()["detail"]


def test_model_names_work_where_tokeniser_names_do(client):
    r = client.post(
        "/api/encode", json={"tokenizer": "gpt-3.5-turbo-0301", "text": "Hello, world!"}
    )
    assert r.status_code == 200 and r.json()["ids"] == [9906, 11, 1917, 0]
    r = client.post("/api/encode", json={"tokenizer": "text-davinci-003", "text": "Hello, world!"})
    assert r.status_code == 200 and r.json()["ids"] == [15496, 11, 995, 0]  # p50k_base


def test_the_openapi_schema_documents_words_and_bytes(client):
    spec = client.get("/openapi.json").json()
    props = spec["components"]["schemas"]["EncodeRequest"]["properties"]
    assert "pre-tokenized" in props["words"]["description"]
    assert "hex" in props["bytes"]["description"]
    decode = spec["components"]["schemas"]["DecodeRequest"]["properties"]
    assert "decode_bytes" in decode["bytes"]["description"]


def gap_tokenizer_json() -> bytes:
    """A cl100k-style tokenizer.json: byte-level BPE whose special token sits one id past the
    end of the ranks, in the vocabulary and as an added token (as our save writes cl100k), so
    the id between (265 here, 100256 in cl100k's conversion) is no token."""
    tok = tc.train("byte_bpe", ["hello world"] * 20, vocab_size=270)
    data = tok.to_hf_json()
    data["model"]["vocab"]["<|endoftext|>"] = tok.vocab_size + 1
    data["added_tokens"] = [
        {
            "id": tok.vocab_size + 1,
            "content": "<|endoftext|>",
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
    ]
    return json.dumps(data).encode()


def test_decode_drops_an_id_a_tokenizer_json_lacks_and_says_so(store_client):
    """As Hugging Face's decode: the id is left out, and `dropped` names it."""
    from tokenizers import Tokenizer as HFTokenizer

    data = gap_tokenizer_json()
    r = store_client.post("/api/tokenizers", files={"file": ("tokenizer.json", data)})
    assert r.status_code == 201, r.text
    handle, ref = r.json()["tokenizer"], HFTokenizer.from_str(data.decode())
    ids = [263, 265, 264, 266, 10**6]
    for skip in (False, True):
        body = {"tokenizer": handle, "ids": ids, "skip_special_tokens": skip, "bytes": True}
        got = store_client.post("/api/decode", json=body).json()
        assert got["text"] == ref.decode(ids, skip_special_tokens=skip)
        assert got["dropped"] == [265, 10**6]
        assert bytes.fromhex(got["hex"]).decode() == got["text"]

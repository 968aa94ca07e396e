"""The JSON API contract: /api/tokenizers, /api/encode, /api/corpora, errors as {"detail"};
`POST /api/encode` with `"words"` (pre-tokenized input) and `"bytes": true` (each token's bytes
as hex), `POST /api/decode` with `"bytes": true` (tiktoken's decode_bytes as hex), and OpenAI
model names as tokeniser names."""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc


def test_list_tokenizers(client):
    r = client.get("/api/tokenizers")
    assert r.status_code == 200
    names = {t["name"]: t for t in r.json()}
    for name in ("char", "word", "sentence"):
        assert {"name", "algorithm", "vocab_size"} <= names[name].keys()


def test_encode_contract(client):
    r = client.post("/api/encode", json={"tokenizer": "word", "text": "Hello, world!"})
    assert r.status_code == 200
    body = r.json()
    assert body["tokenizer"] == "word"
    assert body["tokens"] == ["Hello", ",", "world", "!"]
    assert body["offsets"] == [[0, 5], [5, 6], [7, 12], [12, 13]]
    assert len(body["ids"]) == 4 and body["ids"][0] == 0


def test_encode_offsets_slice_the_text(client):
    text = "Ünïcödé ﬁne — 東京!"
    body = client.post("/api/encode", json={"tokenizer": "char", "text": text}).json()
    assert [text[s:e] for s, e in body["offsets"]] == body["tokens"]


def test_unknown_tokeniser_is_404(client):
    r = client.post("/api/encode", json={"tokenizer": "nope", "text": "x"})
    assert r.status_code == 404 and "unknown tokeniser" in r.json()["detail"]


@pytest.mark.heavy
def test_bad_and_runaway_regex_are_422(client):
    r = client.post("/api/encode", json={"tokenizer": "regex", "text": "x", "pattern": "[a"})
    assert r.status_code == 422 and r.json()["detail"]
    r = client.post(
        "/api/encode", json={"tokenizer": "regex", "text": "a" * 40 + "!", "pattern": "(a|aa)+$"}
    )
    assert r.status_code == 422 and "0.5" in r.json()["detail"]
    r = client.post("/api/encode", json={"tokenizer": "regex", "text": "x"})
    assert r.status_code == 422 and "pattern" in r.json()["detail"]


def test_malformed_body_is_422_with_detail(client):
    r = client.post("/api/encode", json={"text": "x"})
    assert r.status_code == 422 and "tokenizer" in r.json()["detail"]
    r = client.post(
        "/api/encode", content=b"not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 422 and isinstance(r.json()["detail"], str)


def test_text_limit(client, settings):
    r = client.post(
        "/api/encode", json={"tokenizer": "char", "text": "x" * (settings.max_text_chars + 1)}
    )
    assert r.status_code == 413 and "limit" in r.json()["detail"]


def test_corpus_store_round_trip(store_client):
    text = "low lower lowest\nnewer wider\n"
    r = store_client.post("/api/corpora", json={"text": text})
    assert r.status_code == 201
    info = r.json()
    import hashlib

    assert info["sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert info["bytes"] == len(text) and info["lines"] == 2
    assert store_client.get(f"/api/corpora/{info['sha256']}").json() == info
    assert store_client.get(f"/api/corpora/{info['sha256']}/text").text == text
    assert store_client.post("/api/corpora", json={"text": text}).json() == info  # idempotent


def test_corpus_upload_and_limits(store_client, settings):
    r = store_client.post(
        "/api/corpora/upload", files={"file": ("c.txt", "é corpus\n".encode(), "text/plain")}
    )
    assert r.status_code == 201 and r.json()["chars"] == 9
    r = store_client.post(
        "/api/corpora/upload",
        files={"file": ("c.bin", b"\xff\xfe\x00bad", "application/octet-stream")},
    )
    assert r.status_code == 422 and "UTF-8" in r.json()["detail"]
    big = b"a" * (settings.max_upload_bytes + 1)
    r = store_client.post("/api/corpora/upload", files={"file": ("big.txt", big, "text/plain")})
    assert r.status_code == 413
    assert store_client.post("/api/corpora", json={"text": "  \n"}).status_code == 422
    assert store_client.get("/api/corpora/" + "0" * 64).status_code == 404


def test_train_rejects_bad_requests(client):
    r = client.post("/api/train", json={"algorithm": "nope", "corpus": "a b", "vocab_size": 10})
    assert r.status_code == 422 and "unknown algorithm" in r.json()["detail"]


@pytest.mark.heavy
def test_openapi_docs(client):
    assert client.get("/docs").status_code == 200
    spec = client.get("/openapi.json").json()
    assert "/api/encode" in spec["paths"] and "/api/train" in spec["paths"]


def test_corpora_page_paste_and_upload(store_client):
    r = store_client.post(
        "/corpora", data={"text": "a stored <b>corpus</b>"}, follow_redirects=False
    )
    assert r.status_code == 303 and "saved=" in r.headers["location"]
    page = store_client.get(r.headers["location"])
    assert page.status_code == 200 and "&lt;b&gt;corpus" in page.text
    r = store_client.post("/corpora", data={"text": ""}, follow_redirects=False)
    assert r.status_code == 422 and "empty" in r.text


@pytest.mark.heavy
def test_special_tokens_as_tiktoken_reads_them_unless_switched(client):
    text = "a<|endoftext|>"
    refused = client.post("/api/encode", json={"tokenizer": "cl100k_base", "text": text})
    assert refused.status_code == 422 and "refuses" in refused.json()["detail"]
    plain = client.post(
        "/api/encode", json={"tokenizer": "cl100k_base", "text": text, "special": False}
    ).json()
    assert 100257 not in plain["ids"] and "".join(plain["tokens"]).endswith("|>")
    allowed = client.post(
        "/api/encode", json={"tokenizer": "cl100k_base", "text": text, "allowed_special": "all"}
    ).json()
    assert allowed["ids"] == [64, 100257] and allowed["special_tokens_mask"] == [0, 1]
    assert allowed["offsets"][1] == [1, 14]
    bad = client.post(
        "/api/encode",
        json={"tokenizer": "cl100k_base", "text": text, "allowed_special": ["<|nope|>"]},
    )
    assert bad.status_code == 422 and "not a special token" in bad.json()["detail"]
    none = client.post(
        "/api/encode", json={"tokenizer": "word", "text": text, "allowed_special": "all"}
    )
    assert none.status_code == 422 and "no special tokens" in none.json()["detail"]


def test_encode_returns_what_truncation_cut_off_as_hugging_face(store_client):
    """A tokenizer.json with truncation (and a pair): `overflowing` as Hugging Face gives it."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    words = "the cat sat on a mat and then it ran off".split()
    hf = Tokenizer(
        models.WordLevel(
            {w: i for i, w in enumerate(words + ["[UNK]", "[CLS]", "[SEP]"])}, unk_token="[UNK]"
        )
    )
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    hf.post_processor = processors.BertProcessing(("[SEP]", 13), ("[CLS]", 12))
    hf.enable_truncation(8, stride=1)
    stored = store_client.post(
        "/api/tokenizers", files={"file": ("tokenizer.json", hf.to_str().encode())}
    )
    handle = stored.json()["tokenizer"]
    for text, pair in (
        ("the cat sat on a mat and then it ran off", None),
        ("the cat sat on a mat", "and then it ran off"),
    ):
        ours = store_client.post(
            "/api/encode", json={"tokenizer": handle, "text": text, "pair": pair}
        ).json()
        theirs = hf.encode(text, pair)
        assert ours["ids"] == theirs.ids and ours["type_ids"] == theirs.type_ids
        assert [o["ids"] for o in ours["overflowing"]] == [o.ids for o in theirs.overflowing]
        assert [o["offsets"] for o in ours["overflowing"]] == [
            [list(x) for x in o.offsets] for o in theirs.overflowing
        ]
    plain = store_client.post("/api/encode", json={"tokenizer": "gpt2", "text": "hi"}).json()
    assert plain["overflowing"] == []


def test_openapi_lists_429_and_503_with_retry_after_on_every_operation(client):
    """Any route that takes a tokeniser's name may train a stored one (429 past the queue's
    limit), and any may find the database away (503): the schema says so, with Retry-After."""
    spec = client.get("/openapi.json").json()
    for path, item in spec["paths"].items():
        for method, op in item.items():
            for code in ("429", "503"):
                assert "Retry-After" in op["responses"][code]["headers"], (path, method, code)


@pytest.mark.parametrize(
    "path, body",
    [
        ("/api/decode", {"tokenizer": "cl100k_base", "ids": [9906], "bytes": 0}),
        ("/api/canonical", {"tokenizer": "cl100k_base", "ids": [False]}),  # "ids.0: ..."
        ("/api/encode", {"tokenizer": "cl100k_base", "text": "hi", "add_special_tokens": "yes"}),
        (
            "/api/chat",
            {"messages": [{"role": "user", "content": "hi"}], "add_generation_prompt": 1},
        ),
        ("/api/train", {"algorithm": "bpe", "corpus": "a b", "vocab_size": "300"}),
    ],
)
def test_a_body_is_read_as_its_schema_says_without_coercion(client, path, body):
    """0 is not false, false is not an id and "300" is not a number: the schema says boolean
    or integer, and a body that sends something else gets a 422 naming the field."""
    r = client.post(path, json=body)
    assert r.status_code == 422, r.text
    wrong = list(body)[-1]
    assert r.json()["detail"].startswith(wrong), r.json()


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


def test_fingerprint_api_answers_a_bad_name_with_a_404_and_no_name_with_a_422(client):
    assert client.get("/api/fingerprint", params={"tokenizer": "nope"}).status_code == 404
    r = client.get("/api/fingerprint")
    assert r.status_code == 422 and "tokenizer" in r.json()["detail"]
    r = client.get("/api/fingerprint", params={"tokenizer": "regex"})
    assert r.status_code == 422 and "pattern" in r.json()["detail"]

"""A hostile tokenizer file, uploaded, cannot hurt the server.

The reproducers, through the routes a visitor uses: a Split pattern that backtracks
(`(a|a)*$` on "a" * 30 + "!" takes minutes unbounded) answers 422 naming the pattern, on the API,
the visualiser and compare, and so does a ranks file's pattern and the custom regex rule; huge
padding lengths are refused at upload; a WordPiece file with `max_input_chars_per_word: 10**9`
encodes a 6,000-character word as Hugging Face does; an empty WordPiece vocabulary uploads.
"""

from __future__ import annotations

import base64
import json
import time

import pytest
from fastapi.testclient import TestClient
from tokenizers import Regex, models, pre_tokenizers
from tokenizers import Tokenizer as HFTokenizer

from app.config import Settings
from app.main import create_app

EVIL = "(a|a)*$"
REPRODUCER = "a" * 30 + "!"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("hostile") / "store.sqlite3"
    app = create_app(
        Settings(
            db_path=db,
            max_text_chars=20_000,
            max_corpus_bytes=2_000_000,
            max_upload_bytes=2_000_000,
            regex_timeout=0.5,
        )
    )
    with TestClient(app) as c:
        yield c


def upload(client, data: bytes, filename: str = "tokenizer.json", **fields):
    return client.post("/api/tokenizers", files={"file": (filename, data)}, data=fields)


def handle_of(client, data: bytes, **fields) -> str:
    r = upload(client, data, **fields)
    assert r.is_success, r.text
    return r.json()["tokenizer"]


def split_file() -> bytes:
    tok = HFTokenizer(models.WordLevel({"a": 0, "!": 1, "[UNK]": 2}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(EVIL), "isolated")
    return tok.to_str().encode()


def wordlevel_config() -> dict:
    tok = HFTokenizer(models.WordLevel({"a": 0, "!": 1, "[UNK]": 2, "[PAD]": 3}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return json.loads(tok.to_str())


# ---- 1. regex backtracking -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def evil(client) -> str:
    return handle_of(client, split_file())


def timed(call):
    start = time.perf_counter()
    r = call()
    return r, time.perf_counter() - start


@pytest.mark.heavy
def test_the_api_answers_422_naming_the_pattern(client, evil):
    r, seconds = timed(
        lambda: client.post("/api/encode", json={"tokenizer": evil, "text": REPRODUCER})
    )
    assert r.status_code == 422, r.text
    assert EVIL in r.json()["detail"] and "0.5 s" in r.json()["detail"]
    print(f"POST /api/encode: {seconds:.2f} s")
    ok = client.post("/api/encode", json={"tokenizer": evil, "text": "aa!"})
    assert ok.status_code == 200  # ordinary text still encodes


@pytest.mark.heavy
def test_the_visualiser_answers_422_naming_the_pattern(client, evil):
    r, seconds = timed(lambda: client.get("/", params={"tokenizer": evil, "text": REPRODUCER}))
    assert r.status_code == 422
    assert EVIL in r.text
    print(f"GET /: {seconds:.2f} s")


@pytest.mark.heavy
def test_compare_stops_the_column_and_names_the_pattern(client, evil):
    """Compare shows each column's error in the column (the other columns still draw)."""
    r, seconds = timed(
        lambda: client.get("/compare", params={"text": REPRODUCER, "col": [evil, "cl100k_base"]})
    )
    assert r.status_code in (200, 422)
    assert EVIL in r.text
    api = client.get("/api/compare", params={"text": REPRODUCER, "col": [evil, "cl100k_base"]})
    assert EVIL in api.json()[0]["error"] and api.json()[1]["tokens"]
    print(f"GET /compare: {seconds:.2f} s")


@pytest.mark.heavy
def test_a_ranks_file_pattern_answers_422(client):
    ranks = b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256))
    handle = handle_of(client, ranks, pattern=EVIL)
    r = client.post("/api/encode", json={"tokenizer": handle, "text": REPRODUCER})
    assert r.status_code == 422 and EVIL in r.json()["detail"]


@pytest.mark.heavy
def test_the_custom_regex_rule_answers_422_naming_the_pattern(client):
    r = client.post("/api/encode", json={"tokenizer": "regex", "pattern": EVIL, "text": REPRODUCER})
    assert r.status_code == 422 and EVIL in r.json()["detail"]


# ---- 2. padding ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fixed", ["3000000", "1e12", "1000000000000"])
def test_huge_fixed_padding_is_refused_at_upload(client, fixed):
    config = wordlevel_config()
    config["padding"] = {
        "strategy": {"Fixed": 0},
        "direction": "Right",
        "pad_to_multiple_of": None,
        "pad_id": 3,
        "pad_type_id": 0,
        "pad_token": "[PAD]",
    }
    data = json.dumps(config).replace('"Fixed": 0', f'"Fixed": {fixed}').encode()
    r = upload(client, data)
    assert r.status_code == 422, r.text[:300]
    assert "padding" in r.json()["detail"]


# ---- 3. WordPiece max_input_chars_per_word ------------------------------------------------------------
@pytest.mark.heavy
def test_a_long_word_with_a_huge_max_input_chars_encodes_as_hugging_face(client):
    vocab = {"[UNK]": 0, "a": 1, "b": 2, "##a": 3, "##b": 4, "ab": 5, "##ab": 6}
    config = json.loads(HFTokenizer(models.WordPiece(vocab, unk_token="[UNK]")).to_str())
    config["model"]["max_input_chars_per_word"] = 10**9
    data = json.dumps(config).encode()
    word = "ab" * 3000
    handle = handle_of(client, data)
    r, seconds = timed(lambda: client.post("/api/encode", json={"tokenizer": handle, "text": word}))
    assert r.status_code == 200, r.text[:300]
    assert r.json()["tokens"] == HFTokenizer.from_str(data.decode()).encode(word).tokens
    print(f"6,000-character word: {seconds:.2f} s")


# ---- 16. an empty WordPiece vocabulary -------------------------------------------------------------------
def test_an_empty_wordpiece_vocabulary_uploads(client):
    r = upload(client, HFTokenizer(models.WordPiece()).to_str().encode())
    assert r.is_success, r.text
    assert r.json()["vocab_size"] == 0

"""/vocab with real files: a tokenizer.json's added tokens are part of its vocabulary (Llama 3's
256 special tokens sit past the model's 128,000, ids 128000..128255), and /vocab, its search,
`GET /api/vocab` and the vocabulary CSV list them, each marked special or not; a bare merges file
uploaded alone answers 422 saying what it is and what it needs.

The file has its own server (a larger upload bound than the other page tests'), so its tests
stay beside test_vocab.py rather than in it. The small tokenizer.json is built here with Hugging
Face `tokenizers`; the real Llama 3 one is read from ../shared/data/interop when it is there.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.shared_data import INTEROP

LLAMA3_JSON = INTEROP / "converted" / "llama3.tokenizer.json"


def small_json() -> bytes:
    """A small BPE (not byte-level) with two added tokens past its vocabulary: a
    special one (id 5) and an ordinary one (id 6), and one special token inside it ([UNK])."""
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

    tok = Tokenizer(
        models.BPE({"a": 0, "b": 1, "c": 2, "ab": 3, "[UNK]": 4}, [("a", "b")], unk_token="[UNK]")
    )
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.add_special_tokens(["[UNK]", "<|start|>"])
    tok.add_tokens([AddedToken("xyz", special=False)])
    assert tok.get_vocab_size() == 7 and tok.token_to_id("xyz") == 6
    return tok.to_str().encode()


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("added") / "store.sqlite3"
    with TestClient(
        create_app(
            Settings(
                db_path=db,
                max_text_chars=20_000,
                max_corpus_bytes=2_000_000,
                max_upload_bytes=10_000_000,
                regex_timeout=0.5,
            )
        )
    ) as c:
        yield c


def upload(client, data: bytes, filename: str = "tokenizer.json") -> str:
    r = client.post("/api/tokenizers", files={"file": (filename, data)})
    assert r.status_code == 201, r.text
    return r.json()["tokenizer"]


@pytest.fixture(scope="module")
def small(client) -> str:
    return upload(client, small_json())


def rows(html: str) -> list[tuple[int, str, str]]:
    """(id, token as drawn, its mark) of each row of the vocabulary table."""
    table = html.split('data-testid="vocab-table"', 1)[1].split("</table>", 1)[0]
    return [
        (int(i), unescape(t), m)
        for i, t, m in re.findall(
            r'<a href="[^"]*">(\d+)</a></td>\s*<td><span class="piece[^"]*">([^<]*)</span>'
            r'(?:\s*<span class="badge[^>]*>([^<]*)</span>)?',
            table,
        )
    ]


def found(html: str) -> str:
    return (
        unescape(
            re.sub(
                r"<[^>]+>", "", html.split('data-testid="vocab-found"', 1)[1].split("</p>", 1)[0]
            )
        )
        .split(">", 1)[1]
        .strip()
    )


def test_vocab_lists_the_added_tokens_marked(client, small):
    page = client.get("/vocab", params={"tokenizer": small})
    assert page.status_code == 200
    assert found(page.text).startswith("7 entries ·") and "has 7" in found(page.text)
    assert [(i, t) for i, t, _m in rows(page.text)] == [
        (0, "a"),
        (1, "b"),
        (2, "c"),
        (3, "ab"),
        (4, "[UNK]"),
        (5, "<|start|>"),
        (6, "xyz"),
    ]
    marks = {i: m for i, _t, m in rows(page.text)}
    assert marks[4] == "special" and marks[5] == "special" and marks[6] == "added"
    assert marks[0] == marks[3] == ""


@pytest.mark.parametrize("q, want", [("5", [5]), ("6", [6]), ("start", [5]), ("xy", [6])])
def test_search_finds_added_tokens(client, small, q, want):
    page = client.get("/vocab", params={"tokenizer": small, "q": q})
    assert [i for i, _t, _m in rows(page.text)] == want


def test_an_added_token_in_detail(client, small):
    page = client.get("/vocab", params={"tokenizer": small, "q": "xyz", "id": 6})
    detail = page.text.split('data-testid="vocab-detail"', 1)[1].split("</article>", 1)[0]
    assert "78 79 7A" in detail  # its bytes
    assert "added token · not special" in unescape(detail)
    special = client.get("/vocab", params={"tokenizer": small, "id": 5}).text
    assert "added token · special" in unescape(special.split('data-testid="vocab-detail"', 1)[1])


def test_api_and_csv_mark_each_entry(client, small):
    data = client.get("/api/vocab", params={"tokenizer": small}).json()["vocab"]
    assert [(r["id"], r["token"], r["special"], r["added"]) for r in data] == [
        (0, "a", False, False),
        (1, "b", False, False),
        (2, "c", False, False),
        (3, "ab", False, False),
        (4, "[UNK]", True, False),
        (5, "<|start|>", True, True),
        (6, "xyz", False, True),
    ]
    r = client.get("/api/download/vocab.csv", params={"tokenizer": small})
    table = list(csv.reader(io.StringIO(r.text)))
    assert table[0] == ["id", "token", "special", "added"]
    assert table[-2:] == [["5", "<|start|>", "true", "true"], ["6", "xyz", "false", "true"]]


@pytest.mark.heavy
def test_openai_special_tokens_are_marked_too(client):
    data = client.get("/api/vocab", params={"tokenizer": "cl100k_base"}).json()["vocab"]
    assert data[-1] == {"id": 100276, "token": "<|endofprompt|>", "special": True, "added": True}
    assert data[0] == {"id": 0, "token": "!", "special": False, "added": False}


@pytest.mark.heavy
@pytest.mark.skipif(
    not LLAMA3_JSON.is_file(), reason="../shared/data/interop is not beside the repo"
)
def test_llama3_lists_its_256_special_tokens(client):
    config = json.loads(LLAMA3_JSON.read_text("utf-8"))
    handle = upload(client, gzip.compress(LLAMA3_JSON.read_bytes(), 1), "llama3.tokenizer.json.gz")
    page = client.get("/vocab", params={"tokenizer": handle, "q": "128000"})
    assert rows(page.text) == [(128000, "<|begin_of_text|>", "special")]
    everything = client.get("/vocab", params={"tokenizer": handle}).text
    assert found(everything).startswith("128,256 entries") and "has 128,256" in found(everything)
    data = client.get("/api/vocab", params={"tokenizer": handle}).json()["vocab"]
    assert len(data) == 128_256
    assert [(r["id"], r["token"], r["special"]) for r in data[128_000:]] == [
        (t["id"], t["content"], t["special"]) for t in config["added_tokens"]
    ]
    search = client.get("/vocab", params={"tokenizer": handle, "q": "eot_id"})
    assert [(i, t) for i, t, _m in rows(search.text)] == [(128009, "<|eot_id|>")]


# ---- a merges file alone -------------------------------------------------------------------------
def test_uploading_a_bare_merges_file_says_what_it_is(client):
    clip = gzip.compress(b'"bpe_simple_vocab_16e6.txt#version: 0.2\ni n\nt h\na n\nth e</w>\n')
    r = client.post("/api/tokenizers", files={"file": ("bpe_simple_vocab_16e6.txt.gz", clip)})
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert "merges file" in detail and "vocab.json" in detail and "[UNK]" not in detail

"""A GGUF model uploads as its metadata prefix: the server reads the bytes up to the end of the
key-value section (a whole model over the upload limit is cut to the limit, not refused), stores
only those, and says clearly when the prefix it got ends inside the metadata."""

from __future__ import annotations

import struct

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.gguf_files import write_gpt2
from tokenizers_core.formats.gguf import read_metadata

XSS = '<script>alert("x")</script>'


@pytest.fixture(scope="module")
def gguf_bytes(tmp_path_factory) -> tuple[bytes, int]:
    """The bundled GPT-2 as a GGUF, and where its key-value section ends."""
    path = write_gpt2(str(tmp_path_factory.mktemp("gguf") / "gpt2.gguf"))
    return open(path, "rb").read(), read_metadata(path).kv_end


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("gguf-uploads") / "store.sqlite3"
    app = create_app(
        Settings(
            db_path=db,
            max_text_chars=20_000,
            max_corpus_bytes=2_000_000,
            max_upload_bytes=2_000_000,
            max_tokenizer_bytes=3_000_000,
            regex_timeout=0.5,
        )
    )
    with TestClient(app) as c:
        yield c


def upload(client, data: bytes, filename: str = "model.gguf", **fields):
    return client.post("/api/tokenizers", files={"file": (filename, data)}, data=fields)


@pytest.mark.heavy
def test_a_model_larger_than_the_limit_loads_from_its_metadata(client, gguf_bytes):
    data, kv_end = gguf_bytes
    model = data + bytes(4_000_000)  # "tensors": past the 3 MB upload limit
    r = upload(client, model, name=XSS)
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["format"] == "gguf" and body["bytes"] == kv_end  # only the metadata kept
    enc = client.post(
        "/api/encode", json={"tokenizer": body["tokenizer"], "text": "Hello world"}
    ).json()
    assert enc["ids"] == [15496, 995]
    page = client.get("/tokenizers").text
    assert XSS not in page and "&lt;script&gt;" in page


@pytest.mark.heavy
def test_the_same_model_cut_at_two_places_is_one_upload(client, gguf_bytes):
    data, kv_end = gguf_bytes
    a = upload(client, data[:kv_end]).json()
    b = upload(client, data + bytes(100)).json()
    assert a["tokenizer"] == b["tokenizer"]


def test_a_prefix_cut_inside_the_metadata_is_a_422_that_says_so(client, gguf_bytes):
    data, _ = gguf_bytes
    r = upload(client, data[:200_000])
    assert r.status_code == 422
    assert "cut before the end of the GGUF metadata" in r.json()["detail"]


def test_a_hostile_gguf_is_a_422(client):
    evil = (
        b"GGUF"
        + struct.pack("<IQQ", 3, 0, 1)
        + struct.pack("<Q", 21)
        + b"tokenizer.ggml.tokens"
        + struct.pack("<IIQ", 9, 8, 10**12)
    )
    r = upload(client, evil)
    assert r.status_code == 422 and "1,000,000,000,000 elements" in r.json()["detail"]


def test_the_sniff_note_says_only_the_metadata_is_sent(client, gguf_bytes):
    data, _ = gguf_bytes
    r = client.post("/tokenizers/sniff", files={"file": (XSS + ".gguf", data[:65_536])})
    assert r.status_code == 200
    assert 'data-format="gguf"' in r.text and 'data-slice="3000000"' in r.text
    assert "only its first" in r.text and XSS not in r.text


def test_the_upload_form_names_gguf(client):
    assert "GGUF" in client.get("/tokenizers").text


@pytest.mark.heavy
def test_the_visualiser_says_when_the_pre_tokenizer_is_default(client, tmp_path):
    path = write_gpt2(str(tmp_path / "default.gguf"), pre="default")
    handle = upload(client, open(path, "rb").read()).json()["tokenizer"]
    page = client.get("/", params={"tokenizer": handle, "text": "It costs 12345 dollars"}).text
    assert 'data-testid="load-warning"' in page and "pre-tokenizer is &#39;default&#39;" in page
    assert "pre-tokenizer default), run as llama.cpp runs it" in page
    good = upload(client, open(write_gpt2(str(tmp_path / "gpt2.gguf")), "rb").read())
    page = client.get("/", params={"tokenizer": good.json()["tokenizer"], "text": "Hi"}).text
    assert "pre-tokenizer gpt-2" in page and 'data-testid="load-warning"' not in page


def test_a_bert_gguf_says_its_wordpiece_is_llama_cpps(client):
    from tokenizers_core import load
    from tokenizers_core.formats import gguf_writer

    data = gguf_writer.dump_bytes(load("bert-base-uncased"))
    handle = upload(client, data, "bert.gguf").json()["tokenizer"]
    page = client.get("/", params={"tokenizer": handle, "text": "한국어 text"}).text
    assert "(bert), run as llama.cpp runs it" in page
    assert "pre-processing is llama.cpp's own, not BERT's" in page
    r = client.post("/api/encode", json={"tokenizer": handle, "text": "한"})
    bert = client.post("/api/encode", json={"tokenizer": "bert-base-uncased", "text": "한"})
    assert r.json()["tokens"] != bert.json()["tokens"]  # llama.cpp keeps only ᄒ

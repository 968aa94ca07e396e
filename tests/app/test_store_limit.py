"""The store's size limit (TOKVIS_MAX_STORE_MB): past it, storing a corpus or a tokenizer file is
refused with 507 and a message (in place on the pages), what is stored keeps working, and storing
a text that is there already still works."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.store import CorpusStore, StoreFull


def test_the_store_refuses_what_would_pass_its_limit(tmp_path):
    store = CorpusStore(tmp_path / "s.sqlite3", max_bytes=1000)
    first = store.put("a" * 600)
    with pytest.raises(StoreFull, match="past its limit"):
        store.put("b" * 600)
    assert store.put("a" * 600) == first  # there already: adds nothing
    with pytest.raises(StoreFull):
        store.put_file(b"x" * 500)
    store.put_file(b"x" * 300)
    assert store.used_bytes() == 900 and store.get(first) == "a" * 600


@pytest.fixture
def small(tmp_path):
    s = Settings(
        db_path=tmp_path / "small.sqlite3",
        max_text_chars=20_000,
        max_corpus_bytes=2_000_000,
        max_upload_bytes=2_000_000,
        regex_timeout=0.5,
        max_store_mb=1,
    )
    with TestClient(create_app(s)) as c:
        yield c


@pytest.mark.heavy
def test_api_and_pages_answer_507_and_stored_things_still_work(small):
    kept = small.post("/api/corpora", json={"text": "low lower newest " * 30_000})  # 510 KB
    assert kept.status_code == 201
    full = small.post("/api/corpora", json={"text": "widest " * 100_000})  # 700 KB
    assert full.status_code == 507 and "store is full" in full.json()["detail"]
    page = small.post("/bpe/train", data={"corpus_text": "widest " * 100_000})
    assert page.status_code == 507 and "store is full" in page.text and "<form" in page.text
    vocab = "\n".join(["[UNK]"] + [f"token{i}" for i in range(70_000)]).encode()  # 660 KB
    upload = small.post("/api/tokenizers", files={"file": ("vocab.txt", vocab)})
    assert upload.status_code == 507 and "TOKVIS_MAX_STORE_MB" in upload.json()["detail"]
    sha = kept.json()["sha256"]
    for _ in range(600):  # a corpus this size trains in the job pool
        view = small.get(f"/bpe/train?corpus={sha}&vocab_size=40&step=3")
        if 'data-testid="training"' not in view.text:
            break
        time.sleep(0.1)
    assert view.status_code == 200 and 'data-testid="pair-table"' in view.text
    schema = small.get("/openapi.json").json()["paths"]
    assert "507" in schema["/api/corpora"]["post"]["responses"]
    assert "507" not in schema["/api/encode"]["post"]["responses"]


def test_the_upload_form_shows_a_full_store_in_place(small):
    small.post("/api/corpora", json={"text": "low lower newest " * 55_000})  # 935 KB
    vocab = "\n".join(["[UNK]"] + [f"token{i}" for i in range(20_000)]).encode()
    r = small.post(
        "/tokenizers",
        files={"file": ("vocab.txt", vocab)},
        data={"next": "/"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 507 and "store is full" in r.text and "<html" not in r.text

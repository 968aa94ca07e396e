"""The parsed uploaded tokenizers are kept by memory, not by count: each is
weighed by an estimate from its counts, the least recently used goes past the budget
(TOKVIS_TOKENIZER_CACHE_MB) and is parsed again from the store when asked for; a file past the
load bounds is refused with a 4xx naming the field."""

from __future__ import annotations

import gzip
import json

import pytest

import tokenizers_core as tc
from app.config import Settings
from app.jobs.cache import tokenizer_bytes
from app.store import CorpusStore
from app.uploads import UploadedTokenizers


@pytest.fixture(scope="module")
def bert_file(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("bert") / "tokenizer.json"
    tc.load("bert-base-uncased").save(path)
    return path.read_bytes()


def variant(data: bytes, n: int) -> bytes:
    """The BERT file with `n` extra added tokens: another file, about the same weight."""
    config = json.loads(data)
    base = len(config["model"]["vocab"])
    config["added_tokens"] += [
        {
            "id": base + i,
            "content": f"<extra{i}>",
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for i in range(n)
    ]
    return json.dumps(config).encode()


def test_the_estimate_is_near_what_a_tokenizer_holds(bert_file):
    """BERT's tokenizer.json holds ~9 MB once loaded (tracemalloc); Llama 3's ~95 MB."""
    assert 8e6 < tokenizer_bytes(tc.load(bert_file)) < 12e6


def test_the_cache_keeps_what_fits_in_its_budget_however_many(tmp_path, bert_file):
    uploads = UploadedTokenizers(CorpusStore(tmp_path / "s.sqlite3"), max_bytes=80 * 10**6)
    handles = [uploads.add(variant(bert_file, n))["handle"] for n in range(1, 7)]  # 6 x ~10 MB
    kept = [uploads.get(h) for h in handles]
    assert all(uploads.get(h) is tok for h, tok in zip(handles, kept))  # none parsed again


def test_past_its_budget_the_least_recently_used_is_dropped_and_parsed_again(tmp_path, bert_file):
    uploads = UploadedTokenizers(CorpusStore(tmp_path / "s.sqlite3"), max_bytes=25 * 10**6)
    first, second, third = (uploads.add(variant(bert_file, n))["handle"] for n in (1, 2, 3))
    one, two = uploads.get(first), uploads.get(second)
    assert uploads.get(third) is not None  # 3 x ~10 MB: the oldest used goes
    assert uploads.get(second) is two
    again = uploads.get(first)
    assert again is not one and again.encode("[CLS] hi").tokens == one.encode("[CLS] hi").tokens


def test_the_budget_is_a_setting(monkeypatch):
    monkeypatch.setenv("TOKVIS_TOKENIZER_CACHE_MB", "300")
    assert Settings.from_env().tokenizer_cache_mb == 300
    monkeypatch.delenv("TOKVIS_TOKENIZER_CACHE_MB")
    assert Settings.from_env().tokenizer_cache_mb == 1024


@pytest.mark.heavy
def test_an_upload_past_the_added_token_bound_is_a_422_naming_the_field(store_client, bert_file):
    config = json.loads(bert_file)
    config["added_tokens"] += [
        {"id": 30522 + i, "content": f"<t{i}>", "normalized": False} for i in range(100_000)
    ]
    data = gzip.compress(json.dumps(config).encode())
    r = store_client.post("/api/tokenizers", files={"file": ("tokenizer.json.gz", data)})
    assert r.status_code == 422
    assert r.json()["detail"] == (
        "added_tokens has 100,005 entries; the most a tokenizer may have is 100,000"
    )

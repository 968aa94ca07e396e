"""The tax's numbers are saved at build time (app/data/tax_counts.json) so /tax answers at
once (issue 13, item 11); the saved numbers must be what the engine computes."""

from __future__ import annotations

import json

import pytest

from app import tax


def test_saved_numbers_cover_every_bundled_tokeniser_and_the_current_texts():
    data = json.loads(tax.DATA.read_text(encoding="utf-8"))
    assert data["udhr_sha256"] == tax.texts_sha256(), "run `python -m app.tax` to refresh"
    assert sorted(data["counts"]) == sorted(tax.vocab_tokenizers())


@pytest.mark.heavy
def test_saved_numbers_match_the_engine():
    """One tokeniser in full (the quickest to load); the file is written by the same function."""
    assert tax.compute("bert-base-uncased") == tax._saved()["bert-base-uncased"]


def test_tax_page_reads_saved_numbers_without_loading_a_vocabulary(isolated_client, monkeypatch):
    """(its own store: every upload of other tests would be a column, computed afresh)"""
    client = isolated_client

    def no(name):
        raise AssertionError(f"/tax computed {name} instead of reading the saved numbers")

    monkeypatch.setattr(tax, "compute", no)
    tax._kept.clear()
    assert client.get("/tax").status_code == 200
    assert client.get("/api/tax").json()["counts"]["cl100k_base"]["eng"] > 0

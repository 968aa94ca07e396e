"""/tax shows Petrov et al.'s language premium (tokens relative to English on the parallel UDHR
texts) for every loaded tokeniser at once: languages as rows, tokenisers as columns, each cell
coloured by its premium, the rows sortable by any column (issue 22, item 4)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tokenizers_core as tc
from app import tax
from app.services.analytics import PREMIUM_BANDS, premium_band
from tokenizers_core.audit.premium import language_premiums, premiums, token_counts, udhr_texts

DATA = Path(tc.__file__).resolve().parent / "data"
XSS = '"><script>alert(1)</script>'


@pytest.fixture(scope="module")
def client(isolated_client):
    return isolated_client


@pytest.mark.heavy
@pytest.mark.parametrize("name", ["cl100k_base", "bert-base-uncased", "mistral_v3"])
def test_the_saved_numbers_are_the_premiums_computed_afresh(name):
    """app/data/tax_counts.json is made at build time; the core computes the same premiums now
    (a byte-level BPE, WordPiece with its [CLS]/[SEP] left out, a sentencepiece BPE)."""
    saved = {code: t for code, (t, _unk) in tax._saved()[name].items()}
    fresh = token_counts(tc.load(name), udhr_texts())
    assert saved == fresh
    assert premiums(saved) == language_premiums(tc.load(name))


def test_bands_cover_every_premium_in_order():
    assert [premium_band(v) for v in (0.5, 1.0, 1.3, 1.7, 2.5, 3.5, 5.0, 9.0)] == [
        0,
        0,
        1,
        2,
        3,
        4,
        5,
        6,
    ]
    assert len(PREMIUM_BANDS) == 7


def heads(html: str) -> list[str]:
    return re.findall(r'<th class="num tok-head[^"]*"[^>]*data-tok="([^"]+)"', html)


@pytest.mark.heavy
def test_the_page_shows_every_bundled_tokenizer_and_this_browsers_uploads(client):
    page = client.get("/tax")
    assert page.status_code == 200
    assert heads(page.text) == tax.vocab_tokenizers()
    data = (DATA / "botchan_en_unigram_1000.model.gz").read_bytes()
    handle = client.post(
        "/api/tokenizers", files={"file": ("mine.model.gz", data)}, data={"name": "My unigram"}
    ).json()["tokenizer"]
    page = client.get("/tax")
    assert heads(page.text) == tax.vocab_tokenizers() + [handle]
    assert "My unigram" in page.text
    # ticking a few still narrows the table to them
    few = client.get("/tax", params=[("tok", "qwen3"), ("tok", "clip")]).text
    assert heads(few) == ["qwen3", "clip"]


def cell(html: str, lang: str, tok: str) -> str:
    m = re.search(
        rf'<td class="num prem prem-(\d)[^"]*" data-lang="{lang}" data-tok="{tok}"'
        r"[^>]*>([\d.]+)",
        html,
    )
    assert m, (lang, tok)
    return m.group(1), m.group(2)


@pytest.mark.heavy
def test_each_cell_is_coloured_by_its_premium_with_a_legend(client):
    page = client.get("/tax", params=[("tok", "r50k_base"), ("tok", "o200k_base")]).text
    got = language_premiums(tc.load("r50k_base"))
    band, value = cell(page, "tam", "r50k_base")
    assert value == f"{got['tam']:.2f}" and int(band) == premium_band(got["tam"])
    assert cell(page, "eng", "o200k_base") == ("0", "1.00")
    assert 'class="premium-legend"' in page
    for i in range(len(PREMIUM_BANDS)):
        assert f"prem-{i}" in page.split('class="premium-legend"')[1]


def order(html: str) -> list[str]:
    return re.findall(r'<tr class="lang-row" data-lang="([^"]+)"', html)


@pytest.mark.heavy
def test_rows_sort_by_a_tokenizer_most_expensive_first_and_by_language_by_default(client):
    params = [("tok", "r50k_base"), ("tok", "cl100k_base")]
    by_name = order(client.get("/tax", params=params).text)
    names = {lang.code: lang.name for lang in tc.corpora.udhr_languages()}
    assert by_name == sorted(by_name, key=lambda c: names[c])
    page = client.get("/tax", params=params + [("sort", "r50k_base")]).text
    got = language_premiums(tc.load("r50k_base"))
    assert order(page) == sorted(got, key=lambda c: (-got[c], names[c]))
    assert re.search(r'data-tok="r50k_base"[^>]*aria-sort="descending"', page)
    # each header is a plain link that keeps the chosen columns
    assert 'href="/tax?tok=r50k_base&amp;tok=cl100k_base&amp;sort=cl100k_base"' in page


def test_a_largest_premium_row_sums_up_each_column(client):
    page = client.get("/tax", params=[("tok", "r50k_base")]).text
    code, value = max(language_premiums(tc.load("r50k_base")).items(), key=lambda kv: kv[1])
    foot = page.split("<tfoot>")[1]
    assert f"{value:.2f}" in foot and code in foot


def test_hostile_parameters_render_as_text(client):
    page = client.get("/tax", params={"sort": XSS, "chart": XSS})
    assert page.status_code == 200 and "<script>alert(1)" not in page.text
    assert client.get("/tax", params={"tok": XSS}).status_code == 404


@pytest.mark.heavy
def test_an_upload_that_cannot_encode_the_texts_is_left_out_not_fatal(tmp_path):
    """One user's tokenizer.json whose own normaliser refuses these texts (20 x Replace "a" ->
    "aa": issue 27's amplifier) used to fail the page for everyone, since every stored upload is
    a column by default. It is left out, and named; asked for by name it fails with its message."""
    import dataclasses
    import json

    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.main import create_app

    settings = Settings(
        db_path=tmp_path / "store.sqlite3",
        max_text_chars=20_000,
        max_corpus_bytes=2_000_000,
        max_upload_bytes=2_000_000,
        regex_timeout=0.5,
    )
    data = {
        "version": "1.0",
        "added_tokens": [],
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": None,
        "truncation": None,
        "padding": None,
        "normalizer": {
            "type": "Sequence",
            "normalizers": [{"type": "Replace", "pattern": {"String": "a"}, "content": "aa"}] * 20,
        },
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]"},
    }
    with TestClient(create_app(dataclasses.replace(settings, sandbox_workers=1))) as client:
        handle = client.post(
            "/api/tokenizers",
            data={"name": "Doubler"},
            files={"file": ("tokenizer.json", json.dumps(data).encode())},
        ).json()["tokenizer"]
        page = client.get("/tax")
        assert page.status_code == 200
        note = re.search(r'data-testid="tax-left-out">(.*?)</p>', page.text, re.S).group(1)
        assert "Doubler" in note and "Replace" in note
        assert f'data-tok="{handle}"' not in page.text  # no column for it
        assert client.get("/tax", params={"tok": handle}).status_code == 422

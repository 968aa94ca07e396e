"""`/audit/numbers` (a page with a picker), `/audit/numbers/fragment` (the section another page
loads with hx-get) and `GET /api/audit/numbers`: the heatmap of token counts of 0-9999, its
legend, the formats table with chips and the grouping sentence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tokenizers_core as tc
from tokenizers_core.audit.numbers import integer_token_counts

XSS = '"><script>alert(1)</script>'
HX = {"HX-Request": "true"}


@pytest.fixture(scope="module")
def client(isolated_client):
    return isolated_client


# ---- /audit/numbers ------------------------------------------------------------------------------
def test_the_json_has_every_count_the_grouping_and_the_formats(client):
    body = client.get("/api/audit/numbers", params={"tokenizer": "gpt-4"}).json()
    assert len(body["counts"]) == 10_000 and body["counts"][999] == 1 and body["counts"][1000] == 2
    assert body["histogram"] == {"1": 1000, "2": 9000}
    assert body["grouping"]["name"] == "up to 3 digits, left to right"
    assert body["tokenizer"] == "gpt-4"
    assert {f["text"] for f in body["formats"]} >= {"3.14", "1,000,000", "12.5%", "-42", "1e10"}


def test_the_page_draws_the_heatmap_legend_formats_and_sentence(client):
    page = client.get("/audit/numbers", params={"tokenizer": "r50k_base"})
    assert page.status_code == 200 and "<html" in page.text
    html = page.text
    assert 'name="tokenizer"' in html and 'value="r50k_base" selected' in html
    assert "whole numbers up to 2 digits in the vocabulary" in html
    counts = integer_token_counts(tc.load("r50k_base"))
    layers = re.findall(r'<path class="num-c(\d)" data-count="(\d+)" d="([^"]+)"', html)
    assert sorted(int(c) for _b, c, _d in layers) == sorted(set(counts))
    # every cell is drawn once: the runs' widths add up to the 10,000 integers
    widths = [int(w) for _b, _c, d in layers for w in re.findall(r"h(\d+)", d)]
    assert sum(widths) == 10_000
    legend = html.split('class="numbers-legend"')[1].split("</ul>")[0]
    assert f"{counts.count(3):,} numbers" in legend
    table = html.split('class="table numbers-formats"')[1].split("</table>")[0]
    assert "1,000,000" in table and table.count('class="chips"') == 9


@pytest.mark.heavy
def test_the_fragment_is_the_section_alone(client):
    frag = client.get("/audit/numbers/fragment", params={"tokenizer": "mistral_v1"})
    assert frag.status_code == 200 and "<html" not in frag.text
    assert 'id="numbers"' in frag.text and "single digits" in frag.text
    assert "premium.css" in frag.text  # its look comes along into any page
    # an htmx request for the page gets the same section
    assert (
        'id="numbers"'
        in client.get("/audit/numbers", params={"tokenizer": "mistral_v1"}, headers=HX).text
    )


@pytest.mark.heavy
def test_an_uploaded_tokenizer_is_audited_too(client):
    data = (Path(tc.__file__).parent / "data" / "botchan_en_unigram_1000.model.gz").read_bytes()
    handle = client.post(
        "/api/tokenizers", files={"file": ("u.model.gz", data)}, data={"name": "My numbers"}
    ).json()["tokenizer"]
    page = client.get("/audit/numbers", params={"tokenizer": handle})
    assert page.status_code == 200 and "learned chunks (no rule)" in page.text
    assert "My numbers" in page.text


@pytest.mark.parametrize("url", ["/audit/numbers", "/audit/numbers/fragment", "/api/audit/numbers"])
def test_an_unknown_tokenizer_is_a_404_and_hostile_names_render_as_text(client, url):
    r = client.get(url, params={"tokenizer": XSS})
    assert r.status_code == 404
    if url.startswith("/api"):  # JSON, never HTML: the name is data
        assert r.headers["content-type"] == "application/json"
        assert "unknown tokeniser" in r.json()["detail"]
    else:
        assert "unknown tokeniser" in r.text and "<script>alert(1)" not in r.text


def test_the_regex_tokenizer_has_no_vocabulary_to_audit(client):
    r = client.get("/api/audit/numbers", params={"tokenizer": "regex"})
    assert r.status_code == 422 and "vocabulary" in r.json()["detail"]
    page = client.get("/audit/numbers", params={"tokenizer": "regex"})
    assert page.status_code == 422 and 'role="alert"' in page.text

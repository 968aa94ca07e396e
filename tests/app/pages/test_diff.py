"""/diff, two tokenizers' segmentations of one text: A drawn left and B right in every row, each
stage explained once, byte-level spellings shown decoded. Also the page's sources (the stress set
paged, pasted lines, a stored corpus cut at a megabyte), its bad input said in place, and
`GET /api/diff`."""

from __future__ import annotations

import re

import pytest

from app.services import diff as diff_service
from tokenizers_core import pretrained

XSS = '<script>alert(1)</script> "quoted" <img src=x onerror=alert(2)>'


TAMIL = "வணக்கம் உலகம்"


# ---- /diff -------------------------------------------------------------------------------------
def test_diff_says_what_each_stage_means_once_not_under_every_row(client):
    html = client.get("/diff").text
    assert html.count('data-testid="diff-row"') == 20
    for stage, help_text in diff_service.STAGE_HELP.items():
        assert html.count(help_text) <= 1, stage
    assert html.count(diff_service.STAGE_HELP["pre-tokenizer split"]) == 1  # in the summary
    summary = html.split('data-testid="diff-summary"', 1)[1].split("</article>", 1)[0]
    assert 'data-testid="stage-help"' in summary and 'data-testid="ab-legend"' in summary


def sides(row: str) -> list[str]:
    return re.findall(r'<section class="diff-side side-([ab])"', row)


def test_diff_draws_a_then_b_in_every_row_evidence_and_chips_together(client):
    """A model-stage row drew "the word" top-left, A top-right and B bottom-left; now each side
    is one column (A first), holding its evidence and its chips."""
    # r50k and p50k split runs of spaces differently (the same pre-tokenizer): stage "model"
    html = client.get("/diff", params={"a": "r50k_base", "b": "p50k_base"}).text
    rows = html.split('data-testid="diff-row"')[1:]
    assert len(rows) == 4 and all(sides(r) == ["a", "b"] for r in rows)
    for row in rows:
        a, b = row.split('class="diff-side side-b"', 1)
        assert a.count('class="chips"') == 1 and b.count('class="chips"') == 1
    first = rows[0]
    assert 'data-stage="model"' in first[:40] and "The word: <code>··</code>" in first
    a, b = first.split('class="diff-side side-b"', 1)
    # each side's tokens as text, with the byte-level spelling beside them
    assert '<code title="spelt Ġ">·</code> <code title="spelt Ġ">·</code>' in a
    assert (
        '<code title="spelt ĠĠ">··</code> <span class="spelling muted">spelt <code>ĠĠ</code>' in b
    )


def test_byte_level_spellings_are_shown_decoded_and_explained(client):
    text = f"{TAMIL}\n"
    r = client.get(
        "/diff", params={"a": "cl100k_base", "b": "o200k_base", "source": "text", "text": text}
    )
    row = r.text.split('data-testid="diff-row"', 1)[1]
    # the piece as text, and its byte-level spelling beside it, named as a spelling
    assert re.search(
        r"piece <code>வ[^<]*</code> at 0–\d+ <span class=\"spelling muted\">spelt <code>à®µ", row
    )
    note = r.text.split('data-testid="spelling-note"', 1)[1].split("</p>", 1)[0]
    assert "byte-level" in note and "à®µ" in note
    # a character cut across tokens is explained once, in the summary, not under each row
    assert r.text.count('data-testid="partial-note-once"') == 1


def test_the_spelling_helper_decodes_byte_level_tokens_only():
    gpt2, bert = pretrained.load("gpt2"), pretrained.load("bert-base-uncased")
    assert diff_service.spelled(gpt2, "Ġdon") == ("·don", "Ġdon")
    assert diff_service.spelled(gpt2, "à®") == ("<E0 AE>", "à®")
    assert diff_service.spelled(bert, "##ing") == ("##ing", "##ing")


def test_pasted_hostile_text_stays_text_in_the_spellings(client):
    r = client.get(
        "/diff", params={"a": "cl100k_base", "b": "o200k_base", "source": "text", "text": XSS}
    )
    assert r.status_code == 200
    assert "<script>alert(1)" not in r.text and "<img src=x" not in r.text


# ---- the sources, bad input and the JSON ----------------------------------------------------
def test_the_default_page_diffs_cl100k_and_o200k_on_the_stress_set(client):
    r = client.get("/diff")
    assert r.status_code == 200
    assert 'data-testid="verdict"' in r.text and "% identical" in r.text
    assert r.text.count('data-testid="diff-row"') == 20  # one page
    assert 'rel="next"' in r.text and "page <b>1</b>" in r.text
    assert 'href="/diff"' in r.text  # the nav link
    # the first rows are the most informative: a pre-tokenizer split, not a renumbering
    assert re.search(r'data-testid="diff-row" data-stage="pre-tokenizer split"', r.text)


def test_an_alias_against_its_encoding_is_identical(client):
    r = client.get("/diff", params={"a": "gpt2", "b": "r50k_base"})
    assert r.status_code == 200
    assert ">Identical</b>" in r.text and 'data-testid="diff-row"' not in r.text


def test_pasted_text_is_diffed_line_by_line_and_shown_as_text(client):
    text = "I don't know\nsame\n" + XSS
    r = client.get(
        "/diff",
        params={"a": "cl100k_base", "b": "o200k_base", "source": "text", "text": text},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200 and "<h1>" not in r.text  # the results block alone
    assert "<script>alert(1)" not in r.text and "<img src=x" not in r.text
    assert "script&gt;alert(1)&lt;/script&gt;" in r.text and "<code>&lt;script</code>" in r.text
    assert 'data-stage="pre-tokenizer split"' in r.text and "<code>·don</code>" in r.text


def test_a_corpus_is_paged(client):
    params = {"a": "cl100k_base", "b": "o200k_base", "source": "corpus", "corpus": "udhr/eng"}
    first = client.get("/diff", params=params)
    second = client.get("/diff", params={**params, "page": 2})
    assert first.status_code == second.status_code == 200
    assert "page <b>2</b>" in second.text and 'rel="prev"' in second.text
    assert "of the corpus udhr/eng" in first.text


def test_bad_input_is_shown_in_place(client):
    r = client.get("/diff", params={"a": "no-such-tokenizer"})
    assert r.status_code == 404 and "unknown tokeniser" in r.text and 'id="diff-form"' in r.text
    r = client.get("/diff", params={"source": "elsewhere"})
    assert r.status_code == 422 and "unknown text source" in r.text
    r = client.get("/diff", params={"source": "corpus", "corpus": "nope"})
    assert r.status_code == 404 and "unknown corpus" in r.text


def test_the_api_reports_the_share_the_stages_and_the_first_differences(client):
    r = client.get("/api/diff", params={"a": "cl100k_base", "b": "o200k_base", "limit": 3})
    assert r.status_code == 200
    data = r.json()
    assert data["texts"] > 80 and 0 <= data["share_identical"] < 1
    assert len(data["differences"]) == 3 and data["differing"] == sum(data["by_stage"].values())
    first = data["differences"][0]
    assert {"index", "text", "stage", "position", "evidence", "window_a", "window_b"} <= set(first)


def test_the_api_answers_bad_input_with_a_detail(client):
    assert client.get("/api/diff", params={"a": "gpt2", "b": "nope"}).status_code == 404
    r = client.get("/api/diff", params={"a": "gpt2", "b": "gpt2", "limit": 5000})
    assert r.status_code == 422 and "limit" in r.json()["detail"]
    assert client.get("/api/diff", params={"a": "", "b": "gpt2"}).status_code == 422


@pytest.mark.heavy
def test_a_corpus_over_a_megabyte_is_cut_and_the_page_says_so(store_client):
    line = "The cat sat on the mat. " * 40 + "\n"  # 961 characters
    text = line * 1100  # 1,057,100 characters
    digest = store_client.post("/api/corpora", json={"text": text, "name": "long"}).json()["sha256"]
    params = {"a": "gpt2", "b": "r50k_base", "source": "corpus", "corpus": digest}
    page = store_client.get("/diff", params=params)
    assert page.status_code == 200 and 'data-testid="cut-note"' in page.text
    assert "The corpus is 1,057,100 characters" in page.text
    data = store_client.get("/api/diff", params=params).json()
    assert data["cut"] == 1_057_100 and data["texts"] == 1_000_000 // len(line)


def test_no_text_to_diff_says_so(client):
    r = client.get("/diff", params={"source": "text", "text": "\n\n"})
    assert r.status_code == 200 and ">No texts</b>" in r.text and "Identical" not in r.text


def test_a_page_below_1_is_refused(client):
    """The schema says page >= 1; page 0 or -1 was shown as page 1 (a 200)."""
    for page in (0, -1):
        r = client.get("/diff", params={"page": page})
        assert r.status_code == 422 and f"page must be 1 or more, not {page}" in r.text

"""Issue 31, item 8: /compare shows its results first, /diff draws A left and B right and says
each explanation once, /tax names its tokenisers and fits (the browser half is in
tests/browser/test_finish_layouts_browser.py)."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest

from app.services import diff as diff_service
from tokenizers_core import pretrained

XSS = '<script>alert(1)</script> "quoted" <img src=x onerror=alert(2)>'
TAMIL = "வணக்கம் உலகம்"


# ---- /compare ----------------------------------------------------------------------------------
def drop_links(html: str) -> dict[str, dict[str, list[str]]]:
    """Each chosen column's label and the query of its "remove" link."""
    found = re.findall(
        r'<li class="chosen-col[^"]*" data-testid="chosen-col">([^<]+)'
        r'.*?<a class="drop" href="([^"]+)"',
        html,
        flags=re.S,
    )
    return {label.strip(): parse_qs(urlsplit(unescape(href)).query) for label, href in found}


def test_compare_puts_the_results_before_the_list_of_columns(client):
    """The 26 boxes filled the first screen; now the text, the chosen columns as chips and the
    columns come first, and the boxes (joined to the form by `form=`) after the results."""
    html = client.get("/compare").text
    assert html.index('id="compare-chosen"') < html.index('id="columns"')
    assert html.index('id="columns"') < html.index('id="compare-cols"')
    picker = html.split('id="compare-cols"', 1)[1].split("</fieldset>", 1)[0]
    boxes = re.findall(r'<input type="checkbox"[^>]*name="col"[^>]*>', picker)
    assert len(boxes) >= 26 and all('form="compare-form"' in b for b in boxes)
    assert 'name="ref" form="compare-form"' in picker
    # the form listens for the boxes' changes on their stable wrapper
    assert "change from:#col-picker" in html.split('id="compare-form"', 1)[1].split(">", 1)[0]
    assert len(drop_links(html)) == 5


def test_each_chosen_column_is_a_chip_whose_link_drops_it_and_keeps_the_reference(client):
    params = {"text": "naïve café", "col": ["word", "char", "sentence"], "ref": 2}
    links = drop_links(client.get("/compare", params=params).text)
    assert list(links) == ["Words and punctuation", "Characters (code points)", "Sentences"]
    assert links["Words and punctuation"]["col"] == ["char", "sentence"]
    assert links["Words and punctuation"]["ref"] == ["1"]  # still the sentence column
    assert links["Sentences"]["col"] == ["word", "char"]
    assert links["Sentences"]["ref"] == ["0"]  # the reference dropped: the first column
    assert links["Characters (code points)"]["text"] == ["naïve café"]


def test_a_single_column_has_no_remove_link(client):
    html = client.get("/compare", params={"text": "x", "col": ["word"]}).text
    assert html.count('data-testid="chosen-col"') == 1 and 'class="drop"' not in html


def test_the_columns_fragment_sends_the_chosen_chips_out_of_band(client):
    r = client.get(
        "/compare", params={"text": "x", "col": ["word", "char"]}, headers={"HX-Request": "true"}
    )
    chosen = r.text.split('id="compare-chosen"', 1)[1].split("</div>", 1)[0]
    assert 'hx-swap-oob="true"' in chosen and chosen.count('data-testid="chosen-col"') == 2


def test_every_compare_column_lists_the_same_metrics_in_the_same_order(client):
    """So that their rows line up (the reference says "(reference)" where the others count
    the tokens that differ from it)."""
    params = {"text": "Dr. Who left.", "col": ["word", "char", "bert-base-uncased"], "ref": 1}
    html = client.get("/compare", params=params).text
    columns = html.split('<article class="compare-col')[1:]
    names = [re.findall(r"<dt>([^<]+)</dt>", c) for c in columns]
    assert len(names) == 3 and names[0] == names[1] == names[2]
    assert names[0][-2:] == ["special", "differs"]
    assert "(reference)" in columns[1] and "(reference)" not in columns[0]


def test_a_hostile_column_name_is_text_in_the_chips(client):
    r = client.get("/compare", params={"text": "x", "col": ["word", XSS]})
    assert "<script>alert(1)" not in r.text and "<img src=x" not in r.text


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


# ---- /tax --------------------------------------------------------------------------------------
@pytest.mark.heavy
def test_tax_names_its_tokenisers_in_the_boxes_and_the_heads(client):
    html = client.get("/tax").text
    form = html.split('class="panel tax-form"', 1)[1].split("</form>", 1)[0]
    assert "GPT-2 (r50k_base, byte-level BPE)</label>" in form
    assert "BERT base uncased (WordPiece)</label>" in form
    assert "> r50k_base</label>" not in form  # not the raw id alone
    head = re.search(r'<th class="num tok-head[^"]*" data-tok="cl100k_base".*?</th>', html).group(0)
    assert '<span class="head-name">GPT-4</span>' in head
    assert '<span class="head-id">cl100k_base</span>' in head
    assert 'title="GPT-4 (cl100k_base, byte-level BPE): sort by it' in head
    assert "<wbr>" not in html  # the heads are not broken at underscores or hyphens


def test_tax_says_the_table_scrolls_sideways(client):
    html = client.get("/tax", params=[("tok", "r50k_base"), ("tok", "clip")]).text
    assert 'data-testid="scroll-hint"' in html and "scroll the table sideways" in html
    hint = html.index('data-testid="scroll-hint"')
    assert hint < html.index('<div class="tax-scroll">') < html.index("<table")

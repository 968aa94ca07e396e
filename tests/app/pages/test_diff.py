"""/diff, two tokenizers' segmentations of one text: A drawn left and B right in every row, each
stage explained once, byte-level spellings shown decoded."""

from __future__ import annotations

import re

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

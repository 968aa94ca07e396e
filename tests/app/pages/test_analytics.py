"""/tax and the other analytics pages: the tokenisation tax names its tokenisers in the boxes and
the heads, and says its table scrolls sideways."""

from __future__ import annotations

import re

import pytest


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


def test_line_chart_labels_never_overlap():
    from app.charts import MIN_TICK_GAP, line_chart

    chart = line_chart(
        {"nats per word": [(300, 9), (330, 9), (370, 8), (498, 9), (1980, 9)]},
        x_label="vocab",
        y_label="nats",
    )
    xs = [x for x, _ in chart.x_ticks]
    assert all(b - a >= MIN_TICK_GAP for a, b in zip(xs, xs[1:]))
    assert chart.x_ticks[0][1] == "300" and chart.x_ticks[-1][1] == "1980"


@pytest.mark.heavy
def test_tax_table_keeps_every_column_and_the_unk_badge_whole(client):
    html = client.get("/tax").text
    assert 'class="num tok-head"' in html and "unk-badge" in html
    assert 'style="' not in html


def test_unicode_lab_shows_byte_level_tokens_as_text(client):
    html = client.get("/unicode", params={"text": "café naïve", "tok": "cl100k_base"}).text
    pieces = re.findall(r'<li class="piece[^"]*"[^>]*>([^<]*)</li>', html)
    assert pieces and not any(c in p for p in pieces for c in "ĠÃ"), pieces
    assert "·na" in "".join(pieces) or "·naïve" in pieces

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

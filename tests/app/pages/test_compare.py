"""/compare, tokenizers side by side: the results come first, each chosen column is a chip whose
link drops it, and every column lists the same metrics (the browser half is in
tests/browser/test_finish_layouts_browser.py)."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

XSS = '<script>alert(1)</script> "quoted" <img src=x onerror=alert(2)>'


def drop_links(html: str) -> dict[str, dict[str, list[str]]]:
    """Each chosen column's label and the query of its "remove" link."""
    found = re.findall(
        r'<li class="chosen-col[^"]*" data-testid="chosen-col">([^<]+)'
        r'.*?<a class="drop" href="([^"]+)"',
        html,
        flags=re.S,
    )
    return {label.strip(): parse_qs(urlsplit(unescape(href)).query) for label, href in found}


# ---- /compare ----------------------------------------------------------------------------------
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

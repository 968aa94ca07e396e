"""The header on every page: its navigation is five menus holding every page's link, and the
upload form's summary is one short line."""

from __future__ import annotations

import re
from html import unescape

import pytest

OLD_LINKS = [
    "/",
    "/bpe/train",
    "/bpe/encode",
    "/wordpiece/train",
    "/wordpiece/encode",
    "/unigram/lattice",
    "/unigram/train",
    "/lessons",
    "/check",
    "/worksheet/bpe",
    "/worksheet/wordpiece",
    "/compare",
    "/chat",
    "/diff",
    "/sweep",
    "/tax",
    "/unicode",
    "/vocab",
    "/tokenizations",
    "/audit",
    "/corpora",
    "/tokenizers",
    "/docs",
]
GROUPS = ["Explore", "Step through", "Compare", "Your model", "Learn"]


def menus(html: str) -> dict[str, list[str]]:
    nav = html.split('<nav aria-label="main"', 1)[1].split("</nav>", 1)[0]
    out = {}
    for block in nav.split("<details")[1:]:
        title = re.search(r"<summary>(.*?)</summary>", block).group(1)
        out[title] = [unescape(h) for h in re.findall(r'href="([^"]+)"', block)]
    return out


@pytest.mark.heavy
def test_the_navigation_is_five_menus_holding_every_link(client):
    html = client.get("/tokenizers").text
    groups = menus(html)
    assert list(groups) == GROUPS
    nav = html.split('<nav aria-label="main"', 1)[1].split("</nav>", 1)[0]
    assert nav.count("<details") == 5 and nav.count("<summary>") == 5  # no loose links
    every = [h for links in groups.values() for h in links]
    assert set(OLD_LINKS) <= set(every)
    assert "/tokenizations" in groups["Explore"] and "/" in groups["Explore"]
    for variant in ("superbpe", "picky_bpe", "parity_bpe"):
        assert f"/bpe/train?variant={variant}" in groups["Step through"]
    for href in every:  # every entry answers
        assert client.get(href).status_code == 200, href
    here = client.get("/tax").text
    assert '<details class="menu current"' in here and 'href="/tax" aria-current="page"' in here


def test_the_upload_summary_is_one_short_line(client):
    for path in ("/", "/compare", "/chat", "/bpe/encode", "/diff", "/tokenizers"):
        html = client.get(path).text
        summary = re.search(
            r'data-testid="upload-box">\s*(?:\{#.*?#\}\s*)?<summary>(.*?)</summary>', html, re.S
        )
        assert summary and summary.group(1) == "Use your own tokenizer file…", path
        assert html.count("a sentencepiece .model, vocab.txt") == 1, path  # the formats, once

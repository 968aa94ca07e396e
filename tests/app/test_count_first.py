""" "Just count my tokens" (issue 31, item 3): the visualiser leads with a big count (tokens,
characters, the share of a context window) on every tokenizer; a long text gets that count
alone, and the page loads its chips in a second request (POST /tokens); counts carry thousands
separators; the header's navigation is five menus; the upload form's summary is one short line.
"""

from __future__ import annotations

import re
from html import unescape

import pytest

from app.services.visualiser import CONTEXT_WINDOWS, DEFAULT_WINDOW, DEFER_CHARS

HTMX = {"HX-Request": "true"}
MIXED = "Hello <|endoftext|> [CLS] naïve 東京 🙂 12345\n\tend"
PLAIN = "Hello naïve 東京 🙂 12345\n\tend"
DEFER = 1000  # the tests' texts are at most 20,000 characters (tests/conftest.py)


@pytest.fixture
def defer(monkeypatch) -> int:
    """A text over DEFER characters gets its count first (the app's own bound is DEFER_CHARS,
    20,000, the test server's whole limit)."""
    from app.routers import visualiser as router

    monkeypatch.setattr(router, "DEFER_CHARS", DEFER)
    return DEFER


def figure(html: str, testid: str) -> int:
    """A count as the page shows it (with its thousands separators), as a number."""
    shown = re.search(rf'data-testid="{testid}">([\d,]+)<', html).group(1)
    assert re.fullmatch(r"\d{1,3}(,\d{3})*", shown), shown  # 12,813, never 12813
    return int(shown.replace(",", ""))


def chips_of(html: str) -> list[str]:
    return [unescape(t) for t in re.findall(r'<span class="tok">(.*?)</span>', html, re.S)]


def picker_names(client) -> list[str]:
    page = client.get("/").text
    select = page.split('<select id="tokenizer"', 1)[1].split("</select>", 1)[0]
    return re.findall(r'<option value="([^"]+)"', select)


def test_the_picker_lists_the_bundled_tokenizers(client):
    names = picker_names(client)
    assert {"cl100k_base", "o200k_base", "bert-base-uncased", "word", "char"} <= set(names)


@pytest.mark.heavy
@pytest.mark.parametrize("special", [False, True])
def test_every_tokenizer_counts_first_what_its_chips_count(client, monkeypatch, special):
    """For every tokenizer of the picker, the count alone (one encode, no trace: what a long
    text gets first) equals the count beside the chips (the trace) and /api/encode's."""
    from app.routers import visualiser as router

    names = picker_names(client)
    for name in names:
        params = {"text": MIXED, "tokenizer": name}
        params.update({"special": "true" if special else "false"})
        params.update({"pattern": r"\w+|[^\w\s]"} if name == "regex" else {})
        monkeypatch.setattr(router, "DEFER_CHARS", 10**9)
        full = client.get("/", params=params)
        monkeypatch.setattr(router, "DEFER_CHARS", 5)
        first = client.post("/", data=params, headers=HTMX)
        assert full.status_code == first.status_code == 200, name
        assert 'data-testid="tokens-loading"' in first.text and not chips_of(first.text), name
        assert figure(first.text, "token-count") == figure(full.text, "token-count"), name
        assert figure(first.text, "char-count") == len(MIXED) == figure(full.text, "char-count")
        assert len(chips_of(full.text)) == figure(full.text, "token-count"), name
        assert 'data-testid="window-share"' in first.text, name
        if not special and name != "regex":  # /api/encode reads added special tokens
            plain = {"text": PLAIN, "tokenizer": name}
            api = client.post("/api/encode", json=plain).json()
            page = client.post("/", data=plain, headers=HTMX).text
            assert len(api["ids"]) == figure(page, "token-count"), name


def test_a_long_text_gets_its_count_then_its_tokens(client, defer):
    text = "The cat sat on the mat. " * 400  # 9,600 characters, 2,800 tokens
    assert len(text) > defer and DEFER_CHARS == 20_000
    form = {"text": text, "tokenizer": "word", "ids": "true"}
    first = client.post("/", data=form, headers=HTMX)
    assert first.status_code == 200
    assert figure(first.text, "token-count") == 2800
    assert figure(first.text, "char-count") == len(text)
    assert not chips_of(first.text) and 'data-testid="ids"' not in first.text
    loader = re.search(r'<div id="tokens-view"[^>]*>', first.text).group(0)
    assert 'hx-post="/tokens"' in loader and 'hx-include="#vis-form"' in loader
    assert 'hx-trigger="load"' in loader
    assert 'formaction="/tokens"' in first.text.split("<noscript>", 1)[1]  # without JavaScript
    assert first.headers["HX-Push-Url"] == "/?tokenizer=word&ids=true"
    assert len(first.text) < 20_000  # the count, not 2,000 chips

    rest = client.post("/tokens", data=form, headers=HTMX)
    assert rest.status_code == 200 and "HX-Push-Url" not in rest.headers
    assert 'id="vis-form"' not in rest.text and 'data-testid="count"' not in rest.text
    assert rest.text.lstrip().startswith('<div id="tokens-view"')
    assert len(chips_of(rest.text)) == 2000 and 'data-testid="ids"' in rest.text
    assert "The first 2,000 of 2,800 tokens are drawn" in rest.text
    assert '<span class="id">' in rest.text  # the form's settings came with it

    plain = client.post("/tokens", data=form)  # the <noscript> button: the whole page
    assert plain.status_code == 200 and 'id="vis-form"' in plain.text
    assert figure(plain.text, "token-count") == figure(first.text, "token-count")
    assert len(chips_of(plain.text)) == 2000 and 'data-testid="tokens-loading"' not in plain.text


def test_a_short_text_gets_everything_in_one_answer(client):
    r = client.post("/", data={"text": "a b c", "tokenizer": "word"}, headers=HTMX)
    assert chips_of(r.text) == ["a", "b", "c"] and 'data-testid="tokens-loading"' not in r.text


def test_a_long_stored_permalink_opens_with_its_count_first(store_client, defer):
    text = "x" * (defer + 1)
    url = store_client.post(
        "/permalink", data={"text": text, "tokenizer": "char"}, follow_redirects=False
    ).headers["location"]
    page = store_client.get(url)
    assert page.status_code == 200 and figure(page.text, "char-count") == defer + 1
    assert 'data-testid="tokens-loading"' in page.text and not chips_of(page.text)


def test_the_window_is_the_models_unless_picked(client):
    def share(params) -> str:
        html = client.get("/", params={"text": "Hello world", **params}).text
        return " ".join(
            unescape(re.sub(r"<[^>]+>", " ", html.split('data-testid="window-share">')[1]))
            .split("</span>")[0]
            .split()
        )

    assert CONTEXT_WINDOWS["cl100k_base"] == (8192, "GPT-4")
    assert share({"tokenizer": "cl100k_base"}).startswith("of GPT-4’s 8,192-token context <0.1%")
    assert share({"tokenizer": "bert-base-uncased"}).startswith("of BERT’s 512-token context")
    assert share({"tokenizer": "o200k_base"}).startswith("of GPT-4o’s 128,000-token context")
    plain = client.get("/", params={"text": "Hello world", "tokenizer": "word"}).text
    assert f"of a {DEFAULT_WINDOW:,}-token context" in plain and "model is not known" in plain
    picked = client.get("/", params={"text": "a b c d", "tokenizer": "word", "window": "8"})
    assert "of a 8-token context <b>50%</b>" in picked.text
    assert '<option value="8" selected>8 tokens</option>' in picked.text
    over = client.get("/", params={"text": "a b c d e", "tokenizer": "word", "window": "2"})
    assert "<b>250%</b>" in over.text and 'data-testid="window-over">3 tokens over' in over.text


def test_a_bad_window_is_said_and_escaped(client):
    payload = "<script>alert(1)</script>"
    r = client.get("/", params={"text": "hi", "tokenizer": "word", "window": payload})
    assert r.status_code == 200 and "<script>alert(1)" not in r.text
    assert 'data-testid="window-error"' in r.text and "&lt;script&gt;" in r.text
    assert f"of a {DEFAULT_WINDOW:,}-token context" in r.text


def test_the_window_rides_in_the_permalink(client):
    r = client.post("/", data={"text": "hi", "tokenizer": "word", "window": "4096"}, headers=HTMX)
    assert r.headers["HX-Push-Url"] == "/?text=hi&tokenizer=word&window=4096"


def test_user_text_is_escaped_in_the_count_and_the_tokens(client, defer):
    payload = "</textarea><script>alert(1)</script><img src=x onerror=alert(1)>"
    text = payload + " filler" * (defer // 7 + 1)
    form = {"text": text, "tokenizer": "word"}
    for r in (
        client.post("/", data=form),
        client.post("/", data=form, headers=HTMX),
        client.post("/tokens", data=form, headers=HTMX),
        client.post("/tokens", data=form),
    ):
        assert r.status_code == 200
        assert "<script>alert(1)" not in r.text and "<img src=x" not in r.text


def test_counts_have_thousands_separators(client):
    text = "word " * 1500
    html = client.post("/", data={"text": text, "tokenizer": "word"}, headers=HTMX).text
    count = html.split('data-testid="count"', 1)[1].split('<div id="tokens-view"', 1)[0]
    assert figure(html, "token-count") == 1500 and figure(html, "char-count") == 7500
    assert "bytes <b>7,500</b>" in count and "words <b>1,500</b>" in count
    assert not re.search(r"\d{4}", re.sub(r"<[^>]+>", "", count))  # every figure separated
    assert "The first 1,500" not in html  # all 1,500 chips drawn: no cap note


# ---- the header's navigation and the upload summary ---------------------------------------------

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

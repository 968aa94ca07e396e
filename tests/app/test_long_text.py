"""Long pastes (issue 13, item 2): the visualiser's form is POSTed, so a text up to the
documented limit never travels in a URL; a text that fits a URL keeps its permalink, a longer
one is said to have none."""

from __future__ import annotations

import re

LONG_CJK = "東京都の天気は晴れです。" * 1600  # 19,200 characters, ~58 KB of UTF-8


def test_a_long_cjk_text_is_tokenised_from_a_post(client):
    r = client.post(
        "/", data={"text": LONG_CJK, "tokenizer": "cl100k_base"}, headers={"HX-Request": "true"}
    )
    assert r.status_code == 200, r.text[:300]
    count = int(re.search(r'data-testid="token-count">([\d,]+)<', r.text).group(1).replace(",", ""))
    assert count > 10_000
    assert r.headers["HX-Push-Url"] == "/?tokenizer=cl100k_base"
    assert "too long for a link" in r.text


def test_a_short_text_posted_keeps_its_permalink(client):
    r = client.post(
        "/",
        data={"text": "Hello world", "tokenizer": "word", "ids": "true"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200
    assert r.headers["HX-Push-Url"] == "/?text=Hello+world&tokenizer=word&ids=true"
    assert "too long for a link" not in r.text


def test_posting_without_javascript_renders_the_whole_page(client):
    r = client.post("/", data={"text": "a b", "tokenizer": "char"})
    assert r.status_code == 200 and 'id="vis-form"' in r.text and 'method="post"' in r.text


def test_over_the_limit_is_a_message_not_a_crash(client):
    r = client.post(
        "/", data={"text": "x" * 20_001, "tokenizer": "char"}, headers={"HX-Request": "true"}
    )
    assert r.status_code == 200 and "takes at most 20,000 characters" in r.text


def test_a_long_text_draws_its_first_chips_and_counts_all(client):
    from app.services.visualiser import MAX_CHIPS

    text = "The cat sat on the mat. " * 800  # 19,200 characters, 5,600 tokens
    r = client.post("/", data={"text": text, "tokenizer": "word"}, headers={"HX-Request": "true"})
    assert r.status_code == 200
    assert 'data-testid="token-count">5,600<' in r.text
    assert r.text.count('class="chip ') == MAX_CHIPS < 5600
    assert f"The first {MAX_CHIPS:,} of 5,600 tokens are drawn" in r.text
    assert len(r.text.split('data-testid="ids">')[1].split("<")[0].split()) == 5600


def test_a_long_text_gets_a_permalink_through_the_store(client):
    r = client.post(
        "/permalink",
        data={"text": LONG_CJK, "tokenizer": "o200k_base", "ids": "true"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    url = r.headers["location"]
    assert url.startswith("/?stored=") and "tokenizer=o200k_base" in url and "ids=true" in url
    page = client.get(url, headers={"HX-Request": "true"})
    assert page.status_code == 200 and "no-permalink" not in page.text
    assert page.headers["HX-Push-Url"] == url
    assert f'data-testid="char-count">{len(LONG_CJK):,}<' in page.text
    htmx = client.post(
        "/permalink",
        data={"text": LONG_CJK, "tokenizer": "o200k_base", "ids": "true"},
        headers={"HX-Request": "true"},
    )
    assert htmx.status_code == 204 and htmx.headers["HX-Redirect"] == url


def test_an_unknown_stored_text_is_a_message(client):
    r = client.get("/", params={"stored": "0" * 64})
    assert r.status_code == 404 and "no stored text" in r.text
    assert client.get("/", params={"stored": "nope"}).status_code == 404

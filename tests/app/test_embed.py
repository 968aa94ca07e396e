"""`?embed=1` on every page: the view without the site chrome, links that stay embedded."""

from __future__ import annotations

import re

import pytest

from app.services.visualiser import page_paths


def _pages(app) -> list[str]:
    skip = ("/api", "/static", "/docs", "/openapi", "/redoc")
    return sorted(
        p
        for p in page_paths(app)
        if not p.startswith(skip) and "{" not in p and not p.endswith("/fragment")
    )  # a section other pages load, no page


@pytest.mark.heavy
def test_every_page_renders_without_chrome(app, client):
    pages = _pages(app) + ["/lessons/bpe-sennrich"]
    assert {"/", "/compare", "/bpe/train", "/check", "/lessons"} <= set(pages)
    for path in pages:
        full = client.get(path)
        r = client.get(path + "?embed=1")
        if "text/html" not in r.headers.get("content-type", ""):
            continue
        assert r.status_code == full.status_code, path
        assert '<header class="top">' in full.text, path
        assert '<header class="top">' not in r.text and "<footer" not in r.text, path
        assert 'data-embed="1"' in r.text and 'data-testid="open-full"' in r.text, path


def test_links_inside_an_embed_stay_embedded(client):
    r = client.get("/bpe/train?embed=1&step=2")
    links = re.findall(r'href="(/bpe/train\?[^"]*)"', r.text)
    assert links and all("embed=1" in link for link in links)
    r = client.get("/lessons/bpe-sennrich?embed=1&step=1", headers={"HX-Request": "true"})
    assert 'rel="next"' in r.text and "step=2&amp;embed=1" in r.text
    plain = client.get("/bpe/train?step=2")
    assert not [h for h in re.findall(r'href="([^"]*)"', plain.text) if "embed=1" in h]
    # (only the footer's "Embed this view" code names the embed: tests/app/test_embed_setting.py)
    assert plain.text.count("embed=1") == 1 and 'id="embed-snippet"' in plain.text


def test_errors_embed_too(client):
    r = client.get("/lessons/nope?embed=1")
    assert r.status_code == 404 and '<header class="top">' not in r.text


def test_cached_lessons_do_not_keep_an_embeds_links():
    from app.embed import EMBED
    from app.lessons import lesson

    lesson.cache_clear()
    token = EMBED.set(True)  # as during an embedded request
    try:
        first = lesson("bpe-sennrich")
    finally:
        EMBED.reset(token)
    assert all("embed" not in (s.link or "") for s in first.steps)

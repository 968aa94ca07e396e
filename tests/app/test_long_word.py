"""One long word on the visualiser page (issue 27, item 7): a word with no space in it (a run of
one CJK character, of lowercase letters) is one pre-tokenised piece, and the page's work must
grow in proportion to its length, as the encode's does. Before the fix every chip's "how was it
built?" link walked the whole piece to find the word around it: n chips x n characters.

The work is counted, not timed: the Python and C function calls the page's handler makes
(`sys.setprofile` sees both), so the test cannot flake on a busy machine. Timings are in
`benchmarks/bench_long_text.py` (the long-word table)."""

from __future__ import annotations

import random
import re
import string
import sys

import pytest

from app import display
from app.routers import visualiser as visualiser_router
from app.services.visualiser import MAX_CHIPS

HTMX = {"HX-Request": "true"}
TOKENIZER = "o200k_base"  # one token per 東, so every chip of a short run is drawn


def page(client, text: str):
    r = client.post("/", data={"text": text, "tokenizer": TOKENIZER}, headers=HTMX)
    assert r.status_code == 200, r.text[:300]
    return r


def calls_to_draw(client, monkeypatch, text: str) -> int:
    """Function calls (Python and built-in) the page's handler makes for `text`, once the
    tokeniser and its caches are warm. The handler runs in the TestClient's worker thread,
    so the counter is installed there, around the handler's body."""
    page(client, text)  # warm: the BPE cache, the templates
    count = 0
    page_of = visualiser_router._page

    def tally(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    def counted(*args, **kwargs):
        sys.setprofile(tally)
        try:
            return page_of(*args, **kwargs)
        finally:
            sys.setprofile(None)

    monkeypatch.setattr(visualiser_router, "_page", counted)
    try:
        page(client, text)
    finally:
        monkeypatch.setattr(visualiser_router, "_page", page_of)
    return count


@pytest.mark.heavy
def test_the_page_does_linear_work_on_one_long_word(client, monkeypatch):
    """Doubling a one-word text (1,000 -> 2,000 characters, every chip drawn) about doubles the
    page's work; with the quadratic link walk it grew 3.1x."""
    n = 1000
    assert 2 * n <= MAX_CHIPS
    small = calls_to_draw(client, monkeypatch, "東" * n)
    large = calls_to_draw(client, monkeypatch, "東" * (2 * n))
    assert large / small < 2.6, (small, large)


LETTERS = "".join(random.Random(0).choices(string.ascii_lowercase, k=14000))


@pytest.mark.parametrize("word", ["東" * 5000, LETTERS])
def test_the_long_word_page_counts_what_the_api_counts(client, word):
    """The page's token count is /api/encode's, and it draws the first MAX_CHIPS of them."""
    api = client.post("/api/encode", json={"text": word, "tokenizer": TOKENIZER}).json()
    html = page(client, word).text
    shown = re.search(r'data-testid="token-count">([\d,]+)<', html).group(1)
    assert int(shown.replace(",", "")) == len(api["ids"])
    drawn = html.count('class="chip ')
    assert drawn == min(MAX_CHIPS, len(api["ids"]))


def test_a_link_in_a_long_word_keeps_its_token_whole():
    """Past MAX_LINK_WORD characters into a word, the link's window ends where the token ends
    (it used to be the word's first 64 characters, which did not hold the token)."""
    word = "".join(chr(ord("a") + i % 26) for i in range(1000))
    for start, end in [(0, 3), (500, 504), (997, 1000)]:
        shown = display.link_word(word, (0, len(word)), (start, end))
        assert len(shown) == display.MAX_LINK_WORD and word[start:end] in shown
    assert display.link_word(word, (0, 1000), (500, 504)) == word[504 - display.MAX_LINK_WORD : 504]

"""/, the visualiser's chips: whitespace made visible, each chip's offsets and bytes on hover, a
BPE chip linked to its merge tree; a character cut across tokens drawn once, on the token that
completes it; unknown and byte-fallback tokens marked; a long text's first chips the same as the
whole text's; one long word one piece, and the page's work growing in proportion to its length."""

from __future__ import annotations

import random
import re
import string
import sys

import pytest

import tokenizers_core as tc
from app import display
from app.routers import visualiser as visualiser_router
from app.services.visualiser import MAX_CHIPS
from tests.app.pages.markup import chips_of


# ---- how a chip is drawn -------------------------------------------------------------------------
def test_whitespace_is_visible_and_ids_optional(client):
    r = client.get("/", params={"text": "a\tb\nc", "tokenizer": "char", "ids": "true"})
    assert chips_of(r.text) == ["a", "→", "b", "↵", "c"]
    assert '<span class="id">97</span>' in r.text  # the char tokeniser's id is the code point


def test_chip_hover_data_offsets_and_bytes(client):
    r = client.get("/", params={"text": "né", "tokenizer": "char"})
    assert 'data-s="1" data-e="2"' in r.text
    assert "bytes C3 A9" in r.text


def test_bpe_chips_link_to_their_merge_tree(client):
    r = client.get("/", params={"text": "lowest", "tokenizer": "cl100k_base"})
    assert "/bpe/encode?tokenizer=cl100k_base&amp;text=lowest&amp;token=lowest" in r.text


# ---- a character cut across tokens ---------------------------------------------------------------
def labels(name: str, text: str) -> list[str]:
    tok = tc.load(name)
    return [c.text for c in display.chips(tok, text, tok.encode(text))]


def test_a_character_cut_across_tokens_is_drawn_once_on_the_token_that_completes_it():
    """cl100k: " 東" is ' ' + E6 9D in one token and B1 in the next; 東 belongs to the second."""
    assert labels("cl100k_base", "a 東京 b") == ["a", "·<E6 9D>", "東", "京", "·b"]
    assert labels("r50k_base", "ok 👍 yes") == ["ok", "·<F0 9F 91>", "👍", "·yes"]


def test_a_character_cut_into_three_tokens_shows_bytes_then_the_character():
    text = "𝔘𝔫𝔦"  # 4-byte characters: r50k cuts them across several tokens
    tok = tc.load("r50k_base")
    chips = display.chips(tok, text, tok.encode(text))
    shown = "".join(c.text for c in chips if not c.text.startswith("<"))
    assert shown == text, [c.text for c in chips]
    assert all(c.partial == c.text.startswith("<") for c in chips)


def test_whole_characters_are_unchanged():
    assert labels("o200k_base", "東京") == ["東京"]
    assert labels("cl100k_base", "Hello world") == ["Hello", "·world"]


def test_the_page_says_the_rule_once(client):
    r = client.get("/", params={"text": "a 東京", "tokenizer": "cl100k_base"})
    assert "drawn once, on the token that completes it" in r.text
    assert "drawn once" not in client.get("/", params={"text": "abc"}).text


# ---- unknown and byte-fallback tokens ------------------------------------------------------------
def chip_marks(name: str, text: str):
    tok = tc.load(name)
    return [(c.text, c.mark) for c in display.chips(tok, text, tok.encode(text))]


def test_unknown_tokens_are_marked_and_show_what_they_stand_for():
    assert ("☃", "unk") in chip_marks("bert-base-uncased", "hello ☃ world")
    assert ("☃", "unk") in chip_marks("botchan_en_unigram_1000", "hello ☃ world")
    assert all(mark == "" for _, mark in chip_marks("cl100k_base", "hello ☃ world"))


def test_byte_fallback_pieces_are_marked():
    """A sentencepiece model with byte_fallback spells an unknown character as <0xE2> ..."""
    from tokenizers_core.encoding import Encoding

    tok = tc.load("botchan_en_unigram_1000")
    enc = Encoding(
        ids=[5, 6, 7],
        tokens=["<0xE2>", "<0x98>", "<0x83>"],
        offsets=[(0, 1), (0, 1), (0, 1)],
        word_ids=[0, 0, 0],
        attention_mask=[1, 1, 1],
        special_tokens_mask=[0, 0, 0],
    )
    chips = display.chips(tok, "☃", enc)
    assert [c.mark for c in chips] == ["byte", "byte", "byte"]
    assert [c.text for c in chips] == ["<E2>", "<98>", "☃"]


def test_the_page_marks_unknowns_on_the_chip(client):
    r = client.get("/", params={"text": "hello ☃", "tokenizer": "bert-base-uncased"})
    assert 'class="mark">UNK<' in r.text


# ---- the first chips of a long text --------------------------------------------------------------
def test_segments_up_to_a_boundary_are_the_full_ones_then_the_rest():
    tok = tc.load("cl100k_base")
    text = "The cat sat on the mat, 東京 👍 and more." * 3
    enc = tok.encode(text)
    full = display.segments(text, enc)
    upto = enc.offsets[12][1]
    cut = display.segments(text, enc, upto=upto)
    assert cut[:-1] == [s for s in full if s.end <= upto]
    assert (cut[-1].start, cut[-1].end, cut[-1].tokens) == (upto, len(text), ())


def test_chip_labels_of_the_first_tokens_match_the_full_labels():
    tok = tc.load("r50k_base")
    text = "ok 👍 東京 yes " * 5
    enc = tok.encode(text)
    full = [c.text for c in display.chips(tok, text, enc)]
    assert [c.text for c in display.chips(tok, text, enc, limit=7)] == full[:7]


# ---- one long word -------------------------------------------------------------------------------
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

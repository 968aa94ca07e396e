"""/, the visualiser's chips: whitespace made visible, each chip's offsets and id in the page and
its facts (bytes, raw spelling, links) in the popover the same as the inline tooltip said, a BPE
chip's popover linked to its merge tree; a character cut across tokens drawn once, on the token that
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

HTMX = {"HX-Request": "true"}


# ---- how a chip is drawn -------------------------------------------------------------------------
def test_whitespace_is_visible_and_ids_optional(client):
    r = client.get("/", params={"text": "a\tb\nc", "tokenizer": "char", "ids": "true"})
    assert chips_of(r.text) == ["a", "→", "b", "↵", "c"]
    assert '<span class="id">97</span>' in r.text  # the char tokeniser's id is the code point


def facts_of(client, text: str, tokenizer: str, i: int, **form) -> str:
    """What the popover says about chip `i` (POST /visualiser/token), as text."""
    r = client.post(
        "/visualiser/token", data={"text": text, "tokenizer": tokenizer, "i": i, **form}
    )
    assert r.status_code == 200, r.text
    assert 'data-testid="chip-facts"' in r.text
    return r.text


def test_a_chip_holds_its_offsets_and_id_and_its_popover_the_bytes(client):
    r = client.get("/", params={"text": "né", "tokenizer": "char"})
    assert "data-s=1 data-e=2 data-id=233>" in r.text
    assert "bytes C3 A9" not in r.text  # on demand: the popover says it
    assert "bytes C3 A9" in facts_of(client, "né", "char", 1)


def test_bpe_chips_link_to_their_merge_tree(client):
    """The popover's "how was it built?" link steps through the chip's word."""
    link = "/bpe/encode?tokenizer=cl100k_base&amp;text=lowest&amp;token=lowest"
    assert link in facts_of(client, "lowest", "cl100k_base", 0)


def tip_facts(body: str) -> list[str]:
    """The facts inside each inline tooltip of a page drawn with full chips."""
    return re.findall(r'<span class="tip" role="tooltip">(.*?)</span></li>', body, re.S)


def popover_facts(body: str) -> str:
    return re.search(r'data-testid="chip-facts" data-i="\d+">(.*?)</div>', body, re.S).group(1)


@pytest.mark.parametrize(
    "tokenizer, text",
    [
        ("cl100k_base", "The naïve café, 東京 👍 lowest!"),
        ("bert-base-uncased", "Hello ☃ Café playing"),
        ("botchan_en_unigram_1000", "hello ☃ world"),
    ],
)
def test_the_popover_says_what_the_chip_s_tooltip_said(client, tokenizer, text):
    """For every token, the popover's facts are the inline tooltip's (the chips macro without
    `slim`, as the other pages draw it), and its id and offsets are /api/encode's."""
    from app.render import env
    from app.services.visualiser import step_link

    tok = tc.load(tokenizer)
    enc = tok.encode(text)
    chips = display.chips(tok, text, enc)
    state = client.app.state.app_state
    macro = env.get_template("partials/chips.html").module.chips
    old = tip_facts(
        str(macro(chips, link=step_link(state, tok), name=tok.name, vocab_name=tokenizer))
    )
    api = client.post("/api/encode", json={"text": text, "tokenizer": tokenizer}).json()
    assert len(old) == len(chips) == len(api["ids"])
    for i, c in enumerate(chips):
        body = facts_of(client, text, tokenizer, i)
        assert popover_facts(body) == old[i]
        assert f"id {api['ids'][i]}<br>" in body
        s, e = api["offsets"][i]
        assert f"offsets {s}–{e}<br>" in body and (c.start, c.end) == (s, e)


def test_a_popover_for_a_chip_that_is_gone_is_a_422(client):
    form = {"text": "ab", "tokenizer": "char"}
    r = client.post("/visualiser/token", data={**form, "i": 5})
    assert r.status_code == 422 and "no chip 5" in r.text
    r = client.post("/visualiser/token", data={**form, "i": 0, "id": 98})  # "b" is 98, "a" 97
    assert r.status_code == 422 and "the text has changed" in r.text
    r = client.post("/visualiser/token", data={**form, "i": "x"})
    assert r.status_code == 422  # the app's error page, not a 500


def test_a_slim_chip_is_at_most_80_bytes_of_html_for_plain_text(client):
    """A chip holds its text, id and offsets (no tooltip, no title, no links, no index, no
    colour class: its place in the list gives both): 2 KB of English in cl100k_base."""
    from tokenizers_core.corpora import load_corpus

    corpus = load_corpus("botchan")
    text = corpus[corpus.index("CHAPTER I") :][:2048]
    r = client.post("/", data={"text": text, "tokenizer": "cl100k_base"}, headers=HTMX)
    chips = re.search(r'<ol class="chips slim" aria-label="tokens".*?</ol>', r.text, re.S).group(0)
    n = chips.count("<li ")
    assert n == len(tc.load("cl100k_base").encode(text))
    assert len(chips.encode()) / n <= 80, len(chips.encode()) / n
    assert 'class="tip"' not in chips and "title=" not in chips


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
    drawn = html.count('<li class="chip')
    assert drawn == min(MAX_CHIPS, len(api["ids"]))


def test_a_link_in_a_long_word_keeps_its_token_whole():
    """Past MAX_LINK_WORD characters into a word, the link's window ends where the token ends
    (it used to be the word's first 64 characters, which did not hold the token)."""
    word = "".join(chr(ord("a") + i % 26) for i in range(1000))
    for start, end in [(0, 3), (500, 504), (997, 1000)]:
        shown = display.link_word(word, (0, len(word)), (start, end))
        assert len(shown) == display.MAX_LINK_WORD and word[start:end] in shown
    assert display.link_word(word, (0, 1000), (500, 504)) == word[504 - display.MAX_LINK_WORD : 504]

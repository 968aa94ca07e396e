"""/, the visualiser: a text over the length limit is cut and its start still tokenised, one of a
thing is singular on every page, an alias is shown by its real name in every picker, a long paste
is POSTed (a text that fits a URL keeps its permalink), and the note under decode(ids) says what
actually happened. A chip draws a character cut across tokens once, on the token that completes
it, and marks unknown and byte-fallback tokens; one long word is one piece, and the page's work
grows in proportion to its length. The page leads with a big count (tokens, characters, the share
of a context window, with thousands separators) on every tokenizer; a long text gets that count
alone and loads its chips in a second request (POST /tokens)."""

from __future__ import annotations

import random
import re
import string
import sys
from html import unescape

import pytest

import tokenizers_core as tc
from app import display
from app.roundtrip import round_trip_notes
from app.routers import visualiser as visualiser_router
from app.services.visualiser import CONTEXT_WINDOWS, DEFAULT_WINDOW, DEFER_CHARS, MAX_CHIPS


def _text(html: str) -> str:
    """A page's words, tags dropped and spaces collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


# ---- a text over the length limit ----------------------------------------------------------------
def test_a_text_over_the_limit_is_cut_and_its_start_still_tokenised(client, settings):
    limit = settings.max_text_chars
    r = client.post(
        "/",
        data={"text": "ab " * (limit // 3 + 10), "tokenizer": "word"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200
    words = _text(r.text)
    assert f"the visualiser takes at most {limit:,} characters" in words
    assert "TOKVIS_MAX_TEXT_CHARS" not in r.text
    assert f'data-testid="char-count">{limit:,}<' in r.text  # the first `limit` characters
    assert 'data-testid="text-cut"' in r.text


def test_the_textarea_knows_the_limit(client, settings):
    r = client.get("/")
    assert f'maxlength="{settings.max_text_chars}"' in r.text
    assert f"at most {settings.max_text_chars:,} characters" in _text(r.text)


BAD_PLURAL = re.compile(
    r"(?<![\d.,])(?<!Round )\b1 (tokens|merges|pieces|steps|words|entries|rounds)\b"
    r"|\bfirst 1 "
)


# ---- plurals ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "/?text=a&tokenizer=char",
        "/bpe/encode?text=ab&step=1",
        "/worksheet/unigram_train",
        "/lessons",
    ],
)
def test_one_of_a_thing_is_singular(client, url):
    r = client.get(url)
    assert r.status_code == 200
    # the counts line ("characters 1 bytes 1 words 1 tokens 1") is a label then its number
    words = _text(re.sub(r'<p class="counts">.*?</p>', "", r.text, flags=re.S))
    assert not BAD_PLURAL.findall(words), BAD_PLURAL.findall(words)


def test_the_pipeline_says_one_token_and_one_piece(client):
    words = _text(client.get("/", params={"text": "a", "tokenizer": "char"}).text)
    assert "(char, 1 piece)" in words or ", 1 piece)" in words
    assert ", 1 token)" in words


# ---- alias names --------------------------------------------------------------------------------
def test_an_alias_is_shown_by_its_real_name(client):
    r = client.get("/", params={"text": "hi", "tokenizer": "gpt2"})
    assert r.status_code == 200
    assert "Trained: gpt2" not in r.text
    selected = re.search(r'<option value="([^"]*)"[^>]*selected', r.text).group(1)
    assert selected == "r50k_base"


@pytest.mark.parametrize(
    "url",
    ["/vocab?tokenizer=gpt2", "/?tokenizer=gpt-4&text=hi", "/?tokenizer=gpt-oss-120b&text=hi"],
)
def test_an_alias_is_its_bundled_entry_in_every_picker(client, url):
    """`gpt2` is r50k_base: no picker adds a "Trained: gpt2" entry for it; gpt-oss-120b is
    o200k_harmony, an encoding loaded by name but not listed: it is named as that."""
    r = client.get(url)
    assert r.status_code == 200 and "Trained: gpt" not in r.text


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


def notes(name: str, text: str, **kw) -> list[str]:
    tok = tc.load(name)
    enc = tok.encode(text, **kw)
    return round_trip_notes(tok, text, enc, tok.decode(enc.ids))


def test_exact_round_trip_has_no_note():
    assert notes("cl100k_base", "Hello, 東京 👍") == []


def test_special_tokens_read_from_the_text_come_back():
    assert notes("cl100k_base", "Hi <|endoftext|> there", allowed_special="all") == []


def test_special_tokens_the_post_processor_added_are_named_and_nothing_else():
    said = notes("bert-base-uncased", "hello world")
    assert said == ["decode keeps the special tokens “[CLS]”, “[SEP]” the post-processor added."]


def test_special_tokens_left_out_by_decode_are_named_and_nothing_is_said_of_normalising():
    from app.roundtrip import round_trip_notes

    tok = tc.load("cl100k_base")
    text = "Hi <|endoftext|> there"
    enc = tok.encode(text, allowed_special="all")
    said = round_trip_notes(tok, text, enc, tok.decode(enc.ids, skip_special_tokens=True))
    assert len(said) == 1 and "<|endoftext|>" in said[0] and "left out" in said[0]
    assert "normalis" not in said[0]


def test_unknowns_and_the_normaliser_are_told_apart():
    said = notes("bert-base-uncased", "Café ☃ ok")
    assert any("unknown token ([UNK]) stood for “☃”" in n for n in said)
    assert any("“Café” became “cafe”" in n for n in said)


def test_sentencepiece_unknown_and_spaces():
    said = notes("botchan_en_unigram_1000", "Hi  ☃ ok")
    assert any("<unk>" in n or "unknown" in n for n in said)


def test_the_page_shows_the_notes(client):
    """The visualiser decodes as decode does by default: special tokens kept."""
    r = client.get(
        "/",
        params={"text": "Hi <|endoftext|> there", "tokenizer": "cl100k_base", "special": "true"},
    )
    assert "(round trip exact)" in r.text and "left out" not in r.text
    assert "Hi·&lt;|endoftext|&gt;·there" in r.text.split('data-testid="decoded"')[1]
    r = client.get("/", params={"text": "hello ☃", "tokenizer": "bert-base-uncased"})
    assert "1 unknown token ([UNK]) stood for “☃”" in r.text


def test_the_decoder_joining_tokens_its_own_way_is_said_after_the_post_processor():
    """BERT's WordPiece decoder joins "a , b" as "a, b"; [CLS] and [SEP] are named apart."""
    said = notes("bert-base-uncased", "a , b")
    assert said == [
        "decode keeps the special tokens “[CLS]”, “[SEP]” the post-processor added.",
        "the decoder joins the tokens its own way: “a·,·b” comes back as “a,·b”.",
    ]


def test_characters_in_no_token_are_named():
    from tokenizers_core.models.wordlevel.model import WordLevel
    from tokenizers_core.pipeline import Tokenizer
    from tokenizers_core.pre_tokenizers.hf import Split

    tok = Tokenizer(
        WordLevel({"a": 0, "b": 1, "[UNK]": 2}, unk_token="[UNK]"),
        pre_tokenizer=Split(";", "removed"),
    )
    enc = tok.encode("a;b")
    assert round_trip_notes(tok, "a;b", enc, tok.decode(enc.ids)) == [
        "“;” is in no token: the pre-tokeniser dropped it."
    ]


def test_whitespace_the_normaliser_rewrote_is_named():
    said = notes("botchan_en_unigram_1000", "Hi  there")
    assert any(n.startswith("the normaliser rewrote the whitespace") for n in said), said


def test_an_unexplained_difference_says_where_it_starts():
    """Only whitespace differs, and not by the normaliser's doing: where it starts is said."""
    tok = tc.load("cl100k_base")
    enc = tok.encode("Hello world")
    assert round_trip_notes(tok, "Hello world", enc, "Hello  world") == [
        "decode gives “Hello··world” where the input has “Hello·world”."
    ]


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


# ---- the count first --------------------------------------------------------------------------

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

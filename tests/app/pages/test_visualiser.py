"""/, the visualiser: the page as plain HTML and as htmx fragments, bad input said in place with
the text kept, a text over the length limit cut and its start still tokenised, one of a thing
singular on every page, an alias shown by its real name in every picker, a long paste POSTed (a
text that fits a URL keeps its permalink, a longer one gets one through the store). The page leads
with a big count (tokens, characters, the share of a context window, with thousands separators) on
every tokenizer; a long text gets that count alone and loads its chips in a second request (POST
/tokens). How a chip is drawn is tested in test_visualiser_chips.py, the decode line and its note
in test_visualiser_decode.py, special tokens and ids in test_visualiser_specials.py, the pipeline
panel in test_visualiser_pipeline.py."""

from __future__ import annotations

import re
from html import unescape

import pytest

from app.services.visualiser import CONTEXT_WINDOWS, DEFAULT_WINDOW, DEFER_CHARS
from tests.app.pages.markup import chips_of


def _text(html: str) -> str:
    """A page's words, tags dropped and spaces collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


# ---- the page, its fragments and bad input -------------------------------------------------------
def test_full_page_has_form_chips_counts_and_pipeline(client):
    r = client.get("/", params={"text": "Hello, world!", "tokenizer": "word"})
    assert r.status_code == 200
    html = r.text
    assert "<!doctype html>" in html.lower() and 'id="vis-form"' in html
    assert chips_of(html) == ["Hello", ",", "world", "!"]
    assert 'data-testid="token-count">4<' in html
    assert 'characters <b data-testid="char-count">13</b>' in html and "bytes <b>13</b>" in html
    assert "Pre-tokenise" in html and "Post-process" in html
    assert "/static/htmx.min.js" in html


def test_fragment_is_only_the_result_block(client):
    r = client.get("/", params={"text": "a b", "tokenizer": "char"}, headers={"HX-Request": "true"})
    assert r.status_code == 200
    assert "<html" not in r.text and 'id="vis-form"' not in r.text
    assert chips_of(r.text) == ["a", "·", "b"]  # the space is made visible


def test_history_restore_gets_the_full_page(client):
    r = client.get(
        "/",
        params={"text": "a", "tokenizer": "char"},
        headers={"HX-Request": "true", "HX-History-Restore-Request": "true"},
    )
    assert "<html" in r.text


def test_switching_tokeniser_moves_boundaries(client):
    text = "Dr. Smith arrived. He sat."
    words = chips_of(client.get("/", params={"text": text, "tokenizer": "word"}).text)
    sentences = chips_of(client.get("/", params={"text": text, "tokenizer": "sentence"}).text)
    assert len(words) > len(sentences) == 2


def test_empty_text_renders(client):
    r = client.get("/", params={"text": "", "tokenizer": "word"})
    assert r.status_code == 200 and chips_of(r.text) == []


def test_user_text_is_escaped(client):
    payload = "</textarea><script>alert(1)</script><img src=x onerror=alert(1)>"
    r = client.get("/", params={"text": payload, "tokenizer": "char"})
    assert "<script>alert(1)</script>" not in r.text
    assert "<img src=x" not in r.text
    assert "&lt;/textarea&gt;&lt;script&gt;" in r.text


def test_unknown_tokeniser_is_404_with_message_and_input_kept(client):
    r = client.get("/", params={"text": "keep me", "tokenizer": "nope"})
    assert r.status_code == 404
    assert "unknown tokeniser" in r.text and "keep me" in r.text


@pytest.mark.heavy
def test_custom_regex_and_its_errors(client):
    ok = client.get("/", params={"text": "ab12cd", "tokenizer": "regex", "pattern": r"\d+"})
    assert ok.status_code == 200 and chips_of(ok.text) == ["12"]
    bad = client.get("/", params={"text": "abc", "tokenizer": "regex", "pattern": "(a"})
    assert bad.status_code == 422 and "regex" in bad.text.lower() and "abc" in bad.text
    slow = client.get(
        "/", params={"text": "a" * 40 + "!", "tokenizer": "regex", "pattern": "(a|aa)+$"}
    )
    assert slow.status_code == 422 and "0.5" in slow.text


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


def test_text_over_the_limit_is_cut_at_it_on_the_page(client, settings):
    """Issue 20 item 19: the page keeps the result of the text cut at the limit (it used to
    answer 413 and wipe the result)."""
    r = client.get(
        "/",
        params={"text": "x" * (settings.max_text_chars + 1), "tokenizer": "char"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200 and f"at most {settings.max_text_chars:,} characters" in r.text


BAD_PLURAL = re.compile(
    r"(?<![\d.,])(?<!Round )\b1 (tokens|merges|pieces|steps|words|entries|rounds)\b"
    r"|\bfirst 1 "
)


# ---- plurals -------------------------------------------------------------------------------------
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


# ---- alias names ---------------------------------------------------------------------------------
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


# ---- a long text posted, and its permalink -------------------------------------------------------
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
    assert r.text.count('<li class="chip') == MAX_CHIPS < 5600
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


# ---- the count first -----------------------------------------------------------------------------


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


HTMX = {"HX-Request": "true"}


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


# ---- the fingerprint beside the tokenizer --------------------------------------------------------
def test_the_fingerprint_opens_beside_the_tokenizer_without_slowing_the_page(client):
    """The page holds a closed <details> whose body loads on opening (htmx) or by its link (no
    JavaScript); the hashes are not computed for the page itself."""
    body = client.get("/", params={"text": "hello", "tokenizer": "o200k_base"}).text
    details = body.split('data-testid="fingerprint"')[1].split("</details>")[0]
    assert 'hx-trigger="toggle once from:closest details"' in details
    assert 'href="/fingerprint?tokenizer=o200k_base"' in details
    assert 'data-testid="fp-chkhsh"' not in body


def test_the_fingerprint_fragment_names_llama_cpp_s_pre_tokenizer(client):
    r = client.get(
        "/fingerprint", params={"tokenizer": "o200k_base"}, headers={"HX-Request": "true"}
    )
    assert r.status_code == 200 and "<html" not in r.text
    assert "<code>gpt-4o</code>" in r.text
    whole = client.get("/fingerprint", params={"tokenizer": "o200k_base"})
    assert "<html" in whole.text and "Fingerprint of o200k_base" in whole.text


def test_a_fingerprint_of_an_unknown_tokenizer_is_a_404_with_its_name_as_text(client):
    r = client.get("/fingerprint", params={"tokenizer": "<b>nope</b>"})
    assert r.status_code == 404 and "&lt;b&gt;nope&lt;/b&gt;" in r.text and "<b>nope" not in r.text

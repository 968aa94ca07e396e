"""The visualiser page, as plain HTML and as htmx fragments (TestClient)."""

from __future__ import annotations

import re
from html import unescape

import pytest


def chips_of(html: str) -> list[str]:
    return [unescape(t) for t in re.findall(r'<span class="tok">(.*?)</span>', html, re.S)]


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


def test_whitespace_is_visible_and_ids_optional(client):
    r = client.get("/", params={"text": "a\tb\nc", "tokenizer": "char", "ids": "true"})
    assert chips_of(r.text) == ["a", "→", "b", "↵", "c"]
    assert '<span class="id">97</span>' in r.text  # the char tokeniser's id is the code point


def test_chip_hover_data_offsets_and_bytes(client):
    r = client.get("/", params={"text": "né", "tokenizer": "char"})
    assert 'data-s="1" data-e="2"' in r.text
    assert "bytes C3 A9" in r.text


def test_switching_tokeniser_moves_boundaries(client):
    text = "Dr. Smith arrived. He sat."
    words = chips_of(client.get("/", params={"text": text, "tokenizer": "word"}).text)
    sentences = chips_of(client.get("/", params={"text": text, "tokenizer": "sentence"}).text)
    assert len(words) > len(sentences) == 2


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


def test_text_over_the_limit_is_cut_at_it_on_the_page(client, settings):
    """Issue 20 item 19: the page keeps the result of the text cut at the limit (it used to
    answer 413 and wipe the result)."""
    r = client.get(
        "/",
        params={"text": "x" * (settings.max_text_chars + 1), "tokenizer": "char"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200 and f"at most {settings.max_text_chars:,} characters" in r.text


def test_empty_text_renders(client):
    r = client.get("/", params={"text": "", "tokenizer": "word"})
    assert r.status_code == 200 and chips_of(r.text) == []


def test_special_tokens_toggle(client):
    params = {"text": "hi<|endoftext|>", "tokenizer": "cl100k_base"}
    off = client.get("/", params={**params, "special": "false"})
    assert "special" not in re.findall(r'<li class="chip ([^"]*)"', off.text)[-1]
    on = client.get("/", params={**params, "special": "true"})
    assert re.findall(r'<li class="chip ([^"]*)"', on.text)[-1].endswith("special")
    assert chips_of(on.text)[-1] == "<|endoftext|>"


def test_bert_shows_masks_and_decode(client):
    r = client.get("/", params={"text": "Hello, World!", "tokenizer": "bert-base-uncased"})
    assert r.status_code == 200
    assert chips_of(r.text)[0] == "[CLS]" and chips_of(r.text)[-1] == "[SEP]"
    assert 'data-testid="special-mask">1 0 0 0 0 1<' in r.text
    # decode keeps special tokens (as decode does by default); the note names them
    assert 'data-testid="decoded">[CLS]·hello,·world!·[SEP]<' in r.text
    assert "differs from the input" in r.text


def test_byte_level_decode_is_exact_and_rule_tokenisers_have_none(client):
    r = client.get("/", params={"text": "naïve café", "tokenizer": "cl100k_base"})
    assert "round trip exact" in r.text and 'data-testid="decoded">naïve·café<' in r.text
    assert (
        'data-testid="decoded"'
        not in client.get("/", params={"text": "a b", "tokenizer": "word"}).text
    )


def test_bpe_chips_link_to_their_merge_tree(client):
    r = client.get("/", params={"text": "lowest", "tokenizer": "cl100k_base"})
    assert "/bpe/encode?tokenizer=cl100k_base&amp;text=lowest&amp;token=lowest" in r.text

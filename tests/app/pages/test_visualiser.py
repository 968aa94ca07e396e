"""/, the visualiser: a text over the length limit is cut and its start still tokenised, one of a
thing is singular on every page, and an alias is shown by its real name in every picker."""

from __future__ import annotations

import re
from html import unescape

import pytest


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

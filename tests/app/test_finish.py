"""Fit and finish (issue 20, item 19): the small things a new user trips over. Each test failed
before its change."""

from __future__ import annotations

import re
from html import unescape

import pytest

import tokenizers_core as tc


def _text(html: str) -> str:
    """A page's words, tags dropped and spaces collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


# ---- a text over the length limit -----------------------------------------------------------------
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


# ---- plurals ------------------------------------------------------------------------------------
BAD_PLURAL = re.compile(
    r"(?<![\d.,])(?<!Round )\b1 (tokens|merges|pieces|steps|words|entries|rounds)\b"
    r"|\bfirst 1 "
)


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


# ---- the worksheet link's icon ------------------------------------------------------------------
def test_the_worksheet_link_draws_an_svg_icon_not_a_glyph(client):
    r = client.get("/bpe/train", params={"step": 1})
    link = r.text.split('data-testid="worksheet-link"')[1].split("</a>")[0]
    assert "<svg" in link and "🖶" not in link and "⎙" not in link
    assert 'aria-hidden="true"' in link


# ---- the lessons name their sources --------------------------------------------------------------
def test_lessons_name_their_sources_not_seed_numbers(client):
    words = _text(client.get("/lessons").text)
    assert not re.search(r"\bseeds? \d{3}", words)
    assert "Sennrich et al. (2016)" in words
    from app import lessons

    source = open(lessons.__file__, encoding="utf-8").read()
    assert not re.search(r"\bseeds? \d{3}", source)


# ---- alias names --------------------------------------------------------------------------------
def test_an_alias_is_shown_by_its_real_name(client):
    r = client.get("/", params={"text": "hi", "tokenizer": "gpt2"})
    assert r.status_code == 200
    assert "Trained: gpt2" not in r.text
    selected = re.search(r'<option value="([^"]*)"[^>]*selected', r.text).group(1)
    assert selected == "r50k_base"


# ---- the CLI ------------------------------------------------------------------------------------
def test_cli_compare_labels_a_file_by_its_name(tmp_path, capsys):
    from app.cli import main

    path = tmp_path / "deep" / "dir" / "mine.json"
    path.parent.mkdir(parents=True)
    tc.load("bert-base-uncased").save(str(path))
    assert main(["compare", "--no-color", "-t", str(path), "-t", "char", "hi there"]) == 0
    out = capsys.readouterr().out
    assert str(tmp_path) not in out
    assert out.splitlines()[1].split()[0] == "mine.json" and "\nmine.json:" in out


def test_cli_no_color_still_marks_unknown_tokens(capsys):
    from app.cli import main

    assert main(["encode", "--no-color", "-t", "bert-base-uncased", "a ☃ b"]) == 0
    out = capsys.readouterr().out
    assert "[UNK ☃]" in out


def test_cli_colour_marks_unknown_tokens_too(capsys):
    from app.cli import main

    assert main(["encode", "--color", "-t", "bert-base-uncased", "a ☃ b"]) == 0
    assert "[UNK ☃]" in capsys.readouterr().out


# ---- corpora ------------------------------------------------------------------------------------
def test_a_corpus_pasted_in_a_step_view_is_named_by_its_first_words(client):
    text = "Colourless green ideas sleep furiously tonight and tomorrow too\nsecond line"
    r = client.post("/bpe/train", data={"corpus_text": text}, follow_redirects=False)
    assert r.status_code == 303
    digest = re.search(r"corpus=([0-9a-f]{64})", r.headers["location"]).group(1)
    page = client.get("/corpora").text
    row = [tr for tr in page.split("<tr>") if digest[:16] in tr][0]
    assert "Colourless green ideas sleep" in row


def test_corpora_confirms_what_was_stored(store_client):
    r = store_client.post("/corpora", data={"text": "one two three\nfour", "name": "my notes"})
    assert r.status_code == 200
    words = _text(r.text)
    assert "Stored “my notes”" in words
    assert "2 lines" in words


@pytest.mark.parametrize(
    "url",
    ["/vocab?tokenizer=gpt2", "/?tokenizer=gpt-4&text=hi", "/?tokenizer=gpt-oss-120b&text=hi"],
)
def test_an_alias_is_its_bundled_entry_in_every_picker(client, url):
    """`gpt2` is r50k_base: no picker adds a "Trained: gpt2" entry for it; gpt-oss-120b is
    o200k_harmony, an encoding loaded by name but not listed: it is named as that."""
    r = client.get(url)
    assert r.status_code == 200 and "Trained: gpt" not in r.text

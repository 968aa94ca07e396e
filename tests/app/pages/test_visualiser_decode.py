"""/, the visualiser's decode(ids) line and the note under it: BERT's special-tokens mask and its
decode that keeps [CLS] and [SEP], a byte-level round trip exact (a rule tokenizer has none to
show), and the note saying what actually happened: special tokens the post-processor added or
decode left out, unknown tokens, the normaliser's and the decoder's rewrites, characters in no
token, and where an unexplained difference starts."""

from __future__ import annotations

import tokenizers_core as tc
from app.roundtrip import round_trip_notes
from tests.app.pages.markup import chips_of


# ---- the decoded text on the page ----------------------------------------------------------------
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


# ---- the round-trip note -------------------------------------------------------------------------
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

"""The note under decode(ids) says what actually happened (issue 13, item 6)."""
from __future__ import annotations

import tokenizers_core as tc

from app.roundtrip import round_trip_notes


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
    """The visualiser decodes with skip_special_tokens=True."""
    r = client.get("/", params={"text": "Hi <|endoftext|> there", "tokenizer": "cl100k_base",
                                "special": "true"})
    assert "the tokeniser normalises" not in r.text
    assert "decode left out the special token “&lt;|endoftext|&gt;”" in r.text
    r = client.get("/", params={"text": "hello ☃", "tokenizer": "bert-base-uncased"})
    assert "1 unknown token ([UNK]) stood for “☃”" in r.text

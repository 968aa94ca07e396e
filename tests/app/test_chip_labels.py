"""What a chip shows (issue 13, items 3 and 5): a character cut across tokens is drawn once,
on the token that completes it (the others show their bytes), and unknown and byte-fallback
tokens are marked on the chip itself."""

from __future__ import annotations

import tokenizers_core as tc
from app import display


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

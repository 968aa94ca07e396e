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
    text = "𝔘𝔫𝔦"           # 4-byte characters: r50k cuts them across several tokens
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

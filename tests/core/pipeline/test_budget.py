"""Token budgets (`tokenizers_core.budget`): cuts on character boundaries, chunks that fit.

The properties, on real tokenisers (cl100k, Llama 3's tokenizer.json, BERT, the Unigram model):
every chunk re-encodes to at most N tokens, the chunks join back into the text, every cut falls
between characters, and the first chunk is where `split_at_tokens` cuts.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tests.shared_data import INTEROP
from tokenizers_core.budget import chunks, split_at_tokens

LLAMA3 = INTEROP / "converted" / "llama3.tokenizer.json"

NAMES = ["cl100k_base", "bert-base-uncased", "botchan_en_unigram_1000", "llama3"]
_CACHE: dict[str, tc.Tokenizer] = {}


def tokenizer(name: str) -> tc.Tokenizer:
    if name not in _CACHE:
        if name == "llama3":
            if not LLAMA3.is_file():
                pytest.skip(f"needs the shared interop files ({LLAMA3})")
            _CACHE[name] = tc.load(str(LLAMA3))
        else:
            _CACHE[name] = tc.load(name)
    return _CACHE[name]


# Text that stresses cuts: words, runs of spaces, digits, accents, CJK, emoji (several
# byte-level tokens per character), a ligature NFKC spells out, newlines.
TEXT = st.text(st.sampled_from(list("ab cé東京🦜👍🏽 \n\t1234.,'ﬁ")), max_size=40)
PARTS = st.lists(
    st.sampled_from(
        [
            "Hello",
            " world",
            " ",
            "  ",
            "🦜",
            "東京",
            "é",
            "ﬁ",
            "\n",
            "123456",
            "it's",
            "naïve",
            "x",
            ".",
        ]
    ),
    max_size=25,
).map("".join)


def _one_character_too_big(tok, text: str, n: int) -> bool:
    return any(len(tok.encode(c, add_special_tokens=False)) > n for c in text)


@pytest.mark.heavy
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(TEXT, PARTS), n=st.integers(1, 12))
def test_chunks_fit_and_join_back(name, text, n):
    tok = tokenizer(name)
    try:
        parts = chunks(tok, text, n)
    except ValueError as exc:
        assert "alone takes" in str(exc) and _one_character_too_big(tok, text, n)
        return
    assert "".join(text[c.start : c.end] for c in parts) == text
    assert [c.start for c in parts[1:]] == [c.end for c in parts[:-1]]
    for c in parts:
        assert c.end > c.start
        assert c.tokens == len(tok.encode(text[c.start : c.end], add_special_tokens=False)) <= n
    total = len(tok.encode(text, add_special_tokens=False))
    assert sum(c.share for c in parts) == total


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(TEXT, PARTS), n=st.integers(1, 12))
def test_split_is_the_first_chunk(name, text, n):
    tok = tokenizer(name)
    try:
        s = split_at_tokens(tok, text, n)
        first = chunks(tok, text, n)
    except ValueError:
        assert _one_character_too_big(tok, text, n)
        return
    assert s.cut == (first[0].end if first else 0)
    assert s.head_tokens == len(tok.encode(text[: s.cut], add_special_tokens=False)) <= n
    assert s.rest_tokens == len(tok.encode(text[s.cut :], add_special_tokens=False))
    assert s.total == len(tok.encode(text, add_special_tokens=False))
    assert s.head_share <= s.total


def test_a_budget_that_ends_inside_a_character_moves_back():
    """cl100k spells the parrot 🦜 (4 UTF-8 bytes) with three byte-level tokens: "a🦜b" is a,
    three parrot pieces, b. Two tokens end inside the parrot, so the cut moves back to before
    it; chunks of 3 give the parrot a chunk of its own ("a🦜" would be 4)."""
    tok = tokenizer("cl100k_base")
    text = "a🦜b"
    enc = tok.encode(text)
    assert len(enc) == 5 and enc.offsets[1] == enc.offsets[2] == enc.offsets[3] == (1, 2)
    s = split_at_tokens(tok, text, 2)
    assert (s.cut, s.inside_character, s.head_tokens, s.rest_tokens) == (1, True, 1, 4)
    assert [(c.start, c.end, c.tokens) for c in chunks(tok, text, 3)] == [
        (0, 1, 1),
        (1, 2, 3),
        (2, 3, 1),
    ]


def test_counts_are_not_additive():
    """bert-base-uncased: "unaffable playing" is una ##ffa ##ble playing (4). Cut after two
    tokens, the head "unaffa" re-encodes to its 2, but the rest "ble playing" starts a word:
    b ##le playing, 3 tokens where its share of the whole was 2. The shares add up; the
    re-encoded counts do not."""
    tok = tokenizer("bert-base-uncased")
    text = "unaffable playing"
    s = split_at_tokens(tok, text, 2)
    assert (text[: s.cut], s.head_share, s.head_tokens, s.total) == ("unaffa", 2, 2, 4)
    assert s.rest_tokens == 3 and s.head_tokens + s.rest_tokens != s.total
    parts = chunks(tok, text, 2)
    assert [(text[c.start : c.end], c.share, c.tokens) for c in parts] == [
        ("unaffa", 2, 2),
        ("ble ", 1, 2),
        ("playing", 1, 1),
    ]


def test_bert_budget_counts_no_cls_sep():
    """BERT: the post-processor's [CLS] and [SEP] are not the text's tokens: "playing football"
    is two tokens, so a budget of 2 takes it whole (with [CLS] and [SEP] it would be 4)."""
    tok = tokenizer("bert-base-uncased")
    s = split_at_tokens(tok, "playing football", 2)
    assert (s.cut, s.total, s.head_tokens, s.rest_tokens) == (16, 2, 2, 0)


@pytest.mark.parametrize("n", [0, -1, True, 2.5])
def test_a_bad_budget_is_a_value_error(n):
    with pytest.raises(ValueError, match="at least 1"):
        split_at_tokens(tokenizer("cl100k_base"), "text", n)


def test_a_character_too_big_for_the_budget_is_a_value_error():
    tok = tokenizer("cl100k_base")
    with pytest.raises(ValueError, match="alone takes"):
        chunks(tok, "🦜", 1)


def test_typed_special_tokens_follow_the_options():
    """With allowed_special, <|endoftext|> typed is one token; without, several."""
    tok = tokenizer("cl100k_base")
    text = "hi<|endoftext|>there"
    assert split_at_tokens(tok, text, 1, allowed_special="all").total == 3
    assert split_at_tokens(tok, text, 1, disallowed_special=()).total > 3


def test_chunks_stop_at_the_limit():
    tok = tokenizer("cl100k_base")
    text = "one two three four five"
    assert (
        [(c.start, c.end) for c in chunks(tok, text, 2, limit=2)]
        == [(c.start, c.end) for c in chunks(tok, text, 2)][:2]
        == [(0, 7), (7, 18)]
    )


SPECIAL_PARTS = st.lists(
    st.sampled_from(["Hello", " world", " ", "<|endoftext|>", "<|", "|>", "🦜", "\n"]), max_size=20
).map("".join)


@pytest.mark.parametrize("options", [{"allowed_special": "all"}, {"disallowed_special": ()}])
@settings(max_examples=60, deadline=None)
@given(text=SPECIAL_PARTS, n=st.integers(1, 8))
def test_chunks_with_typed_special_tokens(options, text, n):
    """Typed special tokens read as special (one token each) or as text: chunks still fit."""
    tok = tokenizer("cl100k_base")
    try:
        parts = chunks(tok, text, n, **options)
    except ValueError:
        assert _one_character_too_big(tok, text, n)
        return
    assert "".join(text[c.start : c.end] for c in parts) == text
    assert all(len(tok.encode(text[c.start : c.end], **options)) == c.tokens <= n for c in parts)

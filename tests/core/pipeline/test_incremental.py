"""Re-encoding what an edit touched (`tokenizers_core.incremental.reencode`) gives exactly the
whole encode of the new text: the same ids, tokens, offsets, word ids and special-token mask.

A property over random texts (words of several scripts, runs of spaces and newlines, digits,
punctuation, contractions, combining marks, emoji, special tokens) and random edits (insert,
delete, replace; at the start, the end, inside a run of spaces), for every tokenizer on the fast
route and one that falls back; the lemma the splice rests on (a piece depends on nothing past its
reach); and the tricky cases one by one.
"""

from __future__ import annotations

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus
from tokenizers_core.implementations.openai_public import DATA_DIR
from tokenizers_core.incremental import (
    LOCAL_PRESETS,
    _pattern_re,
    apart,
    edit_of,
    reach,
    reencode,
    takes_fast_route,
)

FAST = ["cl100k_base", "o200k_base", "r50k_base", "llama3"]
OPTIONS = [{}, {"allowed_special": "all"}, {"disallowed_special": ()}]
SPECIALS = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|begin_of_text|>": 100300}
_CACHE: dict[str, tc.Tokenizer] = {}


def tokenizer(name: str) -> tc.Tokenizer:
    """A bundled tokenizer, or "llama3": cl100k's ranks with Llama 3's pattern (a tiktoken file
    loaded as Llama 3's is)."""
    if name not in _CACHE:
        if name == "llama3":
            ranks = gzip.decompress((DATA_DIR / "cl100k_base.tiktoken.gz").read_bytes())
            _CACHE[name] = tc.load(ranks, pattern="llama3", special_tokens=SPECIALS)
        else:
            _CACHE[name] = tc.load(name)
    return _CACHE[name]


# what the texts and the edits are made of: each fragment stresses a rule of the patterns
FRAGMENTS = [
    "Hello", " world", "it's", " we'll", "'LL", "'l", "'v", " ", "  ", "   ", "\n", "\n\n",
    " \n ", "\t", "\r\n", "\u00a0", "\u3000", "123", "4567", " 89", ".", ",", "!?", "...",
    " (x)", "/", "東京", "日本語", "Привет", " мир", "مرحبا", "नमस्ते", "e\u0301", "\u0301",
    "ʰAAAA", " ʰAA", "ABC", "Straße", "🦜", "👍🏽", "👨‍👩‍👧", "ﬁ", "<|endoftext|>",
    "<|fim_prefix|>", "<|endof", "text|>", "<|", "|>",
]  # fmt: skip
TEXT = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=30).map("".join)
INSERT = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=2), max_size=3).map("".join)


@st.composite
def edits(draw) -> tuple[str, str]:
    """(old, new): a text and one insert, delete or replace anywhere in it (the start and the
    end as likely as any other place)."""
    old = draw(TEXT)
    start = draw(st.sampled_from([0, len(old)]) | st.integers(0, len(old)))
    end = draw(st.integers(start, min(len(old), start + 6)))
    return old, old[:start] + draw(INSERT) + old[end:]


def _encode(tok, text: str, options: dict):
    """The whole encode, or the error it raises (a disallowed special token)."""
    try:
        return tok.encode(text, **options)
    except ValueError as exc:
        return type(exc), str(exc)


def _reencode(tok, old: str, old_enc, new: str, options: dict):
    try:
        return reencode(tok, old, old_enc, new, min_chars=0, **options)
    except ValueError as exc:
        return type(exc), str(exc)


def assert_same(tok, old: str, new: str, options: dict, fast: bool = True) -> None:
    """reencode(old -> new) is the whole encode of new, and took the route expected."""
    old_enc = tok.encode(old, **options)
    if fast:
        assert takes_fast_route(tok, old, old_enc, new, 0, options)
    got = _reencode(tok, old, old_enc, new, options)
    want = _encode(tok, new, options)
    assert got == want
    if not isinstance(got, tuple):
        assert got.to_dict() == want.to_dict()


@pytest.mark.parametrize("name", FAST)
@pytest.mark.parametrize("options", OPTIONS, ids=["default", "special", "ordinary"])
@settings(max_examples=150)
@given(edit=edits())
def test_reencode_is_the_whole_encode(name, options, edit):
    old, new = edit
    tok = tokenizer(name)
    if not options and any(s in old for s in tok.special_tokens):
        old = old.replace("<|", "<")  # the default refuses a special token in the old text
    assert_same(tok, old, new, options)


@settings(max_examples=60)
@given(edit=edits())
def test_a_tokenizer_with_a_normaliser_falls_back_to_the_whole_encode(edit):
    old, new = edit
    tok = tc.load("qwen3")  # NFC, then byte-level BPE, then its post-processor
    old_enc = tok.encode(old)
    assert not takes_fast_route(tok, old, old_enc, new, 0, {})
    assert reencode(tok, old, old_enc, new, min_chars=0) == tok.encode(new)


@pytest.mark.parametrize("preset", sorted(LOCAL_PRESETS))
@settings(max_examples=150)
@given(text=TEXT, tail=TEXT)
def test_a_piece_reads_nothing_past_its_reach(preset, text, tail):
    """The lemma: cut the text at a piece's reach, or put anything after that (the tails
    that would change a piece read one character short: a contraction's end, a lower-case
    letter after capitals, a space or a newline after a run), and the scan still finds the same
    piece there."""
    from tokenizers_core.pre_tokenizers import PRESETS

    compiled = _pattern_re(PRESETS[preset])
    tails = [tail, "l", "ll", "e", "a", "A", "1", "'", " ", "\n", "x y"]
    for m in compiled.finditer(text):
        read = reach(preset, text, m.start(), m.end(), len(text), 1)
        if read > len(text):
            continue  # it read the text's end: another end is another text
        for other in [text[:read]] + [text[:read] + t for t in tails]:
            again = compiled.match(other, m.start())
            assert again is not None and again.span() == m.span(), (text, m.span(), other)


def test_edits_at_the_start_and_the_end_and_of_everything():
    tok = tokenizer("cl100k_base")
    old = "Hello world, 123 times.\n\n  Done  "
    for new in ("X" + old, old + "X", old + " ", old[1:], old[:-1], "", "x", old.upper()):
        assert_same(tok, old, new, {})
    assert_same(tok, "", "Hello", {})


def test_a_run_of_spaces_splits_by_what_follows_it():
    """`\\s+(?!\\S)`: "a   b" is "a", "  ", " b"; delete the b and the run is one piece; put a
    newline after it and `\\s*[\\r\\n]` takes the run with it."""
    for name in FAST:
        tok = tokenizer(name)
        for old, new in [
            ("a   b", "a   "),
            ("a   ", "a   b"),
            ("a   b c", "a   \nb c"),
            ("x " + " " * 40 + "y", "x " + " " * 40 + "\ny"),
            ("x" + " " * 40 + "y", "x" + " " * 20 + "z" + " " * 20 + "y"),
        ]:
            assert_same(tok, old, new, {})


def test_an_edit_makes_and_unmakes_a_special_token():
    tok = tokenizer("cl100k_base")
    allowed = {"allowed_special": "all"}
    assert_same(tok, "a <|endof and text|> b", "a <|endoftext|> b", allowed)
    assert_same(tok, "a <|endoftext|> b", "a <|endotext|> b", allowed)
    assert_same(tok, "<|endoftext|><|endoftext|>", "<|endoftext|>x<|endoftext|>", allowed)
    assert_same(tok, "a <|endof and text|> b", "a <|endoftext|> b", {"disallowed_special": ()})
    # the default refuses it, with the whole encode's words
    old = "a <|endof and text|> b"
    got = _reencode(tok, old, tok.encode(old), "a <|endoftext|> b", {})
    assert got == _encode(tok, "a <|endoftext|> b", {})
    assert got[0] is not None and "disallowed" in got[1]


def test_o200k_backs_off_through_a_run_of_capitals():
    """o200k's first alternative reads a whole run of Lu/Lt/Lm/Lo/M looking for a lower-case
    letter: "ʰAAAA1" is "ʰ" then "AAAA", but "ʰAAAAb" is "ʰ", "AAAAb"."""
    tok = tokenizer("o200k_base")
    pieces = tok.pre_tokenizer.pre_tokenize_str(" ʰAAAA1")
    assert [span for _, span in pieces] == [(0, 2), (2, 6), (6, 7)]
    assert_same(tok, "x ʰAAAA1 done", "x ʰAAAAb done", {})
    assert_same(tok, "xʰ" + "A" * 50 + "1", "xʰ" + "A" * 50 + "a", {})
    assert_same(tok, "東京" * 30 + "1", "東京" * 30 + "a", {})


def test_a_contraction_reads_three_characters():
    """ "'lx" is "'" then "lx"; make it "'ll" and the contraction is one piece: the apostrophe's
    piece read two characters past its end."""
    for name in FAST:
        assert_same(tokenizer(name), "we'lx go", "we'll go", {})
        assert_same(tokenizer(name), "x 'vx go", "x 'vex go", {})


def test_emoji_and_combining_marks_keep_their_offsets():
    """A character of several tokens gives each the character's span; the spliced suffix's
    spans move with the edit."""
    tok = tokenizer("cl100k_base")
    assert_same(tok, "👨‍👩‍👧 cafe\u0301 🦜", "x👨‍👩‍👧 cafe\u0301\u0301 🦜", {})
    assert_same(tok, "e\u0301e\u0301e\u0301", "e\u0301\u0301e\u0301", {})


def test_what_falls_back_to_the_whole_encode():
    tok = tokenizer("cl100k_base")
    old, new = "Hello world", "Hello, world"
    enc = tok.encode(old)
    assert not takes_fast_route(tok, old, enc, new, 20_000, {})  # a short text
    assert not takes_fast_route(tok, old, enc, new, 0, {"pair": "x"})  # an option it lacks
    assert not takes_fast_route(tok, old, tok.encode("other"), new, 0, {})  # not old's encoding
    assert not takes_fast_route(tc.load("bert-base-uncased"), old, enc, new, 0, {})
    # a lone surrogate: tiktoken encodes U+FFFD in its place, so the whole encode it is
    assert reencode(tok, old, enc, "Hello \ud800 world", min_chars=0) == tok.encode(
        "Hello \ud800 world"
    )


def test_special_tokens_that_can_overlap_are_not_spliced():
    assert apart(frozenset({"<|endoftext|>", "<|fim_prefix|>", "<|reserved_1|>"}))
    assert not apart(frozenset({"ab", "bc"}))  # "abc": which one is cut depends on what is left
    assert not apart(frozenset({"xaby", "ab"}))  # one inside the other
    assert apart(frozenset({"ab", "abc"}))  # the longer wins where both start: local


def test_the_edit_is_the_text_between_the_common_prefix_and_suffix():
    assert edit_of("aXb", "aYYb") == (1, 2, 3)
    assert edit_of("aaaa", "aaaaa") == (4, 4, 5)  # the suffix never overlaps the prefix


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_keystrokes_on_real_multilingual_text(name):
    """A 30,000-character stretch of the UDHR in many languages, each edit from the last
    encoding, at the default threshold (the fast route on every one)."""
    tok = tokenizer(name)
    text = load_corpus("udhr/all")[100_000:130_000]
    enc = tok.encode(text)
    for i, (at, typed, cut) in enumerate(
        [(0, "x", 0), (len(text), " ", 0), (15_000, "", 1), (7_777, "  ", 0), (20_001, "é", 3)]
        + [(k * 997 % 30_000, "\n", k % 2) for k in range(1, 8)]
    ):
        new = text[:at] + typed + text[at + cut :]
        assert takes_fast_route(tok, text, enc, new, 20_000, {}), i
        got = reencode(tok, text, enc, new)
        assert got == tok.encode(new), i
        text, enc = new, got

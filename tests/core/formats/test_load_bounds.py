"""Bounds on what a loaded tokenizer.json may declare: a file with more added
tokens, vocab entries or merges than any real tokenizer is refused at load with a message naming
the field, its count and the limit; up to the limits, loading builds nothing large, and the
added-token matcher finds what Hugging Face's Aho-Corasick finds."""

from __future__ import annotations

import json
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.added_tokens import MAX_ADDED_TOKENS, MAX_CONTENT_CHARS, _matcher
from tokenizers_core.formats.hf_json import MAX_VOCAB

tokenizers = pytest.importorskip("tokenizers")


@pytest.fixture(scope="module")
def bert_json(tmp_path_factory) -> dict:
    """The bundled BERT tokenizer, re-saved as a tokenizer.json (as the issue's reproducer)."""
    path = tmp_path_factory.mktemp("bert") / "tokenizer.json"
    tc.load("bert-base-uncased").save(path)
    return json.loads(path.read_text())


def with_added(config: dict, contents: list[str]) -> bytes:
    base = len(config["model"]["vocab"])
    flags = {
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": False,
        "special": False,
    }
    added = config["added_tokens"] + [
        dict(flags, id=base + i, content=c) for i, c in enumerate(contents)
    ]
    return json.dumps(dict(config, added_tokens=added)).encode()


@pytest.mark.heavy
def test_more_added_tokens_than_the_limit_is_refused_naming_the_field(bert_json):
    data = with_added(bert_json, [f"<t{i}>" for i in range(MAX_ADDED_TOKENS)])  # + BERT's 5
    with pytest.raises(
        ValueError,
        match=r"added_tokens has 100,005 entries; the most a "
        r"tokenizer may have is 100,000",
    ):
        tc.load(data)


@pytest.mark.heavy
def test_a_vocab_past_the_limit_is_refused_naming_the_field():
    vocab = {f"w{i}": i for i in range(MAX_VOCAB + 1)}
    data = json.dumps({"model": {"type": "WordLevel", "vocab": vocab, "unk_token": "w0"}})
    with pytest.raises(
        ValueError,
        match=r"model vocab has 1,000,001 entries; the most a "
        r"tokenizer may have is 1,000,000",
    ):
        tc.load(data.encode())


def test_an_added_token_longer_than_the_limit_is_refused(bert_json):
    with pytest.raises(
        ValueError,
        match=f"257 characters long; the longest an added token may be is {MAX_CONTENT_CHARS}",
    ):
        tc.load(with_added(bert_json, ["x" * 257]))


@pytest.mark.heavy
def test_the_most_added_tokens_allowed_load_without_large_structures(bert_json):
    """100,000 added tokens: the regex alternation they used to compile into held ~600 MB."""
    data = with_added(bert_json, [f"<t{i}>" for i in range(MAX_ADDED_TOKENS - 5)])
    tracemalloc.start()
    try:
        tok = tc.load(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 250 * 2**20, f"loading peaked at {peak / 2**20:.0f} MB"
    assert tok.encode("a <t7> b <t99994>c").tokens == [
        "[CLS]",
        "a",
        "<t7>",
        "b",
        "<t99994>",
        "c",
        "[SEP]",
    ]


TEXTS = [
    "<a><ab><abc>abcd",
    "xx<abc>>>ab<<a>",
    "ünïcödé <ab> and ab<a>b <abc",
    "a" * 40 + "<a" * 10 + "abc" * 5,
    "no added token here",
    "<<<<>>>>",
]


@pytest.mark.parametrize("many_starts", [False, True])
def test_matches_are_leftmost_longest_as_hugging_face_finds_them(bert_json, tmp_path, many_starts):
    """Tokens that overlap and share prefixes; with `many_starts`, 200 more tokens that start
    with 200 different characters (the matcher's other way of finding places to look)."""
    contents = ["<a", "<a>", "<ab>", "<abc>", "ab", "abc", "b<", "<<", ">>>", "a" * 7]
    if many_starts:
        contents += [chr(0x4E00 + i) + "x" for i in range(200)]
    path = tmp_path / "tokenizer.json"
    path.write_bytes(with_added(bert_json, contents))
    ours, theirs = tc.load(path), tokenizers.Tokenizer.from_file(str(path))
    for text in TEXTS + ["一x丁xy" + "".join(chr(0x4E00 + i) + "x" for i in range(0, 200, 7))]:
        mine, hf = ours.encode(text), theirs.encode(text)
        assert (mine.tokens, mine.offsets) == (hf.tokens, hf.offsets), text


def brute_force(patterns: set[str], text: str) -> list[tuple[int, int, str]]:
    """Leftmost-longest, then on after the match: the definition, one place at a time."""
    out, pos = [], 0
    while pos < len(text):
        found = max((p for p in patterns if text.startswith(p, pos)), key=len, default=None)
        if found is None:
            pos += 1
        else:
            out.append((pos, pos + len(found), found))
            pos += len(found)
    return out


@given(
    st.sets(st.text("ab0", min_size=1, max_size=8), min_size=1, max_size=30),
    st.text("ab0c", max_size=60),
)
def test_the_matcher_finds_what_the_definition_finds(patterns, text):
    """Strings over a tiny alphabet overlap and nest every way (prefix chains, near misses)."""
    matcher = _matcher([(p, i) for i, p in enumerate(sorted(patterns))])
    assert list(matcher.finditer(text)) == brute_force(patterns, text)

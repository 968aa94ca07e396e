"""`Tokenizer(..., added_tokens=[...])`: tokens matched whole in the original text before
normalisation, against Hugging Face's added special tokens (a test-only oracle)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenizers_core.models.wordpiece.model import WordPiece
from tokenizers_core.normalizers import Lowercase
from tokenizers_core.pipeline import Tokenizer
from tokenizers_core.pre_tokenizers import Whitespace
from tokenizers_core.steps import Trace

tokenizers = pytest.importorskip("tokenizers")

# Overlapping added tokens: "<ab>" and "<a" start at the same place, "b>" inside "<ab>".
ADDED = ("<a", "<ab>", "b>", "[X]")
VOCAB = {
    t: i
    for i, t in enumerate(
        ["[UNK]", *ADDED, "a", "b", "ab", "<", ">", "[", "]", "x", "##a", "##b", "##>", "##x"]
    )
}


def ours(added=ADDED, **stages) -> Tokenizer:
    stages = {"normalizer": Lowercase(), "pre_tokenizer": Whitespace(), **stages}
    return Tokenizer(WordPiece(VOCAB), added_tokens=added, **stages)


@pytest.fixture(scope="module")
def hf():
    tok = tokenizers.Tokenizer(tokenizers.models.WordPiece(VOCAB, unk_token="[UNK]"))
    tok.normalizer = tokenizers.normalizers.Lowercase()
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.add_special_tokens(list(ADDED))  # special: normalized, lstrip, rstrip, single_word false
    return tok


def assert_same(enc, ref):
    assert enc.tokens == ref.tokens
    assert enc.ids == ref.ids
    assert enc.offsets == [tuple(o) for o in ref.offsets]
    assert enc.word_ids == ref.word_ids
    assert enc.special_tokens_mask == ref.special_tokens_mask


# ---- golden -----------------------------------------------------------------------------------
def test_leftmost_longest(hf):
    """At one place the longest token wins ("<ab>" over "<a"); a later token inside a match
    ("b>") is not looked at; left of all, the leftmost match wins."""
    enc = ours().encode("x<ab>b> <a")
    assert enc.tokens == ["x", "<ab>", "b>", "<a"]
    assert enc.offsets == [(0, 1), (1, 5), (5, 7), (8, 10)]
    assert enc.word_ids == [0, 1, 2, 3]
    assert_same(enc, hf.encode("x<ab>b> <a"))


def test_matched_before_normalising(hf):
    """Matching is on the original text, case-sensitive: "[x]" is ordinary (lowercased) text,
    "[X]" is the added token, kept as typed."""
    enc = ours().encode("[x] [X]")
    assert enc.tokens == ["[", "x", "]", "[X]"]
    assert enc.ids[-1] == VOCAB["[X]"] and enc.special_tokens_mask == [0, 0, 0, 0]
    assert_same(enc, hf.encode("[x] [X]"))


@pytest.mark.parametrize("text", ["", "[X]", "[X][X]", "  [X]  ", "a[X]", "A B", "<ab"])
def test_edges(hf, text):
    assert_same(ours().encode(text), hf.encode(text))


def test_without_normalizer_or_pre_tokenizer():
    tok = ours(normalizer=None, pre_tokenizer=None)
    enc = tok.encode("ab[X]ab")
    assert enc.tokens == ["ab", "[X]", "ab"] and enc.word_ids == [0, 1, 2]
    assert enc.offsets == [(0, 2), (2, 5), (5, 7)]


def test_no_added_tokens_is_the_plain_pipeline():
    """Without added tokens nothing is matched: "[X]" is ordinary text."""
    assert ours(added=()).encode("[X]").tokens == ["[", "x", "]"]
    plain = Tokenizer(WordPiece(VOCAB), normalizer=Lowercase(), pre_tokenizer=Whitespace())
    assert plain.added_tokens == () and plain.trace("a [X]")[1] == ours(added=()).trace("a [X]")[1]


def test_tokens_must_be_in_the_vocabulary():
    with pytest.raises(ValueError, match="vocabulary"):
        ours(added=["<nope>"])
    with pytest.raises(ValueError, match="non-empty"):
        ours(added=[""])


def test_trace_and_pre_tokenize():
    """`trace` runs `encode`'s code: the normalize step keeps the match as typed, the
    pre_tokenize step lists it as a piece, the model step gives it its id and word."""
    tok = ours()
    enc, trace = tok.trace("AB[X]B")
    assert enc == tok.encode("AB[X]B")
    normalize, pre_tokenize, model, _ = list(trace)
    assert normalize.output == "ab[X]b" and len(normalize.alignments) == 6
    assert pre_tokenize.pieces == (("ab", 0, 2), ("[X]", 2, 5), ("b", 5, 6))
    assert model.tokens == (("ab", 7, 0, 2, 0), ("[X]", 4, 2, 5, 1), ("b", 6, 5, 6, 2))
    assert Trace.from_json(trace.to_json()) == trace
    assert [p.normalized for p in tok.pre_tokenize("AB[X]B")] == ["ab", "[X]", "b"]


# ---- differential -----------------------------------------------------------------------------
TEXT = st.lists(
    st.sampled_from(
        [
            "<",
            ">",
            "a",
            "b",
            "A",
            "B",
            "[",
            "]",
            "X",
            "x",
            " ",
            "\t",
            "<a",
            "<ab>",
            "b>",
            "[X]",
            "É",
        ]
    ),
    max_size=16,
).map("".join)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(TEXT)
def test_hypothesis_identical(hf, text):
    assert_same(ours().encode(text), hf.encode(text))

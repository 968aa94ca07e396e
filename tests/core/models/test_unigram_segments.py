"""A Unigram line searched ▁-segment by ▁-segment (`by_segment`, each segment's path kept)
gives the same tokens, ids and offsets as the search over the whole line.

Why it can: when no piece holds ▁ past its start, every path passes through each ▁, so the best
path of a line is its segments' best paths end to end. Why it needs a check: sums are rounded,
and a segment searched from 0 may break a near tie the other way than from the running total
("." + "......" against "......" + "." on Botchan's "opinion......."); such a line is searched
whole (`least_margin`). The properties compare the two on random texts: known words, unknown
characters, byte fallback, repeated spaces, CJK without spaces, and a model built to tie.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.models.sentencepiece_common import finish_tokens
from tokenizers_core.models.unigram.hf import HFUnigram
from tokenizers_core.models.unigram.model import Unigram
from tokenizers_core.models.unigram.viterbi import by_segment, least_margin, viterbi

NORMAL, UNKNOWN, BYTE = 1, 2, 6
PROPERTY = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _whole_line(model: Unigram, text: str) -> list[tuple[str, int, int, int]]:
    """`model.tokenize(text)` without the segments: one search over the whole text."""
    spans = model._viterbi(text)
    if isinstance(model, HFUnigram):
        return [(text[s:e], model._piece_id(text[s:e]), s, e) for s, e in model._fused(spans)]
    return finish_tokens(text, spans, model.unk_id, model.byte_fallback, model._piece_id)


@pytest.fixture(scope="module")
def botchan() -> tc.Tokenizer:
    return tc.load("botchan_en_unigram_1000")


@pytest.fixture(scope="module")
def byte_model() -> Unigram:
    """Pieces of a few words, ▁ alone, and the 256 byte pieces (byte fallback)."""
    words = [("▁the", -2.0), ("▁cat", -3.0), ("s", -3.5), ("▁", -4.0), ("t", -5.0), ("a", -5.0)]
    words += [("h", -5.0), ("e", -5.0), ("c", -5.0), ("at", -4.0), ("the", -3.0)]
    bytes_ = [(f"<0x{b:02X}>", 0.0) for b in range(256)]
    types = [UNKNOWN] + [NORMAL] * len(words) + [BYTE] * len(bytes_)
    return Unigram([("<unk>", 0.0)] + words + bytes_, types=types, byte_fallback=True)


@pytest.fixture(scope="module")
def tie_model() -> Unigram:
    """ "." and "..." score so that "." + "..." and "..." + "." tie exactly in real numbers."""
    pieces = [("<unk>", 0.0), ("▁", -1.3), (".", -2.7), ("...", -6.1), ("▁.", -3.9)]
    pieces.append(("a", -1.7))
    return Unigram(pieces, types=[UNKNOWN] + [NORMAL] * 5)


WORDS = st.sampled_from(
    [
        "the",
        "cat",
        "cats",
        "Botchan",
        "said",
        "人人",
        "生而自由",
        "é",
        "ß",
        "\u0301",
        ".",
        "...",
        "",
    ]
)
LINES = st.lists(
    st.tuples(WORDS, st.sampled_from([" ", "  ", "   ", "", "\t", "。"])), max_size=12
).map(lambda parts: "".join(w + s for w, s in parts))


@PROPERTY
@given(text=LINES | st.text(max_size=40))
def test_botchan_segments_equal_the_whole_line(botchan, text):
    model = botchan.model
    normalized = botchan.normalize(text).normalized
    assert model._cacheable_length > 0  # (the property is about the cached path)
    assert model.tokenize(normalized) == _whole_line(model, normalized)


@PROPERTY
@given(text=st.text(st.sampled_from(list("the cats▁ é人\U0001f600")), max_size=30))
def test_byte_fallback_segments_equal_the_whole_line(byte_model, text):
    assert byte_model.tokenize(text) == _whole_line(byte_model, text)


@PROPERTY
@given(text=st.text(st.sampled_from(list(".▁a")), max_size=30))
def test_near_ties_are_searched_whole(tie_model, text):
    assert tie_model.tokenize(text) == _whole_line(tie_model, text)


@PROPERTY
@given(text=st.text(st.sampled_from(list("ab▁ c")), max_size=30))
def test_hugging_face_segments_equal_the_whole_line(text):
    pieces = [("<unk>", 0.0), ("▁a", -1.0), ("b", -2.0), ("▁", -3.0), ("a", -2.5)]
    model = HFUnigram(pieces, unk_id=0)
    assert model.tokenize(text) == _whole_line(model, text)


def test_an_exact_tie_has_no_margin():
    """ "." + "..." and "..." + "." end at 4 with the same exact sum: the least gap is 0, so
    `by_segment` declines and the line is searched whole."""
    trie = {".": {"": 1, ".": {".": {"": 2}}}}
    scores = [0.0, -2.5, -6.0]
    assert least_margin(trie, scores, "....", -20.0) == 0.0
    search = lambda t: viterbi(trie, scores, t, unk_id=0, unk_score=-20.0)  # noqa: E731
    margin = lambda t: least_margin(trie, scores, t, -20.0)  # noqa: E731
    assert by_segment(search, margin, "....", {}, 10, 1e-9) is None


def test_a_piece_with_an_inner_mark_turns_the_segments_off():
    model = Unigram([("<unk>", 0.0), ("a▁b", -1.0), ("a", -2.0), ("b", -2.0), ("▁", -2.0)])
    assert model._cacheable_length < 0
    assert [t for t, *_ in model.tokenize("a▁b▁a")] == ["a▁b", "▁", "a"]


def test_the_cache_is_bounded(botchan, monkeypatch):
    from tokenizers_core.models.unigram import model as model_module

    monkeypatch.setattr(model_module, "SEGMENT_CACHE_SIZE", 3)
    model = Unigram(botchan.model.pieces, types=botchan.model.types)
    model.tokenize("▁the▁cat▁sat▁on▁the▁mat▁again")
    assert len(model._segment_cache) <= 3


@PROPERTY
@given(text=st.text(st.sampled_from(list("ab▁x")), max_size=30))
def test_unknown_runs_across_a_mark_join_as_in_the_whole_line(text):
    """Without ▁ alone as a piece, a lone ▁ is unknown and joins the unknown run before it
    ("x▁" one token): the finished tokens are then not kept per segment, the spans are."""
    model = Unigram([("<unk>", 0.0), ("▁a", -1.0), ("b", -2.0), ("a", -2.5)])
    assert not model._whole_tokens_by_segment
    assert model.tokenize(text) == _whole_line(model, text)


def test_botchan_near_tie_is_searched_whole(botchan):
    """ "▁opinion......." from 0 ends "......" + "."; after "▁to▁be▁of▁the▁same" the whole
    line's 32-bit sums end "." + "......" (sentencepiece's answer): the two tie exactly in real
    numbers, so the segment's margin is 0 and the line is searched whole."""
    text = botchan.normalize("to be of the same opinion.......").normalized
    assert botchan.model._least_margin("▁opinion.......") == 0.0
    assert [t for t, *_ in botchan.model.tokenize(text)][-2:] == [".", "......"]


def test_a_long_segment_is_searched_not_kept(botchan):
    model = Unigram(botchan.model.pieces, types=botchan.model.types)
    long_word = "▁" + "ab" * 200
    assert model.tokenize(long_word + "▁cat") == _whole_line(model, long_word + "▁cat")
    assert list(model._token_cache) == ["▁cat"]

"""NormalizedString: alignment of every normalised character to the original text."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokenizers_core.normalized import NormalizedString


def test_identity_has_trivial_alignment():
    s = NormalizedString("abc")
    assert s.is_identity
    assert s.alignments == [(0, 1), (1, 2), (2, 3)]
    assert s.span(1, 3) == (1, 3)
    assert s.span(3, 3) == (3, 3)


def test_ligature_expands_and_both_characters_point_at_it():
    s = NormalizedString("xﬁy").transform([(0, 1, "x"), (1, 2, "fi"), (2, 3, "y")])
    assert s.normalized == "xfiy"
    assert s.alignments == [(0, 1), (1, 2), (1, 2), (2, 3)]
    assert s.span(1, 3) == (1, 2)
    assert s.span(1, 2) == (1, 2)  # half of the ligature is still the ligature


def test_composition_maps_to_both_sources():
    s = NormalizedString("e\u0301!").transform([(0, 2, "é"), (2, 3, "!")])
    assert s.alignments == [(0, 2), (2, 3)]


def test_lowercase_dotted_capital_i_grows():
    s = NormalizedString("İx").map_chars(str.lower)
    assert s.normalized == "i\u0307x"
    assert s.alignments == [(0, 1), (0, 1), (1, 2)]


def test_filter_drops_and_slice_keeps_alignment():
    s = NormalizedString("a\x00b c").filter(lambda c: c != "\x00")
    assert s.normalized == "ab c"
    assert s.span(1, 2) == (2, 3)
    piece = s.slice(3, 4)
    assert piece.normalized == "c" and piece.span(0, 1) == (4, 5)
    ident = NormalizedString("hello world").slice(6, 11)
    assert ident.is_identity and ident.span(0, 5) == (6, 11) and ident.span(0, 0) == (6, 6)


def test_prepend_aligns_with_first_character():
    s = NormalizedString("ab").prepend("▁")
    assert s.normalized == "▁ab" and s.alignments == [(0, 1), (0, 1), (1, 2)]
    assert NormalizedString("").prepend("▁").span(0, 1) == (0, 0)


def test_bad_segments_and_ranges_are_value_errors():
    with pytest.raises(ValueError):
        NormalizedString("abc").transform([(0, 1, "a"), (2, 3, "c")])
    with pytest.raises(ValueError):
        NormalizedString("abc").transform([(0, 1, "a")])
    with pytest.raises(ValueError):
        NormalizedString("abc").span(2, 5)


@given(st.text(max_size=60))
def test_per_char_nfd_keeps_spans_within_the_original(text):
    s = NormalizedString(text).map_chars(lambda c: unicodedata.normalize("NFD", c))
    assert len(s.alignments) == len(s.normalized)
    prev = 0
    for a, b in s.alignments:
        assert 0 <= a < b <= len(text) and a >= prev
        prev = a
    # every original character that produced output is covered, in order
    covered = sorted({a for a, _ in s.alignments})
    assert covered == [i for i, c in enumerate(text) if unicodedata.normalize("NFD", c)]


@st.composite
def rewrites(draw, text: str) -> list[tuple[int, int, str]]:
    """Segments covering `text` in order, each kept, deleted, grown or an insertion."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)) + [0, len(text)])
    outs = st.sampled_from(["", "x", "yz", "▁", "ﬁ"])
    segments = []
    for start, end in zip(cuts, cuts[1:]):
        keep = draw(st.booleans())
        segments.append((start, end, text[start:end] if keep else draw(outs)))
    return segments


@given(st.data(), st.text(alphabet="abﬁ ▁", max_size=20), st.integers(1, 3))
def test_spans_are_each_ranges_span(data, text, rounds):
    """`spans` of a piece's token ranges (in one pass, through the first and last characters
    alone when the alignment is known to be ordered) is `span` of each range, after one
    rewrite of the identity (ordered) or several (not known to be)."""
    s = NormalizedString(text)
    for _ in range(rounds):
        s = s.transform(data.draw(rewrites(s.normalized)))
    if s._ordered:
        lows = [a for a, _ in s.alignments]
        highs = [b for _, b in s.alignments]
        assert lows == sorted(lows) and highs == sorted(highs)
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(s)), max_size=10))) | {0, len(s)})
    starts, ends = cuts[:-1], cuts[1:]
    assert s.spans(starts, ends) == [s.span(a, b) for a, b in zip(starts, ends)]
    assert s.prepend("▁").spans([0], [1]) == [s.prepend("▁").span(0, 1)]

"""BERT's normaliser run character by character (`char_table`) gives exactly what its four
steps give on the whole text: the same normalised text and the same alignment to the original,
for every setting of its options, on real multilingual text and on any text. A text it cannot
take (a capital sigma, a mark NFD would reorder) goes the general way."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizers_core.corpora import load_corpus
from tokenizers_core.normalized import NormalizedString
from tokenizers_core.normalizers import BertNormalizer
from tokenizers_core.normalizers.basic import _bert_table

UDHR_LINES = load_corpus("udhr/all").splitlines()
SETTINGS = [
    BertNormalizer(clean_text=c, handle_chinese_chars=h, strip_accents=s, lowercase=low)
    for c, h, s, low in itertools.product([True, False], [True, False], [None, True], [True, False])
]
# sigma (lowercased by context), marks that NFD reorders and one it keeps (U+1D165, Mc, ccc 216),
# controls dropped, CJK spaced, a dotted capital I (two characters lowercased)
TRICKY = "ΣΑΣ Σ aΣ a\u0301\u0323 x\U0001d165\u0301 \x00\u200b\ufffd\t東京 İI ǅ ﬁ \u1734"


def _both(normalizer, text):
    ns = NormalizedString(text)
    fast, general = normalizer.normalize(ns), normalizer._normalize_each_step(ns)
    return (fast.normalized, fast.alignments), (general.normalized, general.alignments)


@pytest.mark.parametrize("normalizer", SETTINGS, ids=lambda n: n.describe())
def test_char_by_char_equals_the_four_steps_on_real_text(normalizer):
    for text in UDHR_LINES[::4] + [TRICKY, TRICKY[::-1], ""]:
        fast, general = _both(normalizer, text)
        assert fast == general, text


def test_the_table_takes_most_real_lines_and_refuses_sigma():
    table = _bert_table(BertNormalizer())
    taken = sum(table.normalize(NormalizedString(t)) is not None for t in UDHR_LINES)
    assert taken > 0.9 * len(UDHR_LINES)
    assert table.normalize(NormalizedString("ΟΔΟΣ")) is None
    assert table.normalize(NormalizedString("x\U0001d165\u0301")) is None


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(SETTINGS),
    st.text(max_size=30) | st.text(alphabet=TRICKY + "aE\u0300\u0308 ", max_size=20),
)
def test_char_by_char_equals_the_four_steps_on_any_text(normalizer, text):
    fast, general = _both(normalizer, text)
    assert fast == general

"""Renyi efficiency (Zouhar et al. 2023, "Tokenization and the Noiseless Channel"): the formulas
against values worked by hand, their limits, and a real tokeniser's unigram distribution."""

from __future__ import annotations

import math

import pytest

import tokenizers_core as tc
from tokenizers_core.audit.efficiency import (
    count_histogram,
    counts_of_histogram,
    renyi_efficiency,
    renyi_entropy,
    unigram_counts,
)
from tokenizers_core.corpora import load_corpus

# counts 1, 1, 2 -> p = 1/4, 1/4, 1/2
P = [0.25, 0.25, 0.5]


def test_shannon_entropy_at_alpha_one_is_worked_by_hand():
    # H_1 = -(1/4 ln 1/4 + 1/4 ln 1/4 + 1/2 ln 1/2) = 1.5 ln 2
    assert renyi_entropy([1, 1, 2], 1) == pytest.approx(1.5 * math.log(2))


def test_collision_entropy_at_alpha_two_is_worked_by_hand():
    # H_2 = -ln(1/16 + 1/16 + 1/4) = -ln(3/8)
    assert renyi_entropy([1, 1, 2], 2) == pytest.approx(-math.log(3 / 8))


def test_alpha_two_and_a_half_is_worked_by_hand():
    # H_2.5 = 1/(1 - 2.5) ln(2 (1/4)^2.5 + (1/2)^2.5) = -(2/3) ln(1/16 + 2^-2.5)
    assert renyi_entropy([1, 1, 2], 2.5) == pytest.approx(-(2 / 3) * math.log(1 / 16 + 2**-2.5))


def test_alpha_zero_counts_the_tokens_that_occur_and_infinity_the_most_frequent():
    assert renyi_entropy([1, 1, 2, 0], 0) == pytest.approx(math.log(3))
    assert renyi_entropy([1, 1, 2], math.inf) == pytest.approx(math.log(2))


def test_the_formula_tends_to_its_limits():
    """Near alpha = 1 the general formula approaches Shannon's; for large alpha, min-entropy."""
    shannon = renyi_entropy([1, 1, 2], 1)
    assert renyi_entropy([1, 1, 2], 1 + 1e-7) == pytest.approx(shannon, rel=1e-5)
    assert renyi_entropy([1, 1, 2], 1 - 1e-7) == pytest.approx(shannon, rel=1e-5)
    assert renyi_entropy([1, 1, 2], 1e6) == pytest.approx(math.log(2), rel=1e-4)


def test_entropy_falls_as_alpha_grows():
    values = [renyi_entropy([5, 3, 1, 1, 9, 2], a) for a in (0, 0.5, 1, 2, 2.5, 10, math.inf)]
    assert values == sorted(values, reverse=True)


def test_a_uniform_distribution_over_the_whole_vocabulary_is_perfectly_efficient():
    for alpha in (0, 0.5, 1, 2.5, math.inf):
        assert renyi_efficiency([7, 7, 7, 7], 4, alpha) == pytest.approx(1.0)
    # one token of four used: nothing is learned from the channel
    assert renyi_efficiency([12], 4, 2.5) == 0.0
    # the worked example over a vocabulary of 4: H_2 / ln 4
    assert renyi_efficiency([1, 1, 2], 4, 2) == pytest.approx(-math.log(3 / 8) / math.log(4))


def test_a_histogram_keeps_what_the_formula_needs():
    counts = unigram_counts([5, 5, 9, 2, 5, 9])
    assert sorted(counts.values()) == [1, 2, 3]
    hist = count_histogram(counts.values())
    assert hist == [[1, 1], [2, 1], [3, 1]]
    assert sorted(counts_of_histogram(hist)) == [1, 2, 3]
    assert count_histogram([4, 4, 1]) == [[1, 1], [4, 2]]


@pytest.mark.parametrize(
    "args, message",
    [
        (([], 2.5), "no tokens"),
        (([1, -2], 2.5), "negative"),
        (([1, 2], -1), "alpha"),
        (([1, 2], math.nan), "alpha"),
    ],
)
def test_bad_input_is_a_clear_value_error(args, message):
    with pytest.raises(ValueError, match=message):
        renyi_entropy(*args)


def test_a_vocabulary_needs_two_entries():
    with pytest.raises(ValueError, match="at least 2"):
        renyi_efficiency([3], 1, 2.5)


def test_a_real_tokenizer_on_real_text_is_between_zero_and_one():
    tok = tc.load("botchan_en_bpe_1000")
    counts = unigram_counts(tok.encode(load_corpus("udhr/eng")).ids)
    values = [renyi_efficiency(counts.values(), tok.vocab_size, a) for a in (1, 2.5, math.inf)]
    assert all(0 < v < 1 for v in values)
    assert values == sorted(values, reverse=True)

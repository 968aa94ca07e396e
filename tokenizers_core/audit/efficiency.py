"""Renyi efficiency of a tokeniser on a corpus (Zouhar et al. 2023, "Tokenization and the
Noiseless Channel").

A tokeniser is a channel: the better it spreads a text over its vocabulary, the more each token
says. Take the unigram distribution of the tokens it makes of a corpus, p_i = c_i / N (c_i the
count of token i, N the number of tokens). Its Renyi entropy of order alpha is

    H_alpha(p) = 1 / (1 - alpha) * log sum_i p_i ** alpha        (alpha >= 0, alpha != 1)

with its limits

    H_0(p)   = log |{i : p_i > 0}|        (Hartley: how many tokens occur)
    H_1(p)   = - sum_i p_i log p_i        (Shannon, the limit alpha -> 1)
    H_inf(p) = - log max_i p_i            (min-entropy, the limit alpha -> inf)

and the efficiency divides it by the most a vocabulary V could reach, the uniform distribution:

    efficiency_alpha = H_alpha(p) / log |V|        (the base of the logarithm cancels)

H_alpha falls as alpha grows: a large alpha punishes a few very frequent tokens; a small one
counts rare tokens. Zouhar et al. found alpha = 2.5 predicts translation quality best.

>>> round(renyi_entropy([1, 1, 2], 2), 4)       # -ln(1/16 + 1/16 + 1/4) = -ln(3/8)
0.9808
>>> round(renyi_efficiency([7, 7, 7, 7], 4, 2.5), 6)   # uniform over the whole vocabulary
1.0

Only the counts matter, not which tokens they belong to: `count_histogram` keeps exactly that
(how many tokens occur c times), a few dozen numbers for a whole corpus. Tokens that never occur
add nothing to the sum (0 ** alpha = 0), except at alpha = 0, where they are not counted.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Iterable

from ..errors import InvalidInput

DEFAULT_ALPHA = 2.5  # Zouhar et al.'s best predictor of downstream quality


def unigram_counts(ids: Iterable[int]) -> Counter[int]:
    """How often each token id occurs.

    >>> sorted(unigram_counts([5, 5, 9]).items())
    [(5, 2), (9, 1)]
    """
    return Counter(ids)


def count_histogram(counts: Iterable[int]) -> list[list[int]]:
    """[count, how many tokens occur that often], by count: all a Renyi entropy needs.

    >>> count_histogram([4, 4, 1])
    [[1, 1], [4, 2]]
    """
    return [[c, n] for c, n in sorted(Counter(c for c in counts if c).items())]


def counts_of_histogram(histogram: Iterable[Iterable[int]]) -> list[int]:
    """The counts a histogram stands for (the inverse of `count_histogram`, in count order).

    >>> counts_of_histogram([[1, 1], [4, 2]])
    [1, 4, 4]
    """
    return [c for c, n in histogram for _ in range(n)]


def _check_alpha(alpha: float) -> None:
    if not alpha >= 0:  # also catches NaN
        raise InvalidInput(f"alpha must be a number from 0 to infinity, got {alpha!r}")


def _probabilities(counts: Iterable[int]) -> list[float]:
    values = list(counts)
    if any(c < 0 for c in values):
        raise InvalidInput("token counts cannot be negative")
    total = sum(values)
    if not total:
        raise InvalidInput("no tokens to measure: the distribution is empty")
    return [c / total for c in values if c]


def renyi_entropy(counts: Iterable[int], alpha: float) -> float:
    """H_alpha of the distribution the token `counts` make, in nats (formulas in the module
    docstring). ValueError for no tokens, a negative count or a negative alpha."""
    _check_alpha(alpha)
    p = _probabilities(counts)
    if alpha == 0:
        return math.log(len(p))
    if alpha == 1:
        return -math.fsum(q * math.log(q) for q in p)
    if math.isinf(alpha):
        return -math.log(max(p))
    # log sum p^alpha, shifted by the largest term so that a large alpha cannot underflow
    logs = [alpha * math.log(q) for q in p]
    top = max(logs)
    log_sum = top + math.log(math.fsum(math.exp(x - top) for x in logs))
    return log_sum / (1 - alpha)


def renyi_efficiency(counts: Iterable[int], vocab_size: int, alpha: float = DEFAULT_ALPHA) -> float:
    """H_alpha(p) / log |V|: 1 when the tokens spread evenly over the whole vocabulary, 0 when
    one token is all there is.

    >>> round(renyi_efficiency([1, 1, 2], 4, 1), 4)     # 1.5 ln 2 / ln 4
    0.75
    """
    if vocab_size < 2:
        raise InvalidInput(
            f"a vocabulary needs at least 2 entries to carry information, got {vocab_size}"
        )
    return renyi_entropy(counts, alpha) / math.log(vocab_size)

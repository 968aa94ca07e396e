"""Unigram training as the textbook writes it: EM and pruning, round by round.

    repeat:
        E-step: expected count of each piece over all splits of every word (forward-backward)
        M-step: drop pieces expected less than 0.5 times; log P = digamma(count) - digamma(total)
        stop when the vocabulary is at most 1.1 x the target size
        prune: the loss of each piece = the likelihood lost if its uses were re-split the
               next-best way; keep the 75% with the largest loss, and every character on a
               best path
        stop when the vocabulary is at most 1.1 x the target size
    final: the characters + the best-scoring pieces on a best path, up to the target size

This is sentencepiece's `unigram_model_trainer.cc` (`RunEStep`, `RunMStep`, `PruneSentencePieces`,
`FinalizeSentencePieces`), as the fast engine, `UnigramTrainer` in `models/unigram/trainer.py`,
runs it; that engine is proven equal to it round by round (every `UnigramRoundStep` field; the
likelihoods and losses to rounding) by tests/core/models/test_textbook.py. It starts where the fast
engine's seeding ends: `words` are the normalised words with their counts ("▁low": 5) and
`seed` the seed pieces with their log-probabilities, the characters first (the trainer's
`words`, `freqs`, `pieces` and `logp` after round 0). It does not cover the seeding
(substring counts), the sample words' segmentations (`samples` stays empty), nor words so long
that every split underflows a double (the fast engine moves to log space past 20 characters).
Slow on purpose: every step rebuilds each word's lattice from the live pieces. The pruning and the
final cut (`prune_losses`, `prune`, `finalize`) are its second page, `unigram_prune.py`.

As sentencepiece, the live pieces keep an order (`logp` is that ordered dict): pruning puts the
pieces it must keep first, then the rest by loss, and ties go to the earlier piece. A character
no live piece covers is an unknown node scoring the weakest piece minus 10, and counts for the
first piece (sentencepiece's trainer gives the unknown piece id 0).

>>> words = {"▁ab": 12, "▁abab": 3, "▁abba": 3, "▁b": 6, "▁ba": 3}
>>> seed = [("b", -2.2), ("a", -2.4), ("▁", -2.4), ("▁ab", -1.7), ("ab", -2.0), ("ba", -2.8),
...         ("▁b", -2.8), ("▁abab", -3.0), ("▁abba", -3.0), ("abab", -3.2), ("abba", -3.2),
...         ("bab", -3.5), ("bba", -3.5), ("▁ba", -3.5)]
>>> rounds = list(unigram_em(words, seed, vocab_size=8, num_sub_iterations=1))
>>> [(r.round, r.vocab_size, r.final) for r in rounds]
[(0, 14, False), (1, 5, False), (1, 8, True)]
>>> [piece for piece, _score in rounds[-1].survivors]
['▁ab', '▁b', '▁', 'a', 'b']
"""

from __future__ import annotations

import math
from itertools import count
from typing import Iterator, Mapping, Sequence

from ..models.unigram.trainer import UnigramRoundStep, digamma
from . import code_of, marked_line
from .unigram_prune import SPECIALS, finalize, lattice, prune, prune_losses, unknown_score

SHOWN = 12  # pruned pieces and survivors a round shows, as the fast engine


def unigram_em(
    words: Mapping[str, int],
    seed: Sequence[tuple[str, float]],
    vocab_size: int,
    *,
    shrinking_factor: float = 0.75,
    num_sub_iterations: int = 2,
) -> Iterator[UnigramRoundStep]:
    logp = dict(seed)  # live piece -> log P, in order <- seed
    characters = [p for p, _lp in seed if len(p) == 1]
    desired = int(vocab_size * 1.1)
    tokens = 0
    for round_no in count(1):
        for sub in range(num_sub_iterations):
            expected, loglik = e_step(words, logp)  # expected counts <- e_step
            if round_no == 1 and sub == 0:  # (the seed's likelihood)
                yield record(0, loglik, tokens, 0, [], logp)
            logp = m_step(expected, logp)  # re-estimate, drop the rare <- m_step
        if len(logp) <= desired:
            break  # small enough: stop <- stop
        losses, tokens = prune_losses(words, logp)  # each piece's loss <- prune
        pruned, removed, logp = prune(losses, logp, desired, shrinking_factor)
        if not removed:
            break  # nothing may go: stop
        yield record(round_no, loglik, tokens, removed, pruned, logp)
        if len(logp) <= desired:
            break  # small enough after pruning
    final = finalize(words, logp, characters, vocab_size)  # characters + the best pieces <- final
    yield UnigramRoundStep(
        round_no, len(final) + SPECIALS, loglik, tokens, 0, (), tuple(final[:SHOWN]), (), True
    )


def e_step(words: Mapping[str, int], logp: dict[str, float]) -> tuple[dict[str, float], float]:
    """Expected count of every piece (forward-backward over each word's lattice) and the
    corpus log-likelihood."""
    prob: dict[str | None, float] = {p: math.exp(lp) for p, lp in logp.items()}
    prob[None] = math.exp(unknown_score(logp))
    expected = dict.fromkeys(prob, 0.0)
    loglik = 0.0
    for word, freq in sorted(words.items()):
        edges = lattice(word, logp)
        alpha = [1.0] + [0.0] * len(word)  # alpha[i]: all splits of word[:i]
        for s, e, p in edges:
            alpha[e] += alpha[s] * prob[p]
        z = alpha[-1]
        beta = [0.0] * len(word) + [1.0]  # beta[i]: all splits of word[i:]
        for s, e, p in reversed(edges):
            x = prob[p] * beta[e]
            beta[s] += x
            expected[p] += freq / z * alpha[s] * x  # P(this edge is used) x frequency
        loglik += freq * math.log(z)
    first = next(iter(logp))
    expected[first] += expected.pop(None)  # the unknown piece is id 0
    return {p: n for p, n in expected.items() if p is not None}, loglik  # keyed by piece only


def m_step(expected: dict[str, float], logp: dict[str, float]) -> dict[str, float]:
    """log P = digamma(expected) - digamma(total) for the pieces expected at least half a
    time (sentencepiece's sparsifying Bayesian estimate); the others go."""
    kept = [p for p in logp if expected[p] >= 0.5]
    log_total = digamma(sum(expected[p] for p in kept))
    return {p: digamma(expected[p]) - log_total for p in kept}


def record(
    round_no: int,
    loglik: float,
    tokens: int,
    removed: int,
    pruned: list[tuple[str, float]],
    logp: dict[str, float],
) -> UnigramRoundStep:
    """A round's step: its size, likelihood, the pruned pieces and the strongest survivors."""
    live = sorted(logp.items(), key=lambda kv: -kv[1])
    return UnigramRoundStep(
        round_no,
        len(live),
        float(loglik),
        tokens,
        removed,
        tuple((p, float(loss)) for p, loss in pruned[:SHOWN]),
        tuple(live[:SHOWN]),
        (),
        False,
    )


CODE = code_of(unigram_em)
_MARKS = {"e_step": "e_step", "prune": "prune"}


def line_of(step: UnigramRoundStep | None, *, finished: bool = False) -> int:
    """The line of CODE a state stands for: the seed (`step` None or round 0), a round that
    pruned, or the final vocabulary (a `final` step, or `finished`).

    >>> CODE[line_of(None) - 1].split("#")[1].strip()
    'live piece -> log P, in order <- seed'
    """
    if finished or (step is not None and step.final):
        return marked_line(CODE, "final")
    if step is None or step.round == 0:
        return marked_line(CODE, "seed")
    return marked_line(CODE, "prune")

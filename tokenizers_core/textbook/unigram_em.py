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
Slow on purpose: every step rebuilds each word's lattice from the live pieces.

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

from ..errors import InvalidInput
from ..models.unigram.model import UNK_PENALTY
from ..models.unigram.trainer import UnigramRoundStep, digamma
from . import code_of, marked_line

SHOWN = 12  # pruned pieces and survivors a round shows, as the fast engine
SPECIALS = 3  # <unk> <s> </s>, before the trained pieces
Edge = tuple[int, int, "str | None"]  # (start, end, piece); None is an uncovered character


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


def lattice(word: str, logp: Mapping[str, float]) -> list[Edge]:
    """Every piece of `logp` in `word` as (start, end, piece), by start then end, and a
    (start, start + 1, None) edge where no piece is that one character.

    >>> lattice("▁ab", {"▁": -1.0, "ab": -1.0, "▁ab": -2.0})
    [(0, 1, '▁'), (0, 3, '▁ab'), (1, 3, 'ab'), (1, 2, None), (2, 3, None)]
    """
    edges: list[Edge] = []
    for s in range(len(word)):
        edges += [(s, e, word[s:e]) for e in range(s + 1, len(word) + 1) if word[s:e] in logp]
        if word[s] not in logp:
            edges.append((s, s + 1, None))
    return edges


def unknown_score(logp: Mapping[str, float]) -> float:
    """An uncovered character's log P: the weakest piece's minus 10."""
    return min(logp.values()) - UNK_PENALTY


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


def best_path_counts(
    words: Mapping[str, int], logp: dict[str, float]
) -> tuple[dict[str, float], int]:
    """How often each piece is on a word's best path (an uncovered character counts for the
    first piece), and the corpus length in tokens."""
    freq = dict.fromkeys(logp, 0.0)
    first = next(iter(logp))
    tokens = 0
    for word, f in sorted(words.items()):
        for p in best_path(len(word), lattice(word, logp), logp, unknown_score(logp)) or []:
            freq[first if p is None else p] += f
            tokens += f
    return freq, tokens


def prune_losses(
    words: Mapping[str, int], logp: dict[str, float]
) -> tuple[dict[str, float | None], int]:
    """Each piece's loss (None: keep it whatever it costs; absent: drop it), and the corpus
    length in tokens under the best split."""
    freq, tokens = best_path_counts(words, logp)
    total = sum(freq.values())
    first = next(iter(logp))
    losses: dict[str, float | None] = {}
    for piece, lp in logp.items():
        if freq[piece] == 0:
            continue  # on no best path
        alt = (
            None
            if len(piece) == 1
            else best_path(
                len(piece),
                [e for e in lattice(piece, logp) if e[2] != piece],
                logp,
                unknown_score(logp),
            )
        )
        if alt is None:
            losses[piece] = None  # a character, or no other spelling
            continue
        alt_score = sum(unknown_score(logp) if p is None else logp[p] for p in alt)
        spelled = [first if p is None else p for p in alt]
        if alt_score <= lp:  # the likelihood lost by re-splitting
            fi, log_alt = freq[piece], math.log(total + freq[piece] * (len(spelled) - 1))
            logprob_alt = sum(math.log(freq[p] + fi) - log_alt for p in spelled)
            losses[piece] = (
                fi / sum(words.values()) * (math.log(fi) - math.log(total) - logprob_alt)
            )
    return losses, tokens


def best_path(
    n: int, edges: list[Edge], logp: dict[str, float], unk_score: float
) -> list[str | None] | None:
    """The pieces of the best path through `edges` (the earliest start on a tie), or None
    when no path reaches the end; an uncovered character scores `unk_score`."""
    best = [0.0] + [-math.inf] * n
    back: list[tuple[int, str | None]] = [(0, None)] * (n + 1)
    for s, e, p in edges:
        cand = best[s] + (unk_score if p is None else logp[p])
        if cand > best[e]:
            best[e], back[e] = cand, (s, p)
    if best[n] == -math.inf:
        return None
    path: list[str | None] = []
    e = n
    while e > 0:
        e, p = back[e]
        path.append(p)
    return path[::-1]


def prune(
    losses: dict[str, float | None], logp: dict[str, float], desired: int, shrinking_factor: float
) -> tuple[list[tuple[str, float]], int, dict[str, float]]:
    """Keep the must-keeps and the largest losses, down to max(desired, shrink x size):
    the pruned (piece, loss), smallest loss first; how many pieces went; the new log P, in
    the new order (the must-keeps, then by loss)."""
    keep = [p for p in logp if p in losses and losses[p] is None]
    scored = {p: loss for p, loss in losses.items() if loss is not None}
    order = {p: i for i, p in enumerate(logp)}
    ranked = sorted((p for p in logp if p in scored), key=lambda p: (-scored[p], order[p]))
    room = max(0, max(desired, int(shrinking_factor * len(logp))) - len(keep))
    pruned = [(p, scored[p]) for p in reversed(ranked[room:])]
    survivors = keep + ranked[:room]
    return pruned, len(logp) - len(survivors), {p: logp[p] for p in survivors}


def finalize(
    words: Mapping[str, int], logp: dict[str, float], characters: list[str], vocab_size: int
) -> list[tuple[str, float]]:
    """Every character (one on no best path just above the weakest piece that is on one) +
    the best pieces on a best path, best first."""
    freq, _tokens = best_path_counts(words, logp)
    live = {p: lp for p, lp in logp.items() if freq[p]}
    final: dict[str, float] = {}
    penalty = 0.0
    for c in characters:
        final[c] = live[c] if c in live else min(live.values(), default=0.0) + penalty
        penalty += 0.0 if c in live else 0.0001
    for piece, score in sorted(live.items(), key=lambda kv: (-kv[1], kv[0])):
        if len(final) >= vocab_size - SPECIALS:
            break
        final.setdefault(piece, score)
    if len(final) < vocab_size - SPECIALS:
        raise InvalidInput(
            f"vocab_size {vocab_size} is too large for this corpus: training kept "
            f"only {len(final) + SPECIALS} pieces"
        )
    return sorted(final.items(), key=lambda kv: (-kv[1], kv[0]))


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

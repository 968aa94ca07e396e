"""Unigram training as the textbook writes it: EM and pruning, round by round.

    repeat:
        E-step: expected count of each piece over all splits of every word (forward-backward)
        M-step: drop pieces expected less than 0.5 times; log P = digamma(count) - digamma(total)
        stop when the vocabulary is at most 1.1 x the target size
        prune: the loss of each piece = the likelihood lost if its uses were re-split the
               next-best way; keep the 75% with the largest loss, and every character
    final: the characters + the best-scoring pieces, up to the target size

This is sentencepiece's `unigram_model_trainer.cc` (`RunEStep`, `RunMStep`, `PruneSentencePieces`,
`FinalizeSentencePieces`), as the fast engine, `UnigramTrainer` in `models/unigram/trainer.py`,
runs it; that engine is proven equal to it round by round (every `UnigramRoundStep` field; the
likelihoods and losses to rounding) by tests/core/test_textbook.py. It starts where the fast
engine's seeding ends: `words` are the normalised words with their counts ("▁low": 5) and
`seed` the seed pieces with their log-probabilities, the characters first (the trainer's
`words`, `freqs`, `pieces` and `logp` after round 0). It does not cover the seeding
(substring counts), the sample words' segmentations (`samples` stays empty), nor words so long
that every split underflows a double (the fast engine moves to log space past 20 characters).
Slow on purpose: every round rebuilds every sum from the lattices.

As the fast engine, each word's lattice holds the seed pieces (a dead one has probability 0)
and an unknown edge only where no seed piece is that character. sentencepiece rebuilds the
lattice from the live pieces, so a character the M-step dropped gets an unknown edge there:
the likelihoods differ slightly, and where a word cannot be spelled without that character the
fast engine scores it -1e30 and this module raises ValueError.

>>> words = {"▁ab": 12, "▁abab": 3, "▁abba": 3, "▁b": 6, "▁ba": 3}
>>> seed = [("b", -2.2), ("a", -2.4), ("▁", -2.4), ("▁ab", -1.7), ("ab", -2.0), ("ba", -2.8),
...         ("▁b", -2.8), ("▁abab", -3.0), ("▁abba", -3.0), ("abab", -3.2), ("abba", -3.2),
...         ("bab", -3.5), ("bba", -3.5), ("▁ba", -3.5)]
>>> rounds = list(unigram_em(words, seed, vocab_size=8))
>>> [(r.round, r.vocab_size, r.final) for r in rounds]
[(0, 14, False), (1, 8, False), (2, 8, True)]
>>> [piece for piece, _score in rounds[-1].survivors]
['▁ab', '▁b', '▁', 'a', 'b']
"""
from __future__ import annotations

import math
from itertools import count
from typing import Iterator, Mapping, Sequence

from ..models.unigram.model import UNK_PENALTY
from ..models.unigram.trainer import UnigramRoundStep, digamma
from . import code_of, marked_line

SHOWN = 12                  # pruned pieces and survivors a round shows, as the fast engine
SPECIALS = 3                # <unk> <s> </s>, before the trained pieces
Edge = tuple[int, int, "str | None"]     # (start, end, piece); None is an uncovered character


def unigram_em(words: Mapping[str, int], seed: Sequence[tuple[str, float]], vocab_size: int, *,
               shrinking_factor: float = 0.75, num_sub_iterations: int = 1) -> Iterator[UnigramRoundStep]:
    logp = dict(seed)                                             # piece -> log P (dead: -inf) <- seed
    lattices = {w: lattice(w, logp, unknown=True) for w in words} # every seed piece in every word
    tokens = 0
    for round_no in count(1):
        for sub in range(num_sub_iterations):
            expected, loglik = e_step(words, lattices, logp)      # expected counts <- e_step
            if round_no == 1 and sub == 0:                        # (the seed's likelihood)
                yield record(0, loglik, tokens, 0, [], logp)
            logp = m_step(expected, logp)                         # re-estimate, drop the rare <- m_step
        if sum(lp > -math.inf for lp in logp.values()) <= int(vocab_size * 1.1):
            break                                                 # small enough: stop <- stop
        losses, tokens = prune_losses(words, lattices, logp)      # each piece's loss <- prune
        pruned, removed, logp = prune(losses, logp, int(vocab_size * 1.1), shrinking_factor)
        if not removed:
            break                                                 # nothing may go: stop
        yield record(round_no, loglik, tokens, removed, pruned, logp)
    final = finalize(logp, vocab_size)                            # characters + the best pieces <- final
    yield UnigramRoundStep(round_no, len(final) + SPECIALS, loglik, tokens, 0, (),
                       tuple(final[:SHOWN]), (), True)


def lattice(word: str, logp: Mapping[str, float], unknown: bool = False) -> list[Edge]:
    """Every piece of `logp` in `word` as (start, end, piece), by start then end; with
    `unknown`, a (start, start + 1, None) edge where no piece is that one character.

    >>> lattice("▁ab", {"▁": -1.0, "ab": -1.0, "▁ab": -2.0}, unknown=True)
    [(0, 1, '▁'), (0, 3, '▁ab'), (1, 3, 'ab'), (1, 2, None), (2, 3, None)]
    """
    edges: list[Edge] = []
    for s in range(len(word)):
        edges += [(s, e, word[s:e]) for e in range(s + 1, len(word) + 1) if word[s:e] in logp]
        if unknown and word[s] not in logp:
            edges.append((s, s + 1, None))
    return edges


def e_step(words: Mapping[str, int], lattices: dict[str, list[Edge]],
           logp: dict[str, float]) -> tuple[dict[str, float], float]:
    """Expected count of every piece (forward-backward over each word's lattice; a dead piece
    has probability 0) and the corpus log-likelihood. An uncovered character scores
    min(log P) - 10."""
    prob = {p: math.exp(lp) for p, lp in logp.items()}
    prob[None] = math.exp(min(lp for lp in logp.values() if lp > -math.inf) - UNK_PENALTY)
    expected = dict.fromkeys(logp, 0.0)
    loglik = 0.0
    for word, freq in sorted(words.items()):
        alpha = [1.0] + [0.0] * len(word)                 # alpha[i]: all splits of word[:i]
        for s, e, p in lattices[word]:
            alpha[e] += alpha[s] * prob[p]
        z = alpha[-1]
        if z == 0.0:
            raise unspellable(word)
        beta = [0.0] * len(word) + [1.0]                  # beta[i]: all splits of word[i:]
        for s, e, p in reversed(lattices[word]):
            x = prob[p] * beta[e]
            beta[s] += x
            if p is not None:                             # P(this edge is used) x frequency
                expected[p] += freq / z * alpha[s] * x
        loglik += freq * math.log(z)
    return expected, loglik


def m_step(expected: dict[str, float], logp: dict[str, float]) -> dict[str, float]:
    """log P = digamma(expected) - digamma(total) for the live pieces expected at least half
    a time (sentencepiece's sparsifying Bayesian estimate); the others die (-inf)."""
    kept = [p for p, lp in logp.items() if lp > -math.inf and expected[p] >= 0.5]
    log_total = digamma(sum(expected[p] for p in kept))
    return {p: digamma(expected[p]) - log_total if p in kept else -math.inf for p in logp}


def prune_losses(words: Mapping[str, int], lattices: dict[str, list[Edge]],
                 logp: dict[str, float]) -> tuple[dict[str, float | None], int]:
    """Each live piece's loss (None: keep it whatever it costs; absent: drop it), and the
    corpus length in tokens under the best split (an uncovered character scoring -1e4)."""
    freq = dict.fromkeys(logp, 0.0)                       # how often each piece is on a best path
    tokens = 0
    for word, f in sorted(words.items()):
        path = best_path(len(word), lattices[word], logp, -1e4)
        if path is None:
            raise unspellable(word)
        for p in path:
            if p is not None:
                freq[p] += f
                tokens += f
    total = sum(freq[p] for p, lp in logp.items() if lp > -math.inf)
    losses: dict[str, float | None] = {}
    for piece, lp in logp.items():
        if lp == -math.inf or (len(piece) > 1 and freq[piece] == 0):
            continue                                      # dead, or on no best path
        alt = None if len(piece) == 1 else best_path(
            len(piece), [e for e in lattice(piece, logp) if e[2] != piece], logp, None)
        if alt is None:
            losses[piece] = None                          # a character, or no other spelling
        elif sum(logp[p] for p in alt) <= lp:             # the likelihood lost by re-splitting
            fi, log_alt = freq[piece], math.log(total + freq[piece] * (len(alt) - 1))
            logprob_alt = sum(math.log(freq[p] + fi) - log_alt for p in alt)
            losses[piece] = fi / sum(words.values()) * (math.log(fi) - math.log(total) - logprob_alt)
    return losses, tokens


def unspellable(word: str) -> ValueError:
    return ValueError(f"no live piece spells {word!r}: the M-step dropped a character it needs "
                      "(see the module docstring)")


def best_path(n: int, edges: list[Edge], logp: dict[str, float],
              unk_score: float | None) -> list[str | None] | None:
    """The pieces of the best path through `edges` (the earliest start on a tie), or None
    when no path reaches the end; an uncovered character scores `unk_score`."""
    best, back = [0.0] + [-math.inf] * n, [(0, None)] * (n + 1)
    for s, e, p in edges:
        cand = best[s] + (unk_score if p is None else logp[p])
        if cand > best[e]:
            best[e], back[e] = cand, (s, p)
    if best[n] == -math.inf:
        return None
    path, e = [], n
    while e > 0:
        e, p = back[e]
        path.append(p)
    return path[::-1]


def prune(losses: dict[str, float | None], logp: dict[str, float], desired: int,
          shrinking_factor: float) -> tuple[list[tuple[str, float]], int, dict[str, float]]:
    """Keep the must-keeps and the largest losses, down to max(desired, shrink x size):
    the pruned (piece, loss), smallest loss first; how many pieces died; the new log P."""
    live = [p for p, lp in logp.items() if lp > -math.inf]
    keep = [p for p in live if p in losses and losses[p] is None]
    order = {p: i for i, p in enumerate(logp)}
    ranked = sorted((p for p in live if losses.get(p) is not None),
                    key=lambda p: (-losses[p], order[p]))
    room = max(0, max(desired, int(shrinking_factor * len(live))) - len(keep))
    survivors = set(keep) | set(ranked[:room])
    pruned = [(p, losses[p]) for p in reversed(ranked[room:])]
    return pruned, len(live) - len(survivors), {
        p: lp if p in survivors else -math.inf for p, lp in logp.items()}


def finalize(logp: dict[str, float], vocab_size: int) -> list[tuple[str, float]]:
    """Every character (a dead one just below the weakest piece) + the best pieces, best first."""
    live = {p: lp for p, lp in logp.items() if lp > -math.inf}
    final: dict[str, float] = {}
    penalty = 0.0
    for c in (p for p in logp if len(p) == 1):
        final[c] = live[c] if c in live else min(live.values(), default=0.0) + penalty
        penalty += 0.0 if c in live else 0.0001
    for piece, score in sorted(live.items(), key=lambda kv: (-kv[1], kv[0])):
        if len(final) >= vocab_size - SPECIALS:
            break
        final.setdefault(piece, score)
    if len(final) < vocab_size - SPECIALS:
        raise ValueError(f"vocab_size {vocab_size} is too large for this corpus: training kept "
                         f"only {len(final) + SPECIALS} pieces")
    return sorted(final.items(), key=lambda kv: (-kv[1], kv[0]))


def record(round_no: int, loglik: float, tokens: int, removed: int,
           pruned: list[tuple[str, float]], logp: dict[str, float]) -> UnigramRoundStep:
    """A round's step: its size, likelihood, the pruned pieces and the strongest survivors."""
    live = sorted(((p, lp) for p, lp in logp.items() if lp > -math.inf), key=lambda kv: -kv[1])
    return UnigramRoundStep(round_no, len(live), float(loglik), tokens, removed,
                        tuple((p, float(loss)) for p, loss in pruned[:SHOWN]),
                        tuple(live[:SHOWN]), (), False)


CODE = code_of(unigram_em)
_MARKS = {"e_step": "e_step", "prune": "prune"}


def line_of(step: UnigramRoundStep | None, *, finished: bool = False) -> int:
    """The line of CODE a state stands for: the seed (`step` None or round 0), a round that
    pruned, or the final vocabulary (a `final` step, or `finished`).

    >>> CODE[line_of(None) - 1].split("#")[1].strip()
    'piece -> log P (dead: -inf) <- seed'
    """
    if finished or (step is not None and step.final):
        return marked_line(CODE, "final")
    if step is None or step.round == 0:
        return marked_line(CODE, "seed")
    return marked_line(CODE, "prune")

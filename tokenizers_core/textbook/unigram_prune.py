"""Unigram's pruning and final cut as the textbook writes them: the second page of `unigram_em`.

    prune: the loss of each piece = the likelihood lost if its uses were re-split the next-best
           way; keep the 75% with the largest loss, and every character on a best path
    final: the characters + the best-scoring pieces on a best path, up to the target size

sentencepiece's `PruneSentencePieces` and `FinalizeSentencePieces` (`unigram_model_trainer.cc`),
on the lattice of each word (`lattice`: every live piece in it, an uncovered character an
unknown edge) and its best path (`best_path`, Viterbi with the back-pointers followed). The
E-step that shares the lattice is on the first page. Slow on purpose, as that page: every call
rebuilds each word's lattice from the live pieces.

>>> logp = {"▁": -1.0, "a": -2.0, "b": -2.0, "▁ab": -2.5, "ab": -3.0}
>>> best_path(3, lattice("▁ab", logp), logp, unknown_score(logp))
['▁ab']
"""

from __future__ import annotations

import math
from typing import Mapping

from ..errors import InvalidInput
from ..models.unigram.model import UNK_PENALTY

SPECIALS = 3  # <unk> <s> </s>, before the trained pieces
Edge = tuple[int, int, "str | None"]  # (start, end, piece); None is an uncovered character


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

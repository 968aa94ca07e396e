"""Two ways of drawing non-canonical tokenisations that stay close to the canonical one.

**BPE-dropout** (Provilkov et al. 2020, arXiv 1910.13267): encode as usual, but skip merges at
random. A Hugging Face BPE model has it already (`HFBpe.with_dropout`, Hugging Face's own
rule: each merge popped from the queue is skipped with probability p); that is what runs for
those models. The other BPE models (tiktoken's encodings, the textbook BPE, sentencepiece's
BPE) run Provilkov's algorithm here, `dropout_merge`: at each step every applicable merge is
dropped with probability p, the best of the rest is applied, and the word is finished when a
step drops them all. tiktoken's shortcut (a piece that is a token is that token) is not taken
under dropout, as Hugging Face skips `ignore_merges` under dropout. Unigram and WordPiece have no
merges to drop, nor a BPE that does not encode by merging alone (Picky BPE replays removals):
InvalidInput. Provilkov's algorithm costs the square of a piece's length, so it is drawn for
pieces of at most `MAX_DROPOUT_PIECE` characters (InvalidInput past it).

**StochasTok** (Sims et al., ICLR 2026, arXiv 2506.01687; its reference code,
anyasims/stochastok `StochastokProcessor.expand`): start from the canonical ids and make
N = floor(p * len(canonical)) attempts; each picks a position of the current sequence uniformly,
and if the token there has equivalent pairs -- vocabulary tokens (a, b) whose surfaces joined are
its surface -- replaces it by one of them chosen uniformly (a token with none is left as it is,
the attempt spent). Pairs are read off the lattice (an edge start..m then m..end under an edge
start..end), which is the byte rule bytes(a) + bytes(b) == bytes(token) of the paper, and keeps
WordPiece's `##` rule for free.

>>> out = [[(1, 0), (2, 2)], [(2, 1)]]  # "ab": a, b, ab
>>> stochastok_split(out, [(0, 2, 2)], 1.0, random.Random(0))
[0, 1]
"""

from __future__ import annotations

import random
from typing import Any, Callable

from ..errors import InvalidInput
from ..models.bpe.hf import HFBpe
from ..models.bpe.sentencepiece import SentencePieceBpe
from ..models.sentencepiece_common import NORMAL, USER_DEFINED, finish_tokens
from .space import merges_plainly

Adjacency = list[list[tuple[int, int]]]
Rank = Callable[[str, str], "float | None"]
# Provilkov's dropout redraws every pair at every merge, so a piece of n symbols costs ~n^2/2
# draws (2,000 spaces under cl100k_base, or a 2,000-character text under sentencepiece's BPE,
# which reads a whole text as one piece: 1.5-2 s a sample); Hugging Face's own is not bounded
MAX_DROPOUT_PIECE = 300


def dropout_merge(parts: list[str], rank: Rank, p: float, rng: random.Random) -> list[str]:
    """Provilkov's BPE-dropout on one word: rank the adjacent pairs, drop each with
    probability p, merge the lowest-ranked pair left (leftmost on a tie), until a step drops
    every pair (or none is left). p = 0 is plain BPE; p = 1 leaves the word as it started.

    >>> rank = {("a", "b"): 0, ("ab", "c"): 1}.get
    >>> dropout_merge(["a", "b", "c"], lambda l, r: rank((l, r)), 0.0, random.Random(0))
    ['abc']
    >>> dropout_merge(["a", "b", "c"], lambda l, r: rank((l, r)), 1.0, random.Random(0))
    ['a', 'b', 'c']
    """
    parts = list(parts)
    while len(parts) > 1:
        candidates = []  # (rank, position) of every pair that is a merge
        for i in range(len(parts) - 1):
            r = rank(parts[i], parts[i + 1])
            if r is not None:
                candidates.append((r, i))
        kept = [c for c in candidates if rng.random() >= p]  # each dropped with probability p
        if not kept:
            break
        _r, i = min(kept)  # the best merge left: lowest rank, then leftmost
        parts[i : i + 2] = [parts[i] + parts[i + 1]]  # merge
    return parts


def dropout_ids(tok: Any, pieces: list[str], p: float, rng: random.Random) -> list[int]:
    """One BPE-dropout encoding of the model's pieces (see the module docstring)."""
    model = tok.model
    if not merges_plainly(model):
        raise InvalidInput(
            f"{tok.name or 'this tokeniser'} does not encode by merging alone "
            f"({type(model).__name__}): BPE-dropout needs merges to drop"
        )
    if isinstance(model, HFBpe):  # Hugging Face's rule: a queue of merges, no redraws
        sampler = model.with_dropout(p, seed=rng.getrandbits(64))
        return [id_ for piece in pieces for _t, id_, _s, _e in sampler.tokenize(piece)]
    _check_piece_sizes(pieces)
    if isinstance(model, SentencePieceBpe):
        return [id_ for piece in pieces for id_ in _sentencepiece_dropout(model, piece, p, rng)]
    out: list[int] = []  # the engine's BPE (tiktoken's ranks, the textbook's merges)
    for piece in pieces:
        parts = dropout_merge(model.initial_parts(piece), model.rank, p, rng)
        out.extend(_bpe_id(tok, part) for part in parts)
    return out


def _check_piece_sizes(pieces: list[str]) -> None:
    """InvalidInput for a piece of more than `MAX_DROPOUT_PIECE` characters (see above)."""
    longest = max((len(piece) for piece in pieces), default=0)
    if longest > MAX_DROPOUT_PIECE:
        raise InvalidInput(
            f"BPE-dropout redraws every pair at every merge, so it is drawn for pieces of at "
            f"most {MAX_DROPOUT_PIECE:,} characters; this text's longest piece has "
            f"{longest:,} (sentencepiece reads a whole text as one piece): try a shorter text"
        )


def _bpe_id(tok: Any, part: str) -> int:
    """A merged part's id: the token, or the unknown token (one per unknown part)."""
    model = tok.model
    id_ = model.vocab.get(part)
    if id_ is None:
        id_ = model.vocab.get(model.unk_token) if model.unk_token else None
    if id_ is None:
        raise InvalidInput(
            f"{part!r} is not in the vocabulary of {tok.name or 'this tokeniser'}, which has no "
            "unknown token"
        )
    return id_


def _sentencepiece_dropout(
    model: SentencePieceBpe, text: str, p: float, rng: random.Random
) -> list[int]:
    """sentencepiece's BPE with dropout: a pair merges into the piece it makes, the higher
    score first (so the rank is minus the score); user-defined pieces stay whole; characters
    outside the vocabulary become byte pieces or the unknown token, as `tokenize` makes them."""
    user = sorted(
        (piece for (piece, _s), kind in zip(model.pieces, model.types) if kind == USER_DEFINED),
        key=len,
        reverse=True,
    )
    parts: list[str] = []
    i = 0
    while i < len(text):
        symbol = next((u for u in user if text.startswith(u, i)), text[i])
        parts.append(symbol)
        i += len(symbol)
    frozen = set(user)

    def rank(left: str, right: str) -> float | None:
        if left in frozen or right in frozen:
            return None
        id_ = model.token_to_id(left + right)
        if id_ is None or model.types[id_] not in (NORMAL, USER_DEFINED):
            return None
        return -model.scores[id_]

    spans = []
    pos = 0
    for part in dropout_merge(parts, rank, p, rng):
        id_ = model.token_to_id(part)
        spans.append((pos, pos + len(part), model.unk_id if id_ is None else id_))
        pos += len(part)
    return [
        id_
        for _t, id_, _s, _e in finish_tokens(
            text, spans, model.unk_id, model.byte_fallback, _piece_id(model)
        )
    ]


def _piece_id(model: SentencePieceBpe) -> Callable[[str], int]:
    def piece_id(piece: str) -> int:
        id_ = model.token_to_id(piece)
        return model.unk_id if id_ is None else id_

    return piece_id


def stochastok_split(
    out: Adjacency,
    path: list[tuple[int, int, int]],
    p: float,
    rng: random.Random,
    unknown: int | None = None,
) -> list[int]:
    """StochasTok's expansion (see the module docstring) of a path of (start, end, id) edges
    over the lattice `out`; returns the ids. The `unknown` token stands for no bytes: it is
    never split, nor part of a pair.

    >>> out = [[(1, 0), (3, 3)], [(3, 4)], [(3, 1)]]  # "abc": a, abc, bc, c -- no ab
    >>> stochastok_split(out, [(0, 3, 3)], 1.0, random.Random(1))
    [0, 4]
    """
    by_span: dict[tuple[int, int], list[int]] = {}
    for start, here in enumerate(out):
        for end, id_ in here:
            by_span.setdefault((start, end), []).append(id_)
    seq = list(path)
    for _ in range(int(len(path) * p)):
        i = rng.randrange(len(seq))
        start, end, id_ = seq[i]
        if id_ == unknown:
            continue
        pairs = [
            (a, b, middle)
            for middle, a in out[start]
            if middle < end and a != unknown
            for b in by_span.get((middle, end), ())
            if b != unknown
        ]
        if pairs:
            a, b, middle = pairs[rng.randrange(len(pairs))]
            seq[i : i + 1] = [(start, middle, a), (middle, end, b)]
    return [id_ for _s, _e, id_ in seq]

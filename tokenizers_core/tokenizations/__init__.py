"""The space of tokenisations (issue 30): every token sequence that decodes to a text, of which
`encode` gives one, the canonical.

`tokenizations(tok, text)` spells the text in the model's units and finds every vocabulary token
at every position (the lattice); the rest reads paths off it:

- `.lattice`: the edges (start, end, id, token, text) with the canonical path marked, a value
  with `to_dict` that a view draws like the Unigram lattice;
- `.count()`: how many token sequences decode to the text, exact, and `.log10()`;
  `.counts_by_length()`: the count for each prefix of the text (how it grows);
- `.canonical()`: encode's ids; `.shortest(k)`: the k sequences with fewest tokens;
- `.sample(n, seed=)`: uniform samples from all of them; `.dropout(n, p, seed=)`: BPE-dropout
  samples; `.stochastok(p, seed=)`: a StochasTok expansion of the canonical ids.

`is_canonical(tok, ids)` says whether ids are what encode gives for their text and where they
first break (the pairwise test of Canonical BPE where it is exact); `heal(tok, prompt)` backs
off a prompt's last token and lists the tokens that may extend it (token healing).

What "decodes to the text" means for each model family is in `space`; the methods of
canonicality in `canonical`; the samplers in `sampling`. Texts are at most `MAX_TEXT_BYTES`
bytes, k at most `MAX_K`, samples at most `MAX_SAMPLES`.

>>> from tokenizers_core.models.bpe.model import BPE
>>> from tokenizers_core.pipeline import Tokenizer
>>> tok = Tokenizer(BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
>>> t = tokenizations(tok, "abab")  # a|b|a|b, ab|a|b, a|b|ab, ab|ab
>>> t.count(), t.canonical(), t.shortest(2), t.counts_by_length()
(4, [2, 2], [[2, 2], [0, 1, 2]], [1, 1, 2, 2, 4])
"""

from __future__ import annotations

import math
import random
from functools import cached_property
from typing import Any

from ..errors import InvalidInput
from .canonical import CanonicalBreak, is_canonical, pairwise
from .healing import Healing, heal
from .lattice import Edge, Lattice, find_edges, lattice_value
from .paths import Sampler, prefix_counts, shortest, suffix_counts
from .sampling import dropout_ids, stochastok_split
from .space import MAX_TEXT_BYTES, Space, check_text, model_pieces, space_of, spell

__all__ = [
    "MAX_K",
    "MAX_SAMPLES",
    "MAX_TEXT_BYTES",
    "CanonicalBreak",
    "Edge",
    "Healing",
    "Lattice",
    "Tokenizations",
    "heal",
    "is_canonical",
    "pairwise",
    "tokenizations",
]

MAX_K = 100  # the most shortest sequences asked for at once
MAX_SAMPLES = 1000  # the most samples drawn at once


def tokenizations(tok: Any, text: str) -> "Tokenizations":
    """The space of tokenisations of `text` under `tok` (see the module docstring).
    InvalidInput for a text over `MAX_TEXT_BYTES`, one holding an added token, or a tokeniser
    without a fixed subword vocabulary.

    >>> import tokenizers_core as tc
    >>> t = tokenizations(tc.load("cl100k_base"), "Hello")
    >>> t.count(), t.canonical(), t.shortest(3)
    (14, [9906], [[9906], [39, 4896], [33813, 385]])
    """
    check_text(text)
    space = space_of(tok)
    units, path = spell(tok, space, text)
    return Tokenizations(tok, space, text, units, path)


class Tokenizations:
    """The space of one text under one tokeniser: the lattice's edges over `units` (out[i] =
    [(end, id), ...]) and the canonical `path` of (start, end, id) edges. The edges and the
    counts are found once, when first asked for (InvalidInput then for a lattice of more than
    `lattice.MAX_EDGES` edges); `tok` is only read by the lattice value, dropout and
    StochasTok's callers, so the paths can be worked out elsewhere from (space, units, path)."""

    def __init__(
        self,
        tok: Any,
        space: Space,
        text: str,
        units: str,
        path: tuple[tuple[int, int, int], ...],
    ) -> None:
        self.tok = tok
        self.space = space
        self.text = text
        self.units = units
        self.path = path

    @cached_property
    def out(self) -> list[list[tuple[int, int]]]:
        """The lattice's adjacency: out[i] = [(end, id), ...] by end, then id."""
        return find_edges(self.space, self.units, self.path)

    @cached_property
    def lattice(self) -> Lattice:
        """The lattice as a value (edges with their tokens and texts, the canonical path)."""
        return lattice_value(self.tok, self.space, self.text, self.units, self.out, self.path)

    @cached_property
    def _ways(self) -> list[int]:
        return prefix_counts(self.out)

    @cached_property
    def _rest(self) -> list[int]:
        return suffix_counts(self.out)

    @cached_property
    def _sampler(self) -> Sampler:
        return Sampler(self.out, self._rest)

    def count(self) -> int:
        """How many token sequences decode to the text (exact; 1 for the empty text)."""
        return self._rest[0]

    def log10(self) -> float:
        """log10 of the count (the count itself may have hundreds of digits)."""
        return math.log10(self.count())

    def counts_by_length(self) -> list[int]:
        """The count for each prefix: entry i is how many token sequences spell the first i
        units (bytes or characters, see `lattice.unit`) of the text; the last is `count()`."""
        return list(self._ways)

    def canonical(self) -> list[int]:
        """encode's ids (ordinary: no post-processor tokens)."""
        return [id_ for _s, _e, id_ in self.path]

    def shortest(self, k: int = 10) -> list[list[int]]:
        """The k sequences with the fewest tokens, fewest first, ties by the ids
        (lexicographically); fewer when the space is smaller."""
        _check_count(k, MAX_K, "k")
        return shortest(self.out, k)

    def sample(self, n: int = 10, *, seed: int | None = None) -> list[list[int]]:
        """n sequences drawn uniformly from all of them (with replacement), by `seed`."""
        _check_count(n, MAX_SAMPLES, "n")
        return self._sampler.sample(n, random.Random(seed))

    def dropout(self, n: int = 10, p: float = 0.1, *, seed: int | None = None) -> list[list[int]]:
        """n BPE-dropout encodings with merge-drop probability p (see `sampling`); InvalidInput
        for a model that is not BPE."""
        _check_count(n, MAX_SAMPLES, "n")
        _check_rate(p)
        rng = random.Random(seed)
        pieces = model_pieces(self.tok, self.text)
        return [dropout_ids(self.tok, pieces, p, rng) for _ in range(n)]

    def stochastok(self, p: float = 0.1, *, seed: int | None = None) -> list[int]:
        """The canonical ids after StochasTok's floor(p * len) split attempts (see
        `sampling`)."""
        _check_rate(p)
        return stochastok_split(
            self.out, list(self.path), p, random.Random(seed), self.space.unk_id
        )


def _check_count(n: Any, most: int, what: str) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= most:
        raise InvalidInput(f"{what} must be a whole number between 1 and {most:,}, not {n!r}")


def _check_rate(p: Any) -> None:
    if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0.0 <= p <= 1.0:
        raise InvalidInput(f"p must be a number between 0 and 1, not {p!r}")

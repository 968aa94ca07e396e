"""What sentencepiece measures about all the segmentations of a text, for subword regularisation
(`src/unigram_model.cc`): their entropy, scored samples, and the pieces with unknown ones named.

Under a Unigram model with smoothing `alpha` (sentencepiece's `inv_theta`), a segmentation x of a
text has probability P(x) = exp(alpha * score(x)) / Z, Z summing over every segmentation.

- `lattice_entropy` is sentencepiece's `Lattice::CalculateEntropy`: H = -sum P(x) log P(x), by
  one forward pass: H(node) = sum over left neighbours l of p(l -> node) (H(l) + log p(l ->
  node)), p(l -> node) = exp(alpha * score(l) + A(l) - A(node)) with A the forward log sums.
- `sample_and_score` is `SampleEncodeAndScore` with replacement (`wor=False`): each segmentation
  drawn with probability P(x), scored log P(x) = alpha * score(x) - log Z.

sentencepiece computes in 32-bit floats; these run in 64-bit (a difference near 1e-7 relative).
The Python package of sentencepiece 0.2.3 exposes neither: tests check them against every
segmentation enumerated by hand.
"""

from __future__ import annotations

import math
import random
from typing import Any

from ...errors import InvalidInput
from .lattice import Lattice, sample_path


def lattice_entropy(lat: Lattice, alpha: float = 1.0) -> float:
    """The entropy (in nats) of the segmentations of a lattice, P(x) proportional to
    exp(alpha * score(x)).

    >>> from tokenizers_core.models.unigram.model import Unigram
    >>> m = Unigram([("<unk>", 0.0), ("a", math.log(0.5)), ("aa", math.log(0.25))])
    >>> round(lattice_entropy(m.lattice("aa")), 6) == round(math.log(2), 6)   # two equal splits
    True
    """
    forward = lat.forward(alpha)
    entropy = [0.0] * len(lat.nodes)
    for pos in range(len(lat.text) + 1):
        for rnode in lat.begin_nodes[pos]:
            for lnode in lat.end_nodes[pos]:
                log_p = alpha * lnode.score + forward[lnode.node_id] - forward[rnode.node_id]
                entropy[rnode.node_id] += math.exp(log_p) * (entropy[lnode.node_id] + log_p)
    return -entropy[lat.eos.node_id]


def sample_and_score(
    lat: Lattice, num_samples: int, alpha: float, rng: random.Random
) -> list[tuple[list[Any], float]]:
    """`num_samples` segmentations drawn with replacement, each with its log-probability
    alpha * score(x) - log Z (the nodes of each path, left to right)."""
    log_z = lat.forward(alpha)[lat.eos.node_id]
    out = []
    for _ in range(num_samples):
        path = sample_path(lat, alpha, rng)
        out.append((path, alpha * sum(node.score for node in path) - log_z))
    return out


# ---- on a whole tokeniser ------------------------------------------------------------------------


def _unigram_model(tokenizer: Any, what: str) -> Any:
    model = tokenizer.model
    if not hasattr(model, "lattice"):
        raise InvalidInput(
            f"{tokenizer.name or 'this tokeniser'} is not a Unigram model; {what} needs one"
        )
    return model


def _alpha(alpha: Any) -> float:
    try:
        value = float(alpha)
    except (TypeError, ValueError):
        raise InvalidInput("alpha must be a number") from None
    if not math.isfinite(value) or value < 0:
        raise InvalidInput("alpha must be a non-negative number")
    return value


def calculate_entropy(tokenizer: Any, text: str, alpha: float = 1.0) -> float:
    """sentencepiece's `CalculateEntropy(text, alpha)` on a Unigram `Tokenizer`: normalise,
    then the entropy of the segmentations of the normalised text.

    >>> import tokenizers_core as tc
    >>> tok = tc.load("botchan_en_unigram_1000")      # "▁Hello" has 5 splits, equal at alpha 0
    >>> round(calculate_entropy(tok, "Hello", 0.0), 4) == round(math.log(5), 4)
    True
    """
    model = _unigram_model(tokenizer, "its entropy")
    if not isinstance(text, str):
        raise InvalidInput("text must be a string")
    return lattice_entropy(model.lattice(tokenizer.normalize(text).normalized), _alpha(alpha))


def sample_encode_and_score(
    tokenizer: Any,
    text: str,
    *,
    num_samples: int = 1,
    alpha: float = 0.1,
    wor: bool = False,
    include_best: bool = False,
    seed: int | None = None,
) -> list[tuple[list[str], float]]:
    """sentencepiece's `SampleEncodeAndScore` on a Unigram `Tokenizer`: `num_samples`
    segmentations of the normalised text drawn at random (P(x) proportional to
    exp(alpha * score(x))), each as (pieces, log P(x)). `seed` makes the draw reproducible.

    Only sampling with replacement is offered (`wor=False`, and so no `include_best`, which
    sentencepiece refuses without `wor` too).
    """
    model = _unigram_model(tokenizer, "sampling")
    if wor or include_best:
        raise InvalidInput(
            "sampling without replacement (wor, include_best) is not offered: use wor=False"
        )
    if (
        isinstance(num_samples, bool)
        or not isinstance(num_samples, int)
        or not 1 <= num_samples <= 10_000
    ):
        raise InvalidInput("num_samples must be an integer between 1 and 10,000")
    if not isinstance(text, str):
        raise InvalidInput("text must be a string")
    normalized = tokenizer.normalize(text).normalized
    if not normalized:
        return []
    lat = model.lattice(normalized)
    samples = sample_and_score(lat, num_samples, _alpha(alpha), random.Random(seed))
    return [([node.piece for node in path], score) for path, score in samples]


def encode_pieces(tokenizer: Any, text: str, *, emit_unk_piece: bool = False) -> list[str]:
    """The pieces of `text` as sentencepiece's `encode(text, out_type=str)`; with
    `emit_unk_piece`, an unknown piece is written as the unknown piece ("<unk>") instead of
    the text it covers (its id is the same either way).

    >>> import tokenizers_core as tc
    >>> encode_pieces(tc.load("botchan_en_unigram_1000"), "Hi 漢字", emit_unk_piece=True)
    ['▁', 'H', 'i', '▁', '<unk>']
    """
    model = tokenizer.model
    unk_id = getattr(model, "unk_id", None)
    encoding = tokenizer.encode(text, add_special_tokens=False)
    if not emit_unk_piece or unk_id is None:
        return list(encoding.tokens)
    unk_piece = model.id_to_token(unk_id)
    return [unk_piece if i == unk_id else t for t, i in zip(encoding.tokens, encoding.ids)]

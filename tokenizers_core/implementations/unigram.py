"""The Unigram tokenisers: the trained "unigram" (sentencepiece's normaliser, Unigram, its decoder),
its training entry point, and the tiny demo the lattice view opens with."""

from __future__ import annotations

import re
from typing import Any, Iterable

from ..decoders import SentencePieceDecoder
from ..errors import InvalidInput
from ..models.sentencepiece_common import NORMAL, UNKNOWN
from ..models.unigram.model import DEMO_PIECES, Unigram
from ..models.unigram.trainer import UnigramTrainer
from ..normalizers.sentencepiece import SentencePieceNormalizer
from ..pipeline import Tokenizer


def unigram_tokenizer(trainer: UnigramTrainer) -> Tokenizer:
    """The trained "unigram" tokeniser: the trainer's normaliser, its model, sentencepiece's
    decoder (runs training first if needed)."""
    return Tokenizer(
        trainer.model(),
        normalizer=trainer.normalizer,
        decoder=SentencePieceDecoder(),
        name="unigram (trained)",
        algorithm="unigram",
    )


def demo_tokenizer() -> Any:
    """A tiny Unigram tokeniser for the lattice view: `▁cat` scores high and `s` exists.

    "cats" normalises to "▁cats"; the lattice fills best[1..5] = -3.5, -5.0, -6.5, -2.0, -5.0
    (best[4] is `▁cat` alone, best[5] adds `s`: -2.0 + -3.0, beating `▁cats` at -9.0 and
    `▁ca` + `ts` at -12.5), so the split is `▁cat` + `s`.

    >>> demo_tokenizer().encode("cats").tokens
    ['▁cat', 's']
    """
    model = Unigram(list(DEMO_PIECES), types=[UNKNOWN] + [NORMAL] * (len(DEMO_PIECES) - 1))
    return Tokenizer(
        model,
        normalizer=SentencePieceNormalizer(None),
        decoder=SentencePieceDecoder(),
        name="tiny",
        algorithm="unigram",
    )


def held_out_quality(tok: Any, held: Iterable[str]) -> tuple[float, float]:
    """How well a Unigram tokeniser fits text it was not trained on: tokens per
    whitespace-separated word, and the log-likelihood per character summed over all
    segmentations (the lattice's forward score; higher is better)."""
    words = tokens = chars = 0
    loglik = 0.0
    for line in held:
        words += len(line.split())
        tokens += len(tok.encode(line).ids)
        lattice = tok.model.lattice(tok.normalize(line).normalized)
        loglik += lattice.forward()[lattice.eos.node_id]
        chars += len(line)
    return tokens / words, loglik / chars


def train_unigram(lines: Iterable[str], vocab_size: int, **options: Any) -> Any:
    """`tokenizers_core.train("unigram", lines, vocab_size, **options)`: see `UnigramTrainer`.

    When vocab_size is too large for a small corpus, the error names a size that training then
    accepts (checked by training at it: the first estimate, from the seed pieces, is an upper
    bound that EM's pruning can undercut).
    """
    lines = list(lines) if not isinstance(lines, (list, str)) else lines
    try:
        trainer = UnigramTrainer(lines, vocab_size, **options)
        tok = unigram_tokenizer(trainer)
    except ValueError as exc:
        raise InvalidInput(with_accepted_size(exc, lines, options)) from None
    tok.trainer = trainer  # type: ignore[attr-defined]
    return tok


_TOO_LARGE = re.compile(
    r"(vocab_size \d+ is too large for this corpus: .*?use at most )(\d+)(.*)", re.S
)


def with_accepted_size(exc: ValueError, lines: Any, options: dict[str, Any]) -> str:
    """The "too large" message with its suggested size replaced by the largest size that trains
    (tried downwards from the suggestion, a few times at most, on small corpora only)."""
    message = str(exc)
    match = _TOO_LARGE.fullmatch(message)
    if match is None or int(match.group(2)) > 5_000:
        return message
    size = int(match.group(2))
    for _ in range(5):
        try:
            unigram_tokenizer(UnigramTrainer(lines, size, **options))
            return f"{match.group(1)}{size}{match.group(3)}"
        except ValueError as again:
            retry = _TOO_LARGE.fullmatch(str(again))
            if retry is None or int(retry.group(2)) >= size:
                return message
            size = int(retry.group(2))
    return message

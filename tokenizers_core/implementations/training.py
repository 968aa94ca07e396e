"""`tc.train(algorithm, lines, vocab_size, **options)`: the algorithms this project trains,
each returning a whole `Tokenizer`.

>>> algorithms()  # doctest: +NORMALIZE_WHITESPACE
['bpe', 'byte_bpe', 'sentencepiece_bpe', 'wordpiece', 'unigram', 'char_bpe', 'wordlevel',
 'superbpe', 'picky_bpe', 'parity_bpe']
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from ..errors import InvalidInput
from ..models.bpe.trainer import bpe_words
from ..models.wordlevel.model import WordLevel
from ..models.wordlevel.trainer import wordlevel_vocab
from ..pipeline import Tokenizer
from ..pre_tokenizers import Whitespace
from .bert import train_wordpiece
from .bpe import train_bpe, train_byte_bpe, train_char_bpe, train_sentencepiece_bpe
from .bpe_family import train_picky_bpe, train_superbpe
from .counting import Counts, count, merge_counts
from .counting.from_counts import trainer_words
from .parity import train_parity_bpe_lines
from .unigram import train_unigram


def train_wordlevel(
    lines: Iterable[str],
    vocab_size: int,
    *,
    min_frequency: int = 0,
    special_tokens: Iterable[str] = ("<unk>",),
    unk_token: str = "<unk>",
) -> Tokenizer:
    """Train "wordlevel": Whitespace words (`\\w+|[^\\w\\s]+`), the most frequent ones whole,
    as Hugging Face's WordLevelTrainer (`models/wordlevel/trainer.py`); a word outside the
    vocabulary is `unk_token`.

    >>> train_wordlevel(["the cat sat on the mat"], 4).encode("the dog").tokens
    ['the', '<unk>']
    """
    vocab = wordlevel_vocab(
        bpe_words(lines), vocab_size, min_frequency=min_frequency, special_tokens=special_tokens
    )
    specials = [special_tokens] if isinstance(special_tokens, str) else list(special_tokens)
    return Tokenizer(
        WordLevel(vocab, unk_token=unk_token),
        pre_tokenizer=Whitespace(),
        algorithm="wordlevel",
        added_tokens=[t for t in specials if t in vocab],
    )


__all__ = ["algorithms", "count", "load_counts", "merge_counts", "train", "train_wordlevel"]

# algorithm -> function(lines, vocab_size=..., **options) -> Tokenizer
_TRAINERS: dict[str, Callable[..., Tokenizer]] = {
    "bpe": train_bpe,
    "byte_bpe": train_byte_bpe,
    "sentencepiece_bpe": train_sentencepiece_bpe,
    "wordpiece": train_wordpiece,
    "unigram": train_unigram,
    "char_bpe": train_char_bpe,
    "wordlevel": train_wordlevel,
    "superbpe": train_superbpe,
    "picky_bpe": train_picky_bpe,
    "parity_bpe": train_parity_bpe_lines,
}


def algorithms() -> list[str]:
    """The algorithms `train` accepts."""
    return list(_TRAINERS)


def train(
    algorithm: str,
    lines: Iterable[str] | None = None,
    vocab_size: int | None = None,
    *,
    counts: Counts | Mapping[str, Counts] | None = None,
    **options: Any,
) -> Tokenizer:
    """Train a tokeniser with one of `algorithms()` on an iterable of lines, or on `counts` (a
    `Counts` from `count`, or `load_counts` of a counts file) for the algorithms that train on
    word counts: the same merges as training on the text the counts were made from.

    >>> lines = ["low low lower", "newest widest"]
    >>> a = train("bpe", lines, 30).model.merges
    >>> a == train("bpe", counts=count(lines, "bpe"), vocab_size=30).model.merges
    True
    """
    if algorithm not in _TRAINERS:
        known = ", ".join(_TRAINERS) or "none yet"
        raise InvalidInput(f"unknown algorithm {algorithm!r}; choose one of: {known}")
    if vocab_size is None:
        raise InvalidInput("give the vocabulary size to train to (vocab_size=...)")
    if counts is None:
        if lines is None:
            raise InvalidInput("give the corpus to train on: its lines, or counts=...")
        return _TRAINERS[algorithm](lines, vocab_size=vocab_size, **options)
    if lines is not None:
        raise InvalidInput("give the lines or their counts, not both")
    words, options = trainer_words(algorithm, counts, options)
    return _TRAINERS[algorithm](None, vocab_size=vocab_size, words=words, **options)


def load_counts(path: str) -> Counts:
    """A counts file (`Counts.save`, `tokvis count`) read back."""
    return Counts.load(path)

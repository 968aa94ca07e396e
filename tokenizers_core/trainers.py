"""Trainers as Hugging Face spells them (`tokenizers.trainers`), on this project's own trainers.

Hugging Face's way: a `Tokenizer` with a model and a pre-tokenizer, trained in place with
`train_from_iterator`. The words are cut by the tokenizer's own normaliser and pre-tokenizer,
and the trainer makes a new model of the same kind:

>>> from tokenizers_core import Tokenizer, models, pre_tokenizers, trainers
>>> tok = Tokenizer(models.BPE({}, []), pre_tokenizer=pre_tokenizers.Whitespace())
>>> trainer = trainers.BpeTrainer(vocab_size=10, special_tokens=["<unk>"], show_progress=False)
>>> tok.train_from_iterator(["low lower lowest", "low low"], trainer=trainer)
>>> tok.model.merges
[('l', 'o'), ('lo', 'w')]
>>> tok.encode("lowest").tokens
['low', 'e', 's', 't']

Or in one call, `trainer.train(lines)`: the same, on a tokenizer cut by `Whitespace` (what the
tests compare with Hugging Face's, vocabulary and merges equal):

>>> trainers.WordLevelTrainer(vocab_size=4, special_tokens=["<unk>"]).train(
...     ["the cat sat on the mat"]).encode("the dog").tokens
['the', '<unk>']

A keyword of Hugging Face's that we do not support raises `ValueError` naming it;
`show_progress` is accepted and ignored (nothing here prints). What each trainer maps onto:

- `BpeTrainer`: Hugging Face's BpeTrainer rule exactly (`models/bpe/trainer.py`,
  `hf_bpe_trainer`), with all its options.
- `WordPieceTrainer`: as Hugging Face's, BPE merges with the `##` prefix, read as a WordPiece
  vocabulary. The likelihood-scored WordPiece trainer of the textbooks is
  `tc.train("wordpiece", ...)`.
- `WordLevelTrainer`: the most frequent words (`models/wordlevel/trainer.py`).
- `UnigramTrainer`: sentencepiece's EM trainer (`models/unigram/trainer.py`), which reads whole
  lines with its own normalisation, so it has `train(lines)` only, not `train_from_iterator`
  (Hugging Face's trains on the tokenizer's pre-tokenised words instead; the pieces differ).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from .errors import InvalidInput
from .implementations import training
from .models import BPE, Model, WordLevel, WordPiece
from .models.bpe.trainer import hf_bpe_trainer
from .models.wordlevel.trainer import wordlevel_vocab
from .pipeline import Tokenizer
from .pre_tokenizers import Whitespace

__all__ = ["BpeTrainer", "Trainer", "UnigramTrainer", "WordLevelTrainer", "WordPieceTrainer"]


class Trainer:
    """What the four trainers share: keyword checking, and `train(lines)` on Whitespace words.

    A subclass makes a model from a word table (`train_model`); `Tokenizer.train_from_iterator`
    calls it with the words its own normaliser and pre-tokenizer cut.
    """

    def __init__(self, unsupported: Mapping[str, Any]) -> None:
        if unsupported:
            names = ", ".join(sorted(unsupported))
            raise InvalidInput(f"{type(self).__name__}: {names} is not supported here")

    def train_model(self, words: Mapping[str, int], model: Model | None = None) -> Model:
        """A model trained on `words` (word -> count); `model` is the one it replaces, whose
        settings (the unknown token) carry over as in Hugging Face."""
        raise NotImplementedError

    def special_tokens_list(self) -> list[str]:
        """The special tokens the trained tokenizer matches whole (in its vocabulary)."""
        return list(getattr(self, "special_tokens", ()))

    def train(self, lines: Iterable[str]) -> Tokenizer:
        """A tokenizer trained on `lines`, its words cut by `Whitespace` (`\\w+|[^\\w\\s]+`)."""
        tok = Tokenizer(BPE({}, []), pre_tokenizer=Whitespace())
        tok.train_from_iterator(lines, trainer=self)
        return tok


class BpeTrainer(Trainer):
    """Hugging Face's `BpeTrainer`: merge the most frequent pair, ties to the smallest ids.

    The keywords are Hugging Face's: `limit_alphabet` keeps the most frequent characters,
    `initial_alphabet` forces some in, `continuing_subword_prefix`/`end_of_word_suffix` mark
    the inside/end of a word, `max_token_length` caps a token's length in characters.
    """

    def __init__(
        self,
        *,
        vocab_size: int = 30000,
        min_frequency: int = 0,
        show_progress: bool = True,
        special_tokens: Iterable[str] = (),
        limit_alphabet: int | None = None,
        initial_alphabet: Iterable[str] = (),
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        max_token_length: int | None = None,
        **unsupported: Any,
    ) -> None:
        super().__init__(unsupported)
        self.vocab_size = vocab_size
        self.min_frequency = min_frequency
        self.special_tokens = list(special_tokens)
        self.limit_alphabet = limit_alphabet
        self.initial_alphabet = list(initial_alphabet)
        self.continuing_subword_prefix = continuing_subword_prefix
        self.end_of_word_suffix = end_of_word_suffix
        self.max_token_length = max_token_length

    def _vocab_and_merges(
        self, words: Mapping[str, int]
    ) -> tuple[dict[str, int], list[tuple[str, str]]]:
        run = hf_bpe_trainer(
            dict(words),
            self.vocab_size,
            min_frequency=self.min_frequency,
            special_tokens=self.special_tokens,
            annotate=False,
            limit_alphabet=self.limit_alphabet,
            initial_alphabet=self.initial_alphabet or None,
            continuing_subword_prefix=self.continuing_subword_prefix,
            end_of_word_suffix=self.end_of_word_suffix,
            max_token_length=self.max_token_length,
        ).run()
        return run.vocab(), run.merge_strings()

    def train_model(self, words: Mapping[str, int], model: Model | None = None) -> Model:
        vocab, merges = self._vocab_and_merges(words)
        return BPE(
            vocab,
            merges,
            unk_token=getattr(model, "unk_token", None),
            continuing_subword_prefix=self.continuing_subword_prefix,
            end_of_word_suffix=self.end_of_word_suffix,
        )


class WordPieceTrainer(BpeTrainer):
    """Hugging Face's `WordPieceTrainer`: BPE with the `##` prefix (its keywords), the learnt
    vocabulary read by a WordPiece model (greedy longest match).

    >>> tok = WordPieceTrainer(vocab_size=36).train(["playing played player plays walking "
    ...                                               "talked sing"])
    >>> tok.encode("playing").tokens, tok.encode("walked").tokens
    (['play', '##ing'], ['walk', '##ed'])
    """

    def __init__(
        self, *, vocab_size: int = 30000, continuing_subword_prefix: str = "##", **options: Any
    ) -> None:
        super().__init__(
            vocab_size=vocab_size, continuing_subword_prefix=continuing_subword_prefix, **options
        )

    def train_model(self, words: Mapping[str, int], model: Model | None = None) -> Model:
        vocab, merges = self._vocab_and_merges(words)
        return WordPiece(
            vocab,
            unk_token=getattr(model, "unk_token", "[UNK]"),
            continuing_subword_prefix=self.continuing_subword_prefix or "",
            special_tokens=self.special_tokens,
            merges=merges,
            require_unk=False,
        )


class WordLevelTrainer(Trainer):
    """Hugging Face's `WordLevelTrainer`: the special tokens, then the words by count (ties in
    string order), those below `min_frequency` left out."""

    def __init__(
        self,
        *,
        vocab_size: int = 30000,
        min_frequency: int = 0,
        show_progress: bool = True,
        special_tokens: Iterable[str] = (),
        **unsupported: Any,
    ) -> None:
        super().__init__(unsupported)
        self.vocab_size = vocab_size
        self.min_frequency = min_frequency
        self.special_tokens = list(special_tokens)

    def train_model(self, words: Mapping[str, int], model: Model | None = None) -> Model:
        vocab = wordlevel_vocab(
            words,
            self.vocab_size,
            min_frequency=self.min_frequency,
            special_tokens=self.special_tokens,
        )
        return WordLevel(vocab, unk_token=getattr(model, "unk_token", None) or "<unk>")


class UnigramTrainer(Trainer):
    """Hugging Face's `UnigramTrainer` keywords on sentencepiece's EM trainer (`tc.train(
    "unigram", ...)`): `shrinking_factor` is the share of pieces kept per pruning round,
    `n_sub_iterations` the EM steps per round, `max_piece_length` in characters.

    It trains on whole lines (`train`), not on a tokenizer's words: see the module docstring.
    """

    def __init__(
        self,
        *,
        vocab_size: int = 8000,
        show_progress: bool = True,
        special_tokens: Iterable[str] | None = None,
        shrinking_factor: float = 0.75,
        unk_token: str | None = None,
        max_piece_length: int = 16,
        n_sub_iterations: int = 2,
        **unsupported: Any,
    ) -> None:
        super().__init__(unsupported)
        self.vocab_size = vocab_size
        self.special_tokens = special_tokens
        self.options: dict[str, Any] = {
            "shrinking_factor": shrinking_factor,
            "max_piece_length": max_piece_length,
            "num_sub_iterations": n_sub_iterations,
        }
        if special_tokens is not None:
            self.options["special_tokens"] = list(special_tokens)
        if unk_token is not None:
            self.options["unk_token"] = unk_token

    def train_model(self, words: Mapping[str, int], model: Model | None = None) -> Model:
        raise InvalidInput(
            "UnigramTrainer trains sentencepiece's way, on whole lines: use "
            "UnigramTrainer(...).train(lines), not train_from_iterator"
        )

    def train(self, lines: Iterable[str]) -> Tokenizer:
        """A sentencepiece-style Unigram tokenizer trained on `lines`."""
        return training.train("unigram", lines, self.vocab_size, **self.options)

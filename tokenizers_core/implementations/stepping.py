"""Any trainer, one step at a time, and the `Tokenizer` it learned: what `tokvis train` and
`tokvis trace` drive (a progress bar, steps as JSON Lines).

`tokenizers_core.train` runs the same steppers to the end in one call; this module gives the
caller the loop, so it can count, show or stop between steps:

>>> run = training_run("bpe", ["low low lower newest"], vocab_size=14)
>>> [step.kind for step in run][:2]
['bpe_merge', 'bpe_merge']
>>> run.tokenizer().encode("lower").tokens
['low', 'er', '</w>']

`expected` is the number of steps a run makes at most (merges until the vocabulary is full), or
None where that is not known in advance (Unigram's rounds: the seed size decides). Options are
those of `train` for the same algorithm; an unknown one is a ValueError, as is a bad value.
"""

from __future__ import annotations

import pickle
from typing import Any, Callable, Iterable, Iterator, Mapping

from ..errors import InvalidInput
from ..models.bpe.picky import picky_bpe_trainer
from ..models.bpe.sentencepiece_trainer import SentencePieceBpeTrainer
from ..models.bpe.superbpe import SUPERBPE_PATTERN, superbpe_trainer
from ..models.bpe.trainer import bpe_trainer, byte_bpe_trainer, check_specials
from ..models.unigram.trainer import UnigramTrainer
from ..pipeline import Tokenizer
from ..steps import Step
from .bert import bert_pipeline, wordpiece_trainer
from .bpe import bpe_tokenizer, byte_bpe_tokenizer, char_bpe_run, sentencepiece_bpe_tokenizer
from .bpe_family import picky_result, superbpe_result
from .counting import COUNTED_ALGORITHMS, Counts
from .counting.from_counts import trainer_words
from .parity import by_language, parity_bpe_trainer
from .training import train_wordlevel
from .unigram import unigram_tokenizer, with_accepted_size

_ALPHABET = ("limit_alphabet", "initial_alphabet", "max_token_length")
_HF_BPE = (*_ALPHABET, "continuing_subword_prefix", "end_of_word_suffix", "symbol_order")
OPTIONS: dict[str, tuple[str, ...]] = {
    "bpe": ("min_frequency", *_ALPHABET),
    "byte_bpe": ("pattern", "min_frequency", "special_tokens", *_HF_BPE),
    "char_bpe": ("min_frequency", "special_tokens", "unk_token", "lowercase", *_HF_BPE),
    "wordlevel": ("min_frequency", "special_tokens", "unk_token"),
    "sentencepiece_bpe": (),
    "wordpiece": (
        "min_frequency",
        "special_tokens",
        "continuing_subword_prefix",
        "lowercase",
        "max_input_chars_per_word",
        "limit_alphabet",
        "initial_alphabet",
    ),
    "unigram": (
        "max_piece_length",
        "seed_size",
        "shrinking_factor",
        "num_sub_iterations",
        "character_coverage",
        "normalization",
        "split_by_unicode_script",
        "split_by_number",
    ),
    "superbpe": (
        "transition",
        "pattern",
        "superword_pattern",
        "min_frequency",
        "special_tokens",
        "max_words",
        "colon_rule",
    ),
    "picky_bpe": ("threshold", "pattern", "min_frequency", "special_tokens"),
    "parity_bpe": (
        "pattern",
        "special_tokens",
        "measure",
        "min_frequency",
        "ties",
        "global_merges",
        "window",
        "alpha",
        "dev",
    ),
}


class TrainingRun:
    """Iterate for the steps; `tokenizer()` (after the last step) for the result; `checkpoint()`
    between steps (bpe, byte_bpe, wordpiece) for bytes that `resume` continues from."""

    def __init__(
        self,
        steps: Iterable[Step],
        finish: Callable[[], Tokenizer],
        expected: int | None,
        *,
        resumable: tuple[str, int, dict[str, Any], Any] | None = None,
    ) -> None:
        self._steps = iter(steps)
        self._finish = finish
        self.expected = expected
        self.done = 0  # steps made so far
        self._result: Tokenizer | None = None
        self._resumable = resumable  # (algorithm, vocab_size, options, the trainer)
        self.algorithm, self.vocab_size = resumable[:2] if resumable else ("", 0)

    def __iter__(self) -> Iterator[Step]:
        for step in self._steps:
            self.done += 1
            yield step

    def tokenizer(self) -> Tokenizer:
        """The trained tokeniser (runs the remaining steps first)."""
        if self._result is None:
            for _ in self:
                pass
            self._result = self._finish()
        return self._result

    def checkpoint(self) -> bytes:
        """The run so far as bytes (the trainer's whole state, pickled): `resume` goes on from
        it to the same merges as a run that never stopped. A pickle runs code when it is read:
        resume only checkpoints you wrote."""
        if self._resumable is None:
            raise InvalidInput("only bpe, byte_bpe and wordpiece trainings make checkpoints")
        algorithm, vocab_size, options, trainer = self._resumable
        state = {"algorithm": algorithm, "vocab_size": vocab_size, "options": options,
                 "trainer": trainer, "done": self.done}  # fmt: skip
        return CHECKPOINT_MAGIC + pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)


CHECKPOINT_MAGIC = b"tokvis-checkpoint 1\n"


def resume(data: bytes) -> TrainingRun:
    """The `TrainingRun` a checkpoint (`TrainingRun.checkpoint`) was taken of, where it was.

    >>> run = training_run("bpe", ["low low lower newest newest"], 20)
    >>> first = [s.pair for _, s in zip(range(3), run)]
    >>> again = resume(run.checkpoint())
    >>> [s.pair for s in again] == [s.pair for s in run]
    True
    """
    if not data.startswith(CHECKPOINT_MAGIC):
        raise InvalidInput("this is not a tokvis training checkpoint (tokvis train --checkpoint)")
    try:
        state = pickle.loads(data[len(CHECKPOINT_MAGIC) :])
        algorithm, vocab_size = state["algorithm"], state["vocab_size"]
        run = _RUNS[algorithm](state["trainer"], vocab_size, state["options"])
    except (pickle.UnpicklingError, EOFError, KeyError, TypeError, AttributeError) as exc:
        raise InvalidInput(f"this training checkpoint is damaged ({exc})") from None
    run.done = state["done"]
    return run


def training_run(
    algorithm: str,
    lines: Iterable[str] | None,
    vocab_size: int,
    *,
    counts: Counts | Mapping[str, Counts] | None = None,
    **options: Any,
) -> TrainingRun:
    """A `TrainingRun` of one of `tokenizers_core.algorithms()` (see the module docstring), on
    `lines` or, for the trainers of word counts, on `counts` (`tc.count`). The lines of bpe,
    byte_bpe and wordpiece are read as a stream (counted as they come, never held)."""
    if algorithm not in OPTIONS:
        raise InvalidInput(f"unknown algorithm {algorithm!r}; choose one of: {', '.join(OPTIONS)}")
    unknown = sorted(set(options) - set(OPTIONS[algorithm]))
    if unknown:
        allowed = ", ".join(OPTIONS[algorithm]) or "none"
        raise InvalidInput(
            f"{algorithm} does not take {', '.join(unknown)} (its options: {allowed})"
        )
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        raise InvalidInput(f"vocab_size must be a positive whole number, got {vocab_size!r}")
    if counts is not None:
        if lines is not None:
            raise InvalidInput("give the lines or their counts, not both")
        words, options = trainer_words(algorithm, counts, options)
        options["words"] = words
    elif lines is None:
        raise InvalidInput("give the corpus to train on: its lines, or counts=...")
    elif algorithm not in COUNTED_ALGORITHMS and algorithm != "picky_bpe":  # (they hold it)
        lines = list(lines)
    return _MAKERS[algorithm](lines, vocab_size, options)  # type: ignore[arg-type]


def _bpe(lines: Iterable[str] | None, vocab_size: int, options: dict[str, Any]) -> TrainingRun:
    return _bpe_run(bpe_trainer(lines, vocab_size, annotate=False, **options), vocab_size, options)


def _bpe_run(trainer: Any, vocab_size: int, options: dict[str, Any]) -> TrainingRun:
    return TrainingRun(
        trainer,
        lambda: bpe_tokenizer(trainer.vocab(), trainer.merge_strings()),
        max(0, vocab_size - trainer.alphabet_size),
        resumable=("bpe", vocab_size, _kept(options), trainer),
    )


def _byte_bpe(lines: Iterable[str] | None, vocab_size: int, options: dict[str, Any]) -> TrainingRun:
    trainer = byte_bpe_trainer(lines, vocab_size, annotate=False, **options)
    return _byte_bpe_run(trainer, vocab_size, options)


def _byte_bpe_run(trainer: Any, vocab_size: int, options: dict[str, Any]) -> TrainingRun:
    specials = check_specials(options.get("special_tokens", ()))

    def finish() -> Tokenizer:
        return byte_bpe_tokenizer(
            trainer.vocab(),
            trainer.merge_strings(),
            pattern=options.get("pattern", "gpt2"),
            special_tokens={t: trainer.symbol_ids[t] for t in specials},
            continuing_subword_prefix=options.get("continuing_subword_prefix"),
            end_of_word_suffix=options.get("end_of_word_suffix"),
        )

    return TrainingRun(
        trainer,
        finish,
        max(0, vocab_size - trainer.alphabet_size),
        resumable=("byte_bpe", vocab_size, _kept(options), trainer),
    )


def _kept(options: dict[str, Any]) -> dict[str, Any]:
    """The options a checkpoint keeps: all but the word table (the trainer holds it)."""
    return {k: v for k, v in options.items() if k != "words"}


def _char_bpe(lines: list[str], vocab_size: int, options: dict[str, Any]) -> TrainingRun:
    trainer, finish = char_bpe_run(lines, vocab_size, **options)
    return TrainingRun(trainer, finish, max(0, vocab_size - trainer.alphabet_size))


def _wordlevel(lines: list[str], vocab_size: int, options: dict[str, Any]) -> TrainingRun:
    tok = train_wordlevel(lines, vocab_size, **options)  # one counting pass: no steps
    return TrainingRun((), lambda: tok, 0)


def _sentencepiece_bpe(
    lines: Iterable[str] | None, vocab_size: int, options: dict[str, Any]
) -> TrainingRun:
    trainer = SentencePieceBpeTrainer(lines, vocab_size, words=options.get("words"))

    def finish() -> Tokenizer:
        pieces = trainer.pieces()
        if len(pieces) < vocab_size:  # as train_sentencepiece_bpe (hard_vocab_limit)
            raise InvalidInput(
                f"vocab_size {vocab_size} is too high for this corpus: "
                f"sentencepiece's BPE can make at most {len(pieces)} pieces from "
                f"it; choose at most {len(pieces)}"
            )
        return sentencepiece_bpe_tokenizer(pieces, trainer.merges)

    return TrainingRun(trainer, finish, trainer.target)


def _wordpiece(
    lines: Iterable[str] | None, vocab_size: int, options: dict[str, Any]
) -> TrainingRun:
    options = dict(options)
    lowercase = options.pop("lowercase", True)
    if not isinstance(lowercase, bool):
        raise InvalidInput("lowercase must be true or false")
    max_chars = options.pop("max_input_chars_per_word", 100)
    trainer = wordpiece_trainer(lines, vocab_size, lowercase=lowercase, **options)
    kept = {"lowercase": lowercase, "max_input_chars_per_word": max_chars}
    return _wordpiece_run(trainer, vocab_size, kept)


def _wordpiece_run(trainer: Any, vocab_size: int, options: dict[str, Any]) -> TrainingRun:
    lowercase, max_chars = options["lowercase"], options["max_input_chars_per_word"]

    def finish() -> Tokenizer:
        return bert_pipeline(trainer.model(max_input_chars_per_word=max_chars), lowercase=lowercase)

    return TrainingRun(
        trainer,
        finish,
        max(0, vocab_size - trainer.initial_size),
        resumable=("wordpiece", vocab_size, options, trainer),
    )


def _unigram(lines: list[str], vocab_size: int, options: dict[str, Any]) -> TrainingRun:
    trainer = UnigramTrainer(lines, vocab_size, **options)

    def rounds() -> Iterator[Step]:
        try:
            yield from trainer.rounds()
        except ValueError as exc:  # name a size that trains, as train_unigram does
            raise InvalidInput(with_accepted_size(exc, lines, options)) from None

    def finish() -> Tokenizer:
        tok = unigram_tokenizer(trainer)
        tok.trainer = trainer  # type: ignore[attr-defined]  # as train_unigram
        return tok

    return TrainingRun(rounds(), finish, None)


def _superbpe(lines: list[str], vocab_size: int, options: dict[str, Any]) -> TrainingRun:
    trainer = superbpe_trainer(lines, vocab_size, annotate=False, **options)
    pattern = options.get("pattern", "gpt2")
    superword = options.get("superword_pattern", SUPERBPE_PATTERN)
    specials = options.get("special_tokens", ())
    return TrainingRun(
        trainer,
        lambda: superbpe_result(trainer, pattern, superword, specials),
        max(0, vocab_size - trainer.stage1.alphabet_size),
    )


def _picky_bpe(lines: list[str] | None, vocab_size: int, options: dict[str, Any]) -> TrainingRun:
    trainer = picky_bpe_trainer(lines, vocab_size, annotate=False, **options)
    pattern, specials = options.get("pattern", "gpt2"), options.get("special_tokens", ())
    # (a removal frees an id for one more merge: how many steps is not known in advance)
    return TrainingRun(trainer, lambda: picky_result(trainer, pattern, specials), None)


def _parity_bpe(lines: list[str] | None, vocab_size: int, options: dict[str, Any]) -> TrainingRun:
    options = dict(options)
    if options.get("words") is None:  # the text: lines tagged "code<TAB>text", or by script
        dev = options.pop("dev", None)
        options["dev"] = None if dev is None else by_language(dev)
        lines = by_language(lines or [])  # type: ignore[assignment]
    trainer = parity_bpe_trainer(lines, vocab_size, **options)  # type: ignore[arg-type]
    pattern, specials = options.get("pattern", "gpt2"), options.get("special_tokens", ())

    def finish() -> Tokenizer:
        ids = {t: trainer.symbol_ids[t] for t in check_specials(specials)}
        return byte_bpe_tokenizer(
            trainer.vocab(), trainer.merge_strings(), pattern=pattern, special_tokens=ids
        )

    return TrainingRun(trainer, finish, max(0, vocab_size - len(trainer.symbols)))


# algorithm -> function(trainer, vocab_size, options) -> its TrainingRun (for `resume`)
_RUNS = {"bpe": _bpe_run, "byte_bpe": _byte_bpe_run, "wordpiece": _wordpiece_run}

_MAKERS = {
    "bpe": _bpe,
    "byte_bpe": _byte_bpe,
    "sentencepiece_bpe": _sentencepiece_bpe,
    "wordpiece": _wordpiece,
    "unigram": _unigram,
    "char_bpe": _char_bpe,
    "wordlevel": _wordlevel,
    "superbpe": _superbpe,
    "picky_bpe": _picky_bpe,
    "parity_bpe": _parity_bpe,
}

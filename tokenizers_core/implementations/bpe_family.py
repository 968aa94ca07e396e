"""The new BPE family as whole tokenisers: "superbpe" (Liu et al. 2025) and "picky_bpe"
(Chizhov et al. 2024), each trained by its fast trainer (`models/bpe/superbpe.py`,
`models/bpe/picky.py`) and wired with the encoder its merges need.

- SuperBPE's superword tokens span whitespace, so its pre-tokeniser is stage 2's (the
  `SUPERBPE_PATTERN` pieces, "isolated", then byte-level spelling), and the model merges by rank
  over a whole piece -- which is how training left each piece (replaying merges in order is
  encoding by rank). With no stage-2 merge (`transition` = `vocab_size`) it is "byte_bpe",
  pre-tokeniser included.
- Picky BPE removes tokens during training, so its model replays the training's events -- merges
  and removals -- in their order (`models/bpe/picky.py`'s `PickyBpe`).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..decoders import ByteLevel as ByteLevelDecoder
from ..models.bpe.model import BPE, gc_paused
from ..models.bpe.picky import PickyBpe, picky_bpe_trainer
from ..models.bpe.superbpe import MAX_WORDS, SUPERBPE_PATTERN, superbpe_trainer
from ..models.bpe.trainer import check_specials
from ..pipeline import Tokenizer
from ..pre_tokenizers import ByteLevel, Regex, Sequence
from .bpe import byte_bpe_tokenizer


def superbpe_tokenizer(
    vocab: dict[str, int],
    merges: list[tuple[str, str]],
    *,
    superword_pattern: str = SUPERBPE_PATTERN,
    special_tokens: dict[str, int] | None = None,
) -> Tokenizer:
    """The "superbpe" pipeline: stage 2's pieces (`superword_pattern`, "isolated"), byte-level
    spelling, merges by rank.

    >>> tok = superbpe_tokenizer({"a": 0, "Ġ": 1, "b": 2, "aĠ": 3, "aĠb": 4},
    ...                          [("a", "Ġ"), ("aĠ", "b")])
    >>> tok.encode("a b").tokens
    ['aĠb']
    """
    model = BPE(vocab, merges, byte_level=True, special_tokens=special_tokens)
    pre = Sequence(
        [Regex(superword_pattern, timeout=None, behavior="isolated"), ByteLevel(use_regex=False)]
    )
    return Tokenizer(model, pre_tokenizer=pre, decoder=ByteLevelDecoder(), algorithm="superbpe")


def train_superbpe(
    lines: Iterable[str],
    vocab_size: int,
    *,
    transition: int | None = None,
    pattern: str = "gpt2",
    superword_pattern: str = SUPERBPE_PATTERN,
    min_frequency: int = 0,
    special_tokens: Iterable[str] = (),
    max_words: int | None = MAX_WORDS,
    colon_rule: bool = True,
) -> Tokenizer:
    """Train "superbpe"; returns a `Tokenizer`. Stage 1 is "byte_bpe" (`pattern`, gpt2 by
    default) up to `transition` tokens (default: 90% of `vocab_size`, the paper's best ratio);
    stage 2 learns superwords from `superword_pattern` pieces up to `vocab_size`, never a token
    of more than `max_words` words (None: no cap) nor, with `colon_rule`, one holding ": ".
    `special_tokens` get the first ids, as in "byte_bpe".

    >>> lines = ["of the", "of the", "of a"]
    >>> train_superbpe(lines, 261, transition=259).encode("of the").tokens
    ['ofĠthe']
    >>> train_superbpe(lines, 261, transition=261).encode("of the").tokens
    ['of', 'Ġthe']
    """
    with gc_paused:
        trainer = superbpe_trainer(
            lines, vocab_size, transition=transition, pattern=pattern,
            superword_pattern=superword_pattern, min_frequency=min_frequency,
            special_tokens=special_tokens, max_words=max_words, colon_rule=colon_rule,
            annotate=False,
        ).run()  # fmt: skip
        tok = superbpe_result(trainer, pattern, superword_pattern, special_tokens)
        del trainer  # freed by reference counting before the GC resumes
    return tok


def superbpe_result(
    trainer: Any, pattern: str, superword_pattern: str, special_tokens: Iterable[str]
) -> Tokenizer:
    """The tokeniser a finished `SuperBpeTrainer` learned."""
    specials = {t: trainer.current.symbol_ids[t] for t in check_specials(special_tokens)}
    vocab, merges = trainer.vocab(), trainer.merge_strings()
    if not any(step.after_transition for step in trainer.steps):  # no stage 2: byte_bpe
        return byte_bpe_tokenizer(vocab, merges, pattern=pattern, special_tokens=specials)
    return superbpe_tokenizer(
        vocab, merges, superword_pattern=superword_pattern, special_tokens=specials
    )


def picky_bpe_tokenizer(
    vocab: dict[str, int],
    events: list[tuple[str, tuple[str, ...]]],
    *,
    pattern: str = "gpt2",
    special_tokens: dict[str, int] | None = None,
) -> Tokenizer:
    """The "picky_bpe" pipeline: "byte_bpe"'s pieces and spelling, and a model that replays the
    training's merges and removals in order (`PickyBpe`).

    >>> tok = picky_bpe_tokenizer({"a": 0, "b": 1, "ab": 2}, [("merge", ("a", "b"))])
    >>> tok.encode("abab").tokens
    ['ab', 'ab']
    """
    model = PickyBpe(vocab, events, byte_level=True, special_tokens=special_tokens)
    pre = Sequence([Regex(pattern), ByteLevel(use_regex=False)])
    return Tokenizer(model, pre_tokenizer=pre, decoder=ByteLevelDecoder(), algorithm="picky_bpe")


def train_picky_bpe(
    lines: Iterable[str] | None,
    vocab_size: int,
    *,
    threshold: float = 0.9,
    pattern: str = "gpt2",
    min_frequency: int = 0,
    special_tokens: Iterable[str] = (),
    words: Mapping[str, int] | None = None,
) -> Tokenizer:
    """Train "picky_bpe"; returns a `Tokenizer`. "byte_bpe"'s words and alphabet; after each
    merge a merged token whose IoS is above `threshold` (tau; above 1: plain "byte_bpe") is
    removed and its id freed. `special_tokens` get the first ids, as in "byte_bpe". `words`:
    byte_bpe's word table already counted (`tc.train(..., counts=...)`), in place of `lines`.

    >>> tok = train_picky_bpe(["abc abc abc abd"], 260, threshold=0.6)
    >>> tok.encode("abc abd").tokens, "ab" in tok.model.vocab
    (['abc', 'Ġabd'], False)
    """
    with gc_paused:
        trainer = picky_bpe_trainer(
            lines, vocab_size, threshold=threshold, pattern=pattern,
            min_frequency=min_frequency, special_tokens=special_tokens, annotate=False,
            words=words,
        )  # fmt: skip
        trainer.run()
        tok = picky_result(trainer, pattern, special_tokens)
        del trainer  # freed by reference counting before the GC resumes
    return tok


def picky_result(trainer: Any, pattern: str, special_tokens: Iterable[str]) -> Tokenizer:
    """The tokeniser a finished `PickyBpeTrainer` learned."""
    vocab, events = trainer.vocab(), trainer.event_strings()
    specials = {t: vocab[t] for t in check_specials(special_tokens)}
    return picky_bpe_tokenizer(vocab, events, pattern=pattern, special_tokens=specials)

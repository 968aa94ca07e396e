"""Models: stage 3 of the pipeline, where pre-tokenised pieces become tokens.

A model is any object with

- `tokenize(piece: str) -> list[tuple[str, int | None, int, int]]`: the tokens of one piece as
  `(token, id, start, end)`, with `start`/`end` character positions **in the piece**. An id of None
  means the model has no fixed vocabulary (the rule tokenisers); the pipeline then numbers distinct
  tokens by first appearance.
- `id_to_token(id) -> str | None`, `token_to_id(token) -> int | None`
- `get_vocab_size() -> int` (0 when there is no fixed vocabulary)

One package per model: `bpe/`, `wordpiece/`, `unigram/`, `wordlevel/`, each with `model.py`
(encoding), `trainer.py` (training; none for WordLevel), `session.py` where a step-through view
reads any step of a training run (BPE, WordPiece), and `hf.py` for Hugging Face's variant as a
tokenizer.json configures it (subclasses whose steps the same views show). sentencepiece's BPE model
and trainer are `bpe/sentencepiece.py` and `bpe/sentencepiece_trainer.py`; what its two models and
trainers share is `sentencepiece_common.py`. A model never imports the pipeline: the Tokenizers
built around models live in `implementations/`.

The package exports Hugging Face's spellings, `BPE`, `WordPiece`, `Unigram`, `WordLevel`:

>>> WordPiece({"[UNK]": 0, "play": 1, "##ing": 2}).tokenize("playing")
[('play', 1, 0, 4), ('##ing', 2, 4, 7)]
"""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

from .bpe.hf import HFBpe as BPE
from .unigram.hf import HFUnigram as Unigram
from .wordlevel.model import WordLevel
from .wordpiece.model import WordPiece

# Hugging Face's spellings (`tokenizers.models`): BPE and Unigram are the classes that take
# Hugging Face's options (dropout, byte_fallback, unk_id, ...); `bpe.model.BPE` and
# `unigram.model.Unigram` are the textbook models they build on
__all__ = ["BPE", "Model", "ModelToken", "Unigram", "WordLevel", "WordPiece"]

ModelToken = tuple[str, "int | None", int, int]


@runtime_checkable
class Model(Protocol):
    # Sequence, not list: a model whose ids are never None (`list[tuple[str, int, int, int]]`)
    # fits it (a list is invariant in its item type)
    # A model may also have `tokenize_columns(piece) -> TokenColumns` (models/columns.py): the
    # same tokens as columns, which the pipeline then reads instead (Unigram's long lines).
    def tokenize(self, piece: str) -> Sequence[ModelToken]: ...

    def id_to_token(self, id: int) -> str | None: ...

    def token_to_id(self, token: str) -> int | None: ...

    def get_vocab_size(self) -> int: ...

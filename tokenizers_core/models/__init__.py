"""Models: stage 3 of the pipeline, where pre-tokenised pieces become tokens.

A model is any object with

- `tokenize(piece: str) -> list[tuple[str, int | None, int, int]]`: the tokens of one piece as
  `(token, id, start, end)`, with `start`/`end` character positions **in the piece**. An id of None
  means the model has no fixed vocabulary (the rule tokenisers); the pipeline then numbers distinct
  tokens by first appearance.
- `id_to_token(id) -> str | None`, `token_to_id(token) -> int | None`
- `get_vocab_size() -> int` (0 when there is no fixed vocabulary)

Trainable and steppable models live in `bpe.py` (trainer: `bpe_train.py`), `wordpiece.py`
(`wordpiece_train.py`), `unigram.py` (`unigram_trainer.py`); Hugging Face's variants, as a
tokenizer.json configures them, in `bpe_hf.py` and `unigram_hf.py` (subclasses whose steps the
same views show) and `wordlevel.py`.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

ModelToken = tuple[str, "int | None", int, int]


@runtime_checkable
class Model(Protocol):
    def tokenize(self, piece: str) -> list[ModelToken]: ...

    def id_to_token(self, id: int) -> str | None: ...

    def token_to_id(self, token: str) -> int | None: ...

    def get_vocab_size(self) -> int: ...

"""`Token` and `Encoding`: what a tokeniser returns, as in Hugging Face `tokenizers`.

An `Encoding` keeps parallel arrays (one entry per token). Offsets are **character** positions in
the original, un-normalised input text, end exclusive: `text[start:end]` is the surface a token
came from. Special tokens added by a post-processor get (0, 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .notebook import encoding_html


class Token(NamedTuple):
    """One token: its id, its string as the model spells it, and where it came from.

    `offsets` are character positions in the original input; `word_id` is the index of the
    pre-tokenised word it belongs to (None for special tokens). An immutable named tuple: the
    pipeline makes one per token, so it must be cheap.

    >>> Token(7592, "hello", (0, 5), 0)
    Token(id=7592, value='hello', offsets=(0, 5), word_id=0, special=False)
    """

    id: int
    value: str
    offsets: tuple[int, int]
    word_id: int | None = None
    special: bool = False


@dataclass
class Encoding:
    """The result of `Tokenizer.encode`: parallel arrays, one entry per token."""

    ids: list[int] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    offsets: list[tuple[int, int]] = field(default_factory=list)
    word_ids: list[int | None] = field(default_factory=list)
    attention_mask: list[int] = field(default_factory=list)
    special_tokens_mask: list[int] = field(default_factory=list)
    type_ids: list[int] = field(default_factory=list)
    # What truncation cut off, as Hugging Face's `overflowing`: more encodings of the same text
    # (each window `max_length` long, overlapping by `stride`), each post-processed and padded.
    overflowing: list["Encoding"] = field(default_factory=list)

    @classmethod
    def from_tokens(cls, tokens: list[Token], type_id: int = 0) -> "Encoding":
        return cls(
            ids=[t.id for t in tokens],
            tokens=[t.value for t in tokens],
            offsets=[t.offsets for t in tokens],
            word_ids=[t.word_id for t in tokens],
            attention_mask=[1] * len(tokens),
            special_tokens_mask=[1 if t.special else 0 for t in tokens],
            type_ids=[type_id] * len(tokens),
        )

    def _repr_html_(self) -> str:
        """The tokens as chips in a notebook (`tokenizers_core.notebook`)."""
        return encoding_html(self)

    def __len__(self) -> int:
        return len(self.ids)

    def token_list(self) -> list[Token]:
        """The parallel arrays zipped back into `Token` values."""
        return [
            Token(i, t, o, w, bool(s))
            for i, t, o, w, s in zip(
                self.ids, self.tokens, self.offsets, self.word_ids, self.special_tokens_mask
            )
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ids": list(self.ids),
            "tokens": list(self.tokens),
            "offsets": [list(o) for o in self.offsets],
            "word_ids": list(self.word_ids),
            "attention_mask": list(self.attention_mask),
            "special_tokens_mask": list(self.special_tokens_mask),
            "type_ids": list(self.type_ids),
        }

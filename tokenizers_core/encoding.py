"""`Token` and `Encoding`: what a tokeniser returns, as in Hugging Face `tokenizers`.

An `Encoding` keeps parallel arrays (one entry per token). Offsets are **character** positions in
the original, un-normalised input text, end exclusive: `text[start:end]` is the surface a token
came from. Special tokens added by a post-processor get (0, 0).
"""

from __future__ import annotations

from typing import Any, NamedTuple, overload

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


class _Filled:
    """A column of `Encoding` kept in its slot (the attribute's name with a "_" before it) as the
    one value that fills it, an int, until first read; then made as long as `ids` was when the
    `Encoding` was made, and kept as that list."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    @overload
    def __get__(self, enc: None, owner: type) -> "_Filled": ...
    @overload
    def __get__(self, enc: "Encoding", owner: type | None = None) -> list[int]: ...
    def __get__(self, enc: "Encoding | None", owner: type | None = None) -> Any:
        if enc is None:
            return self
        value = getattr(enc, self.slot)
        if isinstance(value, int):
            value = [value] * enc._length
            setattr(enc, self.slot, value)
        return value

    def __set__(self, enc: "Encoding", value: list[int]) -> None:
        setattr(enc, self.slot, value)


class Encoding:
    """The result of `Tokenizer.encode`: parallel arrays, one entry per token.

    Read and assign its columns as lists. The three a model's tokens fill with one value (all
    attended, none special, one type id) and `overflowing` (usually empty) are kept as that
    value until first read, when the list is made once and kept: a line's `Encoding` is then
    five objects for the garbage collector to follow, not nine, and a batch keeps thousands.
    Each is as long as `ids` was when the `Encoding` was made.

    >>> e = Encoding(ids=[5, 6], tokens=["a", "b"], offsets=[(0, 1), (1, 2)], word_ids=[0, 0])
    >>> e.attention_mask, e.special_tokens_mask, e.type_ids, e.overflowing
    ([1, 1], [0, 0], [0, 0], [])
    >>> Encoding([5], ["a"], [(0, 1)], [0], type_id=1).type_ids
    [1]
    """

    __slots__ = (
        "ids", "tokens", "offsets", "word_ids", "_length",
        "_attention_mask", "_special_tokens_mask", "_type_ids", "_overflowing",
    )  # fmt: skip

    def __init__(
        self,
        ids: list[int] | None = None,
        tokens: list[str] | None = None,
        offsets: list[tuple[int, int]] | None = None,
        word_ids: list[int | None] | None = None,
        attention_mask: list[int] | None = None,
        special_tokens_mask: list[int] | None = None,
        type_ids: list[int] | None = None,
        overflowing: list["Encoding"] | None = None,
        *,
        type_id: int = 0,
    ) -> None:
        self.ids = [] if ids is None else ids
        self.tokens = [] if tokens is None else tokens
        self.offsets = [] if offsets is None else offsets
        self.word_ids = [] if word_ids is None else word_ids
        self._length = len(self.ids)
        self._attention_mask: list[int] | int = 1 if attention_mask is None else attention_mask
        self._special_tokens_mask: list[int] | int = (
            0 if special_tokens_mask is None else special_tokens_mask
        )
        self._type_ids: list[int] | int = type_id if type_ids is None else type_ids
        # What truncation cut off, as Hugging Face's `overflowing`: more encodings of the same
        # text (each window `max_length` long, overlapping by `stride`), each post-processed
        # and padded.
        self._overflowing = overflowing

    attention_mask = _Filled()  # all attended
    special_tokens_mask = _Filled()  # none special
    type_ids = _Filled()  # one type id

    @property
    def overflowing(self) -> list["Encoding"]:
        if self._overflowing is None:
            self._overflowing = []
        return self._overflowing

    @overflowing.setter
    def overflowing(self, value: list["Encoding"]) -> None:
        self._overflowing = value

    def _columns(self) -> tuple[list[Any], ...]:
        return (
            self.ids, self.tokens, self.offsets, self.word_ids, self.attention_mask,
            self.special_tokens_mask, self.type_ids, self.overflowing,
        )  # fmt: skip

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Encoding)
        return self._columns() == other._columns()

    # mutable, so unhashable, as the dataclass it was
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        names = ("ids", "tokens", "offsets", "word_ids", "attention_mask",
                 "special_tokens_mask", "type_ids", "overflowing")  # fmt: skip
        inside = ", ".join(f"{n}={c!r}" for n, c in zip(names, self._columns()))
        return f"Encoding({inside})"

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

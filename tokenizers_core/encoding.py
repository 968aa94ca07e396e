"""`Token` and `Encoding`: what a tokeniser returns, as in Hugging Face `tokenizers`.

An `Encoding` keeps parallel arrays (one entry per token). Offsets are **character** positions in
the original, un-normalised input text, end exclusive: `text[start:end]` is the surface a token
came from. Special tokens added by a post-processor get (0, 0).
"""

from __future__ import annotations

from typing import Any, Callable, Generic, NamedTuple, TypeVar, overload

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


class Spans(NamedTuple):
    """A column of offsets kept as its starts and its ends (what a model's columns give), until
    the `Encoding`'s `offsets` are first read."""

    starts: list[int]
    ends: list[int]


T = TypeVar("T")


class _Kept(Generic[T]):
    """A column of `Encoding` kept in its slot (the attribute's name with a "_" before it) as
    something smaller than its list, of type `kept`, until first read; then made into the list
    by `make(encoding, value)` and kept as that."""

    def __init__(self, kept: type, make: Callable[[Any, Any], list[T]]) -> None:
        self.kept, self.make = kept, make

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    @overload
    def __get__(self, enc: None, owner: type) -> "_Kept[T]": ...
    @overload
    def __get__(self, enc: "Encoding", owner: type | None = None) -> list[T]: ...
    def __get__(self, enc: "Encoding | None", owner: type | None = None) -> Any:
        if enc is None:
            return self
        value = getattr(enc, self.slot)
        if isinstance(value, self.kept):
            value = self.make(enc, value)
            setattr(enc, self.slot, value)
        return value

    def __set__(self, enc: "Encoding", value: list[T]) -> None:
        setattr(enc, self.slot, value)


def _filled(enc: "Encoding", value: int) -> list[int]:
    """The one value that fills a column, as long as `ids` was when `enc` was made."""
    return [value] * enc._length


def _zipped(enc: "Encoding", spans: Spans) -> list[tuple[int, int]]:
    """The offsets kept as two columns, as one (start, end) tuple a token."""
    return list(zip(spans.starts, spans.ends))


class Encoding:
    """The result of `Tokenizer.encode`: parallel arrays, one entry per token.

    Read and assign its columns as lists. The three a model's tokens fill with one value (all
    attended, none special, one type id) and `overflowing` (usually empty) are kept as that
    value until first read, and `offsets` may be given as their starts and ends (`Spans`): each
    list is made once, when first read, and kept. A line's `Encoding` is then a few objects for
    the garbage collector to follow, not one per token, and a batch keeps thousands. Each
    filled column is as long as `ids` was when the `Encoding` was made.

    >>> e = Encoding(ids=[5, 6], tokens=["a", "b"], offsets=[(0, 1), (1, 2)], word_ids=[0, 0])
    >>> e.attention_mask, e.special_tokens_mask, e.type_ids, e.overflowing
    ([1, 1], [0, 0], [0, 0], [])
    >>> Encoding([5], ["a"], [(0, 1)], [0], type_id=1).type_ids
    [1]
    >>> Encoding([5, 6], ["a", "b"], Spans([0, 1], [1, 3]), [0, 0]).offsets
    [(0, 1), (1, 3)]
    """

    __slots__ = (
        "ids", "tokens", "_offsets", "word_ids", "_length",
        "_attention_mask", "_special_tokens_mask", "_type_ids", "_overflowing",
    )  # fmt: skip

    def __init__(
        self,
        ids: list[int] | None = None,
        tokens: list[str] | None = None,
        offsets: list[tuple[int, int]] | Spans | None = None,
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
        self._offsets: list[tuple[int, int]] | Spans = [] if offsets is None else offsets
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

    offsets: _Kept[tuple[int, int]] = _Kept(Spans, _zipped)
    attention_mask: _Kept[int] = _Kept(int, _filled)  # all attended
    special_tokens_mask: _Kept[int] = _Kept(int, _filled)  # none special
    type_ids: _Kept[int] = _Kept(int, _filled)  # one type id

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

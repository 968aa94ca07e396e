"""Truncation and padding: fitting an encoding to a length, as Hugging Face `tokenizers` 0.23.3
does on `encode` (`src/utils/truncation.rs`, `src/utils/padding.rs`, `Encoding::truncate/pad`).

A tokenizer.json stores both settings:

    "truncation": {"max_length": 8, "stride": 2, "strategy": "LongestFirst", "direction": "Right"}
    "padding": {"strategy": {"Fixed": 16}, "direction": "Right", "pad_to_multiple_of": null,
                "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}

Truncation runs before the post-processor, on the model's tokens, and leaves room for the special
tokens the post-processor will add. What it cuts off is not lost: the text is cut into windows of
`max_length` tokens, each overlapping the one before by `stride` tokens; the first window is the
encoding, the others its `overflowing`. Padding runs last and appends `pad_token` (attention mask
0, special-tokens mask 1) up to the fixed length (or, for one text, "BatchLongest" its own
length), rounded up to a multiple of `pad_to_multiple_of`.

>>> e = Encoding(ids=[1, 2, 3, 4, 5], tokens=list("abcde"), offsets=[(i, i + 1) for i in range(5)],
...              word_ids=[0, 1, 2, 3, 4], attention_mask=[1] * 5, special_tokens_mask=[0] * 5,
...              type_ids=[0] * 5)
>>> truncate(e, 3, stride=1)
>>> e.tokens, [o.tokens for o in e.overflowing]
(['a', 'b', 'c'], [['c', 'd', 'e']])
>>> pad(e, 5, PaddingParams(pad_id=0, pad_token="[PAD]"))
>>> e.tokens, e.attention_mask
(['a', 'b', 'c', '[PAD]', '[PAD]'], [1, 1, 1, 0, 0])
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from ..encoding import Encoding
from ..errors import InvalidInput

__all__ = [
    "MAX_LENGTH",
    "TruncationParams",
    "PaddingParams",
    "truncate",
    "truncate_encodings",
    "pad",
]

# The longest padding or truncation length a file may ask for: as many tokens as the longest
# text the web server takes by default can make (100,000 characters, up to 4 byte tokens each).
# A file's {"Fixed": 3000000} would otherwise build millions of pad tokens for the text "a".
MAX_LENGTH = 400_000

_STRATEGIES = {
    "LongestFirst": "longest_first",
    "OnlyFirst": "only_first",
    "OnlySecond": "only_second",
}
_DIRECTIONS = {"Right": "right", "Left": "left"}


def _int(cfg: Mapping, key: str, default: int | None, where: str) -> int:
    value = cfg.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidInput(f"{where}: {key} must be a non-negative integer")
    return value


def _length(cfg: Mapping, key: str, where: str) -> int:
    """A length in tokens: a non-negative integer of at most `MAX_LENGTH`.

    >>> _length({"Fixed": 3_000_000}, "Fixed", "padding")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: padding: Fixed is 3,000,000 tokens; it may be at most
    400,000 (the most tokens the longest text makes)
    """
    value = cfg.get(key)
    if isinstance(value, float) and value.is_integer():
        raise InvalidInput(
            f"{where}: {key} must be an integer, not {value!r} (and at most {MAX_LENGTH:,})"
        )
    value = _int(cfg, key, None, where)
    if value > MAX_LENGTH:
        raise InvalidInput(
            f"{where}: {key} is {value:,} tokens; it may be at most {MAX_LENGTH:,} "
            "(the most tokens the longest text makes)"
        )
    return value


def _choice(cfg: Mapping, key: str, default: str, names: dict[str, str], where: str) -> str:
    value = cfg.get(key, default)
    if value in names:
        return names[value]
    if value in names.values():
        return value
    raise InvalidInput(f"{where}: {key} must be one of {', '.join(names)} (got {value!r})")


@dataclass(frozen=True)
class TruncationParams:
    """`strategy`: "longest_first", "only_first" or "only_second"; `direction`: "right"
    (keep the start) or "left" (keep the end)."""

    max_length: int = 512
    stride: int = 0
    strategy: str = "longest_first"
    direction: str = "right"

    @classmethod
    def from_hf_config(cls, cfg: Mapping | None) -> "TruncationParams | None":
        if cfg is None:
            return None
        if not isinstance(cfg, Mapping):
            raise InvalidInput("truncation must be an object or null")
        return cls(
            max_length=_length(cfg, "max_length", "truncation"),
            stride=_int(cfg, "stride", 0, "truncation"),
            strategy=_choice(cfg, "strategy", "LongestFirst", _STRATEGIES, "truncation"),
            direction=_choice(cfg, "direction", "Right", _DIRECTIONS, "truncation"),
        )

    def to_hf_config(self) -> dict:
        return {
            "direction": _key(_DIRECTIONS, self.direction),
            "max_length": self.max_length,
            "strategy": _key(_STRATEGIES, self.strategy),
            "stride": self.stride,
        }

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PaddingParams:
    """`length`: the fixed length, or None for "BatchLongest" (one text: its own length)."""

    length: int | None = None
    direction: str = "right"
    pad_to_multiple_of: int | None = None
    pad_id: int = 0
    pad_type_id: int = 0
    pad_token: str = "[PAD]"

    @classmethod
    def from_hf_config(cls, cfg: Mapping | None) -> "PaddingParams | None":
        if cfg is None:
            return None
        if not isinstance(cfg, Mapping):
            raise InvalidInput("padding must be an object or null")
        strategy = cfg.get("strategy", "BatchLongest")
        if strategy == "BatchLongest":
            length = None
        elif isinstance(strategy, Mapping) and set(strategy) == {"Fixed"}:
            length = _length(strategy, "Fixed", "padding")
        else:
            raise InvalidInput('padding: strategy must be "BatchLongest" or {"Fixed": N}')
        multiple = cfg.get("pad_to_multiple_of")
        if multiple is not None:
            multiple = _length(cfg, "pad_to_multiple_of", "padding")
        token = cfg.get("pad_token", "[PAD]")
        if not isinstance(token, str):
            raise InvalidInput("padding: pad_token must be a string")
        return cls(
            length=length,
            direction=_choice(cfg, "direction", "Right", _DIRECTIONS, "padding"),
            pad_to_multiple_of=multiple,
            pad_id=_int(cfg, "pad_id", 0, "padding"),
            pad_type_id=_int(cfg, "pad_type_id", 0, "padding"),
            pad_token=token,
        )

    def to_hf_config(self) -> dict:
        return {
            "strategy": "BatchLongest" if self.length is None else {"Fixed": self.length},
            "direction": _key(_DIRECTIONS, self.direction),
            "pad_to_multiple_of": self.pad_to_multiple_of,
            "pad_id": self.pad_id,
            "pad_type_id": self.pad_type_id,
            "pad_token": self.pad_token,
        }

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def target(self, length: int) -> int:
        """The padded length of an encoding of `length` tokens (one text as its own batch)."""
        target = length if self.length is None else self.length
        multiple = self.pad_to_multiple_of
        if multiple and target % multiple:
            target += multiple - target % multiple
        return target


def _key(names: dict[str, str], value: str) -> str:
    return next(k for k, v in names.items() if v == value)


# ---- truncation -------------------------------------------------------------------------------
def _window(e: Encoding, start: int, stop: int) -> Encoding:
    return Encoding(
        ids=e.ids[start:stop],
        tokens=e.tokens[start:stop],
        offsets=e.offsets[start:stop],
        word_ids=e.word_ids[start:stop],
        attention_mask=e.attention_mask[start:stop],
        special_tokens_mask=e.special_tokens_mask[start:stop],
        type_ids=e.type_ids[start:stop],
    )


def truncate(e: Encoding, max_length: int, stride: int = 0, direction: str = "right") -> None:
    """Cut `e` (in place) to `max_length` tokens; the rest becomes windows in `e.overflowing`,
    each `max_length` long and starting `max_length - stride` after the one before ("left":
    counted from the end). Any earlier overflowing is dropped (as in Hugging Face)."""
    n = len(e.ids)
    if max_length >= n:
        return
    if max_length == 0:
        whole = _window(e, 0, n)
        whole.overflowing = e.overflowing
        _replace(e, Encoding())
        e.overflowing = [whole]
        return
    if stride >= max_length:
        raise InvalidInput(
            f"truncation stride ({stride}) must be less than the length it cuts to "
            f"({max_length}, after leaving room for special tokens)"
        )
    step = max_length - stride
    parts: list[tuple[int, int]] = []
    if direction == "right":
        for start in range(0, n, step):
            stop = min(start + max_length, n)
            parts.append((start, stop))
            if stop == n:
                break
    else:
        for last in range(n - 1, -1, -step):
            stop = last + 1
            start = max(stop - max_length, 0)
            parts.append((start, stop))
            if start == 0:
                break
    first = _window(e, *parts[0])
    first.overflowing = [_window(e, *p) for p in parts[1:]]
    _replace(e, first)


def _replace(e: Encoding, new: Encoding) -> None:
    e.ids, e.tokens, e.offsets, e.word_ids = new.ids, new.tokens, new.offsets, new.word_ids
    e.attention_mask, e.special_tokens_mask = new.attention_mask, new.special_tokens_mask
    e.type_ids, e.overflowing = new.type_ids, new.overflowing


def truncate_encodings(first: Encoding, pair: Encoding | None, params: TruncationParams) -> None:
    """Truncate one text or a pair (in place) to `params.max_length` tokens in all, by the
    strategy: "longest_first" shortens the longer one first (if both are too long, each gets
    half), "only_first" / "only_second" cut one of them (ValueError if that is not enough).

    >>> a = Encoding(ids=[1] * 5, tokens=["a"] * 5, offsets=[(0, 1)] * 5, word_ids=[0] * 5,
    ...              attention_mask=[1] * 5, special_tokens_mask=[0] * 5, type_ids=[0] * 5)
    >>> b = Encoding(ids=[2] * 2, tokens=["b"] * 2, offsets=[(0, 1)] * 2, word_ids=[0] * 2,
    ...              attention_mask=[1] * 2, special_tokens_mask=[0] * 2, type_ids=[1] * 2)
    >>> truncate_encodings(a, b, TruncationParams(max_length=4))
    >>> len(a), len(b)
    (2, 2)
    """
    if params.max_length == 0:
        truncate(first, 0, params.stride, params.direction)
        if pair is not None:
            truncate(pair, 0, params.stride, params.direction)
        return
    total = len(first.ids) + (len(pair.ids) if pair is not None else 0)
    if total <= params.max_length:
        return
    to_remove = total - params.max_length
    if params.strategy == "longest_first":
        if pair is None:
            truncate(first, total - to_remove, params.stride, params.direction)
            return
        n1, n2 = len(first.ids), len(pair.ids)
        swap = n1 > n2  # n1: the shorter one
        if swap:
            n1, n2 = n2, n1
        n2 = n1 if n1 > params.max_length else max(n1, params.max_length - n1)
        if n1 + n2 > params.max_length:
            n1 = params.max_length // 2
            n2 = n1 + params.max_length % 2
        if swap:
            n1, n2 = n2, n1
        truncate(first, n1, params.stride, params.direction)
        truncate(pair, n2, params.stride, params.direction)
        return
    if params.strategy == "only_first":
        target = first
    elif pair is not None:
        target = pair
    else:
        raise InvalidInput("truncation strategy only_second needs a second sequence")
    if len(target.ids) <= to_remove:
        raise InvalidInput(
            f"truncation: the {params.strategy.split('_')[1]} sequence is too short "
            f"to bring the total down to max_length={params.max_length}"
        )
    truncate(
        target,
        len(target.ids) - to_remove,
        params.stride,
        params.direction,
    )


# ---- padding ------------------------------------------------------------------------------
def pad(e: Encoding, target: int, params: PaddingParams) -> None:
    """Pad `e` and its overflowing windows (in place) to `target` tokens with `params.pad_token`
    (offsets (0, 0), no word, attention mask 0, special-tokens mask 1)."""
    for window in e.overflowing:
        pad(window, target, params)
    n = target - len(e.ids)
    if n <= 0:
        return
    no_words: list[int | None] = [None] * n
    if params.direction == "left":
        e.ids = [params.pad_id] * n + e.ids
        e.type_ids = [params.pad_type_id] * n + e.type_ids
        e.tokens = [params.pad_token] * n + e.tokens
        e.word_ids = no_words + e.word_ids
        e.attention_mask = [0] * n + e.attention_mask
        e.special_tokens_mask = [1] * n + e.special_tokens_mask
        e.offsets = [(0, 0)] * n + e.offsets
    else:
        e.ids = e.ids + [params.pad_id] * n
        e.type_ids = e.type_ids + [params.pad_type_id] * n
        e.tokens = e.tokens + [params.pad_token] * n
        e.word_ids = e.word_ids + no_words
        e.attention_mask = e.attention_mask + [0] * n
        e.special_tokens_mask = e.special_tokens_mask + [1] * n
        e.offsets = e.offsets + [(0, 0)] * n

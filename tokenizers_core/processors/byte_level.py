"""`ByteLevel`: the post-processor that adds no token and trims each token's offsets to leave out
the spaces at its ends (Hugging Face's `process_offsets`, in `src/pre_tokenizers/byte_level.rs`).
"""

from __future__ import annotations

from typing import Iterable

from ..encoding import Encoding
from .base import _flag

# Rust's `char::is_whitespace` (Unicode White_Space), and "Ġ", the byte-level spelling of " ".
_WHITE_SPACE = frozenset(
    map(
        chr,
        [
            *range(0x9, 0xE),
            0x20,
            0x85,
            0xA0,
            0x1680,
            *range(0x2000, 0x200B),
            0x2028,
            0x2029,
            0x202F,
            0x205F,
            0x3000,
        ],
    )
)
_SPACES = _WHITE_SPACE | {"Ġ"}


def _run_length(chars: Iterable[str]) -> int:
    n = 0
    for c in chars:
        if c not in _SPACES:
            break
        n += 1
    return n


def trim_offsets(encoding: Encoding, add_prefix_space: bool) -> None:
    """Leave the spaces at both ends of each token out of its offsets (Hugging Face's
    `process_offsets`): "Ġworld" at (5, 11) becomes (6, 11). With `add_prefix_space`, a token
    at the start (index 0 or offset 0) that has exactly one leading space keeps it, since the
    pre-tokenizer may have added it (Hugging Face cannot tell an added space from a typed one
    either). Offsets are characters, and a byte-level space is one character."""
    for i, (token, (start, end)) in enumerate(zip(encoding.tokens, encoding.offsets)):
        leading = _run_length(token)
        trailing = _run_length(reversed(token))
        if not leading and not trailing:
            continue
        if leading:
            if (i == 0 or start == 0) and add_prefix_space and leading == 1:
                leading = 0
            start = min(start + leading, end)
        if trailing and end >= trailing:
            end = max(end - trailing, start)
        encoding.offsets[i] = (start, end)


class ByteLevel:
    """The byte-level post-processor: adds no token; with `trim_offsets`, trims each token's
    offsets as `trim_offsets` above."""

    def __init__(self, trim_offsets: bool = True, add_prefix_space: bool = True) -> None:
        self.trim_offsets = _flag(trim_offsets, "trim_offsets")
        self.add_prefix_space = _flag(add_prefix_space, "add_prefix_space")

    def added_tokens(self, is_pair: bool) -> int:
        return 0

    def process_encodings(
        self, encodings: list[Encoding], add_special_tokens: bool
    ) -> list[Encoding]:
        if self.trim_offsets:
            for encoding in encodings:
                for e in [encoding, *encoding.overflowing]:
                    trim_offsets(e, self.add_prefix_space)
        return encodings

    def describe(self) -> str:
        return "ByteLevel" + (" (trim offsets)" if self.trim_offsets else "")

    def to_hf_config(self) -> dict:
        return {
            "type": "ByteLevel",
            "add_prefix_space": self.add_prefix_space,
            "trim_offsets": self.trim_offsets,
            "use_regex": True,
        }

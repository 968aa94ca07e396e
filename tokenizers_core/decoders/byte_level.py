"""`ByteLevel`: GPT-2's byte-to-unicode spelling read back as UTF-8 (GPT-2, RoBERTa, Llama 3;
Hugging Face's `src/pre_tokenizers/byte_level.rs`)."""

from __future__ import annotations

import functools

from ..byte_level import unicode_to_bytes
from .base import _Decoder


@functools.lru_cache(maxsize=1)
def _byte_level_table() -> dict[str, int]:
    return unicode_to_bytes()


class ByteLevel(_Decoder):
    """Read byte-level tokens (GPT-2's byte-to-unicode spelling, "Ġ" for a space) back as bytes
    and decode them as UTF-8, all tokens together, into one string: Hugging Face's
    `decoders.ByteLevel`, and tiktoken's `decode`. A token with a character outside the
    byte-level alphabet (a special token such as "<|endoftext|>" written with other characters)
    contributes its own UTF-8 bytes. Bytes that are not valid UTF-8 become U+FFFD, one per
    maximal invalid sequence (Rust's `from_utf8_lossy`, Python's "replace").

    The options are those of the pre-tokenizer of the same name, kept for writing the config
    back; they do not change decoding.

    >>> ByteLevel().decode(["Hello", ",", "Ġworld", "Ġ", "Ã©"])
    'Hello, world é'
    >>> ByteLevel().decode(["ãģ"])                  # half a character
    '\\ufffd'
    """

    def __init__(
        self, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True
    ) -> None:
        self.add_prefix_space = add_prefix_space
        self.trim_offsets = trim_offsets
        self.use_regex = use_regex

    def decode_chain(self, tokens: list[str]) -> list[str]:
        table = _byte_level_table()
        data = bytearray()
        for token in tokens:
            try:
                data.extend([table[c] for c in token])
            except KeyError:
                data.extend(token.encode("utf-8", "surrogatepass"))
        return [data.decode("utf-8", errors="replace")]

    def describe(self) -> str:
        return "ByteLevel (bytes -> UTF-8)"

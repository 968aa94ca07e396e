"""`Fuse`: all tokens joined into one (`src/decoders/fuse.rs`)."""

from __future__ import annotations

from .base import _Decoder


class Fuse(_Decoder):
    """Join all tokens into one.

    >>> Fuse().decode_chain(["a", "b", "c"])
    ['abc']
    """

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return ["".join(tokens)]

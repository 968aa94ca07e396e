"""`Sequence`: decoders in a row (`src/decoders/sequence.rs`)."""

from __future__ import annotations

from typing import Any, Iterable

from ..errors import InvalidInput
from .base import _Decoder


class Sequence(_Decoder):
    """Decoders in a row, each taking the token list the previous one left.

    >>> from tokenizers_core.decoders import ByteFallback, Fuse
    >>> Sequence([ByteFallback(), Fuse()]).decode_chain(["<0x41>", "b"])
    ['Ab']
    """

    def __init__(self, decoders: Iterable[Any]) -> None:
        items = list(decoders)
        for d in items:
            if not callable(getattr(d, "decode_chain", None)):
                raise InvalidInput(f"Sequence: {d!r} is not a decoder (it has no decode_chain)")
        self.decoders = items

    def decode_chain(self, tokens: list[str]) -> list[str]:
        for decoder in self.decoders:
            tokens = decoder.decode_chain(tokens)
        return tokens

    def describe(self) -> str:
        return "Sequence [" + ", ".join(d.describe() for d in self.decoders) + "]"

    def to_hf_config(self) -> dict[str, Any]:
        configs = []
        for d in self.decoders:
            if not callable(getattr(d, "to_hf_config", None)):
                raise InvalidInput(f"the decoder {type(d).__name__} has no tokenizer.json form")
            configs.append(d.to_hf_config())
        return {"type": "Sequence", "decoders": configs}

"""`Strip`: characters cut from each token's ends, as Llama 2 cuts the space its normaliser put
in front (`src/decoders/strip.rs`)."""

from __future__ import annotations

from ..errors import InvalidInput
from .base import _Decoder


class Strip(_Decoder):
    """Remove up to `start` leading and up to `stop` trailing `content` characters from each
    token (Llama 2 strips the space its normaliser put in front: `Strip(" ", 1, 0)`).

    >>> Strip(" ", 1, 0).decode_chain(["  a ", " b"])
    [' a ', 'b']
    """

    def __init__(self, content: str = " ", start: int = 0, stop: int = 0) -> None:
        if not isinstance(content, str) or len(content) != 1:
            raise InvalidInput("Strip: content must be exactly one character")
        for name, value in (("start", start), ("stop", stop)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise InvalidInput(f"Strip: {name} must be a whole number >= 0, not {value!r}")
        self.content = content
        self.start = start
        self.stop = stop

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token in tokens:
            start_cut = 0
            for i in range(min(self.start, len(token))):
                if token[i] != self.content:
                    break
                start_cut = i + 1
            stop_cut = len(token)
            for i in range(min(self.stop, len(token) - start_cut)):
                index = len(token) - i - 1
                if token[index] != self.content:
                    break
                stop_cut = index
            out.append(token[start_cut:stop_cut])
        return out

    def describe(self) -> str:
        return f"Strip ({self.content!r}, start {self.start}, stop {self.stop})"

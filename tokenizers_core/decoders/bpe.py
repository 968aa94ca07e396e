"""`BPEDecoder`: an end-of-word suffix such as GPT-1's "</w>" back to spaces
(`src/decoders/bpe.rs`), and `EndOfWordDecoder`, the "bpe" tokeniser's own."""

from __future__ import annotations

from .base import _Decoder


class BPEDecoder(_Decoder):
    """Undo an end-of-word suffix (GPT-1's "</w>"): every occurrence becomes a space, except
    in the last token, where it is removed.

    >>> BPEDecoder().decode(["lo", "w</w>", "er</w>"])
    'low er'
    """

    def __init__(self, suffix: str = "</w>") -> None:
        self.suffix = suffix

    def decode_chain(self, tokens: list[str]) -> list[str]:
        last = len(tokens) - 1
        return [
            token.replace(self.suffix, "" if i == last else " ") for i, token in enumerate(tokens)
        ]

    def describe(self) -> str:
        return f"BPEDecoder ({self.suffix!r} -> space)"


class EndOfWordDecoder:
    """Decoder for "bpe": a token ending in "</w>" ends a word, so it becomes a space.

    >>> EndOfWordDecoder().decode(["low", "er</w>", "new", "</w>"])
    'lower new'
    """

    def __init__(self, suffix: str = "</w>") -> None:
        self.suffix = suffix

    def decode(self, tokens: list[str]) -> str:
        return "".join(t.replace(self.suffix, " ") for t in tokens).rstrip(" ")

    def describe(self) -> str:
        return f"BPEDecoder ({self.suffix} ends a word)"

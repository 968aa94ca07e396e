"""`CTC`: a CTC speech model's output (wav2vec2) read as text (`src/decoders/ctc.rs`)."""

from __future__ import annotations

from .base import _Decoder
from .wordpiece import wordpiece_cleanup


class CTC(_Decoder):
    """Read the output of a CTC speech model (wav2vec2): repeated tokens collapse into one,
    `pad_token` is removed, and with `cleanup` the WordPiece tidying applies and
    `word_delimiter_token` becomes a space; tokens left empty are dropped.

    >>> CTC().decode(["<pad>", "h", "h", "e", "l", "l", "<pad>", "l", "o", "|", "a"])
    'hello a'
    """

    def __init__(
        self, pad_token: str = "<pad>", word_delimiter_token: str = "|", cleanup: bool = True
    ) -> None:
        self.pad_token = pad_token
        self.word_delimiter_token = word_delimiter_token
        self.cleanup = cleanup

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        previous: str | None = None
        for token in tokens:
            if token == previous:  # collapse repeats (before anything else)
                continue
            previous = token
            text = token.replace(self.pad_token, "") if self.pad_token else token
            if self.cleanup:
                text = wordpiece_cleanup(text)
                if self.word_delimiter_token:
                    text = text.replace(self.word_delimiter_token, " ")
            if text:
                out.append(text)
        return out

    def describe(self) -> str:
        return f"CTC (pad {self.pad_token!r}, delimiter {self.word_delimiter_token!r})"

"""`SentencePieceDecoder`: sentencepiece's own `Decode`, for `.model` files (not a Hugging Face
decoder)."""

from __future__ import annotations

import re

_SP_BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")


def _utf8_char_length(data: bytes, i: int) -> int:
    """Length of the valid UTF-8 character at data[i], or 0 if the bytes there are malformed."""
    b = data[i]
    if b < 0x80:
        return 1
    for length, lo, hi in ((2, 0xC2, 0xDF), (3, 0xE0, 0xEF), (4, 0xF0, 0xF4)):
        if lo <= b <= hi:
            chunk = data[i : i + length]
            if len(chunk) < length:
                return 0
            try:
                chunk.decode("utf-8")
            except UnicodeDecodeError:
                return 0
            return length
    return 0


class SentencePieceDecoder:
    """Join sentencepiece pieces back into text, as sentencepiece's `Decode`: "▁" becomes a space,
    the space the dummy prefix added at the start is dropped, control pieces vanish, `<unk>`
    becomes " ⁇ ", and runs of byte pieces (`<0xE3><0x81><0x82>`) are read as UTF-8 (a malformed
    byte becomes U+FFFD).

    >>> SentencePieceDecoder().decode(["▁Hello", "▁wor", "ld", "<0x21>"])
    'Hello world<0x21>'
    >>> SentencePieceDecoder(byte_fallback=True).decode(["▁a", "<0xE3>", "<0x81>", "<0x82>"])
    'aあ'
    """

    def __init__(
        self,
        *,
        replacement: str = "\u2581",
        unk_piece: str = "<unk>",
        unk_surface: str = " \u2047 ",
        control: tuple[str, ...] = ("<s>", "</s>"),
        strip_leading_space: bool = True,
        remove_extra_whitespaces: bool = True,
        byte_fallback: bool = False,
    ) -> None:
        self.replacement = replacement
        self.unk_piece = unk_piece
        self.unk_surface = unk_surface
        self.control = frozenset(control)
        self.strip_leading_space = strip_leading_space
        self.remove_extra_whitespaces = remove_extra_whitespaces
        self.byte_fallback = byte_fallback

    def describe(self) -> str:
        return (
            f"SentencePiece ({self.replacement} -> space{', bytes' if self.byte_fallback else ''})"
        )

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self.decode(tokens)]

    def _byte(self, piece: str) -> int:
        """`<0xE3>` -> 227 when the model has byte pieces; -1 otherwise."""
        if not self.byte_fallback:
            return -1
        m = _SP_BYTE_PIECE.fullmatch(piece)
        return int(m.group(1), 16) if m else -1

    def decode(self, tokens: list[str]) -> str:
        parts: list[str] = []
        pending = bytearray()
        bos_ws_seen = False
        is_bos_ws = True

        def flush() -> None:
            data = bytes(pending)
            i = 0
            while i < len(data):
                n = _utf8_char_length(data, i)
                if n == 0:
                    parts.append("\ufffd")
                    i += 1
                else:
                    parts.append(data[i : i + n].decode("utf-8"))
                    i += n
            pending.clear()

        for piece in tokens:
            b = self._byte(piece)
            if b >= 0:
                pending.append(b)
                continue
            flush()
            if bos_ws_seen or any(parts):
                is_bos_ws = False
            if piece in self.control:
                text, bos_ws_seen = "", False
            elif piece == self.unk_piece:
                text, bos_ws_seen = self.unk_surface, False
            else:
                has_bos_ws = False
                if is_bos_ws and self.strip_leading_space and piece.startswith(self.replacement):
                    piece = piece[len(self.replacement) :]
                    has_bos_ws = not self.remove_extra_whitespaces
                text, bos_ws_seen = piece.replace(self.replacement, " "), has_bos_ws
            parts.append(text)
        flush()
        return "".join(parts)

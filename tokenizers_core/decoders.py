"""Decoders: turn a list of token strings back into text (stage 5, after the model).

Each decoder has `decode(tokens: list[str]) -> str` and `describe() -> str`. Decoders of the
model families are appended below by the family that needs them (byte-level, WordPiece,
Metaspace).
"""
from __future__ import annotations


# ---- WordPiece (helper W) -------------------------------------------------------------------
_WORDPIECE_CLEANUP = (
    (" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
    (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"),
)


class WordPiece:
    """Join WordPiece tokens: a token with the continuation prefix is glued to the one before
    (prefix removed), any other token gets a space in front. With `cleanup` (the default), the
    spaces Hugging Face's decoder tidies away are removed (" ." -> ".", " n't" -> "n't", ...),
    token by token, exactly as its `decoders.WordPiece` does.

    >>> WordPiece().decode(["hello", ",", "un", "##aff", "##able", "world", "!"])
    'hello, unaffable world!'
    >>> WordPiece(cleanup=False).decode(["hello", ",", "world"])
    'hello , world'

    It does not restore case or accents the normaliser removed.
    """

    def __init__(self, prefix: str = "##", cleanup: bool = True) -> None:
        self.prefix = prefix
        self.cleanup = cleanup

    def decode(self, tokens: list[str]) -> str:
        parts: list[str] = []
        for i, token in enumerate(tokens):
            if i:
                if token.startswith(self.prefix):
                    token = token[len(self.prefix):]
                else:
                    token = " " + token
            if self.cleanup:
                for dirty, clean in _WORDPIECE_CLEANUP:
                    token = token.replace(dirty, clean)
            parts.append(token)
        return "".join(parts)

    def describe(self) -> str:
        return f"WordPiece (join {self.prefix!r} pieces{', tidy spaces' if self.cleanup else ''})"


# ---- SentencePiece / Metaspace (helper U) ---------------------------------------------------------
import re as _re

_SP_BYTE_PIECE = _re.compile(r"<0x([0-9A-F]{2})>")


def _utf8_char_length(data: bytes, i: int) -> int:
    """Length of the valid UTF-8 character at data[i], or 0 if the bytes there are malformed."""
    b = data[i]
    if b < 0x80:
        return 1
    for length, lo, hi in ((2, 0xC2, 0xDF), (3, 0xE0, 0xEF), (4, 0xF0, 0xF4)):
        if lo <= b <= hi:
            chunk = data[i:i + length]
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

    def __init__(self, *, replacement: str = "\u2581", unk_piece: str = "<unk>",
                 unk_surface: str = " \u2047 ", control: tuple[str, ...] = ("<s>", "</s>"),
                 strip_leading_space: bool = True, remove_extra_whitespaces: bool = True,
                 byte_fallback: bool = False) -> None:
        self.replacement = replacement
        self.unk_piece = unk_piece
        self.unk_surface = unk_surface
        self.control = frozenset(control)
        self.strip_leading_space = strip_leading_space
        self.remove_extra_whitespaces = remove_extra_whitespaces
        self.byte_fallback = byte_fallback

    def describe(self) -> str:
        return f"SentencePiece ({self.replacement} -> space{', bytes' if self.byte_fallback else ''})"

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
                    parts.append(data[i:i + n].decode("utf-8"))
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
                    piece = piece[len(self.replacement):]
                    has_bos_ws = not self.remove_extra_whitespaces
                text, bos_ws_seen = piece.replace(self.replacement, " "), has_bos_ws
            parts.append(text)
        flush()
        return "".join(parts)


# ---- byte-level BPE (helper B) ----------------------------------------------------------------
import functools as _functools


@_functools.lru_cache(maxsize=1)
def _byte_level_table() -> dict[str, int]:
    from .pre_tokenizers import unicode_to_bytes
    return unicode_to_bytes()


class ByteLevel:
    """Join byte-level tokens (GPT-2's byte-to-unicode spelling, "Ġ" for a space) and read the
    bytes as UTF-8, as Hugging Face's `decoders.ByteLevel` and tiktoken's `decode` do. Bytes that
    are not valid UTF-8 become U+FFFD (only possible for ids that split a character; views show
    such tokens as `<E3 81>` instead, see `models.bpe.show_bytes`). Characters outside the
    byte-level alphabet (e.g. special tokens) are kept as they are.

    >>> ByteLevel().decode(["Hello", ",", "Ġworld", "Ġ", "Ã©"])
    'Hello, world é'
    """

    def decode(self, tokens: list[str]) -> str:
        table = _byte_level_table()
        out: list[str] = []
        buf = bytearray()
        for token in tokens:
            if all(c in table for c in token):
                buf.extend(table[c] for c in token)
            else:
                out.append(buf.decode("utf-8", errors="replace"))
                buf.clear()
                out.append(token)
        out.append(buf.decode("utf-8", errors="replace"))
        return "".join(out)

    def describe(self) -> str:
        return "ByteLevel (bytes -> UTF-8)"

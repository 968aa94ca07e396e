"""GPT-2's byte-level alphabet: each byte spelt as one printable character (`Ġ` for a space), so
that byte-level BPE can work on strings. Shared by the ByteLevel normaliser, pre-tokenizer and
decoder, and by the byte-level BPE models (a base module: it imports nothing of the pipeline)."""

from __future__ import annotations

from .errors import InvalidInput
from .normalized import NormalizedString


# ---- the GPT-2 byte-to-unicode table -------------------------------------------------------------
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map from each byte to a printable character.

    Bytes that are already printable and not a space (`!`..`~`, `¡`..`¬`, `®`..`ÿ`) stand for
    themselves; the other 68 bytes get the characters from U+0100 upwards, in byte order.

    >>> table = bytes_to_unicode()
    >>> table[ord("A")], table[ord(" ")], table[ord("\\n")], len(set(table.values()))
    ('A', 'Ġ', 'Ċ', 256)
    """
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    table = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return dict(sorted(table.items()))


def unicode_to_bytes() -> dict[str, int]:
    """The inverse of `bytes_to_unicode`.

    >>> unicode_to_bytes()["Ġ"]
    32
    """
    return {c: b for b, c in bytes_to_unicode().items()}


# The table, built once: every other module imports these rather than deriving its own.
BYTE_TO_CHAR: dict[int, str] = bytes_to_unicode()
"""Byte -> its byte-level character; also `str.translate`'s table from Latin-1 text (one code
point per byte) to the byte-level spelling."""
CHAR_TO_BYTE: dict[str, int] = unicode_to_bytes()
"""Byte-level character -> its byte (the inverse of `BYTE_TO_CHAR`)."""
CHAR_TO_LATIN1: dict[int, int] = {ord(c): b for c, b in CHAR_TO_BYTE.items()}
"""`str.translate`'s table from the byte-level spelling back to Latin-1 text (one code point per
byte); a character outside the alphabet passes through unchanged."""

_ASCII_BYTE_CHARS = {b: BYTE_TO_CHAR[b] for b in range(128)}  # a str.translate table


# ---- spelling text and bytes in the alphabet, and back -------------------------------------------
def bytes_to_byte_level(data: bytes) -> str:
    """Bytes spelt in the byte-level alphabet (any bytes, UTF-8 or not).

    >>> bytes_to_byte_level(b" \\xc3\\xa9")
    'ĠÃ©'
    """
    return data.decode("latin-1").translate(BYTE_TO_CHAR)


def str_to_byte_level(text: str) -> str:
    """The GPT-2 byte-level spelling of `text`: each UTF-8 byte as one printable character (a
    lone surrogate as the 3 bytes "surrogatepass" writes). For a `NormalizedString` with its
    alignments, see `to_byte_level`.

    >>> str_to_byte_level("a é")
    'aĠÃ©'
    """
    return text.encode("utf-8", "surrogatepass").decode("latin-1").translate(BYTE_TO_CHAR)


def byte_level_to_bytes(token: str) -> bytes:
    """The bytes a byte-level token stands for (`ValueError` for a character outside the table).

    >>> byte_level_to_bytes("ĠÃ©")
    b' \\xc3\\xa9'
    """
    try:
        return bytes(CHAR_TO_BYTE[c] for c in token)
    except KeyError as err:
        raise InvalidInput(f"{err.args[0]!r} is not a byte-level character") from None


def to_byte_level(piece: NormalizedString) -> NormalizedString:
    """Spell each character of `piece` as its UTF-8 bytes through `bytes_to_unicode`.

    An ASCII character stays one character with its own span; the 2-4 byte characters of a
    multi-byte character all get that character's span.

    >>> p = to_byte_level(NormalizedString("é!"))
    >>> p.normalized, p.alignments
    ('Ã©!', [(0, 1), (0, 1), (1, 2)])
    """
    text = piece.normalized
    start = piece.span(0, 0)[0]
    if text.isascii():  # the common case: one byte per character
        out = text.translate(_ASCII_BYTE_CHARS)
        if piece.is_identity:
            return NormalizedString(piece.original, _normalized=out, _shift=start)
        return NormalizedString(
            piece.original, _normalized=out, _align=piece.alignments, _shift=start
        )
    # every byte of a character takes that character's span in the original text
    data = text.encode("utf-8", "surrogatepass")
    out = data.decode("latin-1").translate(BYTE_TO_CHAR)
    align = [span for c, span in zip(text, piece.alignments) for _ in range(_utf8_length(c))]
    return NormalizedString(piece.original, _normalized=out, _align=align, _shift=start)


def _utf8_length(c: str) -> int:
    """How many UTF-8 bytes `c` takes (a lone surrogate: 3, as "surrogatepass" writes it)."""
    cp = ord(c)
    return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4

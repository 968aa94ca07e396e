"""Reading the tokenizer of a GGUF file (llama.cpp's model format) without reading its tensors.

A GGUF file is, in order (all little-endian; the layout of ggml's `docs/gguf.md`):

    magic "GGUF" | version u32 (2 or 3) | tensor count u64 | key-value count u64
    key-value pairs: key (u64 length + UTF-8) | value type u32 | value
    tensor infos ... | padding | tensor data (gigabytes)

A value is a number, a bool, a string (u64 length + bytes) or an array (element type u32, count
u64, elements). The tokenizer lives in the key-value section (`tokenizer.ggml.model`,
`.tokens`, `.scores`, `.token_type`, `.merges`, ...), so this module reads the file up to the end
of that section and stops: a 4 GB model costs the few megabytes of its vocabulary.

Every count and length read from the file is checked against what can still follow it before
anything is allocated, so a hostile header declaring 10^12 strings fails at once:

>>> read_metadata(b"GGUF" + (3).to_bytes(4, "little") + (0).to_bytes(8, "little")
...               + (10**12).to_bytes(8, "little"))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tokenizers_core.errors.InvalidInput: the GGUF header declares 1,000,000,000,000 key-value pairs; ...

`gguf_tokenizer.py` turns the metadata into a `Tokenizer` as llama.cpp does. What this module
does not handle: GGUF version 1 (32-bit counts, 2023) and big-endian files (both are refused
with a message).
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from ..errors import InvalidInput
from .files import GGUF_MAGIC, MAX_FILE_BYTES

MAX_KV_PAIRS = 1 << 16
MAX_ARRAY = 2_000_000  # a tokenizer.json's bound on merges (Llama 4 has 200,000 tokens)
MAX_STRING = 16 * 1024 * 1024  # a chat template or a precompiled charsmap is a few hundred KB
_CHUNK = 1 << 20

# value type -> (name, struct format of one element); strings and arrays are read apart
_SCALARS: dict[int, tuple[str, str]] = {
    0: ("uint8", "B"),
    1: ("int8", "b"),
    2: ("uint16", "H"),
    3: ("int16", "h"),
    4: ("uint32", "I"),
    5: ("int32", "i"),
    6: ("float32", "f"),
    7: ("bool", "?"),
    10: ("uint64", "Q"),
    11: ("int64", "q"),
    12: ("float64", "d"),
}
STRING, ARRAY = 8, 9


@dataclass
class GGUFMetadata:
    """The header and key-value section of a GGUF file.

    `kv` maps each key to its value: int, float, bool, str, or a list of them (an array);
    `kv_end` is the byte offset where the key-value section ends (what an upload must hold).
    """

    version: int
    tensor_count: int
    kv: dict[str, Any] = field(default_factory=dict)
    kv_end: int = 0


class _Cursor:
    """Reads a GGUF's bytes front to back from a buffer that a file tops up as needed.

    `size` is what the whole source holds (the file's size, or the prefix's length): the
    bound every declared count is checked against.
    """

    def __init__(self, source: bytes | BinaryIO, size: int, prefix: bool) -> None:
        self.file: BinaryIO | None
        if isinstance(source, (bytes, bytearray)):
            self.file, self.buf = None, bytes(source)
        else:
            self.file, self.buf = source, b""
        self.start = 0  # the file offset of buf[0]
        self.pos = 0  # the file offset we are at
        self.size = size
        self.prefix = prefix

    def remaining(self) -> int:
        return self.size - self.pos

    def need(self, n: int, what: str) -> None:
        if n > self.remaining():
            if self.prefix:
                raise InvalidInput(
                    f"the upload is cut before the end of the GGUF metadata (at "
                    f"{what}, byte {self.pos:,}); send a longer prefix of the file"
                )
            raise InvalidInput(
                f"the GGUF file is truncated: {what} at byte {self.pos:,} needs "
                f"{n:,} bytes and {self.remaining():,} follow"
            )
        if self.file is not None and self.pos + n > self.start + len(self.buf):
            self._fill(n)

    def _fill(self, n: int) -> None:
        if self.pos + n > MAX_FILE_BYTES:
            raise InvalidInput(
                f"the GGUF key-value section is larger than {MAX_FILE_BYTES:,} "
                "bytes; the most we read"
            )
        keep = self.buf[self.pos - self.start :]
        self.start = self.pos
        assert self.file is not None
        more = self.file.read(max(n - len(keep), _CHUNK))
        self.buf = keep + more
        if len(self.buf) < n:
            raise InvalidInput("the GGUF file is shorter than its size says (read error)")

    def bound(self, count: int, unit: int, most: int, declares: str) -> None:
        """Check a declared count before allocating for it: at most `most`, and `count` items of
        at least `unit` bytes each must fit in what follows (in a prefix: say it is cut)."""
        if count > most:
            raise InvalidInput(f"{declares}, more than the {most:,} we read")
        if count * unit > self.remaining():
            if self.prefix:
                self.need(count * unit, declares.split(" declares")[0])
            raise InvalidInput(f"{declares}, more than the file holds")

    def strings(self, count: int, key: str) -> list[str]:
        """`count` strings (u64 length + UTF-8 each): `_string`'s work in one tight loop, since
        a vocabulary is hundreds of thousands of them. The bytes are decoded all at once,
        joined by NUL (UTF-8 never reads an ASCII byte as part of another character, so the
        pieces split back exactly; a string holding NUL itself takes the slow way)."""
        pieces = []
        length = struct.Struct("<Q").unpack_from
        buf, start, pos, end = self.buf, self.start, self.pos, self.start + len(self.buf)
        for i in range(count):
            if pos + 8 > end:
                buf, start, end = self._refill(pos, 8, f"element {i} of {key!r}")
            (n,) = length(buf, pos - start)
            pos += 8
            if n > MAX_STRING or n > self.size - pos:
                self.pos = pos
                self.bound(n, 1, MAX_STRING, f"element {i} of {key!r} declares {n:,} bytes")
            if pos + n > end:
                buf, start, end = self._refill(pos, n, f"element {i} of {key!r}")
            pieces.append(buf[pos - start : pos - start + n])
            pos += n
        self.pos = pos
        joined = b"\0".join(pieces)
        out = joined.decode("utf-8", errors="replace").split("\0") if count else []
        if len(out) != count:
            out = [p.decode("utf-8", errors="replace") for p in pieces]
        return out

    def _refill(self, pos: int, n: int, what: str) -> tuple[bytes, int, int]:
        self.pos = pos
        self.need(n, what)
        return self.buf, self.start, self.start + len(self.buf)

    def unpack(self, fmt: str, what: str) -> tuple:
        n = struct.calcsize(fmt)
        self.need(n, what)
        values = struct.unpack_from(fmt, self.buf, self.pos - self.start)
        self.pos += n
        return values

    def take(self, n: int, what: str) -> bytes:
        self.need(n, what)
        at = self.pos - self.start
        self.pos += n
        return self.buf[at : at + n]


def read_metadata(source: bytes | str, *, prefix: bool = False) -> GGUFMetadata:
    """The header and key-value section of a GGUF file: `source` is its bytes (or, with
    `prefix=True`, the first bytes of it, as an upload sends them) or a file path.

    ValueError when it is not GGUF, is cut short, or declares more than it could hold.
    """
    if isinstance(source, (bytes, bytearray)):
        return _read(_Cursor(source, len(source), prefix))
    try:
        with open(source, "rb") as fh:
            size = fh.seek(0, io.SEEK_END)
            fh.seek(0)
            return _read(_Cursor(fh, size, prefix=False))
    except OSError as exc:
        raise InvalidInput(f"cannot read {source!r}: {exc.strerror}") from None


def _read(cur: _Cursor) -> GGUFMetadata:
    if cur.take(4, "the magic") != GGUF_MAGIC:
        raise InvalidInput("not a GGUF file: it does not start with the bytes 'GGUF'")
    (version,) = cur.unpack("<I", "the version")
    if version not in (2, 3):
        hint = (
            " (the file is big-endian, which we do not read)"
            if int.from_bytes(version.to_bytes(4, "little"), "big") in (2, 3)
            else ""
        )
        raise InvalidInput(
            f"GGUF version {version} is not supported; we read versions 2 and 3{hint}"
        )
    tensor_count, kv_count = cur.unpack("<QQ", "the counts")
    if kv_count > MAX_KV_PAIRS:
        raise InvalidInput(
            f"the GGUF header declares {kv_count:,} key-value pairs; the most we "
            f"read is {MAX_KV_PAIRS:,}"
        )
    meta = GGUFMetadata(version, tensor_count)
    for _ in range(kv_count):
        key = _string(cur, "a key")
        (kind,) = cur.unpack("<I", f"the type of {key!r}")
        meta.kv[key] = _value(cur, kind, key)
    meta.kv_end = cur.pos
    return meta


def _string(cur: _Cursor, what: str) -> str:
    (n,) = cur.unpack("<Q", f"the length of {what}")
    cur.bound(n, 1, MAX_STRING, f"{what} declares {n:,} bytes")
    return cur.take(n, what).decode("utf-8", errors="replace")


def _value(cur: _Cursor, kind: int, key: str) -> Any:
    if kind in _SCALARS:
        return cur.unpack("<" + _SCALARS[kind][1], key)[0]
    if kind == STRING:
        return _string(cur, key)
    if kind == ARRAY:
        return _array(cur, key)
    raise InvalidInput(f"{key!r} has value type {kind}, which GGUF does not define")


def _array(cur: _Cursor, key: str) -> list:
    kind, count = cur.unpack("<IQ", f"the array header of {key!r}")
    smallest = 8 if kind in (STRING, ARRAY) else struct.calcsize(_SCALARS.get(kind, ("", "B"))[1])
    cur.bound(count, smallest, MAX_ARRAY, f"{key!r} declares {count:,} elements")
    if kind in _SCALARS:
        fmt = _SCALARS[kind][1]
        return list(cur.unpack(f"<{count}{fmt}", key))
    if kind == STRING:
        return cur.strings(count, key)
    if kind == ARRAY:
        raise InvalidInput(f"{key!r} is an array of arrays, which no tokenizer key is")
    raise InvalidInput(f"{key!r} is an array of value type {kind}, which GGUF does not define")

"""What every format reader shares: the size limit, gunzip with that limit, the zip signature."""
from __future__ import annotations

import zlib

# The largest tokenizer file we read, after decompression (Llama 4's tokenizer.json is 12 MB).
MAX_FILE_BYTES = 64 * 1024 * 1024
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
GGUF_MAGIC = b"GGUF"          # llama.cpp's model files (formats/gguf.py)


class TooLarge(ValueError):
    """A file that unpacks (gunzip, unzip) to more than the limit."""


def gunzip(data: bytes, limit: int = MAX_FILE_BYTES) -> bytes:
    """`data` itself, or its gzip decompression when it is gzip; never more than `limit` bytes
    are produced (a gzip bomb stops there with a ValueError).

    >>> import gzip
    >>> gunzip(gzip.compress(b"abc"))
    b'abc'
    """
    if not data.startswith(b"\x1f\x8b"):
        return data
    inflater = zlib.decompressobj(wbits=31)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise ValueError(f"the file is not valid gzip: {exc}") from None
    if len(out) > limit:
        raise TooLarge(f"the file decompresses to more than {limit:,} bytes")
    if not inflater.eof:
        raise ValueError("the gzip file is truncated")
    return out

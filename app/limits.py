"""Reading what users send, within limits: uploaded files, gzip inside them, text with lone
surrogates, and the size of a whole request body.

Every way a corpus or a file comes in goes through these helpers, so one limit (the documented
one, `TOKVIS_MAX_CORPUS_BYTES` / `TOKVIS_MAX_UPLOAD_BYTES`) holds for pasted text, JSON bodies,
form posts and uploads alike. Each helper raises `HTTPException` with a 4xx status and a message a
user can act on; none holds more than the limit (plus one chunk) in memory.

    data = await read_upload(file, limit)          # 413 past the limit
    data = maybe_gunzip(data, limit)               # 413 past the limit once decompressed,
                                                   # 422 for a truncated or broken gzip stream
"""
from __future__ import annotations

import zlib

from fastapi import HTTPException, UploadFile

CHUNK = 64 * 1024
GZIP_MAGIC = b"\x1f\x8b"


def too_large(what: str, size_text: str, limit: int, setting: str) -> HTTPException:
    return HTTPException(413, f"the {what} is {size_text}; the limit is {limit:,} bytes "
                              f"(set {setting} to change it)")


async def read_upload(file: UploadFile, limit: int, setting: str = "TOKVIS_MAX_UPLOAD_BYTES") -> bytes:
    """The bytes of an uploaded file, read in chunks; 413 as soon as it passes `limit`."""
    data = bytearray()
    while True:
        chunk = await file.read(CHUNK)
        if not chunk:
            return bytes(data)
        data += chunk
        if len(data) > limit:
            raise too_large("file", f"over {limit:,} bytes", limit, setting)


def gunzip_capped(data: bytes, limit: int, setting: str = "TOKVIS_MAX_UPLOAD_BYTES") -> bytes:
    """Decompress gzip `data` (one or more members), never producing more than `limit` bytes:
    the decompressor is asked for at most the bytes still allowed, so a gzip bomb stops after
    `limit` bytes of output, not after it has filled the memory.

    413 when the output would pass `limit`; 422 for a stream that is truncated, corrupt or not
    gzip at all.

    >>> import gzip
    >>> gunzip_capped(gzip.compress(b"abc") + gzip.compress(b"def"), 10)
    b'abcdef'
    """
    out = bytearray()
    rest = data
    while True:
        if rest[:2] != GZIP_MAGIC:
            raise HTTPException(422, "the file is not valid gzip (bad header)")
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pending = rest
        while not inflate.eof:
            try:
                out += inflate.decompress(pending, limit + 1 - len(out))
            except zlib.error as exc:
                raise HTTPException(422, f"the file is not valid gzip ({exc})") from None
            if len(out) > limit:
                raise too_large("file", f"over {limit:,} bytes once decompressed", limit, setting)
            pending = inflate.unconsumed_tail
            if not pending and not inflate.eof:
                raise HTTPException(422, "the gzip stream is truncated (it ends before its "
                                         "last block)")
        rest = inflate.unused_data.lstrip(b"\0")   # gzip pads members with zeros at times
        if not rest:
            return bytes(out)


def maybe_gunzip(data: bytes, limit: int, setting: str = "TOKVIS_MAX_UPLOAD_BYTES") -> bytes:
    """`gunzip_capped(data)` if `data` starts with the gzip magic number, else `data`."""
    return gunzip_capped(data, limit, setting) if data[:2] == GZIP_MAGIC else data


def text_of(data: bytes) -> str:
    """Uploaded bytes as UTF-8 text (a BOM is dropped); 422 if they are not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise HTTPException(422, f"the file is not UTF-8 text (bad byte at {exc.start})") from None


def without_lone_surrogates(text: str) -> str:
    """Replace each lone surrogate with U+FFFD, as tiktoken's `Encoding.encode` does; a JSON
    string may hold one (`"\\ud800"`) though no UTF-8 text can. One character stays one
    character, so offsets still index the text as sent.

    >>> without_lone_surrogates("a\\ud800b")
    'a\\ufffdb'
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def check_corpus_size(text: str, limit: int) -> None:
    """413 if `text` is over the corpus limit in UTF-8 bytes."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise too_large("corpus", f"{size:,} bytes", limit, "TOKVIS_MAX_CORPUS_BYTES")


def body_limit(max_corpus_bytes: int, *max_file_bytes: int) -> int:
    """The largest request body worth reading: the biggest corpus, percent- or JSON-escaped (up
    to 3 bytes sent per byte of text), or the biggest file, plus room for the other fields."""
    return max(3 * max_corpus_bytes, *max_file_bytes) + 1_000_000

"""What every format reader shares: the size limit, gunzip with that limit, reading a zip
member by member under that limit, the signatures."""

from __future__ import annotations

import io
import zipfile
import zlib

from ..errors import InvalidInput

# The largest tokenizer file we read, after decompression (Llama 4's tokenizer.json is 12 MB).
MAX_FILE_BYTES = 64 * 1024 * 1024
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
GGUF_MAGIC = b"GGUF"  # llama.cpp's model files (formats/gguf.py)


class TooLarge(InvalidInput):
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
        raise InvalidInput(f"the file is not valid gzip: {exc}") from None
    if len(out) > limit:
        raise TooLarge(f"the file decompresses to more than {limit:,} bytes")
    if not inflater.eof:
        raise InvalidInput("the gzip file is truncated")
    return out


# A model folder holds a dozen files; reading a zip's directory costs time and memory per member
# (300,000 members took 42 s), so its count is read from the archive's last record first.
MAX_ZIP_MEMBERS = 1000
_END_OF_DIRECTORY = b"PK\x05\x06"


def zip_member_count(data: bytes) -> int | None:
    """The number of entries a zip's end-of-central-directory record announces (None when no
    record is found), read without parsing the directory itself. 0xFFFF means "see the zip64
    record": a count at least that large.

    >>> import io, zipfile
    >>> out = io.BytesIO()
    >>> with zipfile.ZipFile(out, "w") as z:
    ...     z.writestr("a.txt", "a"); z.writestr("b/c.txt", "c")
    >>> zip_member_count(out.getvalue())
    2
    """
    at = data.rfind(_END_OF_DIRECTORY, max(0, len(data) - 65_557))
    if at < 0 or at + 12 > len(data):
        return None
    return int.from_bytes(data[at + 10 : at + 12], "little")


def zip_files(data: bytes) -> tuple[zipfile.ZipFile, list[zipfile.ZipInfo]]:
    """A zip archive and its files (folders left out); ValueError when it cannot be read or
    holds more than MAX_ZIP_MEMBERS entries."""
    count = zip_member_count(data)
    if count is not None and count > MAX_ZIP_MEMBERS:
        raise InvalidInput(
            f"the zip holds {count:,}{'+' if count == 0xFFFF else ''} entries; a "
            f"tokenizer's zip (a model folder, vocab.json + merges.txt) holds at "
            f"most {MAX_ZIP_MEMBERS:,}"
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        return archive, [i for i in archive.infolist() if not i.is_dir()]
    except (zipfile.BadZipFile, EOFError, OSError) as exc:
        raise InvalidInput(
            f"this .zip cannot be read (is it cut short, or not a zip?): {exc}"
        ) from None


def read_zip_members(
    archive: zipfile.ZipFile, members: list[zipfile.ZipInfo], limit: int
) -> list[bytes]:
    """The members' bytes, never more than `limit` together: a zip bomb stops at the cap
    (TooLarge), whatever sizes the archive claims."""
    left, out = limit, []
    for member in members:
        try:
            with archive.open(member) as fh:
                part = fh.read(left + 1)
        except (zipfile.BadZipFile, EOFError, OSError, RuntimeError, ValueError) as exc:
            raise InvalidInput(f"{member.filename} in the zip cannot be read: {exc}") from None
        if len(part) > left:
            raise TooLarge(f"the zip's files unzip to more than {limit:,} bytes")
        left -= len(part)
        out.append(part)
    return out

"""`Counts`: the pre-token counts of a corpus, compact in memory, and the counts file format.

In memory a `Counts` holds three flat buffers, not a dict: the pre-tokens' UTF-8 bytes joined in
one `bytes` (sorted by those bytes, which is code-point order), an `array` of where each ends,
and an `array` of the counts: about 16 bytes per distinct pre-token beside its own bytes, where a
`dict[str, int]` spends some 100 (a str object, an int object, a hash slot). Two counts merge as
sorted streams (`merge`), never as two dicts.

The file (version 1), a header a person can read, then the buffers gzip-compressed:

    tokvis-counts 1\\n
    {"format": "tokvis-counts", "version": 1, "counted_under": {...}, "signature": "<sha256>",
     "distinct": N, "total": T, "min_frequency": M, "body": "..."}\\n
    gzip( N little-endian uint64 counts | N little-endian uint32 byte lengths | the pre-tokens'
          UTF-8 bytes, in order )

`counted_under` is the `CountedUnder` (`under.py`); the gzip stream has no name and no time in it,
so counting the same corpus twice, or its shards apart and merged, writes the same bytes.

>>> c = Counts.from_words({"b": 1, "a": 2}, counted_under("bpe"))
>>> list(c.items()), c.total, len(c)
([('a', 2), ('b', 1)], 3, 2)
>>> Counts.from_bytes(c.to_bytes()) == c
True
"""

from __future__ import annotations

import gzip
import heapq
import io
import json
import sys
from array import array
from itertools import accumulate
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from ...errors import InvalidInput
from .under import CountedUnder, counted_under, differences

__all__ = ["MAGIC", "VERSION", "Counts", "counted_under"]

MAGIC = b"tokvis-counts"
VERSION = 1
BODY = (
    "gzip: N little-endian uint64 counts, N little-endian uint32 byte lengths, then the "
    "pre-tokens' UTF-8 bytes, sorted by those bytes"
)
_LITTLE = sys.byteorder == "little"


class Counts:
    """The pre-token counts of a corpus under one set of rules (`counted_under`)."""

    def __init__(
        self,
        under: CountedUnder,
        blob: bytes,
        ends: array,
        counts: array,
        *,
        min_frequency: int = 0,
    ) -> None:
        self.counted_under = under
        self._blob = blob
        self._ends = ends  # array("Q"): where pre-token i's bytes end in `_blob`
        self._counts = counts  # array("Q")
        self.min_frequency = min_frequency

    # -- building -----------------------------------------------------------------------------
    @classmethod
    def from_words(
        cls, words: Mapping[str, int], under: CountedUnder, *, min_frequency: int = 0
    ) -> "Counts":
        """From a dict pre-token -> count (those under `min_frequency` left out)."""
        keys = sorted(k for k, n in words.items() if n >= max(min_frequency, 1))
        return cls.from_sorted(
            ((k.encode("utf-8", "surrogatepass"), words[k]) for k in keys),
            under,
            min_frequency=min_frequency,
        )

    @classmethod
    def from_sorted(
        cls, items: Iterable[tuple[bytes, int]], under: CountedUnder, *, min_frequency: int = 0
    ) -> "Counts":
        """From (UTF-8 bytes, count) pairs already in byte order, each key once."""
        blob = bytearray()
        ends, counts = array("Q"), array("Q")
        for key, n in items:
            blob += key
            ends.append(len(blob))
            counts.append(n)
        return cls(under, bytes(blob), ends, counts, min_frequency=min_frequency)

    # -- reading ------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._counts)

    @property
    def total(self) -> int:
        """How many pre-tokens the corpus had (the sum of the counts)."""
        return sum(self._counts)

    @property
    def signature(self) -> str:
        return self.counted_under.signature

    def byte_items(self) -> Iterator[tuple[bytes, int]]:
        """(UTF-8 bytes, count) in byte order."""
        blob, start = self._blob, 0
        for end, n in zip(self._ends, self._counts):
            yield blob[start:end], n
            start = end

    def items(self) -> Iterator[tuple[str, int]]:
        """(pre-token, count) in code-point order."""
        for key, n in self.byte_items():
            yield key.decode("utf-8", "surrogatepass"), n

    def to_dict(self) -> dict[str, int]:
        """The counts as a dict (one str per pre-token: what a trainer starts from)."""
        return dict(self.items())

    def most_common(self, k: int) -> list[tuple[str, int]]:
        """The `k` most frequent pre-tokens, ties in code-point order."""
        return heapq.nsmallest(k, self.items(), key=lambda kv: -kv[1])

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Counts)
            and self.signature == other.signature
            and self.min_frequency == other.min_frequency
            and self._counts == other._counts
            and self._ends == other._ends
            and self._blob == other._blob
        )

    def __repr__(self) -> str:
        return (
            f"Counts({self.counted_under.algorithm}, {len(self):,} distinct pre-tokens, "
            f"{self.total:,} in all)"
        )

    def pruned(self, min_frequency: int) -> "Counts":
        """These counts without the pre-tokens seen fewer than `min_frequency` times (0 and 1
        keep all)."""
        if min_frequency <= 1:
            return self
        return Counts.from_sorted(
            ((k, n) for k, n in self.byte_items() if n >= min_frequency),
            self.counted_under,
            min_frequency=min_frequency,
        )

    def header(self) -> dict[str, Any]:
        """The file's header: what was counted, under what, how much."""
        return {
            "format": MAGIC.decode(),
            "version": VERSION,
            "counted_under": self.counted_under.to_dict(),
            "described": self.counted_under.describe(),
            "signature": self.signature,
            "distinct": len(self),
            "total": self.total,
            "min_frequency": self.min_frequency,
            "body": BODY,
        }

    # -- the file -----------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        out = io.BytesIO()
        self.write(out)
        return out.getvalue()

    def save(self, path: str | Path, *, compresslevel: int = 9) -> None:
        with open(path, "wb") as fh:
            self.write(fh, compresslevel=compresslevel)

    def write(self, fh: Any, *, compresslevel: int = 9) -> None:
        fh.write(MAGIC + b" %d\n" % VERSION)
        fh.write(json.dumps(self.header(), ensure_ascii=False).encode("utf-8") + b"\n")
        counts, lengths = array("Q", self._counts), array("I")
        lengths.extend(b - a for a, b in zip([0, *self._ends], self._ends))
        if not _LITTLE:
            counts.byteswap()
            lengths.byteswap()
        with gzip.GzipFile(
            fileobj=fh, mode="wb", mtime=0, filename="", compresslevel=compresslevel
        ) as z:
            z.write(counts.tobytes())
            z.write(lengths.tobytes())
            z.write(self._blob)

    @classmethod
    def from_bytes(
        cls, data: bytes, where: str = "the counts file", max_body: int | None = None
    ) -> "Counts":
        """A counts file's bytes read back (`read`)."""
        return cls.read(io.BytesIO(data), where, max_body)

    @classmethod
    def load(cls, path: str | Path) -> "Counts":
        with open(path, "rb") as fh:
            return cls.read(fh, str(path))

    @classmethod
    def read(cls, fh: Any, where: str = "the counts file", max_body: int | None = None) -> "Counts":
        """Read a counts file; InvalidInput naming `where` for anything else, and for a body
        that unpacks to more than `max_body` bytes (None: no limit)."""
        first = fh.readline(64)
        if not first.startswith(MAGIC + b" "):
            raise InvalidInput(f"{where} is not a tokvis counts file (made by `tokvis count`)")
        version = first[len(MAGIC) + 1 :].strip()
        if version != b"%d" % VERSION:
            raise InvalidInput(
                f"{where} is counts format version {version.decode(errors='replace')}; this "
                f"release reads version {VERSION}"
            )
        try:
            header = json.loads(fh.readline(1 << 20))
            under = CountedUnder.from_dict(header["counted_under"])
            n, min_frequency = int(header["distinct"]), int(header.get("min_frequency", 0))
            body = gzip.GzipFile(fileobj=fh, mode="rb").read(
                -1 if max_body is None else max_body + 1
            )
        except (ValueError, KeyError, TypeError, OSError, EOFError) as exc:
            raise InvalidInput(f"{where} is damaged ({exc})") from None
        if max_body is not None and len(body) > max_body:
            raise InvalidInput(f"{where} unpacks to more than {max_body:,} bytes")
        if header.get("signature") != under.signature:
            raise InvalidInput(f"{where} is damaged: its signature does not match its rules")
        counts, lengths = array("Q"), array("I")
        size_counts, size_lengths = n * counts.itemsize, n * lengths.itemsize
        counts.frombytes(body[:size_counts])
        lengths.frombytes(body[size_counts : size_counts + size_lengths])
        if not _LITTLE:
            counts.byteswap()
            lengths.byteswap()
        blob = body[size_counts + size_lengths :]
        ends = array("Q", accumulate(lengths))
        if len(counts) != n or len(lengths) != n or (ends[-1] if n else 0) != len(blob):
            raise InvalidInput(f"{where} is damaged: it holds fewer pre-tokens than it says")
        return cls(under, blob, ends, counts, min_frequency=min_frequency)


def merge(parts: Iterable[Counts], *, min_frequency: int = 0) -> Counts:
    """The sum of counts made under the same rules: the same `Counts` as counting their corpora
    together (then `min_frequency` applied). Raises InvalidInput for counts made under other
    rules (naming both), or pruned ones (a pruned shard has lost counts the sum needs).

    >>> a = Counts.from_words({"low": 2, "new": 1}, counted_under("bpe"))
    >>> b = Counts.from_words({"low": 1, "wide": 3}, counted_under("bpe"))
    >>> list(merge([a, b]).items())
    [('low', 3), ('new', 1), ('wide', 3)]
    """
    parts = list(parts)
    if not parts:
        raise InvalidInput("give at least one counts file to merge")
    first = parts[0]
    for i, part in enumerate(parts):
        if part.signature != first.signature:
            differs = "; ".join(
                f"{k} {x} vs {y}"
                for k, x, y in differences(first.counted_under, part.counted_under)
            )
            raise InvalidInput(
                f"counts {i + 1} were made under other rules than counts 1, so they do not "
                f"add up ({differs})"
            )
        if part.min_frequency > 1:
            raise InvalidInput(
                f"counts {i + 1} were pruned at a minimum frequency of {part.min_frequency}, "
                "so their sum would miss what each left out: merge the unpruned counts, "
                "then prune the sum (--min-frequency)"
            )
    summed = Counts.from_sorted(
        _summed(heapq.merge(*(p.byte_items() for p in parts))), first.counted_under
    )
    return summed.pruned(min_frequency)


def _summed(items: Iterable[tuple[bytes, int]]) -> Iterator[tuple[bytes, int]]:
    """Sorted (key, count) pairs with equal keys added up."""
    key: bytes | None = None
    total = 0
    for k, n in items:
        if k == key:
            total += n
            continue
        if key is not None:
            yield key, total
        key, total = k, n
    if key is not None:
        yield key, total

"""Reading the pieces of a sentencepiece `.model` fast, for `sentencepiece_model.parse_model_proto`.

A `.model` holds one `SentencePiece` message per piece (32,000 in Mistral's, 262,144 in AI21's),
nearly all laid out alike: `0A len` (ModelProto field 1), then `0A len text` (piece), `15 f32`
(score) and, unless the type is NORMAL, `18 type` -- every length and the type one byte. Two
readers of that layout, each handing back the position of the first field it does not read, for
the generic protobuf reader to take:

- `read_pieces_fast`: one compiled `re` cuts a window of the file into those fields at C speed,
  and whole-list comparisons check that each cut is exactly the message's protobuf framing (its
  length bytes agree with what was cut, the text is UTF-8); the first cut that fails, and all
  after it, are left to the others. What it reads is what the generic reader reads.
- `read_plain_pieces`: the same layout one piece at a time with fixed offsets (for a stretch of
  the file where the fast reader keeps stopping early).

And what sentencepiece's `ModelInterface::InitializePieces` checks of them (`check_columns`).

>>> cols = [], [], []
>>> read_pieces_fast(b"\\x0a\\x08\\x0a\\x01a\\x15\\x00\\x00\\xc0\\xbf\\x12\\x00", 0, *cols), cols
(10, (['a'], [-1.5], [1]))
"""

from __future__ import annotations

import re
import struct
from itertools import compress, count
from operator import add
from typing import Any, Sequence

from ..added_tokens import common_prefix
from ..errors import InvalidInput
from ..models.sentencepiece_common import (
    BYTE,
    MATCHED_TYPES,
    NORMAL,
    PIECE_TYPES,
    UNKNOWN,
    PieceIndex,
    index_pieces,
    piece_to_byte,
    type_mask,
)

Columns = tuple[Sequence[str], Sequence[float], Sequence[int]]  # (texts, scores, types)

_FLOAT = struct.Struct("<f")
# one message: its length (1 byte) 0A, the text's length (1 byte), the text (no 15 byte in it,
# so the score's key ends it), 15 and the score, then perhaps 18 and a one-byte type
_PIECE = re.compile(
    rb"\x0a([\x00-\x7f]\x0a[\x00-\x7f])([^\x15]*)\x15(....)(\x18[\x00-\x7f])?", re.DOTALL
)
_STRIDE = 5  # re.split gives the bytes between two matches, then the 4 groups of the match
_TYPES: dict[bytes | None, int] = {bytes((0x18, t)): t for t in range(128)}
_TYPES[None] = NORMAL
# the message's length once the text's is taken away: 0A len, 15 f32 and perhaps 18 type
_REST: dict[bytes | None, int] = {bytes((0x18, t)): 9 for t in range(128)}
_REST[None] = 7
WINDOW = 1 << 14  # bytes cut at a time (a piece that crosses the edge is read by the next cut)


def read_pieces_fast(
    data: bytes,
    pos: int,
    texts: list[str],
    scores: list[float],
    types: list[int],
    *,
    window: int = WINDOW,
) -> int:
    """Append the pieces laid out as sentencepiece writes them from `pos` on (in the `window`
    bytes from there) to the three columns; return the position of the first field not read."""
    parts = _PIECE.split(data[pos : pos + window])
    between = parts[0::_STRIDE]
    # the matches that follow each other from `pos` with nothing between them
    k = next(compress(count(), between), len(between) - 1)
    heads = b"".join(parts[1 : _STRIDE * k : _STRIDE])  # per piece: message length, 0A, text length
    cut = parts[2 : _STRIDE * k : _STRIDE]
    rest = parts[4 : _STRIDE * k : _STRIDE]
    sizes, text_sizes = heads[0::3], heads[2::3]
    k = min(
        common_prefix(bytes(map(len, cut)), text_sizes),  # the text is as long as its length says
        common_prefix(
            bytes(map(add, text_sizes, map(_REST.__getitem__, rest))), sizes
        ),  # the message
    )
    if not k:
        return pos
    try:
        strings = b"\x15".join(cut[:k]).decode("utf-8")
    except UnicodeDecodeError as exc:  # (UTF-8 is not broken by an ASCII separator)
        k = exc.object[: exc.start].count(b"\x15")  # the pieces before the bad one
        if not k:
            return pos
        strings = b"\x15".join(cut[:k]).decode("utf-8")
    texts += strings.split("\x15")
    scores += struct.unpack(f"<{k}f", b"".join(parts[3 : _STRIDE * k : _STRIDE]))
    types += map(_TYPES.__getitem__, rest[:k])
    return pos + sum(sizes[:k]) + 2 * k


def read_plain_pieces(
    data: bytes, pos: int, texts: list[str], scores: list[float], types: list[int]
) -> int:
    """Append the pieces laid out as sentencepiece writes them from `pos` on, one at a time with
    fixed offsets; return the position of the first field that is not one.

    >>> cols = [], [], []
    >>> data = b"\\x0a\\x08\\x0a\\x01a\\x15\\x00\\x00\\xc0\\xbf\\x12\\x00"
    >>> read_plain_pieces(data, 0, *cols), cols
    (10, (['a'], [-1.5], [1]))
    """
    n = len(data)
    unpack_score = _FLOAT.unpack_from
    while pos + 9 <= n and data[pos] == 0x0A:
        size, text_len = data[pos + 1], data[pos + 3]
        end = pos + 2 + size  # the message is data[pos + 2 : end]
        score_at = pos + 4 + text_len
        if size > 0x7F or text_len > 0x7F or data[pos + 2] != 0x0A or end > n:
            break
        if score_at + 5 > end or data[score_at] != 0x15:
            break
        if end == score_at + 5:
            ptype = NORMAL
        elif end == score_at + 7 and data[score_at + 5] == 0x18 and data[end - 1] < 0x80:
            ptype = data[end - 1]
        else:
            break
        try:
            piece = data[pos + 4 : score_at].decode("utf-8")
        except UnicodeDecodeError:
            break  # (the generic reader says what is wrong)
        texts.append(piece)
        scores.append(unpack_score(data, score_at + 1)[0])
        types.append(ptype)
        pos = end
    return pos


# ---- what sentencepiece checks of the pieces -------------------------------------------------


def check_pieces(pieces: list[tuple[str, float, int]], trainer: dict[str, Any]) -> None:
    """What sentencepiece checks of the pieces (see `parse_model_proto`)."""
    texts, scores, types = tuple(zip(*pieces)) or ((), (), ())
    check_columns((texts, scores, types), trainer)


def check_columns(columns: Columns, trainer: dict[str, Any]) -> PieceIndex:
    """`check_pieces` of the pieces by column: whole-list checks first, and only when one fails
    the piece-by-piece loop that names the first bad piece. Returns their `index_pieces` (which
    the checks read, and the model can take)."""
    texts, _scores, types = columns
    if not texts:
        raise InvalidInput("not a sentencepiece model file: it has no pieces")
    index = index_pieces(texts, types)
    byte_values = _byte_values(texts, types)
    if not _pieces_look_valid(types, index, byte_values):
        _check_each_piece(list(zip(*columns)))
    unknown = types.count(UNKNOWN)
    if unknown != 1:
        raise InvalidInput(
            f"not a valid sentencepiece model: it needs exactly one <unk> piece, found {unknown}"
        )
    byte_pieces = set(byte_values)
    if byte_pieces and not trainer["byte_fallback"]:
        raise InvalidInput("not a valid sentencepiece model: byte pieces without byte_fallback")
    if trainer["byte_fallback"] and len(byte_pieces) != 256:
        raise InvalidInput("not a valid sentencepiece model: byte_fallback needs 256 byte pieces")
    return index


def _byte_values(texts: Sequence[str], types: Sequence[int]) -> list[int]:
    """The byte each byte piece stands for (-1 for one not spelled `<0xNN>`), in id order."""
    if BYTE not in types:
        return []
    return list(map(piece_to_byte, compress(texts, type_mask(types, _BYTE))))


def _pieces_look_valid(types: Sequence[int], index: PieceIndex, byte_values: list[int]) -> bool:
    """What `_check_each_piece` checks, over whole lists: known types, no empty piece, none
    defined twice (among the pieces the text is matched against, or among the reserved ones:
    a spelling both matched and reserved is allowed), byte pieces spelled `<0xNN>`.

    >>> texts, types = ["<unk>", "a", "a"], [UNKNOWN, NORMAL, NORMAL]
    >>> _pieces_look_valid(types[:2], index_pieces(texts[:2], types[:2]), [])
    True
    >>> _pieces_look_valid(types, index_pieces(texts, types), [])
    False
    """
    if not set(types) <= PIECE_TYPES.keys() or index.repeats:
        return False
    if "" in index.matched or "" in index.reserved:
        return False
    return -1 not in byte_values


_BYTE = frozenset((BYTE,))


def _check_each_piece(pieces: list[tuple[str, float, int]]) -> None:
    """The first piece of an unknown type, empty, defined twice (among matched pieces or among
    reserved ones) or an invalid byte piece raises InvalidInput."""
    seen: set[tuple[bool, str]] = set()
    for i, (piece, _score, ptype) in enumerate(pieces):
        if ptype not in PIECE_TYPES:
            raise InvalidInput(
                f"not a sentencepiece model file: piece {i} has unknown type {ptype}"
            )
        if not piece:
            raise InvalidInput(f"not a sentencepiece model file: piece {i} is empty")
        key = (ptype in MATCHED_TYPES, piece)
        if key in seen:
            raise InvalidInput(f"not a valid sentencepiece model: piece {piece!r} is defined twice")
        seen.add(key)
        if ptype == BYTE and piece_to_byte(piece) < 0:
            raise InvalidInput(f"not a valid sentencepiece model: byte piece {piece!r} is invalid")

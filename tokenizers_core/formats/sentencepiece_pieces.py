"""Reading the pieces of a sentencepiece `.model` fast, for `sentencepiece_model.parse_model_proto`.

A `.model` holds one `SentencePiece` message per piece (32,000 in Mistral's, 262,144 in AI21's),
nearly all laid out alike: `0A len` (ModelProto field 1), then `0A len text` (piece), `15 f32`
(score) and, unless the type is NORMAL, `18 type` -- every length and the type one byte. Two
readers of that layout, each handing back the position of the first field it does not read, for
the generic protobuf reader to take:

- `read_pieces_fast`: one compiled `re` cuts a window of the file at C speed into the texts and
  what lies between two of them (a score, perhaps a type, the next message's head), and
  whole-list comparisons check that each cut is exactly the message's protobuf framing (its
  length bytes agree with what was cut, the text is UTF-8); the first cut that fails, and all
  after it, are left to the others, as is the last piece before another field. What it reads
  is what the generic reader reads.
- `read_plain_pieces`: the same layout one piece at a time with fixed offsets (for a stretch of
  the file where the fast reader keeps stopping early).

And what sentencepiece's `ModelInterface::InitializePieces` checks of them (`check_columns`).

>>> a = b"\\x0a\\x08\\x0a\\x01a\\x15\\x00\\x00\\xc0\\xbf"
>>> b = b"\\x0a\\x08\\x0a\\x01b\\x15\\x00\\x00\\x00\\xc0"
>>> cols = [], [], []
>>> read_pieces_fast(a + b + b"\\x12\\x00", 0, *cols), cols
(10, (['a'], [-1.5], [1]))
"""

from __future__ import annotations

import re
import struct
import sys
from itertools import compress, repeat
from typing import Any, Sequence, cast

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
# the head of a message laid out so: its length (1 byte), 0A and the text's length (1 byte)
_HEAD = re.compile(rb"\x0a[\x00-\x7f]\x0a[\x00-\x7f]")
# what lies between one piece's text and the next's: 15 and the score, perhaps 18 and a one-byte
# type, then the next message's head; re.split leaves the texts between two of these "glues"
_GLUE = re.compile(rb"\x15(....(?:\x18[\x00-\x7f])?\x0a[\x00-\x7f]\x0a[\x00-\x7f])", re.DOTALL)
_PLAIN, _TYPED = 8, 10  # a glue's length (after the 15): without a type, with one
# a message's length is its text's and this: 0A len, 15 f32, perhaps 18 type (a glue's less 1)
_PLUS = {g: bytes(min(b + g - 1, 255) for b in range(256)) for g in (_PLAIN, _TYPED)}
_LITTLE_ENDIAN = sys.byteorder == "little"
_SCORE_OF_TYPED = struct.Struct(f"<f{_TYPED - 4}x")
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
    head = data[pos : pos + 4]
    if not _HEAD.fullmatch(head):
        return pos
    parts = _GLUE.split(data[pos + 4 : pos + window])
    cut, glues = parts[0::2], parts[1::2]  # piece i: its text cut[i], then glues[i]
    lengths = bytes(map(len, glues))
    done = 0
    while done < len(glues):  # a run of untyped pieces, then of typed ones, ...
        end = _run_end(lengths, done)
        first = head if done == 0 else glues[done - 1][-4:]
        read, size = _read_run(cut[done:end], glues[done:end], first, texts, scores, types)
        pos, done = pos + size, done + read
        if done < end:
            break
    return pos


def _run_end(lengths: bytes, start: int) -> int:
    """Where the run of equal `lengths` from `start` ends.

    >>> _run_end(bytes([8, 8, 10, 8]), 0), _run_end(bytes([8, 8, 10, 8]), 2)
    (2, 3)
    """
    rest = lengths[start:]
    return len(lengths) - len(rest.lstrip(rest[:1]))


def _read_run(
    cut: list[bytes],
    glues: list[bytes],
    head: bytes,
    texts: list[str],
    scores: list[float],
    types: list[int],
) -> tuple[int, int]:
    """Append the pieces of `cut` (their texts) and `glues` (all of one length), the first
    headed by `head`, while each is exactly its message's framing (its length bytes agree with
    what was cut, its text is UTF-8): checked by whole-list comparisons. Returns how many were
    read and their bytes."""
    glue = len(glues[0])
    joined = b"".join(glues)
    # per piece: the message's length and the text's, the first from `head`, each next from
    # the glue before it
    sizes = head[1:2] + joined[glue - 3 :: glue]
    text_sizes = head[3:4] + joined[glue - 1 :: glue]
    k = min(
        common_prefix(_lengths(cut), text_sizes[: len(cut)]),
        common_prefix(text_sizes[: len(cut)].translate(_PLUS[glue]), sizes),
    )
    k = _append_texts(cut[:k], texts)
    scores += _scores(joined[: glue * k], glue)
    types += repeat(NORMAL, k) if glue == _PLAIN else joined[5 : glue * k : glue]
    return k, sum(sizes[:k]) + 2 * k


def _lengths(texts: list[bytes]) -> bytes:
    """Each text's length as a byte (255 for a longer one: no text read here is so long)."""
    try:
        return bytes(map(len, texts))
    except ValueError:
        return bytes(min(len(text), 255) for text in texts)


def _append_texts(cut: list[bytes], texts: list[str]) -> int:
    """Append the texts, decoded, up to the first that holds a 15 byte (the separator they are
    decoded with) or is not UTF-8; return how many."""
    k = len(cut)
    joined = b"\x15".join(cut)
    if k and joined.count(b"\x15") != k - 1:  # (rare: a piece is or holds U+0015)
        k = next(i for i, text in enumerate(cut) if b"\x15" in text)
        joined = b"\x15".join(cut[:k])
    try:
        strings = joined.decode("utf-8")
    except UnicodeDecodeError as exc:  # (UTF-8 is not broken by an ASCII separator)
        k = exc.object[: exc.start].count(b"\x15")  # the pieces before the bad one
        strings = b"\x15".join(cut[:k]).decode("utf-8")
    if k:
        texts += strings.split("\x15")
    return k


def _scores(glues: bytes, glue: int) -> list[float]:
    """The score at the start of each glue (little-endian f32), at C speed."""
    if glue == _PLAIN and _LITTLE_ENDIAN:  # 8 bytes each: every other float of the buffer
        return cast("list[float]", memoryview(glues).cast("f")[0::2].tolist())
    step = _SCORE_OF_TYPED if glue == _TYPED else struct.Struct(f"<f{glue - 4}x")
    return [score for (score,) in step.iter_unpack(glues)]


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

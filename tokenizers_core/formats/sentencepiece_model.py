"""Reading sentencepiece `.model` files without protobuf, into a `Tokenizer`.

A `.model` file is a serialised `ModelProto` (sentencepiece's `sentencepiece_model.proto`): the
pieces with their scores and types, a `TrainerSpec` (model type, special pieces, byte fallback ...)
and a `NormalizerSpec` whose `precompiled_charsmap` holds the character normalisation (for example
`nmt_nfkc`) as a darts-clone double-array trie plus a blob of NUL-terminated replacement strings.
This module reads the protobuf wire format by hand (stdlib only) and builds a `Tokenizer` that
runs as sentencepiece runs the model (the runtime parts: `normalizers/sentencepiece.py`,
`models/bpe/sentencepiece.py`, `models/sentencepiece_common.py`):

    SentencePieceNormalizer  ->  (no pre-tokenizer)  ->  Unigram or SentencePieceBpe  ->  decoder

>>> _read_varint(b"\\x96\\x01", 0)
(150, 2)

All four model types load (unigram, bpe, char, word). What it does not handle: the optional
`denormalizer_spec` (applied by sentencepiece after decoding; no bundled model has one) and
big-endian charsmaps.
"""

from __future__ import annotations

import functools
import gzip
import os
import struct
from itertools import compress
from typing import Any, Iterator, Sequence

from ..decoders import SentencePieceDecoder
from ..errors import InvalidInput
from ..models.bpe.model import gc_paused
from ..models.bpe.sentencepiece import SentencePieceBpe, SentencePieceSplit
from ..models.sentencepiece_common import (
    CONTROL,
    NORMAL,
    UNKNOWN,
    USER_DEFINED,
    PieceIndex,
    index_pieces,
    type_mask,
)
from ..models.unigram.model import Unigram
from ..normalizers.sentencepiece import PrecompiledCharsMap, SentencePieceNormalizer
from ..pipeline import Tokenizer
from .files import gunzip
from .sentencepiece_pieces import (
    Columns,
    check_columns,
    read_pieces_fast,
    read_plain_pieces,
)

# ---- the protobuf wire format ------------------------------------------------------------------

_FLOAT = struct.Struct("<f")
_DOUBLE = struct.Struct("<d")
Buffer = bytes | memoryview  # what the wire readers take (a memoryview: slices without copies)


def _read_varint(data: Buffer, pos: int) -> tuple[int, int]:
    """Decode a base-128 varint at `pos`; return (value, next position)."""
    result = 0
    shift = 0
    while True:
        if pos >= len(data):
            raise InvalidInput("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise InvalidInput("varint is too long")


def _fields(data: Buffer) -> list[tuple[int, int, Any]]:
    """All fields of one protobuf message as (field number, wire type, raw value).

    Varints come back as ints, fixed32/fixed64 as their raw bytes, length-delimited fields as bytes
    (slices of `data`: memoryviews when `data` is one, so a large field is not copied).

    >>> _fields(b"\\x08\\x96\\x01\\x12\\x02hi")
    [(1, 0, 150), (2, 2, b'hi')]
    """
    out: list[tuple[int, int, Any]] = []
    pos = 0
    while pos < len(data):
        number, wire, value, pos = _read_field(data, pos)
        out.append((number, wire, value))
    return out


def _read_field(data: Buffer, pos: int) -> tuple[int, int, Any, int]:
    """The field at `pos` as (field number, wire type, raw value, next position).

    >>> _read_field(b"\\x12\\x02hi", 0)
    (2, 2, b'hi', 4)
    """
    n = len(data)
    key, pos = _read_varint(data, pos)
    number, wire = key >> 3, key & 7
    if number == 0:
        raise InvalidInput("field number 0 is invalid")
    value: int | Buffer
    if wire == 0:
        value, pos = _read_varint(data, pos)
    elif wire == 1:
        if pos + 8 > n:
            raise InvalidInput("truncated fixed64 field")
        value, pos = data[pos : pos + 8], pos + 8
    elif wire == 2:
        length, pos = _read_varint(data, pos)
        if pos + length > n:
            raise InvalidInput("truncated length-delimited field")
        value, pos = data[pos : pos + length], pos + length
    elif wire == 5:
        if pos + 4 > n:
            raise InvalidInput("truncated fixed32 field")
        value, pos = data[pos : pos + 4], pos + 4
    else:
        raise InvalidInput(f"unsupported wire type {wire}")
    return number, wire, value, pos


def _as_str(value: Any, what: str) -> str:
    if not isinstance(value, (bytes, memoryview)):
        raise InvalidInput(f"{what} should be a string")
    try:
        return str(value, "utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{what} is not valid UTF-8") from None


def _as_float(value: Any, what: str) -> float:
    if not isinstance(value, (bytes, memoryview)) or len(value) != 4:
        raise InvalidInput(f"{what} should be a 32-bit float")
    return _FLOAT.unpack(value)[0]


def _as_int(value: Any, what: str) -> int:
    if not isinstance(value, int):
        raise InvalidInput(f"{what} should be an integer")
    if value >= 1 << 63:  # negative int32/int64 values are sign-extended to 64 bits
        value -= 1 << 64
    return value


# The TrainerSpec / NormalizerSpec fields this package uses: number -> (name, kind, default).
_TRAINER_FIELDS: dict[int, tuple[str, str, Any]] = {
    3: ("model_type", "int", 1),
    4: ("vocab_size", "int", 8000),
    10: ("character_coverage", "float", 0.9995),
    14: ("seed_sentencepiece_size", "int", 1000000),
    15: ("shrinking_factor", "float", 0.75),
    17: ("num_sub_iterations", "int", 2),
    20: ("max_sentencepiece_length", "int", 16),
    21: ("split_by_unicode_script", "bool", True),
    22: ("split_by_whitespace", "bool", True),
    23: ("split_by_number", "bool", True),
    24: ("treat_whitespace_as_suffix", "bool", False),
    25: ("split_digits", "bool", False),
    26: ("allow_whitespace_only_pieces", "bool", False),
    35: ("byte_fallback", "bool", False),
    40: ("unk_id", "int", 0),
    41: ("bos_id", "int", 1),
    42: ("eos_id", "int", 2),
    43: ("pad_id", "int", -1),
    44: ("unk_surface", "str", " \u2047 "),
    45: ("unk_piece", "str", "<unk>"),
    46: ("bos_piece", "str", "<s>"),
    47: ("eos_piece", "str", "</s>"),
    48: ("pad_piece", "str", "<pad>"),
}
_NORMALIZER_FIELDS: dict[int, tuple[str, str, Any]] = {
    1: ("name", "str", ""),
    2: ("precompiled_charsmap", "bytes", b""),
    3: ("add_dummy_prefix", "bool", True),
    4: ("remove_extra_whitespaces", "bool", True),
    5: ("escape_whitespaces", "bool", True),
    6: ("normalization_rule_tsv", "str", ""),
}
MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}


def _read_spec(data: Buffer, table: dict[int, tuple[str, str, Any]], what: str) -> dict[str, Any]:
    spec = {name: default for name, _kind, default in table.values()}
    for number, _wire, value in _fields(data):
        if number not in table:
            continue
        name, kind, _default = table[number]
        label = f"{what}.{name}"
        if kind == "int":
            spec[name] = _as_int(value, label)
        elif kind == "bool":
            spec[name] = bool(_as_int(value, label))
        elif kind == "float":
            spec[name] = _as_float(value, label)
        elif kind == "str":
            spec[name] = _as_str(value, label)
        else:
            if not isinstance(value, (bytes, memoryview)):
                raise InvalidInput(f"{label} should be bytes")
            spec[name] = bytes(value)
    return spec


class ModelProto:
    """The parts of a sentencepiece ModelProto this package uses.

    `pieces` are (piece, score, type) in id order; `trainer_spec` and `normalizer_spec` are dicts
    keyed by the proto field names (missing fields hold the proto defaults). A loader may give
    `columns`, the pieces as (texts, scores, types), instead of `pieces`: the list of tuples is
    then made when first asked for (`pieces` is not changed after).
    """

    def __init__(
        self,
        pieces: list[tuple[str, float, int]] | None,
        trainer_spec: dict[str, Any],
        normalizer_spec: dict[str, Any],
        denormalizer_spec: dict[str, Any] | None = None,
        *,
        columns: Columns | None = None,
        index: PieceIndex | None = None,
    ) -> None:
        if pieces is None and columns is None:
            raise InvalidInput("a ModelProto needs its pieces")
        self._pieces, self._columns, self._index = pieces, columns, index
        self.trainer_spec, self.normalizer_spec = trainer_spec, normalizer_spec
        self.denormalizer_spec = denormalizer_spec

    @property
    def pieces(self) -> list[tuple[str, float, int]]:
        if self._pieces is None:
            self._pieces = list(zip(*self.columns))
        return self._pieces

    @property
    def columns(self) -> Columns:
        """(texts, scores, types): `pieces` by column."""
        if self._columns is None:
            texts, scores, types = tuple(zip(*self.pieces)) or ((), (), ())
            self._columns = (texts, scores, types)
        return self._columns

    @property
    def index(self) -> PieceIndex:
        """`index_pieces` of the pieces (a reader that checked them gives the one it made)."""
        if self._index is None:
            texts, _scores, types = self.columns
            self._index = index_pieces(texts, types)
        return self._index

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ModelProto):
            return NotImplemented
        mine = (self.pieces, self.trainer_spec, self.normalizer_spec, self.denormalizer_spec)
        return mine == (
            other.pieces,
            other.trainer_spec,
            other.normalizer_spec,
            other.denormalizer_spec,
        )

    # (mutable, so unhashable, as a dataclass is)
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"ModelProto(pieces=<{len(self.columns[0])} pieces>, trainer_spec="
            f"{self.trainer_spec!r}, normalizer_spec={self.normalizer_spec!r})"
        )

    @property
    def model_type(self) -> str:
        return MODEL_TYPES.get(self.trainer_spec["model_type"], "unknown")


def parse_model_proto(data: bytes) -> ModelProto:
    """Parse the bytes of a `.model` file. Raises ValueError if it is not a sentencepiece model.

    Checks what sentencepiece's `ModelInterface::InitializePieces` checks: pieces exist, none is
    empty or defined twice, exactly one `<unk>`, and 256 byte pieces when byte fallback is on.
    """
    if not isinstance(data, (bytes, bytearray)):
        raise InvalidInput("a sentencepiece model must be given as bytes")
    data = bytes(data)
    data = gunzip(data)
    try:
        texts: list[str] = []
        scores: list[float] = []
        types: list[int] = []
        trainer = _read_spec(b"", _TRAINER_FIELDS, "trainer_spec")
        normalizer = _read_spec(b"", _NORMALIZER_FIELDS, "normalizer_spec")
        denormalizer = None
        view = memoryview(data)  # (its slices are not copies: the charsmap is ~240 KB)
        pos, plain_until = 0, 0
        while pos < len(data):
            # the common layout (`sentencepiece_pieces.py`): by windows at C speed, or piece by
            # piece for a while where the fast reader keeps stopping early
            if pos >= plain_until:
                start = pos
                pos = read_pieces_fast(data, pos, texts, scores, types)
                if pos - start < _FAST_ENOUGH:
                    plain_until = pos + _PLAIN_STRETCH
            else:
                pos = read_plain_pieces(data, pos, texts, scores, types)
            if pos >= len(data):
                break
            number, wire, value, pos = _read_field(view, pos)
            if number == 1 and wire == 2:
                for column, item in zip((texts, scores, types), _read_piece(value)):
                    column.append(item)  # type: ignore[attr-defined]
            elif number == 2 and wire == 2:
                trainer = _read_spec(value, _TRAINER_FIELDS, "trainer_spec")
            elif number == 3 and wire == 2:
                normalizer = _read_spec(value, _NORMALIZER_FIELDS, "normalizer_spec")
            elif number == 5 and wire == 2:
                denormalizer = _read_spec(value, _NORMALIZER_FIELDS, "denormalizer_spec")
            elif number in (1, 2, 3, 4, 5):
                raise InvalidInput(f"field {number} has the wrong wire type")
    except ValueError as exc:
        raise InvalidInput(f"not a sentencepiece model file: {exc}") from None
    columns = (texts, scores, _as_bytes(types))
    index = check_columns(columns, trainer)
    return ModelProto(None, trainer, normalizer, denormalizer, columns=columns, index=index)


def _as_bytes(types: list[int]) -> Sequence[int]:
    """The types as bytes when they fit (the type masks are then one `translate` each)."""
    try:
        return bytes(types)
    except ValueError:
        return types


# a fast read of fewer bytes than this: the next stretch of this many bytes is read piece by piece
_FAST_ENOUGH, _PLAIN_STRETCH = 1 << 10, 1 << 14


def _read_piece(message: Buffer) -> tuple[str, float, int]:
    """One `SentencePiece` message, any layout, as (piece, score, type).

    >>> _read_piece(b"\\x15\\x00\\x00\\xc0\\xbf\\x0a\\x01a")
    ('a', -1.5, 1)
    """
    piece, score, ptype = None, 0.0, NORMAL
    for number, _wire, value in _fields(message):
        if number == 1:
            piece = _as_str(value, "piece")
        elif number == 2:
            score = _as_float(value, "piece score")
        elif number == 3:
            ptype = _as_int(value, "piece type")
    if piece is None:
        raise InvalidInput("a piece has no text")
    return piece, score, ptype


# ---- building a Tokenizer from a ModelProto ------------------------------------------------------


def _pieces_of_type(proto: ModelProto, ptype: int) -> Iterator[str]:
    """The pieces of one type, in id order (selected at C speed)."""
    texts, _scores, types = proto.columns
    return compress(texts, type_mask(types, frozenset((ptype,))))


def normalizer_from_proto(proto: ModelProto) -> SentencePieceNormalizer:
    spec = proto.normalizer_spec
    blob = spec["precompiled_charsmap"]
    charsmap = PrecompiledCharsMap(blob) if blob else None
    user = tuple(_pieces_of_type(proto, USER_DEFINED))
    return SentencePieceNormalizer(
        charsmap,
        add_dummy_prefix=spec["add_dummy_prefix"],
        remove_extra_whitespaces=spec["remove_extra_whitespaces"],
        escape_whitespaces=spec["escape_whitespaces"],
        treat_whitespace_as_suffix=proto.trainer_spec["treat_whitespace_as_suffix"],
        user_defined=user,
        name=spec["name"] or ("custom" if blob else "identity"),
    )


def decoder_from_proto(proto: ModelProto) -> Any:
    """The decoder of the model's `Decode`: every control piece is invisible (sentencepiece's
    `DecodeSentencePiece` gives any control id an empty surface), not only `<s>` and `</s>`:
    Mistral's `[INST]`, `[TOOL_CALLS]` and `[control_8]` ... decode to nothing."""
    spec = proto.normalizer_spec
    unk = next(_pieces_of_type(proto, UNKNOWN))
    return SentencePieceDecoder(
        unk_piece=unk,
        control=tuple(_pieces_of_type(proto, CONTROL)),
        unk_surface=proto.trainer_spec["unk_surface"],
        strip_leading_space=spec["add_dummy_prefix"] or spec["remove_extra_whitespaces"],
        remove_extra_whitespaces=spec["remove_extra_whitespaces"],
        byte_fallback=proto.trainer_spec["byte_fallback"],
    )


def tokenizer_from_proto(proto: ModelProto, name: str = "") -> Any:
    """A `Tokenizer` that encodes exactly as sentencepiece does with this model."""
    kind = proto.model_type
    if kind == "unigram":
        texts, scores, types = proto.columns
        model: Any = Unigram(
            list(zip(texts, scores)),
            types=list(types),
            byte_fallback=proto.trainer_spec["byte_fallback"],
        )
        algorithm = "unigram"
    elif kind == "bpe":
        model = SentencePieceBpe(
            (),
            byte_fallback=proto.trainer_spec["byte_fallback"],
            columns=proto.columns,
            index=proto.index,
        )
        algorithm = "sentencepiece_bpe"
    elif kind in ("char", "word"):
        model = SentencePieceSplit(
            (),
            kind=kind,
            byte_fallback=proto.trainer_spec["byte_fallback"],
            columns=proto.columns,
            index=proto.index,
        )
        algorithm = f"sentencepiece_{kind}"
    else:
        raise InvalidInput(f"sentencepiece model type {kind!r} is not supported")
    tok = Tokenizer(
        model,
        normalizer=normalizer_from_proto(proto),
        pre_tokenizer=None,
        decoder=decoder_from_proto(proto),
        name=name,
        algorithm=algorithm,
    )
    tok.proto = proto  # type: ignore[attr-defined]
    return tok


def load_bytes(data: bytes, name: str = "") -> Any:
    """A `Tokenizer` from the bytes of a `.model` file (gzip-compressed is fine)."""
    with gc_paused:  # a tuple per piece and the dicts over them, none cyclic
        return tokenizer_from_proto(parse_model_proto(data), name=name)


_DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")


def _bundled(filename: str, name: str) -> Any:
    with gzip.open(os.path.join(_DATA, filename), "rb") as fh:
        return load_bytes(fh.read(), name=name)


def botchan_en_unigram_1000() -> Any:
    """sentencepiece's own test model: Unigram, 1,000 pieces, trained on Botchan."""
    return _bundled("botchan_en_unigram_1000.model.gz", "botchan_en_unigram_1000")


def botchan_en_bpe_1000() -> Any:
    """sentencepiece's own test model: BPE, 1,000 pieces, trained on Botchan."""
    return _bundled("botchan_en_bpe_1000.model.gz", "botchan_en_bpe_1000")


@functools.lru_cache(maxsize=None)
def _bundled_proto(filename: str) -> ModelProto:
    with gzip.open(os.path.join(_DATA, filename), "rb") as fh:
        return parse_model_proto(fh.read())


# ---- writing: a Tokenizer -> ModelProto -> the protobuf wire format ------------------------------

_MODEL_TYPE_IDS = {name: number for number, name in MODEL_TYPES.items()}


def _varint(value: int) -> bytes:
    """Base-128 varint; a negative int32/int64 as its 64-bit two's complement (10 bytes).

    >>> _varint(150), _varint(-1)[-1]
    (b'\\x96\\x01', 1)
    """
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, kind: str, value: Any) -> bytes:
    """One field on the wire, of a kind of `_TRAINER_FIELDS` ("int", "bool", "float", "str",
    "bytes") or "message" (bytes already serialised)."""
    if kind in ("int", "bool"):
        return _varint(number << 3) + _varint(int(value))
    if kind == "float":
        return _varint(number << 3 | 5) + _FLOAT.pack(value)
    data = value.encode("utf-8") if kind == "str" else bytes(value)
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _spec_bytes(spec: dict[str, Any], table: dict[int, tuple[str, str, Any]]) -> bytes:
    return b"".join(
        _field(number, kind, spec[name])
        for number, (name, kind, _default) in sorted(table.items())
        if name in spec
    )


def serialize_model_proto(proto: ModelProto) -> bytes:
    """The bytes of a `.model` file for `proto` (what `parse_model_proto` reads back).

    >>> p = parse_model_proto(serialize_model_proto(ModelProto(
    ...     [("<unk>", 0.0, UNKNOWN), ("a", -1.5, NORMAL)], {"model_type": 2},
    ...     {"name": "identity"})))
    >>> p.pieces, p.model_type, p.normalizer_spec["name"]
    ([('<unk>', 0.0, 2), ('a', -1.5, 1)], 'bpe', 'identity')
    """
    out = bytearray()
    for piece, score, ptype in proto.pieces:
        body = _field(1, "str", piece) + _field(2, "float", score) + _field(3, "int", ptype)
        out += _field(1, "message", body)
    out += _field(2, "message", _spec_bytes(proto.trainer_spec, _TRAINER_FIELDS))
    out += _field(3, "message", _spec_bytes(proto.normalizer_spec, _NORMALIZER_FIELDS))
    if proto.denormalizer_spec is not None:
        out += _field(5, "message", _spec_bytes(proto.denormalizer_spec, _NORMALIZER_FIELDS))
    return bytes(out)


def proto_from_tokenizer(tok: Any) -> ModelProto:
    """The ModelProto of a sentencepiece-style tokeniser: one loaded from a .model (its own
    proto), or one trained here ("unigram", "sentencepiece_bpe"). ValueError for others."""
    proto = getattr(tok, "proto", None)
    if isinstance(proto, ModelProto):
        return proto
    model, norm = tok.model, tok.normalizer
    if isinstance(model, Unigram):
        kind = "unigram"
    elif isinstance(model, SentencePieceBpe):
        kind = getattr(model, "kind", "bpe")
    else:
        kind = None
    if kind is None or not isinstance(norm, SentencePieceNormalizer):
        raise InvalidInput(
            f"{tok.name or tok.algorithm or 'this tokeniser'} is not a "
            "sentencepiece model (Unigram or sentencepiece BPE with sentencepiece's "
            "normaliser), so it has no .model form; save it as tokenizer.json"
        )
    pieces = [(p, float(s), t) for (p, s), t in zip(model.pieces, model.types)]
    ids = {p: i for i, (p, _s, _t) in enumerate(pieces)}
    unk = next(i for i, (_p, _s, t) in enumerate(pieces) if t == UNKNOWN)
    decoder = tok.decoder
    trainer = {
        "model_type": _MODEL_TYPE_IDS[kind],
        "vocab_size": len(pieces),
        "treat_whitespace_as_suffix": norm.treat_whitespace_as_suffix,
        "byte_fallback": bool(model.byte_fallback),
        "unk_id": unk,
        "bos_id": ids.get("<s>", -1),
        "eos_id": ids.get("</s>", -1),
        "pad_id": ids.get("<pad>", -1),
        "unk_piece": pieces[unk][0],
        "unk_surface": getattr(decoder, "unk_surface", " \u2047 "),
    }
    normalizer = {
        "name": norm.name or "identity",
        "precompiled_charsmap": norm.charsmap.blob if norm.charsmap else b"",
        "add_dummy_prefix": norm.add_dummy_prefix,
        "remove_extra_whitespaces": norm.remove_extra_whitespaces,
        "escape_whitespaces": norm.escape_whitespaces,
    }
    return ModelProto(pieces, trainer, normalizer)


def dump_bytes(tok: Any) -> bytes:
    """A `.model` file's bytes for a sentencepiece-style tokeniser (see `proto_from_tokenizer`)."""
    return serialize_model_proto(proto_from_tokenizer(tok))

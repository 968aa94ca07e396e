"""Reading sentencepiece `.model` files without protobuf, into a `Tokenizer`.

A `.model` file is a serialised `ModelProto` (sentencepiece's `sentencepiece_model.proto`): the
pieces with their scores and types, a `TrainerSpec` (model type, special pieces, byte fallback ...)
and a `NormalizerSpec` whose `precompiled_charsmap` holds the character normalisation (for example
`nmt_nfkc`) as a darts-clone double-array trie plus a blob of NUL-terminated replacement strings.
This module reads the protobuf wire format by hand (stdlib only) and builds a `Tokenizer` that
runs as sentencepiece runs the model (the runtime parts are in `tokenizers_core/sentencepiece.py`):

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
from dataclasses import dataclass
from typing import Any

from ..decoders import SentencePieceDecoder
from ..models.unigram import Unigram
from ..pipeline import Tokenizer
from ..sentencepiece import (BYTE, NORMAL, PIECE_TYPES, UNKNOWN, UNUSED, USER_DEFINED,
                             PrecompiledCharsMap, SentencePieceBpe, SentencePieceNormalizer,
                             SentencePieceSplit,
                             piece_to_byte)

# ---- the protobuf wire format ------------------------------------------------------------------

_FLOAT = struct.Struct("<f")
_DOUBLE = struct.Struct("<d")


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """Decode a base-128 varint at `pos`; return (value, next position)."""
    result = 0
    shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint is too long")


def _fields(data: bytes) -> list[tuple[int, int, Any]]:
    """All fields of one protobuf message as (field number, wire type, raw value).

    Varints come back as ints, fixed32/fixed64 as their raw bytes, length-delimited fields as bytes.

    >>> _fields(b"\\x08\\x96\\x01\\x12\\x02hi")
    [(1, 0, 150), (2, 2, b'hi')]
    """
    out: list[tuple[int, int, Any]] = []
    pos = 0
    n = len(data)
    while pos < n:
        key, pos = _read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ValueError("field number 0 is invalid")
        if wire == 0:
            value, pos = _read_varint(data, pos)
        elif wire == 1:
            if pos + 8 > n:
                raise ValueError("truncated fixed64 field")
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = _read_varint(data, pos)
            if pos + length > n:
                raise ValueError("truncated length-delimited field")
            value, pos = data[pos:pos + length], pos + length
        elif wire == 5:
            if pos + 4 > n:
                raise ValueError("truncated fixed32 field")
            value, pos = data[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.append((number, wire, value))
    return out


def _as_str(value: Any, what: str) -> str:
    if not isinstance(value, bytes):
        raise ValueError(f"{what} should be a string")
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{what} is not valid UTF-8") from None


def _as_float(value: Any, what: str) -> float:
    if not isinstance(value, bytes) or len(value) != 4:
        raise ValueError(f"{what} should be a 32-bit float")
    return _FLOAT.unpack(value)[0]


def _as_int(value: Any, what: str) -> int:
    if not isinstance(value, int):
        raise ValueError(f"{what} should be an integer")
    if value >= 1 << 63:          # negative int32/int64 values are sign-extended to 64 bits
        value -= 1 << 64
    return value


# The TrainerSpec / NormalizerSpec fields this package uses: number -> (name, kind, default).
_TRAINER_FIELDS: dict[int, tuple[str, str, Any]] = {
    3: ("model_type", "int", 1), 4: ("vocab_size", "int", 8000),
    10: ("character_coverage", "float", 0.9995), 14: ("seed_sentencepiece_size", "int", 1000000),
    15: ("shrinking_factor", "float", 0.75), 17: ("num_sub_iterations", "int", 2),
    20: ("max_sentencepiece_length", "int", 16), 21: ("split_by_unicode_script", "bool", True),
    22: ("split_by_whitespace", "bool", True), 23: ("split_by_number", "bool", True),
    24: ("treat_whitespace_as_suffix", "bool", False), 25: ("split_digits", "bool", False),
    26: ("allow_whitespace_only_pieces", "bool", False), 35: ("byte_fallback", "bool", False),
    40: ("unk_id", "int", 0), 41: ("bos_id", "int", 1), 42: ("eos_id", "int", 2),
    43: ("pad_id", "int", -1), 44: ("unk_surface", "str", " \u2047 "),
    45: ("unk_piece", "str", "<unk>"), 46: ("bos_piece", "str", "<s>"),
    47: ("eos_piece", "str", "</s>"), 48: ("pad_piece", "str", "<pad>"),
}
_NORMALIZER_FIELDS: dict[int, tuple[str, str, Any]] = {
    1: ("name", "str", ""), 2: ("precompiled_charsmap", "bytes", b""),
    3: ("add_dummy_prefix", "bool", True), 4: ("remove_extra_whitespaces", "bool", True),
    5: ("escape_whitespaces", "bool", True), 6: ("normalization_rule_tsv", "str", ""),
}
MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}


def _read_spec(data: bytes, table: dict[int, tuple[str, str, Any]], what: str) -> dict[str, Any]:
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
            if not isinstance(value, bytes):
                raise ValueError(f"{label} should be bytes")
            spec[name] = value
    return spec


@dataclass
class ModelProto:
    """The parts of a sentencepiece ModelProto this package uses.

    `pieces` are (piece, score, type) in id order; `trainer_spec` and `normalizer_spec` are dicts
    keyed by the proto field names (missing fields hold the proto defaults).
    """

    pieces: list[tuple[str, float, int]]
    trainer_spec: dict[str, Any]
    normalizer_spec: dict[str, Any]
    denormalizer_spec: dict[str, Any] | None = None

    @property
    def model_type(self) -> str:
        return MODEL_TYPES.get(self.trainer_spec["model_type"], "unknown")


def parse_model_proto(data: bytes) -> ModelProto:
    """Parse the bytes of a `.model` file. Raises ValueError if it is not a sentencepiece model.

    Checks what sentencepiece's `ModelInterface::InitializePieces` checks: pieces exist, none is
    empty or defined twice, exactly one `<unk>`, and 256 byte pieces when byte fallback is on.
    """
    if not isinstance(data, (bytes, bytearray)):
        raise ValueError("a sentencepiece model must be given as bytes")
    data = bytes(data)
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        top = _fields(data)
        pieces: list[tuple[str, float, int]] = []
        trainer = _read_spec(b"", _TRAINER_FIELDS, "trainer_spec")
        normalizer = _read_spec(b"", _NORMALIZER_FIELDS, "normalizer_spec")
        denormalizer = None
        for number, wire, value in top:
            if number == 1 and wire == 2:
                piece, score, ptype = None, 0.0, NORMAL
                for n2, _w2, v2 in _fields(value):
                    if n2 == 1:
                        piece = _as_str(v2, "piece")
                    elif n2 == 2:
                        score = _as_float(v2, "piece score")
                    elif n2 == 3:
                        ptype = _as_int(v2, "piece type")
                if piece is None:
                    raise ValueError("a piece has no text")
                pieces.append((piece, score, ptype))
            elif number == 2 and wire == 2:
                trainer = _read_spec(value, _TRAINER_FIELDS, "trainer_spec")
            elif number == 3 and wire == 2:
                normalizer = _read_spec(value, _NORMALIZER_FIELDS, "normalizer_spec")
            elif number == 5 and wire == 2:
                denormalizer = _read_spec(value, _NORMALIZER_FIELDS, "denormalizer_spec")
            elif number in (1, 2, 3, 4, 5):
                raise ValueError(f"field {number} has the wrong wire type")
    except ValueError as exc:
        raise ValueError(f"not a sentencepiece model file: {exc}") from None
    _check_pieces(pieces, trainer)
    return ModelProto(pieces, trainer, normalizer, denormalizer)


def _check_pieces(pieces: list[tuple[str, float, int]], trainer: dict[str, Any]) -> None:
    if not pieces:
        raise ValueError("not a sentencepiece model file: it has no pieces")
    seen: dict[tuple[bool, str], int] = {}
    unk = [i for i, (_p, _s, t) in enumerate(pieces) if t == UNKNOWN]
    for i, (piece, _score, ptype) in enumerate(pieces):
        if ptype not in PIECE_TYPES:
            raise ValueError(f"not a sentencepiece model file: piece {i} has unknown type {ptype}")
        if not piece:
            raise ValueError(f"not a sentencepiece model file: piece {i} is empty")
        key = (ptype in (NORMAL, USER_DEFINED, UNUSED), piece)
        if key in seen:
            raise ValueError(f"not a valid sentencepiece model: piece {piece!r} is defined twice")
        seen[key] = i
        if ptype == BYTE and piece_to_byte(piece) < 0:
            raise ValueError(f"not a valid sentencepiece model: byte piece {piece!r} is invalid")
    if len(unk) != 1:
        raise ValueError("not a valid sentencepiece model: it needs exactly one <unk> piece, "
                         f"found {len(unk)}")
    byte_pieces = {piece_to_byte(p) for p, _s, t in pieces if t == BYTE}
    if byte_pieces and not trainer["byte_fallback"]:
        raise ValueError("not a valid sentencepiece model: byte pieces without byte_fallback")
    if trainer["byte_fallback"] and len(byte_pieces) != 256:
        raise ValueError("not a valid sentencepiece model: byte_fallback needs 256 byte pieces")


# ---- building a Tokenizer from a ModelProto --------------------------------------------------------

def normalizer_from_proto(proto: ModelProto) -> SentencePieceNormalizer:
    spec = proto.normalizer_spec
    blob = spec["precompiled_charsmap"]
    charsmap = PrecompiledCharsMap(blob) if blob else None
    user = tuple(p for p, _s, t in proto.pieces if t == USER_DEFINED)
    return SentencePieceNormalizer(
        charsmap, add_dummy_prefix=spec["add_dummy_prefix"],
        remove_extra_whitespaces=spec["remove_extra_whitespaces"],
        escape_whitespaces=spec["escape_whitespaces"],
        treat_whitespace_as_suffix=proto.trainer_spec["treat_whitespace_as_suffix"],
        user_defined=user, name=spec["name"] or ("custom" if blob else "identity"))


def decoder_from_proto(proto: ModelProto) -> Any:
    spec = proto.normalizer_spec
    unk = next(p for p, _s, t in proto.pieces if t == UNKNOWN)
    return SentencePieceDecoder(
        unk_piece=unk, unk_surface=proto.trainer_spec["unk_surface"],
        strip_leading_space=spec["add_dummy_prefix"] or spec["remove_extra_whitespaces"],
        remove_extra_whitespaces=spec["remove_extra_whitespaces"],
        byte_fallback=proto.trainer_spec["byte_fallback"])


def tokenizer_from_proto(proto: ModelProto, name: str = "") -> Any:
    """A `Tokenizer` that encodes exactly as sentencepiece does with this model."""
    kind = proto.model_type
    if kind == "unigram":
        model: Any = Unigram([(p, s) for p, s, _t in proto.pieces],
                             types=[t for _p, _s, t in proto.pieces],
                             byte_fallback=proto.trainer_spec["byte_fallback"])
        algorithm = "unigram"
    elif kind == "bpe":
        model = SentencePieceBpe(proto.pieces, byte_fallback=proto.trainer_spec["byte_fallback"])
        algorithm = "sentencepiece_bpe"
    elif kind in ("char", "word"):
        model = SentencePieceSplit(proto.pieces, kind=kind,
                                   byte_fallback=proto.trainer_spec["byte_fallback"])
        algorithm = f"sentencepiece_{kind}"
    else:
        raise ValueError(f"sentencepiece model type {kind!r} is not supported")
    tok = Tokenizer(model, normalizer=normalizer_from_proto(proto), pre_tokenizer=None,
                    decoder=decoder_from_proto(proto), name=name, algorithm=algorithm)
    tok.proto = proto                  # type: ignore[attr-defined]
    return tok


def load_bytes(data: bytes, name: str = "") -> Any:
    """A `Tokenizer` from the bytes of a `.model` file (gzip-compressed is fine)."""
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


def nmt_nfkc_charsmap() -> PrecompiledCharsMap:
    """The `nmt_nfkc` map of the bundled BPE model (used by trained Unigram models)."""
    proto = _bundled_proto("botchan_en_bpe_1000.model.gz")
    return PrecompiledCharsMap(proto.normalizer_spec["precompiled_charsmap"])


@functools.lru_cache(maxsize=None)
def _bundled_proto(filename: str) -> ModelProto:
    with gzip.open(os.path.join(_DATA, filename), "rb") as fh:
        return parse_model_proto(fh.read())

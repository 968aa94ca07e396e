"""Loading sentencepiece `.model` files fast without changing what is read.

`parse_model_proto` reads the pieces laid out as sentencepiece writes them with fixed offsets
(`_read_plain_pieces`) and any other layout with the generic protobuf reader; the piece checks
run over whole lists and fall back to the piece-by-piece loop only to name a bad piece. These
tests pin that the fast paths read exactly what the generic reader reads.
"""

from __future__ import annotations

import gzip
import os
import pickle
import struct

import pytest

from tokenizers_core.errors import InvalidInput
from tokenizers_core.formats.sentencepiece_model import (
    _DATA,
    _fields,
    _read_piece,
    _varint,
    botchan_en_unigram_1000,
    parse_model_proto,
)

BUNDLED = ("botchan_en_unigram_1000.model.gz", "botchan_en_bpe_1000.model.gz")


def _generic_pieces(data: bytes) -> list[tuple[str, float, int]]:
    """The pieces as the generic reader alone reads them (the reference)."""
    return [_read_piece(value) for number, wire, value in _fields(data) if number == 1]


def _message(number: int, body: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(body)) + body


def _text(piece: str) -> bytes:
    return _message(1, piece.encode("utf-8"))


def _score(score: float) -> bytes:
    return b"\x15" + struct.pack("<f", score)


def _type(ptype: int) -> bytes:
    return b"\x18" + _varint(ptype)


def _model(*pieces: bytes) -> bytes:
    """A ModelProto of these SentencePiece bodies and a Unigram trainer spec."""
    return b"".join(_message(1, body) for body in pieces) + _message(2, b"\x18\x01")


@pytest.mark.parametrize("name", BUNDLED)
def test_the_bundled_models_read_as_the_generic_reader_reads_them(name):
    with gzip.open(os.path.join(_DATA, name), "rb") as fh:
        data = fh.read()
    proto = parse_model_proto(data)
    assert proto.pieces == _generic_pieces(data)
    # (the specs are read through a memoryview; what is kept is bytes and str, not views)
    assert type(proto.normalizer_spec["precompiled_charsmap"]) is bytes
    assert type(proto.normalizer_spec["name"]) is str


def test_every_layout_reads_the_same():
    """Plain pieces, then ones the fast reader hands over: fields in another order, a piece of
    more than 127 bytes, an explicit NORMAL type, an unknown extra field, a score given twice (the
    last wins), a missing score (0.0)."""
    long = "▁" + "x" * 200
    data = _model(
        _text("<unk>") + _score(0.0) + _type(2),
        _text("a") + _score(-1.5),
        _score(-2.5) + _text("b"),
        _text(long) + _score(-3.0),
        _text("c") + _score(-4.0) + _type(1),
        _text("d") + _score(-5.0) + b"\x20\x07",
        _text("e") + _score(-6.0) + _score(-6.5),
        _text("f"),
        _text("g") + _score(-7.0) + _type(4),
    )
    expected = [
        ("<unk>", 0.0, 2),
        ("a", -1.5, 1),
        ("b", -2.5, 1),
        (long, -3.0, 1),
        ("c", -4.0, 1),
        ("d", -5.0, 1),
        ("e", -6.5, 1),
        ("f", 0.0, 1),
        ("g", -7.0, 4),
    ]
    assert _generic_pieces(data) == expected
    assert parse_model_proto(data).pieces == expected


@pytest.mark.parametrize(
    "data, message",
    [
        (_model(_text("<unk>") + _score(0.0) + _type(2), b"\x0a\x01\xff" + _score(-1.0)), "UTF-8"),
        (_model(_text("<unk>") + _score(0.0) + _type(2))[:-3], "truncated"),
        (
            _model(_text("<unk>") + _score(0.0) + _type(2), _text("a") + _score(-1.0) + _type(9)),
            "unknown type 9",
        ),
        (_model(_text("<unk>") + _score(0.0) + _type(2), _text("") + _score(-1.0)), "empty"),
        (
            _model(
                _text("<unk>") + _score(0.0) + _type(2),
                _text("a") + _score(-1.0),
                _text("a") + _score(-2.0) + _type(4),
            ),
            "defined twice",
        ),
        (_model(_text("<unk>") + _score(0.0) + _type(2), _text("<0xZZ>") + _type(6)), "byte piece"),
    ],
    ids=["bad-utf8", "truncated", "unknown-type", "empty", "twice", "bad-byte-piece"],
)
def test_a_broken_model_is_refused_with_the_reason(data, message):
    with pytest.raises(InvalidInput, match=message):
        parse_model_proto(data)


def test_a_reserved_piece_may_share_a_matched_pieces_spelling():
    """sentencepiece keeps control/unknown pieces apart from the matched ones: `<s>` as a control
    piece and as a normal piece is allowed, twice as control is not."""
    unk = _text("<unk>") + _score(0.0) + _type(2)
    ok = _model(unk, _text("<s>") + _type(3), _text("<s>") + _score(-1.0))
    assert [p for p, _s, _t in parse_model_proto(ok).pieces] == ["<unk>", "<s>", "<s>"]
    with pytest.raises(InvalidInput, match="defined twice"):
        parse_model_proto(_model(unk, _text("<s>") + _type(3), _text("<s>") + _type(3)))


def test_the_unigram_trie_is_built_by_the_first_search():
    """Loading leaves the trie (most of a large model's load time) to the first encode; a model
    pickled before or after that encodes the same."""
    tok = botchan_en_unigram_1000()  # (a fresh load: `tc.load` of the name may be shared)
    assert "trie" not in vars(tok.model)
    before = pickle.loads(pickle.dumps(tok))
    tokens = tok.encode("I am Botchan, and this is the first encode.").tokens
    assert "trie" in vars(tok.model)
    after = pickle.loads(pickle.dumps(tok))
    for other in (before, after):
        assert other.encode("I am Botchan, and this is the first encode.").tokens == tokens

"""Loading sentencepiece `.model` files fast without changing what is read.

`parse_model_proto` reads the pieces laid out as sentencepiece writes them by one compiled `re`
per window (`sentencepiece_pieces.read_pieces_fast`) or with fixed offsets (`read_plain_pieces`),
and any other layout with the generic protobuf reader; the piece checks
run over whole lists and fall back to the piece-by-piece loop only to name a bad piece. These
tests pin that the fast paths read exactly what the generic reader reads.
"""

from __future__ import annotations

import gzip
import os
import pickle
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared_data import DATA
from tokenizers_core.errors import InvalidInput
from tokenizers_core.formats.sentencepiece_model import (
    _DATA,
    _fields,
    _read_field,
    _read_piece,
    _varint,
    botchan_en_unigram_1000,
    parse_model_proto,
)
from tokenizers_core.formats.sentencepiece_pieces import read_pieces_fast, read_plain_pieces

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


# ---- the fast reader (`sentencepiece_pieces.py`) against the generic one -----------------------


def _read_with(data: bytes, reader, **options) -> list[tuple[str, float, int]]:
    """The pieces as `parse_model_proto`'s loop reads them: `reader` from each position, the
    generic reader for the one field it stops at."""
    texts, scores, types = [], [], []
    pos = 0
    while pos < len(data):
        pos = reader(data, pos, texts, scores, types, **options)
        if pos >= len(data):
            break
        number, _wire, value, pos = _read_field(data, pos)
        if number == 1:
            text, score, ptype = _read_piece(value)
            texts.append(text), scores.append(score), types.append(ptype)
    return list(zip(texts, scores, types))


_f32 = st.floats(width=32, allow_nan=False)
_piece_text = st.one_of(
    st.text(max_size=8),  # any Unicode: non-ASCII, U+0015 (the score's key byte), "" ...
    st.text(alphabet="▁x\x15", min_size=40, max_size=80),  # more than 127 bytes: 2-byte lengths
)


def _body(text: str, score: float | None, ptype: int | None, extra: bytes, swap: bool) -> bytes:
    """One SentencePiece message: text, score (if any), type (if any), an extra field; the score
    first if `swap`."""
    fields = [_text(text), _score(score) if score is not None else b""]
    if swap:
        fields.reverse()
    return b"".join(fields) + (_type(ptype) if ptype is not None else b"") + extra


_piece_body = st.builds(
    _body,
    _piece_text,
    st.one_of(st.none(), _f32),  # a missing score reads as 0.0
    st.one_of(st.none(), st.integers(0, 300)),  # missing (NORMAL), one byte, or more
    st.sampled_from([b"", b"\x20\x07", b"\x2a\x01z"]),  # an unknown varint / string field
    st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(_piece_body, _piece_body.map(lambda b: b[:-1] + b"\xff")), max_size=40),
    st.sampled_from([8, 64, 1 << 14]),
)
def test_the_fast_reader_reads_what_the_generic_reader_reads(bodies, window):
    """Random pieces, scores and types as protobuf, some laid out as sentencepiece writes them
    and some not (swapped fields, missing ones, unknown ones, lengths of two bytes, invalid
    UTF-8 at the end), read in windows of a few bytes or many: the same pieces both ways."""
    data = b"".join(_message(1, body) for body in bodies)
    try:
        expected = _exact(_generic_pieces(data))
    except InvalidInput:
        with pytest.raises(InvalidInput):
            _read_with(data, read_pieces_fast, window=window)
        return
    assert _exact(_read_with(data, read_pieces_fast, window=window)) == expected
    assert _exact(_read_with(data, read_plain_pieces)) == expected


def test_the_fast_reader_itself_reads_runs_of_typed_and_untyped_pieces():
    """Runs of typed pieces (control, byte, user-defined) between untyped ones, and one text
    holding U+0015 (the separator the texts are decoded with): the fast reader reads them all
    itself, up to the piece that holds U+0015 and from it on once the generic reader took it, but
    the last (whose next field is not a piece)."""
    bodies = [_text("<unk>") + _score(0.0) + _type(2)]
    bodies += [_text(f"<0x{b:02X}>") + _score(0.0) + _type(6) for b in range(20)]
    bodies += [_text(f"▁w{i}") + _score(-float(i)) for i in range(30)]
    bodies += [_text(f"<user{i}>") + _score(0.0) + _type(4) for i in range(5)]
    bodies += [_text("a\x15b") + _score(-40.0)]
    bodies += [_text(f"é{i}") + _score(-50.0 - i) for i in range(10)]
    messages = [_message(1, body) for body in bodies]
    data = b"".join(messages) + _message(2, b"\x18\x01")
    texts, scores, types = [], [], []
    held = sum(map(len, messages[:-11]))  # where the piece holding U+0015 starts
    assert read_pieces_fast(data, 0, texts, scores, types) == held
    _number, _wire, value, pos = _read_field(data, held)
    for column, item in zip((texts, scores, types), _read_piece(value)):
        column.append(item)
    assert read_pieces_fast(data, pos, texts, scores, types) == len(data) - len(messages[-1]) - 4
    expected = _generic_pieces(data)[:-1]
    assert _exact(list(zip(texts, scores, types))) == _exact(expected)


@pytest.mark.parametrize(
    "odd",
    [
        # a text holding what looks like the framing between two pieces: 15, a score, a head
        _text("x\x15\x00\x00\x00\x00\x0a\x05\x0a\x03yz") + _score(-1.0),
        # the text and score twice in one message (the last of each is the piece's), the second
        # text spelled as a head and a text would be
        _text("a") + _score(-1.0) + _text("\x0a\x01b") + _score(-2.0),
        _text("a") + _score(-1.0) + _type(4) + _text("\x0a\x01b") + _score(-2.0) + _type(4),
    ],
    ids=["framing-in-a-text", "fields-twice", "typed-fields-twice"],
)
def test_a_message_that_only_looks_like_two_reads_as_the_generic_reader_reads_it(odd):
    """What the cuts between texts cannot tell apart from the usual layout, the length checks
    do: each read as the generic reader reads it, in a window of any size."""
    plain = [_text(f"▁w{i}") + _score(-float(i)) for i in range(3)]
    typed = [_text(f"<u{i}>") + _score(0.0) + _type(4) for i in range(3)]
    data = _model(*plain, odd, *plain, *typed, odd, *typed, *plain)
    expected = _exact(_generic_pieces(data))
    for window in (8, 64, 1 << 14):
        assert _exact(_read_with(data, read_pieces_fast, window=window)) == expected


def _exact(pieces: list[tuple[str, float, int]]) -> list[tuple[str, bytes, int]]:
    """The pieces with each score as its four bytes (so that a NaN equals itself)."""
    return [(p, struct.pack("<f", s), t) for p, s, t in pieces]


def _mistral_and_unigram_files() -> list[str]:
    names = [os.path.join(_DATA, "vocab", f"mistral_v{v}.model.gz") for v in (1, 3, 7)]
    names += [os.path.join(_DATA, name) for name in BUNDLED]
    names += [str(p) for p in sorted((DATA / "peer" / "sp").glob("*.model"))]
    return [n for n in names if os.path.exists(n)]


@pytest.mark.parametrize("path", _mistral_and_unigram_files(), ids=os.path.basename)
def test_real_models_read_as_the_generic_reader_reads_them(path):
    """Mistral's BPE models (one piece is U+0015, the score's key byte, which the fast reader
    hands over) and the Unigram ones, through `parse_model_proto`, in small windows and large."""
    with open(path, "rb") as fh:
        data = fh.read()
    data = gzip.decompress(data) if path.endswith(".gz") else data
    expected = _generic_pieces(data)
    assert parse_model_proto(data).pieces == expected
    assert _read_with(data, read_pieces_fast, window=1000) == expected


def test_a_model_the_fast_reader_keeps_stopping_in_reads_the_same():
    """Every other piece longer than 127 bytes (a two-byte length, which the fast reader hands
    over): `parse_model_proto` reads stretches of it piece by piece, and reads what the generic
    reader reads."""
    bodies = [_text("<unk>") + _score(0.0) + _type(2)]
    for i in range(3000):
        text = f"▁{i}" + ("x" * 130 if i % 2 else "")
        bodies.append(_text(text) + _score(-float(i)) + (_type(4) if i % 7 == 0 else b""))
    data = _model(*bodies)
    assert parse_model_proto(data).pieces == _generic_pieces(data)

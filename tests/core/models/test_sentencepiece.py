"""Loading sentencepiece .model files and encoding exactly as `sentencepiece` does.

The oracle is the `sentencepiece` package (test-only). Every line of botchan.txt and of the 33 UDHR
texts must come out with identical pieces, ids and offsets for both bundled models; so must
Hypothesis-generated text, and small models trained here with the options real users turn on
(byte fallback, user-defined symbols, no dummy prefix, kept whitespace, identity normalisation).
"""

from __future__ import annotations

import glob
import gzip
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.decoders import SentencePieceDecoder
from tokenizers_core.formats.sentencepiece_model import (
    _DATA,
    _fields,
    _read_varint,
    load_bytes,
    parse_model_proto,
)
from tokenizers_core.normalized import NormalizedString
from tokenizers_core.normalizers.sentencepiece import PrecompiledCharsMap, SentencePieceNormalizer

spm = pytest.importorskip("sentencepiece")

DATA = _DATA
MODELS = ["botchan_en_unigram_1000", "botchan_en_bpe_1000"]
UDHR = sorted(glob.glob(os.path.join(DATA, "corpora", "udhr", "*.txt")))


def _model_bytes(name: str) -> bytes:
    with gzip.open(os.path.join(DATA, f"{name}.model.gz"), "rb") as fh:
        return fh.read()


@pytest.fixture(scope="module")
def sps() -> dict:
    return {name: spm.SentencePieceProcessor(model_proto=_model_bytes(name)) for name in MODELS}


def _botchan_lines() -> list[str]:
    with gzip.open(os.path.join(DATA, "corpora", "botchan.txt.gz"), "rt", encoding="utf-8") as fh:
        return fh.read().splitlines()


def _char_offsets(text: str, begin: int, end: int) -> tuple[int, int]:
    """sentencepiece reports byte offsets; turn them into character offsets."""
    raw = text.encode("utf-8")
    return len(raw[:begin].decode("utf-8", "ignore")), len(raw[:end].decode("utf-8", "ignore"))


def _assert_same(tok, sp, lines: list[str]) -> None:
    mismatches = []
    for line in lines:
        enc = tok.encode(line)
        expected = sp.encode(line, out_type=str)
        if enc.tokens != expected or enc.ids != sp.encode(line):
            mismatches.append((line, expected, enc.tokens))
    assert not mismatches, mismatches[:3]


# ---- the bundled models --------------------------------------------------------------------------


@pytest.mark.parametrize("name", MODELS)
def test_pieces_scores_and_types_match_the_file(name, sps):
    sp = sps[name]
    tok = tc.load(name)
    assert tok.vocab_size == sp.get_piece_size() == 1000
    pieces = tok.model.pieces
    assert [p for p, _ in pieces] == [sp.id_to_piece(i) for i in range(1000)]
    assert [s for _, s in pieces] == [sp.get_score(i) for i in range(1000)]
    assert tok.model.token_to_id("<unk>") == sp.unk_id() == 0
    assert tc.load(name).name == name


@pytest.mark.heavy
@pytest.mark.parametrize("name", MODELS)
def test_botchan_identical_to_sentencepiece(name, sps):
    _assert_same(tc.load(name), sps[name], _botchan_lines())


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("path", UDHR, ids=[os.path.basename(p) for p in UDHR])
def test_udhr_identical_to_sentencepiece(name, path, sps):
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    _assert_same(tc.load(name), sps[name], lines)


@pytest.mark.parametrize("name", MODELS)
def test_offsets_are_sentencepieces_in_characters(name, sps):
    sp = sps[name]
    tok = tc.load(name)
    lines = [
        "  Hello,   world!  ",
        "Ｈｅｌｌｏ　ｗｏｒｌｄ ﬁne",
        "naïve café 東京",
        "a\u0301b \t c",
        "Hello world ",
        "  Ｈｅｌｌｏ  wörld ",
        "x \t",
        "a  b  ",
    ]
    for path in UDHR[::4]:
        with open(path, encoding="utf-8") as fh:
            lines += fh.read().splitlines()[:3]
    for line in lines:
        proto = sp.encode(line, out_type="proto")
        want = [_char_offsets(line, p.begin, p.end) for p in proto.pieces]
        enc = tok.encode(line)
        assert len(want) == len(enc.offsets)
        if "ﬁ" in line:
            # a token boundary inside one source character's expansion ("ﬁ" -> "f" "i"):
            # sentencepiece cuts at the character's start, we give both tokens the character
            for (ws, we), (gs, ge) in zip(want, enc.offsets):
                assert gs <= ws and we <= ge, (line, want, enc.offsets)
        else:
            assert enc.offsets == want, line


@pytest.mark.parametrize("name", MODELS)
def test_normaliser_is_sentencepieces(name, sps):
    sp = sps[name]
    tok = tc.load(name)
    samples = [
        "  Hello   world  ",
        "Ｈｅｌｌｏ",
        "ﬁ ① ㈱ ＡＢＣ ｶﾞ",
        "\u3000x\u00a0y\t\nz",
        "e\u0301 A\u030a",
        "\x00\x01\x7f",
        "Ⅻ ½ ™ …",
        "▁▁ a ▁",
        "",
    ]
    for path in UDHR:
        with open(path, encoding="utf-8") as fh:
            samples.append(fh.readline().rstrip("\n"))
    for s in samples:
        assert tok.normalize(s).normalized == sp.normalize(s), s


@pytest.mark.parametrize("name", MODELS)
def test_decode_matches_sentencepiece_and_round_trips(name, sps):
    sp = sps[name]
    tok = tc.load(name)
    for line in _botchan_lines()[200:400] + ["Hello  world", "東京 cats", "  x  "]:
        ids = tok.encode(line).ids
        assert tok.decode(ids) == sp.decode(ids)
        if sp.unk_id() not in ids:
            # reversible up to the normaliser: the decoded text is the normalised text, ▁ as space
            assert tok.decode(ids) == sp.normalize(line).replace("▁", " ").lstrip(" ")


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
_MIXED = st.text(
    st.sampled_from(list("ab cdeé\u0301\t\n東京ＡＢ①ﬁ\u3000\u200b\x00▁<>.,'-0123")), max_size=30
)


# characters that only start longer rules (e, a, क, ड, ा's bases) beside what continues them
# (combining accents, the nukta, Thai's sara am), class-1 characters, spaces and new characters
_RULES = st.text(
    st.one_of(
        st.sampled_from(list("eaAक ड  ก\u0301\u0300\u0323\u093c\u0e33\u0e4d\u0e32ºＡ①\u3000")),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=30,
)


@pytest.mark.parametrize("name", MODELS)
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_RULES)
def test_hypothesis_normaliser_finds_every_rule(name, text, sps):
    """The normaliser copies the runs no rule touches and finds each rule by one pattern that
    also finds what it has not classified yet: the same text as sentencepiece's, character
    offsets inside the text."""
    ns = tc.load(name).normalize(text)
    assert ns.normalized == sps[name].normalize(text)
    assert all(0 <= s <= e <= len(text) for s, e in ns.alignments)


@pytest.mark.parametrize("name", MODELS)
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.one_of(_TEXT, _MIXED))
def test_hypothesis_text_identical(name, text, sps):
    sp = sps[name]
    tok = tc.load(name)
    enc = tok.encode(text)
    assert enc.tokens == sp.encode(text, out_type=str)
    assert enc.ids == sp.encode(text)
    assert tok.decode(enc.ids) == sp.decode(enc.ids)
    proto = sp.encode(text, out_type="proto")
    want = [_char_offsets(text, p.begin, p.end) for p in proto.pieces]
    if sp.unk_id() not in enc.ids:
        # sentencepiece's offsets, in characters. Two conventions differ: where a token boundary
        # falls inside one source character's expansion (NFKC "ﬁ" -> "fi") ours cover that
        # whole character, and characters the normaliser deletes belong to no token of ours
        # while sentencepiece gives them to the token before. One span contains the other.
        for (ws, we), (gs, ge) in zip(want, enc.offsets):
            assert (gs <= ws and we <= ge) or (ws <= gs and ge <= we)
        if text.isascii() and text.isprintable():
            assert enc.offsets == want
    for s, e in enc.offsets:
        assert 0 <= s <= e <= len(text)


# ---- models trained here with sentencepiece, covering the options users turn on ------------------


def _train_text() -> list[str]:
    return [line for line in _botchan_lines()[:1500] if line.strip()]


@pytest.fixture(scope="module")
def trained_models(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("spm")
    corpus = base / "corpus.txt"
    corpus.write_text("\n".join(_train_text()) + "\n東京は日本の首都です。\n", encoding="utf-8")
    variants = {
        "unigram_bytes": dict(model_type="unigram", vocab_size=600, byte_fallback=True),
        "bpe_bytes": dict(model_type="bpe", vocab_size=600, byte_fallback=True),
        "unigram_user": dict(
            model_type="unigram", vocab_size=500, user_defined_symbols=["<sep>", "cat", "▁the"]
        ),
        "bpe_user": dict(model_type="bpe", vocab_size=500, user_defined_symbols=["<sep>", "ing"]),
        "unigram_plain": dict(
            model_type="unigram",
            vocab_size=400,
            add_dummy_prefix=False,
            remove_extra_whitespaces=False,
            normalization_rule_name="identity",
        ),
        "unigram_suffix": dict(
            model_type="unigram",
            vocab_size=400,
            treat_whitespace_as_suffix=True,
            control_symbols=["<ctl>"],
        ),
        "char": dict(
            model_type="char",
            vocab_size=200,
            user_defined_symbols=["<sep>", "ing"],
            control_symbols=["<ctl>"],
        ),
        "word": dict(model_type="word", vocab_size=800, user_defined_symbols=["<sep>"]),
        "char_bytes": dict(model_type="char", vocab_size=400, byte_fallback=True),
    }
    out = {}
    for key, opts in variants.items():
        prefix = str(base / key)
        spm.SentencePieceTrainer.train(
            input=str(corpus), model_prefix=prefix, minloglevel=2, num_threads=1, **opts
        )
        out[key] = prefix + ".model"
    return out


_SAMPLES = [
    "Hello world, the cat sat.",
    "東京は日本の首都です。",
    "naïve café — Ωμέγα ★",
    "  spaces   everywhere  ",
    "<sep>catting<sep>the▁the",
    "ing ing sing",
    "\t tabs\tand\nlines",
]


@pytest.mark.heavy
@pytest.mark.parametrize(
    "key",
    [
        "unigram_bytes",
        "bpe_bytes",
        "unigram_user",
        "bpe_user",
        "unigram_plain",
        "unigram_suffix",
        "char",
        "word",
        "char_bytes",
    ],
)
def test_any_sentencepiece_model_file_loads_and_matches(key, trained_models):
    path = trained_models[key]
    sp = spm.SentencePieceProcessor(model_file=path)
    tok = tc.load(path)
    rng = random.Random(7)
    lines = _SAMPLES + rng.sample(_train_text(), 60)
    for line in lines:
        enc = tok.encode(line)
        assert enc.tokens == sp.encode(line, out_type=str), line
        assert enc.ids == sp.encode(line), line
        assert tok.decode(enc.ids) == sp.decode(enc.ids), line


@pytest.mark.heavy
def test_byte_fallback_spells_unknown_characters_as_bytes(trained_models):
    tok = tc.load(trained_models["unigram_bytes"])
    tokens = tok.encode("★").tokens
    assert tokens[-3:] == ["<0xE2>", "<0x98>", "<0x85>"]
    assert tok.decode(tok.encode("a ★ b").ids) == "a ★ b"


# ---- bad files -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"hello, this is a text file\n",
        bytes(range(256)),
        b"\x0a\x05\x0a\x03abc",
        b"\x0a\x03\x0a\x01a",  # a piece but no <unk>
    ],
)
def test_corrupt_or_foreign_files_raise_value_error(content, tmp_path):
    path = tmp_path / "bad.model"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="sentencepiece|cannot"):
        tc.load(str(path))


def test_truncated_model_raises(tmp_path):
    data = _model_bytes("botchan_en_unigram_1000")
    path = tmp_path / "cut.model"
    path.write_bytes(data[: len(data) // 3])
    with pytest.raises(ValueError):
        tc.load(str(path))


def test_load_path_and_gzip_bytes(tmp_path):
    data = _model_bytes("botchan_en_bpe_1000")
    path = tmp_path / "m.model"
    path.write_bytes(data)
    tok = tc.load(str(path))
    assert (
        tok.encode("Hello world").tokens
        == tc.load("botchan_en_bpe_1000").encode("Hello world").tokens
    )
    assert load_bytes(gzip.compress(data)).vocab_size == 1000


# ---- the pieces on their own ----------------------------------------------------------------------


def test_wire_format_reader():
    assert _read_varint(b"\xac\x02", 0) == (300, 2)
    assert _fields(b"\x08\x96\x01\x12\x02hi\x1d\x00\x00\x80\x3f") == [
        (1, 0, 150),
        (2, 2, b"hi"),
        (3, 5, b"\x00\x00\x80\x3f"),
    ]
    with pytest.raises(ValueError):
        _fields(b"\x12\x05ab")


def test_parse_model_proto_reads_specs():
    proto = parse_model_proto(_model_bytes("botchan_en_bpe_1000"))
    assert proto.model_type == "bpe"
    assert proto.normalizer_spec["name"] == "nmt_nfkc"
    assert proto.normalizer_spec["add_dummy_prefix"] is True
    assert proto.trainer_spec["vocab_size"] == 1000
    assert proto.pieces[0] == ("<unk>", 0.0, 2)


def test_charsmap_longest_match_and_alignment():
    proto = parse_model_proto(_model_bytes("botchan_en_bpe_1000"))
    cm = PrecompiledCharsMap(proto.normalizer_spec["precompiled_charsmap"])
    norm = SentencePieceNormalizer(cm)
    ns = norm.normalize(NormalizedString("ﬁne  Ａ"))
    assert ns.normalized == "▁fine▁A"
    # "fi" both come from the ligature; the fullwidth A keeps its own position
    assert ns.span(1, 3) == (0, 1) and ns.span(6, 7) == (5, 6)
    assert cm.normalize_prefix("x", 0) == ("x", 1)


def test_decoder_rules():
    d = SentencePieceDecoder()
    assert d.decode(["▁", "▁a", "<unk>", "</s>"]) == "a ⁇ "
    assert SentencePieceDecoder(byte_fallback=True).decode(["<0xE3>", "<0x81>"]) == "\ufffd\ufffd"


def test_bpe_merges_replayed_by_rank_reproduce_the_encoder():
    """The recovered merges, applied lowest rank first (textbook BPE encode), give the same
    pieces as sentencepiece's score-driven encoder on every botchan word."""
    tok = tc.load("botchan_en_bpe_1000")
    ranks = {pair: r for r, pair in enumerate(tok.model.merges)}
    words = sorted(
        {
            w
            for line in _botchan_lines()[:800]
            for w in tok.normalize(line).normalized.split("▁")
            if w
        }
    )
    for w in words[:1500]:
        symbols = list("▁" + w)
        while len(symbols) > 1:
            pairs = [
                (ranks.get((a, b), 1 << 30), i)
                for i, (a, b) in enumerate(zip(symbols, symbols[1:]))
            ]
            rank, i = min(pairs)
            if rank == 1 << 30:
                break
            symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
        assert symbols == [t for t, *_ in tok.model.tokenize("▁" + w)], w


@pytest.mark.parametrize("name", MODELS)
def test_own_reader_agrees_with_protobuf(name):
    """Our stdlib wire-format reader against Google's protobuf parsing of the same file."""
    from sentencepiece import sentencepiece_model_pb2 as pb

    from tokenizers_core.formats.sentencepiece_model import parse_model_proto

    data = _model_bytes(name)
    ref = pb.ModelProto()
    ref.ParseFromString(data)
    ours = parse_model_proto(data)
    assert [(p, t) for p, _s, t in ours.pieces] == [(p.piece, p.type) for p in ref.pieces]
    assert [s for _p, s, _t in ours.pieces] == pytest.approx([p.score for p in ref.pieces], abs=0)
    assert ours.trainer_spec["model_type"] == ref.trainer_spec.model_type
    assert ours.trainer_spec["vocab_size"] == ref.trainer_spec.vocab_size
    assert ours.normalizer_spec["name"] == ref.normalizer_spec.name
    assert ours.normalizer_spec["precompiled_charsmap"] == ref.normalizer_spec.precompiled_charsmap
    assert ours.normalizer_spec["add_dummy_prefix"] == ref.normalizer_spec.add_dummy_prefix

"""sentencepiece's `nfkc_cf` normalisation by name: NFKC plus case folding,
checked against sentencepiece 0.2.3 trained with `normalization_rule_name="nfkc_cf"`."""

from __future__ import annotations

import io
import unicodedata

import pytest

import tokenizers_core as tc
from tokenizers_core.normalizers.sentencepiece import sentencepiece_normalizer

spm = pytest.importorskip("sentencepiece")

LINES = ["Hello World ÀÉÎ Straße ﬁ Ⅻ ① ｶ ǅ", "ΣΑΣ İstanbul café e\u0301 ＦＵＬＬ", "Ǆemal ǈ x"] * 3


@pytest.fixture(scope="module")
def theirs():
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(LINES),
        model_writer=out,
        vocab_size=60,
        model_type="unigram",
        minloglevel=3,
        num_threads=1,
        normalization_rule_name="nfkc_cf",
        hard_vocab_limit=False,
    )
    return spm.SentencePieceProcessor(model_proto=out.getvalue())


BLOCKS = [
    (0x20, 0x3400),
    (0xA000, 0xAC00),
    (0xF900, 0x10000),
    (0x1D400, 0x1D800),
    (0x1F100, 0x1F300),
]  # where the rewriting characters are


@pytest.mark.heavy
def test_every_code_point_normalises_as_sentencepiece_does(theirs):
    """Each assigned code point of the blocks where characters change, between two letters, a
    thousand per text (U+0344, a mark that sentencepiece's map leaves uncomposed after a
    letter, is the one known difference; run over every code point up to U+30000, it is the
    only one)."""
    ours = sentencepiece_normalizer("nfkc_cf")
    points = [
        cp
        for lo, hi in BLOCKS
        for cp in range(lo, hi)
        if unicodedata.category(chr(cp)) not in ("Cs", "Cn", "Co") and cp != 0x344
    ]
    for k in range(0, len(points), 1000):
        text = " ".join(f"x{chr(cp)}x" for cp in points[k : k + 1000])
        assert ours.normalize_str(text) == theirs.normalize(text), hex(points[k])


def test_texts_normalise_and_a_trained_model_encodes_as_sentencepiece(theirs):
    texts = LINES + ["  Two  spaces and ＴＡＢ\there ", "e\u0301\u0302 A\u0308 한국어 \u1100\u1161"]
    ours = sentencepiece_normalizer("nfkc_cf")
    for text in texts:
        assert ours.normalize_str(text) == theirs.normalize(text), text
    tok = tc.train("unigram", LINES, vocab_size=35, normalization="nfkc_cf")
    assert "".join(tok.encode("STRASSE Straße").tokens) == "▁strasse▁straße"
    assert tok.normalize("ＦＵＬＬ İ").normalized == theirs.normalize("ＦＵＬＬ İ")


def test_a_model_trained_with_nfkc_cf_says_why_it_cannot_be_saved(tmp_path):
    tok = tc.train("unigram", LINES, vocab_size=35, normalization="nfkc_cf")
    with pytest.raises(ValueError, match="nfkc_cf"):
        tok.save(str(tmp_path / "x.model"))
    with pytest.raises(ValueError, match="nfkc_cf"):
        tc.train("unigram", LINES, vocab_size=35, normalization="nfkc_lower")

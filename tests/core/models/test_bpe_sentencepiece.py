"""`"sentencepiece_bpe"` against sentencepiece itself (trained into tmp_path from an input file):
`SentencePieceTrainer.train(model_type="bpe", vocab_size=V, character_coverage=1.0,
normalization_rule_name="identity")`, other options at their defaults."""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus
from tokenizers_core.models.bpe.sentencepiece_trainer import SentencePieceBpeTrainer
from tokenizers_core.models.sentencepiece_common import is_valid_piece, script
from tokenizers_core.steps import step_from_dict

SEED = ["low low low lower lowest newer wider"]


def reference(lines, vocab_size, tmp_path):
    import sentencepiece as spm

    path = tmp_path / "input.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    prefix = tmp_path / "m"
    spm.SentencePieceTrainer.train(
        input=str(path),
        model_prefix=str(prefix),
        model_type="bpe",
        vocab_size=vocab_size,
        character_coverage=1.0,
        normalization_rule_name="identity",
        minloglevel=2,
    )
    sp = spm.SentencePieceProcessor(model_file=str(prefix) + ".model")
    return sp, [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]


@pytest.mark.heavy
@pytest.mark.parametrize(
    "name,vocab_size",
    [
        ("botchan", 1000),
        ("udhr/eng", 1000),
        ("udhr/jpn", 1000),
        ("udhr/hye", 1000),
        ("udhr/tha", 600),
        ("udhr/deu_1996", 4000),
    ],
)
def test_pieces_equal_sentencepiece(name, vocab_size, tmp_path):
    lines = load_corpus(name).splitlines()
    sp, pieces = reference(lines, vocab_size, tmp_path)
    tok = tc.train("sentencepiece_bpe", lines, vocab_size=vocab_size)
    assert tok.model.pieces == pieces
    text = lines[len(lines) // 2]
    assert tok.encode(text).ids == sp.encode(text)
    assert tok.decode(tok.encode(text).ids) == sp.decode(sp.encode(text))


@pytest.mark.parametrize(
    "extra",
    [
        "foo ⁇ bar ⁇⁇ baz",  # "⁇" is an ordinary character
        "foo ▅ bar ▅▅ baz",  # "▅" is sentencepiece's reserved unknown mark: line skipped
        "qu\tux qu\tux quux",  # a tab is an ordinary character that never merges
        "a<s>b <unk>c d</s>",  # meta pieces in the text become a boundary
    ],
)
def test_reserved_characters_like_sentencepiece(extra, tmp_path):
    lines = load_corpus("udhr/eng").splitlines() + [extra] * 30
    _, pieces = reference(lines, 400, tmp_path)
    assert tc.train("sentencepiece_bpe", lines, vocab_size=400).model.pieces == pieces


def test_seed_pieces_and_the_tie_rule(tmp_path):
    """Counts: ▁l, lo, ow 5 each (low x3, lower, lowest). sentencepiece's tie rule prefers the
    shorter piece, then the smaller string: "lo" < "ow" < "▁l" ("▁" is U+2581)."""
    _, pieces = reference(SEED, 20, tmp_path)
    tok = tc.train("sentencepiece_bpe", SEED, vocab_size=20)
    assert tok.model.pieces == pieces
    assert [p for p, _ in pieces[:5]] == ["<unk>", "<s>", "</s>", "lo", "low"]
    trainer = SentencePieceBpeTrainer(SEED, vocab_size=20)
    first = next(trainer)
    assert first.new_symbol == "lo" and first.count == 5
    assert ("o", "w") in first.tied and ("▁", "l") in first.tied
    assert step_from_dict(json.loads(json.dumps(first.to_dict()))) == first


def test_too_large_vocab_is_an_error_like_sentencepiece(tmp_path):
    """The seed corpus yields at most 47 pieces (sentencepiece says so too: 48 fails)."""
    assert len(tc.train("sentencepiece_bpe", SEED, vocab_size=47).model.pieces) == 47
    with pytest.raises(ValueError, match="at most 47"):
        tc.train("sentencepiece_bpe", SEED, vocab_size=48)
    with pytest.raises(RuntimeError):
        reference(SEED, 48, tmp_path)


def test_piece_rules():
    assert script("ア") == script("漢") == "Han"
    assert script("\u0589") == "Common"  # sentencepiece's (older) script table
    assert is_valid_piece("▁the") and not is_valid_piece("the▁")
    assert not is_valid_piece("a1") and is_valid_piece("1,")
    assert not is_valid_piece("x" * 17)


def test_bad_input():
    with pytest.raises(ValueError, match="empty"):
        tc.train("sentencepiece_bpe", ["", "   "], vocab_size=10)
    with pytest.raises(ValueError, match="below"):
        tc.train("sentencepiece_bpe", SEED, vocab_size=5)

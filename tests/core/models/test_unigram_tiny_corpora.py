"""Unigram training on tiny corpora agrees with sentencepiece piece for piece.

On a tiny corpus every tie and every corner of sentencepiece's recipe shows: which substrings
seed the vocabulary (the suffix array's repeated substrings with two continuations, a sentence's
end being one), the order of the seed pieces, pruning's characters and unknown nodes, and which
sizes it accepts. sentencepiece 0.2.3 is the reference (test-only).
"""

from __future__ import annotations

import io

import pytest

import tokenizers_core as tc

spm = pytest.importorskip("sentencepiece")

THREE = ["A first sentence", "Another sentence", "And a last one"]


def sentencepiece_train(lines: list[str], size: int):
    """sentencepiece's Unigram at `size` (None when it refuses the size)."""
    out = io.BytesIO()
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(lines),
            model_writer=out,
            vocab_size=size,
            model_type="unigram",
            minloglevel=3,
            num_threads=1,
        )
    except RuntimeError:
        return None
    return spm.SentencePieceProcessor(model_proto=out.getvalue())


def ours_train(lines: list[str], size: int):
    try:
        return tc.train("unigram", lines, vocab_size=size)
    except ValueError:
        return None


def pieces_of(sp) -> list[str]:
    return [sp.id_to_piece(i) for i in range(sp.get_piece_size())]


def assert_same_model(tok, sp, lines: list[str]) -> None:
    """The same pieces with the same scores (to sentencepiece's 32-bit floats), so the same
    tokens. The order of pieces whose scores tie may differ: sentencepiece's float sums break
    such ties by rounding noise."""
    theirs = {sp.id_to_piece(i): sp.get_score(i) for i in range(sp.get_piece_size())}
    ours = dict(tok.model.pieces)
    assert sorted(ours) == sorted(theirs)
    for piece, score in ours.items():
        assert score == pytest.approx(theirs[piece], abs=1e-4), piece
    for line in lines:
        assert tok.encode(line).tokens == sp.encode(line, out_type=str), line


def test_a_sentence_at_the_largest_accepted_size_splits_as_sentencepiece_does():
    """21 is the largest size sentencepiece accepts here: `▁sentence` always ends its line, so
    the suffix array never offers it (nor `st`, always followed by a space) as a seed piece."""
    assert sentencepiece_train(THREE, 22) is None
    with pytest.raises(ValueError, match="use at most 21"):
        tc.train("unigram", THREE, vocab_size=22)
    tok = tc.train("unigram", THREE, vocab_size=21)
    assert tok.encode("A sentence").tokens == ["▁A", "▁", "s", "en", "t", "en", "c", "e"]


@pytest.mark.parametrize("size", [18, 19, 20, 21])
def test_the_three_sentences_train_the_model_sentencepiece_trains(size):
    assert_same_model(
        tc.train("unigram", THREE, vocab_size=size),
        sentencepiece_train(THREE, size),
        THREE + ["A sentence"],
    )


TINY = {
    "abcd": ["abba cab dab", "abc abcd bcd", "dd cc ab ba"],
    "hugs": ["hug pug pun bun hugs", "hug hugs bugs", "pun puns hug"],
    "letters": ["cade abcace", "bcced deadb ddbcec d", "b dcdad c eeedbb babee", "ecec ceea"],
}


@pytest.mark.parametrize("name", sorted(TINY))
def test_tiny_corpora_at_every_size_agree_with_sentencepiece(name):
    """Every size from 8 up: both refuse it, or both train the same model."""
    lines = TINY[name]
    for size in range(8, 40):
        sp, tok = sentencepiece_train(lines, size), ours_train(lines, size)
        assert (sp is None) == (tok is None), size
        if sp is not None:
            assert_same_model(tok, sp, lines)

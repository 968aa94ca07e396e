"""Unigram training: seed, EM rounds and pruning as steps, quality against sentencepiece.

The full-size figures (botchan and the English UDHR at 1000/4000, and the 1 MB benchmark text)
come from `benchmarks/bench_unigram.py`; here a small case keeps the suite fast.
"""

from __future__ import annotations

import gzip
import io
import itertools
import os

import pytest

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus
from tokenizers_core.formats.sentencepiece_model import _DATA, load_bytes
from tokenizers_core.implementations.unigram import held_out_quality, unigram_tokenizer
from tokenizers_core.models.sentencepiece_common import is_valid_piece, split_words
from tokenizers_core.models.unigram.trainer import UnigramRoundStep, UnigramTrainer, digamma
from tokenizers_core.steps import step_from_dict

spm = pytest.importorskip("sentencepiece")


def _botchan() -> list[str]:
    with gzip.open(os.path.join(_DATA, "corpora", "botchan.txt.gz"), "rt", encoding="utf-8") as fh:
        return [line for line in fh.read().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def corpus() -> tuple[list[str], list[str]]:
    lines = _botchan()[:2500]
    return [l for i, l in enumerate(lines) if i % 10], [
        l for i, l in enumerate(lines) if i % 10 == 0
    ]


@pytest.fixture(scope="module")
def trained(corpus):
    train, _held = corpus
    trainer = UnigramTrainer(train, 600, sample_words=["unhappiness", "schoolmaster"])
    trainer.run()
    return trainer, unigram_tokenizer(trainer)


@pytest.mark.heavy
def test_quality_close_to_sentencepiece(corpus, trained):
    train, held = corpus
    _trainer, ours = trained
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(train),
        model_writer=out,
        vocab_size=600,
        model_type="unigram",
        minloglevel=2,
        num_threads=1,
    )
    theirs = load_bytes(out.getvalue())
    tpw, ll = held_out_quality(ours, held)
    sp_tpw, sp_ll = held_out_quality(theirs, held)
    # within 2% (or better than sentencepiece)
    assert tpw <= sp_tpw * 1.02, (tpw, sp_tpw)
    assert ll >= sp_ll * 1.02, (ll, sp_ll)  # log-likelihoods are negative


@pytest.mark.heavy
def test_rounds_are_steps(trained):
    trainer, tok = trained
    steps = trainer.steps
    assert all(isinstance(s, UnigramRoundStep) for s in steps)
    assert steps[0].round == 0 and steps[-1].final and not any(s.final for s in steps[:-1])
    sizes = [s.vocab_size for s in steps[:-1]]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > 5 * 600
    assert steps[-1].vocab_size == 600 == tok.vocab_size
    middle = [s for s in steps[1:-1]]
    assert middle and all(s.num_pruned > 0 and s.pruned for s in middle[:-1])
    for s in middle:
        losses = [loss for _p, loss in s.pruned]
        assert losses == sorted(losses)
    words = [w for w, _toks in steps[-1].samples]
    assert words == ["unhappiness", "schoolmaster"]
    for s in steps:
        assert step_from_dict(s.to_dict()) == s


@pytest.mark.heavy
def test_trained_model_shape(trained):
    _trainer, tok = trained
    pieces = tok.model.pieces
    assert [p for p, _s in pieces[:3]] == ["<unk>", "<s>", "</s>"]
    scores = [s for _p, s in pieces[3:]]
    assert scores == sorted(scores, reverse=True)
    assert all(s < 0 for s in scores)
    assert len({p for p, _s in pieces}) == len(pieces)
    text = "The schoolmaster said nothing, and I went home."
    enc = tok.encode(text)
    assert tok.decode(enc.ids) == text
    assert tok.nbest(text, 3)[0][0] == enc.tokens


def test_train_entry_point_is_deterministic():
    lines = _botchan()[:300]
    a = tc.train("unigram", lines, vocab_size=200)
    b = tc.train("unigram", lines, vocab_size=200)
    assert a.model.pieces == b.model.pieces
    assert a.algorithm == "unigram" and a.vocab_size == 200


def test_bad_input_is_a_value_error():
    lines = _botchan()[:200]
    with pytest.raises(ValueError, match="empty"):
        tc.train("unigram", [], vocab_size=100)
    with pytest.raises(ValueError, match="empty"):
        tc.train("unigram", ["", "   "], vocab_size=100)
    with pytest.raises(ValueError, match="too large"):
        tc.train("unigram", ["a tiny corpus", "a tiny corpus"], vocab_size=5000)
    with pytest.raises(ValueError, match="too small"):
        tc.train("unigram", lines, vocab_size=10)
    with pytest.raises(ValueError):
        tc.train("unigram", lines, vocab_size="many")
    with pytest.raises(ValueError):
        tc.train("unigram", lines, vocab_size=100, shrinking_factor=2)


def test_helpers():
    assert split_words("▁a▁bc▁") == ["▁a", "▁bc", "▁"]
    assert is_valid_piece("▁the", 16) and not is_valid_piece("the▁", 16)
    assert not is_valid_piece("ab", 1) and not is_valid_piece("aж", 16)
    assert is_valid_piece("e\u0301", 16)  # a mark takes its base's script
    assert abs(digamma(10.0) - 2.251752589066721) < 1e-9


def test_lines_with_the_reserved_unknown_mark_are_skipped():
    """sentencepiece skips every line holding "▅" (U+2585), the mark rare characters become."""
    lines = load_corpus("udhr/eng").splitlines()

    def pieces(model):
        return [model.id_to_token(i) for i in range(model.get_vocab_size())]

    plain = tc.train("unigram", lines, vocab_size=300).model
    marked = tc.train("unigram", lines + ["zq▅ xyzzy"] * 40, vocab_size=300).model
    assert pieces(marked) == pieces(plain)


def test_training_stops_when_nothing_can_be_pruned():
    """On this tiny corpus, at sizes 8-10, every piece left after a few rounds must stay (the
    characters, and pieces with no other spelling), so pruning removes nothing: training used to
    loop for ever there; it stops and finalises."""
    corpus = ["bbd a bdba b   abd", "db b c d ", " bddbdccbc cb ", "ccb", "cccdc dab"] * 2
    for size in (8, 9, 10):
        trainer = UnigramTrainer(corpus, size)
        rounds = list(itertools.islice(trainer.rounds(), 50))
        assert rounds[-1].final and len(rounds) < 50
        assert unigram_tokenizer(trainer).model.get_vocab_size() == size

"""Unigram options the upstream suites exercise: Hugging Face's `fuse_unk`,
the trainer's special tokens, sentencepiece's entropy, scored sampling and `emit_unk_piece`."""

from __future__ import annotations

import gzip
import io
import math
import os
from collections import Counter

import pytest

import tokenizers_core as tc
from tokenizers_core.formats.sentencepiece_model import _DATA
from tokenizers_core.models.unigram.hf import HFUnigram
from tokenizers_core.models.unigram.regularization import (
    calculate_entropy,
    encode_pieces,
    sample_encode_and_score,
)

# tokenizers/src/models/unigram/model.rs, test_encode2: the pieces and what Rust expects
ENCODE2 = [
    ("<unk>", 0.0),
    ("ab", 0.0),
    ("cd", -0.1),
    ("abc", -0.2),
    ("a", -0.3),
    ("b", -0.4),
    ("c", -0.5),
    ("ABC", -0.5),
    ("abcdabcd", 20.0),
    ("q", 20.5),
    ("r", 20.5),
    ("qr", -0.5),
]


def tokens(model, text):
    return [t for t, *_ in model.tokenize(text)]


def test_fuse_unk_false_keeps_each_unknown_character_apart():
    """Rust's `set_fuse_unk(false)`: "AB" -> A B and "xyz東京" -> five tokens; fused (the
    default, and all the Python bindings build), each run of unknown characters is one token."""
    fused = HFUnigram(ENCODE2, unk_id=0)
    apart = HFUnigram(ENCODE2, unk_id=0, fuse_unk=False)
    assert tokens(fused, "AB") == ["AB"] and tokens(apart, "AB") == ["A", "B"]
    assert tokens(fused, "xyz東京") == ["xyz東京"]
    assert tokens(apart, "xyz東京") == ["x", "y", "z", "東", "京"]
    assert [i for _t, i, *_ in apart.tokenize("xyz")] == [0, 0, 0]
    assert tokens(apart, "abqrcd") == ["ab", "q", "r", "cd"]


def test_fuse_unk_default_matches_hugging_face():
    tokenizers = pytest.importorskip("tokenizers")
    theirs = tokenizers.models.Unigram(ENCODE2, unk_id=0, byte_fallback=False)
    for text in ("AB", "xyz東京", "abABCcd", "xabcabaabcdd"):
        assert tokens(HFUnigram(ENCODE2, unk_id=0), text) == [
            t.value for t in theirs.tokenize(text)
        ]


# ---- sentencepiece's entropy, scored samples, emit_unk_piece ------------------------------------
def every_segmentation(tok, text):
    """(pieces, score) of every path through the model's lattice of the normalised text."""
    lat = tok.model.lattice(tok.normalize(text).normalized)
    paths = [([], lat.bos)]
    done = []
    while paths:
        pieces, node = paths.pop()
        end = node.pos + node.length
        for nxt in lat.begin_nodes[end]:
            if nxt is lat.eos:
                done.append(pieces)
            else:
                paths.append((pieces + [nxt], nxt))
    return [([n.piece for n in p], sum(n.score for n in p)) for p in done]


def exact_distribution(tok, text, alpha):
    paths = every_segmentation(tok, text)
    log_z = math.log(sum(math.exp(alpha * s) for _p, s in paths))
    return {tuple(p): alpha * s - log_z for p, s in paths}


@pytest.mark.parametrize("text", ["Hello", "the cat", "unhappiness", "ab"])
@pytest.mark.parametrize("alpha", [0.0, 0.1, 0.5, 1.0])
def test_entropy_is_that_of_every_segmentation_enumerated(text, alpha):
    tok = tc.load("botchan_en_unigram_1000")
    dist = exact_distribution(tok, text, alpha)
    expected = -sum(math.exp(lp) * lp for lp in dist.values())
    assert calculate_entropy(tok, text, alpha) == pytest.approx(expected, abs=1e-9)


def test_entropy_of_one_possible_split_is_zero_and_bad_input_is_refused():
    tok = tc.load("botchan_en_unigram_1000")
    assert calculate_entropy(tok, "", 0.5) == 0.0
    with pytest.raises(ValueError, match="alpha"):
        calculate_entropy(tok, "Hello", -1)
    with pytest.raises(ValueError, match="not a Unigram model"):
        calculate_entropy(tc.load("gpt2"), "Hello")


def test_sampled_scores_are_exact_log_probabilities_and_frequencies_follow_them():
    tok = tc.load("botchan_en_unigram_1000")
    dist = exact_distribution(tok, "Hello", 0.5)
    samples = sample_encode_and_score(tok, "Hello", num_samples=4000, alpha=0.5, seed=1)
    assert len(samples) == 4000
    for pieces, score in samples:
        assert score == pytest.approx(dist[tuple(pieces)], abs=1e-9)
    counts = Counter(tuple(p) for p, _s in samples)
    for pieces, log_p in dist.items():  # within 5 standard deviations
        n, p = 4000, math.exp(log_p)
        assert abs(counts[pieces] - n * p) <= 5 * math.sqrt(n * p * (1 - p)) + 1, pieces


def test_sampling_at_alpha_zero_is_uniform_and_seeded_draws_repeat():
    tok = tc.load("botchan_en_unigram_1000")
    samples = sample_encode_and_score(tok, "Hello", num_samples=50, alpha=0.0, seed=3)
    assert all(s == pytest.approx(-math.log(5)) for _p, s in samples)
    assert samples == sample_encode_and_score(tok, "Hello", num_samples=50, alpha=0.0, seed=3)
    with pytest.raises(ValueError, match="wor"):
        sample_encode_and_score(tok, "Hello", wor=True)
    with pytest.raises(ValueError, match="num_samples"):
        sample_encode_and_score(tok, "Hello", num_samples=0)


@pytest.mark.parametrize(
    "name", ["botchan_en_unigram_1000.model.gz", "botchan_en_bpe_1000.model.gz"]
)
def test_emit_unk_piece_matches_sentencepiece(name):
    spm = pytest.importorskip("sentencepiece")
    blob = gzip.open(os.path.join(_DATA, name)).read()
    sp = spm.SentencePieceProcessor(model_proto=blob)
    tok = tc.load(blob)
    for text in ("Hello 漢字 world ü", "naïve café ☃☃ end", "plain text"):
        for emit in (False, True):
            assert encode_pieces(tok, text, emit_unk_piece=emit) == sp.encode(
                text, out_type=str, emit_unk_piece=emit
            ), (text, emit)


# ---- the trainer's special tokens, unknown token and user-defined symbols -------------------------
HUGS = ["hug<x>pug pun<x>bun hugs", "hug hugs<x> bugs", "pun puns hug"]


@pytest.mark.parametrize("size", range(15, 20))
def test_user_defined_symbols_train_as_sentencepiece_does(size):
    """Each symbol is one piece (ids 3, 4 after <unk> <s> </s>), always matched whole, and a
    boundary the trained pieces never cross."""
    spm = pytest.importorskip("sentencepiece")
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(HUGS),
        model_writer=out,
        vocab_size=size,
        model_type="unigram",
        minloglevel=3,
        num_threads=1,
        user_defined_symbols=["<sep>", "<x>"],
    )
    sp = spm.SentencePieceProcessor(model_proto=out.getvalue())
    tok = tc.train("unigram", HUGS, vocab_size=size, user_defined_symbols=["<sep>", "<x>"])
    theirs = [sp.id_to_piece(i) for i in range(size)]
    ours = [p for p, _s in tok.model.pieces]
    assert ours[:5] == theirs[:5] == ["<unk>", "<s>", "</s>", "<sep>", "<x>"]
    assert sorted(ours) == sorted(theirs)
    for text in HUGS + ["pug<x><sep>bun"]:
        assert tok.encode(text).tokens == sp.encode(text, out_type=str)
    assert tok.encode("pug<x><sep>").ids[-2:] == sp.encode("pug<x><sep>")[-2:] == [4, 3]


def test_special_and_unknown_tokens_come_first_as_hugging_face_puts_them():
    tokenizers = pytest.importorskip("tokenizers")
    lines = ["A first sentence", "Another sentence", "And a last one"]
    for specials, unk in ((["[CLS]", "[SEP]"], "[UNK]"), (["[CLS]", "[UNK]", "[SEP]"], "[UNK]")):
        hf = tokenizers.Tokenizer(tokenizers.models.Unigram())
        hf.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace()
        hf.train_from_iterator(
            lines,
            tokenizers.trainers.UnigramTrainer(
                vocab_size=21, special_tokens=specials, unk_token=unk, show_progress=False
            ),
        )
        ours = tc.train("unigram", lines, vocab_size=21, special_tokens=specials, unk_token=unk)
        first = len(specials) + (unk not in specials)
        assert [ours.model.id_to_token(i) for i in range(first)] == [
            hf.id_to_token(i) for i in range(first)
        ]
        assert ours.model.unk_id == hf.token_to_id(unk)
        assert ours.model.id_to_token(ours.encode("A ☃").ids[-1]) == unk


def test_trainer_tokens_bad_input():
    lines = ["A first sentence", "Another sentence", "And a last one"]
    for options, message in (
        ({"unk_token": ""}, "unk_token"),
        ({"special_tokens": "<s>"}, "not one string"),
        ({"special_tokens": ["<s>", "<s>"]}, "must all differ"),
        ({"user_defined_symbols": ["<unk>"]}, "must all differ"),
        ({"user_defined_symbols": [""]}, "non-empty"),
    ):
        with pytest.raises(ValueError, match=message):
            tc.train("unigram", lines, vocab_size=21, **options)

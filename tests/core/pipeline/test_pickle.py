"""Every tokenizer pickles (docs/ARCHITECTURE.md), trained ones included: background trainings
hand their result to the server as a pickle."""

from __future__ import annotations

import pickle

import pytest

import tokenizers_core as tc

LINES = ["low low low lower lowest newer wider", "ünïcode text 日本 ▁cats"] * 3


@pytest.mark.parametrize("algorithm", tc.algorithms())
def test_trained_tokenizers_pickle(algorithm):
    byte_level = {a: 270 for a in ("byte_bpe", "superbpe", "picky_bpe", "parity_bpe")}
    tok = tc.train(algorithm, LINES, {**byte_level, "unigram": 25}.get(algorithm, 40))
    text = "lower newest cats 日本"
    before = tok.encode(text)
    back = pickle.loads(pickle.dumps(tok))
    assert back.encode(text).tokens == before.tokens
    assert pickle.loads(pickle.dumps(back)).encode(text).ids == before.ids


def test_bundled_sentencepiece_model_pickles():
    tok = tc.load("botchan_en_unigram_1000")
    tok.encode("warm the caches first")
    back = pickle.loads(pickle.dumps(tok))
    assert back.encode("I am a cat.").tokens == tok.encode("I am a cat.").tokens

"""Unigram options the upstream suites exercise (issue 20, item 17): Hugging Face's `fuse_unk`,
the trainer's special tokens, sentencepiece's entropy, scored sampling and `emit_unk_piece`."""
from __future__ import annotations

import pytest

from tokenizers_core.models.unigram.hf import HFUnigram

# tokenizers/src/models/unigram/model.rs, test_encode2: the pieces and what Rust expects
ENCODE2 = [("<unk>", 0.0), ("ab", 0.0), ("cd", -0.1), ("abc", -0.2), ("a", -0.3), ("b", -0.4),
           ("c", -0.5), ("ABC", -0.5), ("abcdabcd", 20.0), ("q", 20.5), ("r", 20.5),
           ("qr", -0.5)]


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
        assert tokens(HFUnigram(ENCODE2, unk_id=0), text) == \
            [t.value for t in theirs.tokenize(text)]

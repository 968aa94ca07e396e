"""The Unigram model: the Viterbi lattice as steps, n-best, sampling, unknowns and bytes.

Golden case (the seed's "▁cats", with `▁cat` scored high and `s` present), worked by hand:

    best[0] = 0
    best[1] = "▁"                         -3.5
    best[2] = max("▁c" -5.0, best[1] + "c" -7.5)                       = -5.0   (▁c)
    best[3] = max("▁ca" -6.5, best[1] + "ca" -9.0, best[2] + "a" -9.0) = -6.5   (▁ca)
    best[4] = "▁cat" -2.0 beats every split of it                       = -2.0   (▁cat)
    best[5] = max("▁cats" -9.0, best[2] + "ats" -12.5, best[3] + "ts" -12.5,
                  best[4] + "s" -5.0)                                  = -5.0   (s)
    back-pointers from 5: s (4..5), ▁cat (0..4)  ->  ▁cat s
"""

from __future__ import annotations

import collections
import gzip
import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.formats.sentencepiece_model import _DATA
from tokenizers_core.implementations.unigram import demo_tokenizer
from tokenizers_core.models.unigram.model import (
    BYTE,
    NORMAL,
    UNKNOWN,
    Unigram,
    ViterbiBacktrackStep,
    ViterbiStep,
    f32,
    lattice_steps,
    sample,
)
from tokenizers_core.steps import step_from_dict

spm = pytest.importorskip("sentencepiece")


@pytest.fixture(scope="module")
def demo():
    return demo_tokenizer()


@pytest.fixture(scope="module")
def botchan_sp():
    with gzip.open(os.path.join(_DATA, "botchan_en_unigram_1000.model.gz"), "rb") as fh:
        return spm.SentencePieceProcessor(model_proto=fh.read())


def _botchan_lines() -> list[str]:
    with gzip.open(os.path.join(_DATA, "corpora", "botchan.txt.gz"), "rt", encoding="utf-8") as fh:
        return [line for line in fh.read().splitlines() if line.strip()]


# ---- the golden lattice --------------------------------------------------------------------------


def test_cats_lattice_steps(demo):
    text, steps = lattice_steps(demo, "cats")
    assert text == "▁cats"
    forward = [s for s in steps if s.kind == "viterbi"]
    assert [s.position for s in forward] == [1, 2, 3, 4, 5]
    assert [s.best for s in forward] == [-3.5, -5.0, -6.5, -2.0, -5.0]
    assert [s.back for s in forward] == [0, 0, 0, 0, 4]
    last = forward[-1]
    assert [(c[0], c[1], c[4]) for c in last.candidates] == [
        (0, "▁cats", -9.0),
        (2, "ats", -12.5),
        (3, "ts", -12.5),
        (4, "s", -5.0),
    ]
    assert last.candidates[last.winner][1] == "s"
    back = [s for s in steps if s.kind == "viterbi_backtrack"]
    assert [(s.start, s.end, s.piece) for s in back] == [(4, 5, "s"), (0, 4, "▁cat")]
    assert back[-1].path == ("s", "▁cat")
    assert demo.encode("cats").tokens == ["▁cat", "s"]


def test_steps_survive_json(demo):
    _text, steps = lattice_steps(demo, "cats dogs")
    for s in steps:
        assert step_from_dict(s.to_dict()) == s
    assert {type(s) for s in steps} == {ViterbiStep, ViterbiBacktrackStep}


def test_unknown_characters_get_an_unk_node_with_the_penalty(demo):
    model = demo.model
    assert model.unk_score == f32(-9.0 - 10.0)  # min score - kUnkPenalty
    _text, steps = lattice_steps(demo, "cod")
    unknown = [s for s in steps if s.kind == "viterbi" and s.unknown]
    assert [s.position for s in unknown] == [3, 4]
    enc = demo.encode("cod")
    assert enc.tokens == ["▁c", "od"]  # consecutive unknowns merge into one token
    assert enc.ids == [model.token_to_id("▁c"), model.unk_id]
    assert enc.offsets == [(0, 1), (1, 3)]


def test_byte_fallback_spells_unknowns_in_utf8_bytes():
    pieces = [("<unk>", 0.0), ("▁", -1.0), ("a", -2.0)] + [
        (f"<0x{b:02X}>", 0.0) for b in range(256)
    ]
    types = [UNKNOWN, NORMAL, NORMAL] + [BYTE] * 256
    model = Unigram(pieces, types=types, byte_fallback=True)
    tokens = model.tokenize("▁aé")
    assert [t for t, *_ in tokens] == ["▁", "a", "<0xC3>", "<0xA9>"]
    assert [t[2:] for t in tokens] == [(0, 1), (1, 2), (2, 3), (2, 3)]


# ---- the fast path and the stepper agree -------------------------------------------------------------


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(st.sampled_from(list("cats▁dog")), max_size=25))
def test_fast_path_equals_steps_on_demo(text, demo):
    model = demo.model
    steps = list(model.viterbi_steps(text))
    path = [(s.start, s.end, s.id) for s in steps if s.kind == "viterbi_backtrack"][::-1]
    assert path == model.encode_spans(text)


def test_fast_path_equals_steps_on_botchan_model():
    tok = tc.load("botchan_en_unigram_1000")
    for line in _botchan_lines()[:150]:
        text = tok.normalize(line).normalized
        steps = list(tok.model.viterbi_steps(text))
        path = [(s.start, s.end, s.id) for s in steps if s.kind == "viterbi_backtrack"][::-1]
        assert path == tok.model.encode_spans(text), line


# ---- n-best ---------------------------------------------------------------------------------------------


def test_nbest_matches_sentencepiece(botchan_sp):
    tok = tc.load("botchan_en_unigram_1000")
    lines = _botchan_lines()[300:420] + ["Hello world", "東京 cats", "Ｈｅｌｌｏ", "a"]
    for line in lines:
        proto = botchan_sp.nbest_encode(line, nbest_size=8, out_type="proto")
        want = [([p.piece for p in n.pieces], n.score) for n in proto.nbests]
        got = tok.nbest(line, 8)
        assert [g[0] for g in got] == [w[0] for w in want], line
        for (_t, gs), (_w, ws) in zip(got, want):
            assert abs(gs - ws) < 1e-4


def test_nbest_is_sorted_and_starts_with_the_best(demo):
    results = demo.nbest("cats", 10)
    scores = [s for _t, s in results]
    assert scores == sorted(scores, reverse=True)
    assert results[0] == (["▁cat", "s"], -5.0)
    assert results[1] == (["▁cats"], -9.0)
    assert demo.nbest("cats", 1) == [(["▁cat", "s"], -5.0)]
    assert demo.nbest("", 3) == [([], 0.0)]


def test_nbest_and_sampling_reject_bad_arguments(demo):
    with pytest.raises(ValueError):
        demo.nbest("cats", 0)
    with pytest.raises(ValueError):
        sample(demo, "cats", alpha=-1.0)
    with pytest.raises(ValueError):
        sample(demo, "cats", nbest_size=1000)
    with pytest.raises(ValueError):
        tc.load("botchan_en_bpe_1000").nbest("cats", 2)
    with pytest.raises(ValueError):
        sample(tc.load("botchan_en_bpe_1000"), "cats")


# ---- sampling ---------------------------------------------------------------------------------------------


def test_sampling_is_reproducible_and_nbest_one_is_the_best(demo):
    a = [sample(demo, "cats cats", seed=s) for s in range(20)]
    b = [sample(demo, "cats cats", seed=s) for s in range(20)]
    assert a == b
    assert sample(demo, "cats", nbest_size=1, seed=3) == ["▁cat", "s"]
    assert sample(demo, "cats", nbest_size=0) == ["▁cat", "s"]


def test_sampling_from_the_whole_lattice_follows_the_path_probabilities(demo):
    """P(path) = exp(alpha * score) / sum over all paths (alpha = 0.5)."""
    alpha = 0.5
    paths = demo.nbest("cats", 1000)
    z = sum(math.exp(alpha * s) for _t, s in paths)
    expected = {tuple(t): math.exp(alpha * s) / z for t, s in paths}
    n = 3000
    counts = collections.Counter(
        tuple(sample(demo, "cats", alpha=alpha, nbest_size=-1, seed=i)) for i in range(n)
    )
    for path, p in expected.items():
        assert abs(counts[path] / n - p) < 4 * math.sqrt(p * (1 - p) / n) + 0.005, path


def test_sampling_among_the_n_best(demo):
    top3 = {tuple(t) for t, _s in demo.nbest("cats", 3)}
    drawn = {tuple(sample(demo, "cats", alpha=0.2, nbest_size=3, seed=i)) for i in range(200)}
    assert drawn <= top3 and len(drawn) == 3


# ---- the model on its own ---------------------------------------------------------------------------------


def test_model_protocol_and_bad_models():
    model = demo_tokenizer().model
    assert model.get_vocab_size() == 15
    assert model.id_to_token(1) == "▁cat" and model.token_to_id("▁cat") == 1
    assert model.id_to_token(99) is None and model.token_to_id("dog") is None
    assert model.pieces[1] == ("▁cat", -2.0)
    with pytest.raises(ValueError):
        Unigram([])
    with pytest.raises(ValueError):
        Unigram([("a", -1.0)], types=[NORMAL])  # no <unk>

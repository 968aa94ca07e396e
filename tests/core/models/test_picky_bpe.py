"""Picky BPE (`picky_bpe`): the textbook loop reproduces the authors' trainer (golden files made
by running pchizhov/picky_bpe, see golden/picky_bpe/README.md), the fast trainer equals the
textbook step by step, tau > 1 is exactly "byte_bpe", and the trained tokeniser replays the
training's events.

The authors break ties by dict order (`Counter.most_common`); the golden files record, at each
merge, the pair they chose and every pair tied with it, and the textbook replays their choice
through its `ties` function after checking it is among its own tied pairs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.byte_level import BYTE_TO_CHAR
from tokenizers_core.corpora import load_corpus
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.bpe_family import train_picky_bpe
from tokenizers_core.models.bpe.picky import (
    PickyBpe,
    PickyBpeMergeStep,
    PickyBpeTrainer,
    picky_bpe_trainer,
    picky_word_table,
)
from tokenizers_core.models.bpe.trainer import byte_bpe_trainer, byte_bpe_words
from tokenizers_core.steps import step_from_dict
from tokenizers_core.textbook import line_marks, picky_bpe_train

GOLDEN = Path(__file__).parent / "golden" / "picky_bpe"
SOURCES = {
    "botchan200": ("botchan", 200),
    "udhr_fra": ("udhr/fra", None),
    "udhr_rus": ("udhr/rus", None),
}
SPECIALS = ["<PAD>", "<UNK>", "<BOS>", "<EOS>"]  # the authors' ids 0-3
BYTES = tuple(BYTE_TO_CHAR.values())


def lines_of(name: str, n: int | None) -> list[str]:
    return load_corpus(name).split("\n")[:n]


def golden(name: str) -> dict:
    return json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))


def replay_golden(name: str) -> tuple[dict, list[PickyBpeMergeStep]]:
    """The textbook on the authors' word table, choosing among tied pairs as they chose."""
    g = golden(name)
    corpus, n = SOURCES[name]
    words = {tuple(w): c for w, c in picky_word_table(lines_of(corpus, n)).items()}
    merges = iter(g["merges"])

    def as_they_chose(tied):
        want = next(merges)
        pair = tuple(want["pair"])
        assert pair in tied and len(tied) - 1 == want["n_tied"], want
        if want["tied"] is not None:
            assert sorted(list(p) for p in tied if p != pair) == want["tied"]
        return pair

    steps = picky_bpe_train.picky_bpe_train(
        words,
        g["vocab_size"],
        threshold=g["threshold"],
        special_tokens=SPECIALS,
        ties=as_they_chose,
    )
    return g, list(steps)


@pytest.mark.heavy
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_the_textbook_reproduces_the_authors_trainer(name):
    g, steps = replay_golden(name)
    assert len(steps) == len(g["merges"])
    for step, want in zip(steps, g["merges"]):
        assert [list(step.pair), step.count] == [want["pair"], want["count"]], step.index
        assert all(step.merged == merged for _t, merged, _r in want["ios"]), step.index
        assert list(step.ios) == [m / (rest + m) for _t, m, rest in want["ios"]], step.index
        assert [[t, list(split)] for t, _ios, _id, split in step.removed] == [
            [t, split] for t, _id, split in want["removed"]
        ], step.index
    assert sum(len(s.removed) for s in steps) > 20  # the goldens exercise removals
    present = set(SPECIALS) | {t for w in picky_word_table(lines_of(*SOURCES[name])) for t in w}
    for step in steps:
        present.add(step.new_symbol)
        present -= {t for t, *_rest in step.removed}
    assert present == set(g["vocab"])


@pytest.mark.heavy
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_encoding_replays_the_events_as_the_authors_do(name):
    g, steps = replay_golden(name)
    vocab = {t: i for i, t in enumerate(g["vocab"])}
    events = []
    for step in steps:
        events.append(("merge", step.pair))
        events.extend(("remove", (t, *split)) for t, _ios, _id, split in step.removed)
    model = PickyBpe(vocab, events)
    for line, tokens in g["encoded"]:
        assert [p for w in line.split() for p in model.merge_parts(list("▁" + w))] == tokens


@pytest.mark.heavy
def test_a_removed_token_frees_the_id_it_was_given():
    _g, steps = replay_golden("udhr_fra")
    ids = {}
    for step in steps:
        ids.setdefault(step.new_symbol, step.new_id)
        for token, ios, freed, _split in step.removed:
            assert freed == ids[token] and ios > 0.6


# ---- the fast trainer equals the textbook -------------------------------------------------------
def words_of(lines: list[str]) -> dict[str, int]:
    return byte_bpe_words(lines, "gpt2")


def fast(lines, vocab_size, threshold):
    return (
        PickyBpeTrainer(words_of(lines), vocab_size, threshold=threshold, initial_alphabet=BYTES)
        .run()
        .steps
    )


def slow(lines, vocab_size, threshold):
    words = {tuple(w): c for w, c in words_of(lines).items()}
    return list(
        picky_bpe_train.picky_bpe_train(words, vocab_size, threshold=threshold, alphabet=BYTES)
    )


def assert_same_merges(fast_steps, slow_steps, upto: int | None = None) -> None:
    """Every field equal; the tied pairs in full where the fast heap walk saw them all, else
    the fast engine's (bounded) list is where the textbook's (exact) one starts."""
    assert len(fast_steps) == len(slow_steps) or upto is not None
    for f, s in list(zip(fast_steps, slow_steps))[:upto]:
        fd, sd = f.to_dict(), s.to_dict()
        if f.ties_more:
            for key in ("tied", "n_tied", "ties_more"):
                fd.pop(key), sd.pop(key)
            assert s.tied[: len(f.tied)] == f.tied, f.index
        assert fd == sd, f.index


CORPORA = {
    "botchan": [line for line in lines_of("botchan", 400) if line.strip()][:120],
    "udhr/fra": lines_of("udhr/fra", 40),
    "udhr/rus": lines_of("udhr/rus", 40),
    "udhr/hin": lines_of("udhr/hin", 30),
}


@pytest.mark.heavy
@pytest.mark.parametrize("name", sorted(CORPORA))
@pytest.mark.parametrize("threshold", [0.6, 0.9, 1.5])
def test_the_fast_trainer_equals_the_textbook(name, threshold):
    steps = slow(CORPORA[name], 420, threshold)
    assert_same_merges(fast(CORPORA[name], 420, threshold), steps)
    if threshold < 1:
        assert any(s.removed for s in steps)


@settings(max_examples=50, deadline=None)
@given(
    corpus=st.lists(st.text(alphabet="abc d", min_size=1, max_size=14), min_size=1, max_size=6),
    extra=st.integers(1, 14),
    threshold=st.sampled_from([0.3, 0.6, 0.9, 1.5]),
)
def test_the_fast_trainer_equals_the_textbook_on_random_corpora(corpus, extra, threshold):
    assume(any(line.strip() for line in corpus))
    assert_same_merges(fast(corpus, 256 + extra, threshold), slow(corpus, 256 + extra, threshold))


# ---- tau > 1 is byte_bpe ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["botchan", "udhr/rus"])
def test_a_threshold_above_one_is_byte_bpe(name):
    lines = CORPORA[name]
    plain = byte_bpe_trainer(lines, 500).run().steps
    picky = picky_bpe_trainer(lines, 500, threshold=1.01).run().steps
    extra = ("merged", "ios", "removed", "restored", "vocab_after")
    assert [s.to_dict() | {"kind": ""} for s in plain] == [
        {k: v for k, v in s.to_dict().items() if k not in extra} | {"kind": ""} for s in picky
    ]
    ours = train_picky_bpe(lines, 500, threshold=1.01)
    theirs = tc.train("byte_bpe", lines, vocab_size=500)
    assert ours.model.vocab == theirs.model.vocab
    for text in lines_of("udhr/eng", 20) + lines[:10]:
        assert ours.encode(text).ids == theirs.encode(text).ids


# ---- the trained tokeniser ----------------------------------------------------------------------
def test_encoding_a_training_word_gives_its_training_segmentation():
    lines = CORPORA["udhr/fra"]
    trainer = picky_bpe_trainer(lines, 500, threshold=0.6).run()
    tok = train_picky_bpe(lines, 500, threshold=0.6)
    assert sum(len(s.removed) for s in trainer.steps) > 5
    for i in range(len(trainer.words)):
        word = trainer.word_text(i)
        assert tok.model.merge_parts(list(word)) == list(trainer.segmentation(i))
    assert all(
        t in tok.model.vocab for i in range(len(trainer.words)) for t in trainer.segmentation(i)
    )


@pytest.mark.parametrize("text", ["La Déclaration universelle", "日本語 text!!", "  two  spaces "])
def test_round_trip_and_encode_steps(text):
    tok = train_picky_bpe(CORPORA["udhr/fra"], 500, threshold=0.6)
    assert tok.decode(tok.encode(text).ids) == text
    model = tok.model
    piece = "".join(BYTE_TO_CHAR[b] for b in "Déclaration".encode())
    steps = list(model.encode_steps(piece))
    assert steps and {s.action for s in steps} <= {"merge", "remove"}
    for step in steps:
        assert step_from_dict(step.to_dict()) == step


def test_a_picky_model_has_no_tokenizer_json_form():
    with pytest.raises(InvalidInput):
        train_picky_bpe(["abc abc abd"], 260, threshold=0.6).model.to_hf_config()


# ---- steps, code lines and options --------------------------------------------------------------
def test_every_step_survives_to_dict_and_maps_to_a_code_line():
    marks = line_marks(picky_bpe_train.CODE)
    assert {"start", "count", "pick", "merge", "ios", "remove", "record", "stop"} <= set(marks)
    for step in slow(CORPORA["udhr/fra"], 400, 0.6) + fast(CORPORA["udhr/fra"], 400, 0.6):
        assert isinstance(step, PickyBpeMergeStep)
        assert step_from_dict(step.to_dict()) == step
        want = marks["remove"] if step.removed else marks["merge"]
        assert picky_bpe_train.line_of(step) == want


@pytest.mark.parametrize("threshold", [0, -0.5, "0.9", True, None])
def test_bad_thresholds_raise_invalid_input(threshold):
    with pytest.raises(InvalidInput):
        train_picky_bpe(["abc abc abd"], 300, threshold=threshold)


@pytest.mark.parametrize("threshold", [0, -1, float("nan"), "0.9", True])
def test_a_threshold_that_is_no_number_above_0_is_refused(threshold):
    """NaN compares false with everything: `nan <= 0` let it through as a threshold."""
    with pytest.raises(tc.InvalidInput, match="threshold must be a number above 0"):
        tc.train("picky_bpe", ["low lower lowest"], vocab_size=270, threshold=threshold)

"""SuperBPE (`superbpe`): the textbook loop equals the fast trainer step by step, t = vocab_size
is exactly "byte_bpe", a hand-worked golden, the stage-2 rules, and the trained tokeniser.

The authors' code is a fork of Hugging Face's Rust `tokenizers` and does not run here, so the
goldens are worked by hand from the paper's definition (see `HAND_GOLDEN`).
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.byte_level import BYTE_TO_CHAR
from tokenizers_core.corpora import load_corpus
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.bpe_family import train_superbpe
from tokenizers_core.models.bpe.superbpe import (
    SUPERBPE_PATTERN,
    SuperBpeMergeStep,
    superbpe_trainer,
    superword_chunks,
)
from tokenizers_core.models.bpe.trainer import byte_bpe_trainer, byte_bpe_word_table
from tokenizers_core.pre_tokenizers import Regex
from tokenizers_core.steps import step_from_dict
from tokenizers_core.textbook import line_marks, superbpe_train

BYTES = tuple(BYTE_TO_CHAR.values())


def lines_of(name: str, n: int) -> list[str]:
    return [line for line in load_corpus(name).splitlines() if line.strip()][:n]


CORPORA = {
    "botchan": lines_of("botchan", 120),
    **{f"udhr/{c}": lines_of(f"udhr/{c}", 25) for c in ("eng", "fra", "rus", "hin", "cmn_hans")},
}


def textbook(lines: list[str], vocab_size: int, transition: int, **options):
    chunks = {tuple(c): n for c, n in superword_chunks(lines).items()}
    return list(
        superbpe_train.superbpe_train(
            byte_bpe_word_table(lines),
            chunks,
            vocab_size,
            transition=transition,
            alphabet=BYTES,
            **options,
        )
    )


def fast(lines: list[str], vocab_size: int, transition: int, **options):
    return superbpe_trainer(lines, vocab_size, transition=transition, **options).run().steps


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


# ---- the hand-worked golden ---------------------------------------------------------------------
HAND_GOLDEN = ["of the", "of the", "of a"]
# Stage 1 (t = 259: the 256 bytes and three merges). GPT-2 pieces: "of" x3, " the" x2, " a" x1,
# spelled (o f) x3, (Ġ t h e) x2, (Ġ a) x1. Pair counts: (o, f) 3, (Ġ, t) 2, (t, h) 2, (h, e) 2,
# (Ġ, a) 1.
#   merge 0: (o, f) 3 -> "of" (id 256).
#   merge 1: a tie at 2 among (Ġ, t), (t, h), (h, e); the smallest (id(left), id(right)) wins:
#            ids follow code points, h (104) < t (116) < Ġ (U+0120), so (h, e) -> "he" (257).
#   merge 2: (Ġ, t) 2 and (t, he) 2 tie; t < Ġ, so (t, he) -> "the" (258). 259 symbols: stage 2.
# Stage 2: SUPERBPE_PATTERN matches nothing in "of the" (one space before a letter), so the
# chunks are the whole lines: (o f Ġ t h e) x2, (o f Ġ a) x1, replayed to (of Ġ the), (of Ġ a).
#   merge 3: (of, Ġ) 3 -> "ofĠ" (259), a superword of one word (it ends past a word).
#   merge 4: (ofĠ, the) 2 and (ofĠ, a) 1 -> "ofĠthe" (260), two words. 261 symbols: done.
# Plain byte_bpe at 261 goes on from merge 2 with (Ġ, the) 2 -> "Ġthe", then (Ġ, a) 1 -> "Ġa".
HAND_MERGES = [
    (("o", "f"), 3, False, False, 1),
    (("h", "e"), 2, False, False, 1),
    (("t", "he"), 2, False, False, 1),
    (("of", "Ġ"), 3, True, True, 1),
    (("ofĠ", "the"), 2, True, True, 2),
]


def test_the_hand_worked_golden():
    for steps in (textbook(HAND_GOLDEN, 261, 259), fast(HAND_GOLDEN, 261, 259)):
        got = [(s.pair, s.count, s.after_transition, s.superword, s.n_words) for s in steps]
        assert got == HAND_MERGES
        assert [s.new_id for s in steps] == [256, 257, 258, 259, 260]
    assert textbook(HAND_GOLDEN, 261, 259)[1].tied == (("t", "h"), ("Ġ", "t"))
    tok = train_superbpe(HAND_GOLDEN, 261, transition=259)
    assert tok.encode("of the").tokens == ["ofĠthe"]
    assert tok.encode("of a").tokens == ["ofĠ", "a"]
    plain = [s.pair for s in byte_bpe_trainer(HAND_GOLDEN, 261).run().steps]
    assert plain == [("o", "f"), ("h", "e"), ("t", "he"), ("Ġ", "the"), ("Ġ", "a")]


# ---- the textbook equals the fast trainer -------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CORPORA))
@pytest.mark.parametrize("transition, size", [(300, 420), (256, 330), (420, 420)])
def test_textbook_equals_the_fast_trainer(name, transition, size):
    lines = CORPORA[name]
    slow = textbook(lines, size, transition)
    assert_same_merges(fast(lines, size, transition), slow)
    stage2 = [s for s in slow if s.after_transition]
    assert all(s.index >= transition - 256 for s in stage2)


@pytest.mark.heavy
def test_the_stage_two_rules_are_options():
    lines = CORPORA["botchan"] + ["note: this", "note: this", "a b c d e f g"] * 20
    for options in ({}, {"max_words": 2}, {"colon_rule": False}, {"max_words": None}):
        assert_same_merges(fast(lines, 700, 400, **options), textbook(lines, 700, 400, **options))
    capped = fast(lines, 700, 400, max_words=2)
    assert max(s.n_words for s in capped) <= 2
    assert all(":Ġ" not in s.new_symbol for s in fast(lines, 700, 400))
    assert any(":Ġ" in s.new_symbol for s in fast(lines, 700, 400, colon_rule=False))
    assert max(s.n_words for s in fast(lines, 700, 400, max_words=None)) > 4


small_text = st.text(alphabet="ab c.:1", min_size=1, max_size=14)


@settings(max_examples=40, deadline=None)
@given(
    corpus=st.lists(small_text, min_size=1, max_size=6),
    t=st.integers(0, 6),
    extra=st.integers(0, 12),
)
def test_textbook_equals_the_fast_trainer_on_random_corpora(corpus, t, extra):
    """Compared up to the first merge that makes a symbol string already made another way
    (the textbook does not keep the fast engine's bookkeeping there; `bpe_train` says so)."""
    assume(any(line.strip() for line in corpus))
    slow = textbook(corpus, 256 + t + extra, 256 + t)
    made, upto = set(), len(slow)
    for i, step in enumerate(slow):
        if step.new_symbol in made:
            upto = i
            break
        made.add(step.new_symbol)
    assert_same_merges(fast(corpus, 256 + t + extra, 256 + t), slow, upto)


# ---- t = vocab_size is byte_bpe -----------------------------------------------------------------
@pytest.mark.parametrize("name", ["botchan", "udhr/rus", "udhr/cmn_hans"])
def test_transition_at_the_vocab_size_is_byte_bpe(name):
    lines = CORPORA[name]
    plain = byte_bpe_trainer(lines, 450).run().steps
    steps = fast(lines, 450, 450)
    assert [s.to_dict() | {"kind": "bpe_merge"} for s in plain] == [
        {
            k: v
            for k, v in s.to_dict().items()
            if k not in ("after_transition", "superword", "n_words")
        }
        | {"kind": "bpe_merge"}
        for s in steps
    ]
    assert not any(s.after_transition for s in steps)
    ours, theirs = (
        train_superbpe(lines, 450, transition=450),
        tc.train("byte_bpe", lines, vocab_size=450),
    )
    assert ours.model.merges == theirs.model.merges and ours.model.vocab == theirs.model.vocab
    held_out = lines_of(name if name != "botchan" else "udhr/eng", 40)[-10:] + [
        "2024: 12345 cats!!"
    ]
    for text in held_out:
        assert ours.encode(text).ids == theirs.encode(text).ids


# ---- the trained tokeniser ----------------------------------------------------------------------
def test_encoding_a_training_chunk_gives_its_training_segmentation():
    lines = CORPORA["botchan"]
    trainer = superbpe_trainer(lines, 500, transition=350).run()
    tok = train_superbpe(lines, 500, transition=350)
    stage2 = trainer.stage2
    for i in range(0, len(stage2.words), 7):
        chunk = stage2.word_text(i)
        assert tok.model.merge_parts(list(chunk)) == list(stage2.segmentation(i))
    assert any(s.superword for s in trainer.steps)


def test_the_chunks_are_the_pre_tokenizers_pieces():
    pre = Regex(SUPERBPE_PATTERN, timeout=None, behavior="isolated")
    text = "In 2024,  the cats -- all 12 of them -- said: hi!! ok"
    pieces = [p for p, _ in pre.pre_tokenize_str(text)]
    assert "".join(pieces) == text
    table = superword_chunks([text])
    assert table == dict(Counter(p.replace(" ", "Ġ") for p in pieces))


@pytest.mark.parametrize(
    "text", ["of the cat", "Hello, world!! 12345", "  spaces   twice ", "日本語 text"]
)
def test_round_trip(text):
    tok = train_superbpe(CORPORA["botchan"], 500, transition=350)
    enc = tok.encode(text)
    assert tok.decode(enc.ids) == text


# ---- steps, code lines and options --------------------------------------------------------------
def test_every_step_survives_to_dict_and_maps_to_a_code_line():
    steps = textbook(CORPORA["udhr/fra"], 400, 320)
    marks = line_marks(superbpe_train.CODE)
    assert {"start", "transition", "count", "pick", "merge", "record", "stop"} <= set(marks)
    for step in steps + fast(CORPORA["udhr/fra"], 400, 320):
        assert isinstance(step, SuperBpeMergeStep)
        assert step_from_dict(step.to_dict()) == step
        assert superbpe_train.line_of(step) == marks["merge"]


@pytest.mark.parametrize(
    "options",
    [
        {"transition": 600},
        {"transition": 0},
        {"transition": 1.5},
        {"max_words": 0},
        {"colon_rule": "yes"},
        {"superword_pattern": "(ab"},
    ],
)
def test_bad_options_raise_invalid_input(options):
    with pytest.raises(InvalidInput):
        train_superbpe(["of the cat"], 500, **options)


def test_the_default_transition_is_ninety_percent():
    trainer = superbpe_trainer(CORPORA["botchan"], 500)
    assert trainer.transition == 450

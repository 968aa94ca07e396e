"""Parity-aware BPE (Foroutan et al. 2025, arXiv 2508.04796): the textbook loop, the fast trainer
and the whole tokeniser.

- with one language it is exactly plain byte-level BPE (`train_byte_bpe`'s merges);
- the fast trainer equals the textbook loop step by step, every field of every step, on UDHR
  snippets with every option and on Hypothesis' small corpora;
- a hand-worked golden on a tiny two-language corpus (a tie between languages, a tie between
  pairs, a language with nothing left to merge);
- the reference code's own outputs (golden/parity_bpe/, see its README): merges, the language
  each merge was chosen for, and the dev token counts it saw;
- the paper's claim: on held-out UDHR text, the Gini coefficient of the languages' token costs
  is below plain byte-level BPE's trained on the concatenation of the same training texts.
"""

from __future__ import annotations

import json
import pickle
from collections import Counter
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizers_core.byte_level import BYTE_TO_CHAR, str_to_byte_level
from tokenizers_core.corpora import load_corpus
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.bpe import train_byte_bpe
from tokenizers_core.implementations.parity import (
    UdhrSplit,
    by_language,
    cost_gini,
    parity_bpe_trainer,
    split_lines,
    token_costs,
    train_parity_bpe,
    train_parity_bpe_lines,
    udhr_split,
)
from tokenizers_core.models.bpe.parity import ParityBpeTrainer, ParityMergeStep, gini
from tokenizers_core.models.bpe.words import byte_bpe_words
from tokenizers_core.pre_tokenizers import WHITESPACE_PATTERN
from tokenizers_core.steps import step_from_dict
from tokenizers_core.textbook.parity_bpe_train import CODE, line_of, parity_bpe_train

GOLDEN = Path(__file__).parent / "golden" / "parity_bpe"
BYTES = list(BYTE_TO_CHAR.values())
SNIPPET = ("eng", "fra", "rus", "hin", "tur", "cmn_hans", "kor")


def snippet_tables(codes=SNIPPET, lines: int = 12):
    """Byte-level word tables of the first lines of each UDHR split's training and dev parts."""
    parts = udhr_split(codes)
    train = {c: byte_bpe_words(p.train[:lines], "gpt2") for c, p in parts.items()}
    dev = {c: byte_bpe_words(p.dev[:lines], "gpt2") for c, p in parts.items()}
    return train, dev


# ---- one language is plain byte-level BPE --------------------------------------------------------
@pytest.mark.parametrize(("code", "vocab_size"), [("eng", 600), ("hin", 500), ("cmn_hans", 400)])
def test_one_language_is_byte_bpe(code, vocab_size):
    lines = udhr_split([code])[code].train
    plain = train_byte_bpe(lines, vocab_size)
    for dev in (None, {code: udhr_split([code])[code].dev}):
        parity = train_parity_bpe({code: lines}, vocab_size, dev=dev)
        assert parity.model.merges == plain.model.merges
        assert parity.model.vocab == plain.model.vocab


def test_one_language_is_byte_bpe_with_special_tokens():
    lines = udhr_split(["fra"])["fra"].train
    plain = train_byte_bpe(lines, 400, special_tokens=["<s>", "</s>"])
    parity = train_parity_bpe({"fra": lines}, 400, special_tokens=["<s>", "</s>"])
    assert parity.model.merges == plain.model.merges
    assert parity.model.vocab == plain.model.vocab


# ---- fast == textbook ----------------------------------------------------------------------------
OPTIONS = [
    {},
    {"ties": "max_strings"},
    {"measure": "rate"},
    {"min_frequency": 3},
    {"global_merges": 15, "window": 12, "alpha": 2},
    {"window": 8, "alpha": 1, "special_tokens": ["<|endoftext|>"]},
]


@pytest.mark.parametrize("options", OPTIONS)
def test_fast_equals_textbook_on_udhr(options):
    train, dev = snippet_tables()
    fast = list(ParityBpeTrainer(train, dev, 256 + 120, alphabet=BYTES, **options))
    slow = list(parity_bpe_train(train, dev, 256 + 120, alphabet=BYTES, **options))
    specials = len(options.get("special_tokens", ()))
    assert len(fast) == 120 - specials or "min_frequency" in options
    assert [s.to_dict() for s in fast] == [s.to_dict() for s in slow]


words = st.dictionaries(st.text("abcd", min_size=1, max_size=6), st.integers(1, 4), min_size=1)


@pytest.mark.heavy
@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(words, words), min_size=1, max_size=3),
    st.sampled_from(["ids", "max_strings"]),
    st.sampled_from(["tokens", "rate"]),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 2),
)
def test_fast_equals_textbook_on_random_corpora(
    tables, ties, measure, window, global_merges, min_frequency
):
    train = {f"l{i}": t for i, (t, _d) in enumerate(tables)}
    dev = {f"l{i}": d for i, (_t, d) in enumerate(tables)}
    options = dict(
        ties=ties,
        measure=measure,
        window=window,
        global_merges=global_merges,
        min_frequency=min_frequency,
        alphabet="abcd",
    )
    fast = list(ParityBpeTrainer(train, dev, 30, **options))
    slow = list(parity_bpe_train(train, dev, 30, **options))
    assert fast == slow


# ---- a hand-worked golden ------------------------------------------------------------------------
TINY = {"en": {"ab": 2, "abc": 1}, "xx": {"cd": 1, "dd": 1}}


def test_hand_worked_two_languages():
    """Each language is measured on its own training text (dev = train). Ids: a b c d = 0-3.

    0. tokens en 2*2 + 3 = 7, xx 2 + 2 = 4: en is worst; its counts ab 3, bc 1: merge ab (3).
       en becomes [ab] x2, [ab c]: 4 tokens.
    1. en 4, xx 4: a tie between languages goes to the one listed first, en; its only pair is
       (ab, c), once: merge it. en 3 tokens.
    2. en 3, xx 4: xx is worst; cd and dd tie at 1, and the smaller (id(left), id(right)) wins:
       (2, 3) < (3, 3), so cd. xx 3 tokens.
    3. en 3, xx 3: en first, but every en word is one token (no pair left), so xx: dd. xx 2.
    4. no language has a pair left: training stops.

    The Gini after each merge: (4, 4) -> 0; (3, 4) -> (4 - 3) / (2 * 7) = 1/14; (3, 3) -> 0;
    (3, 2) -> 1/10. The rates are the initial sizes (7, 4) over the tokens before each merge.
    """
    steps = list(ParityBpeTrainer(TINY, TINY, 20))
    assert [(s.language, s.pair, s.count, s.new_id, s.tokens) for s in steps] == [
        ("en", ("a", "b"), 3, 4, (7, 4)),
        ("en", ("ab", "c"), 1, 5, (4, 4)),
        ("xx", ("c", "d"), 1, 6, (3, 4)),
        ("xx", ("d", "d"), 1, 7, (3, 3)),
    ]
    assert [s.gini for s in steps] == pytest.approx([0.0, 1 / 14, 0.0, 0.1])
    assert [s.rates for s in steps] == [(1.0, 1.0), (7 / 4, 1.0), (7 / 3, 1.0), (7 / 3, 4 / 3)]
    assert steps == list(parity_bpe_train(TINY, TINY, 20))


def test_hand_worked_reference_ties():
    """With the reference's tie rule the largest pair as strings wins step 2: ("d", "d") >
    ("c", "d"); then step 3 is again xx's (en has nothing left): cd."""
    steps = list(ParityBpeTrainer(TINY, TINY, 20, ties="max_strings"))
    assert [(s.language, s.pair) for s in steps] == [
        ("en", ("a", "b")),
        ("en", ("ab", "c")),
        ("xx", ("d", "d")),
        ("xx", ("c", "d")),
    ]


# ---- the reference code's outputs ----------------------------------------------------------------
def reference_tables(codes, part):
    """The reference's word tables: Hugging Face's Whitespace words, each spelled byte-level
    with a "Ġ" before it (ByteLevel's add_prefix_space, applied per word)."""
    words = regex.compile(WHITESPACE_PATTERN).findall
    parts = udhr_split(codes)
    return {
        c: dict(
            Counter("Ġ" + str_to_byte_level(w) for line in getattr(p, part) for w in words(line))
        )
        for c, p in parts.items()
    }


@pytest.mark.parametrize("run", ["base", "window", "hybrid", "ratio"])
def test_matches_reference_code(run):
    golden = json.loads((GOLDEN / f"{run}.json").read_text(encoding="utf-8"))
    codes = golden["languages"]
    train = reference_tables(codes, "train")
    dev = train if golden["inputs"] == "train" else reference_tables(codes, "dev")
    trainer = ParityBpeTrainer(
        train,
        dev,
        256 + len(golden["merges"]),
        alphabet=BYTES,
        min_frequency=2,
        ties="max_strings",
        **golden["our_options"],
    )
    steps = list(trainer)
    assert [list(s.pair) for s in steps] == golden["merges"]
    assert [codes.index(s.language) if s.language else -1 for s in steps] == golden["picks"]
    assert [list(s.tokens) for s in steps] == golden["lengths"]


# ---- the paper's claim, on held-out UDHR text ----------------------------------------------------
@pytest.mark.heavy
@pytest.mark.parametrize("vocab_size", [1000, 2000])
def test_heldout_gini_below_plain_bpe(vocab_size):
    parts = udhr_split()
    train = {c: p.train for c, p in parts.items()}
    heldout = {c: "\n".join(p.heldout) for c, p in parts.items()}
    plain = train_byte_bpe([line for lines in train.values() for line in lines], vocab_size)
    parity = train_parity_bpe(train, vocab_size, dev={c: p.dev for c, p in parts.items()})
    assert len(parity.model.merges) == len(plain.model.merges) == vocab_size - 256
    # the default measure: token costs of the parallel texts (the paper's Gini)
    assert cost_gini(parity, heldout) < 0.75 * cost_gini(plain, heldout)
    # measure="rate": bytes per token, and the Gini of those rates
    by_rate = train_parity_bpe(train, vocab_size, dev={c: p.dev for c, p in parts.items()},
                               measure="rate")  # fmt: skip

    def rate_gini(tok):
        costs = token_costs(tok, heldout)
        return gini(len(heldout[c].encode()) / costs[c] for c in heldout)

    assert rate_gini(by_rate) < 0.75 * rate_gini(plain)


# ---- steps, views, splits, options ---------------------------------------------------------------
def test_steps_survive_json():
    train, dev = snippet_tables(("eng", "hin"), lines=4)
    for step in ParityBpeTrainer(train, dev, 256 + 20, alphabet=BYTES, global_merges=3):
        data = json.loads(json.dumps(step.to_dict()))
        assert step_from_dict(data) == step
        assert isinstance(step, ParityMergeStep)


def test_trainer_pickles_mid_run():
    """Background trainings hand their results back pickled; a stepper may be pickled mid-run."""
    trainer = parity_bpe_trainer({"en": ["low lower"], "xx": ["xyz xyz"]}, 262)
    first = next(trainer)
    again = pickle.loads(pickle.dumps(trainer))
    assert [first, *again] == [first, *trainer]


def test_code_panel_marks():
    step = next(iter(ParityBpeTrainer(TINY, TINY, 20)))
    assert "<- start" in CODE[line_of(None) - 1]
    assert "<- language" in CODE[line_of(step) - 1]
    assert "<- stop" in CODE[line_of(step, finished=True) - 1]


def test_udhr_split_covers_every_text():
    parts = udhr_split()
    assert len(parts) == 33
    for code, p in parts.items():
        assert p.train and p.dev and p.heldout, code
        assert p.train + p.dev + p.heldout == load_corpus(f"udhr/{code}").splitlines()
        sizes = [sum(map(len, lines)) for lines in (p.train, p.dev, p.heldout)]
        assert 0.6 < sizes[0] / sum(sizes) < 0.8, code
    assert udhr_split(["eng"]) == udhr_split(["eng"])  # deterministic
    assert split_lines("a\nb\nc\n", 0.3, 0.3) == UdhrSplit(["a"], ["b"], ["c"])


def test_tagged_lines_equal_mapping():
    lines = ["en\tlow lower lowest", "de\tlos lose loser", "en\tnewer wider"]
    by_lines = train_parity_bpe_lines(lines, 270)
    by_map = train_parity_bpe({"en": [lines[0][3:], lines[2][3:]], "de": [lines[1][3:]]}, 270)
    assert by_lines.model.merges == by_map.model.merges


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ParityBpeTrainer(TINY, TINY, 20, ties="dict"), "ties"),
        (lambda: ParityBpeTrainer(TINY, TINY, 20, measure="bytes"), "measure"),
        (lambda: ParityBpeTrainer(TINY, TINY, 20, window=-1), "window"),
        (lambda: ParityBpeTrainer(TINY, TINY, 20, alpha=0), "alpha"),
        (lambda: ParityBpeTrainer(TINY, {"en": {}}, 20), "dev set"),
        (lambda: ParityBpeTrainer({}, {}, 20), "at least one language"),
        (lambda: parity_bpe_trainer({"en": ["a"]}, 100), "vocab_size 100"),
        (lambda: parity_bpe_trainer(["a b"], 300), "mapping"),  # type: ignore[arg-type]
        (lambda: parity_bpe_trainer({"en": ["a"]}, 300, dev={"fr": "a"}), "dev must map"),
        (lambda: train_parity_bpe_lines(["en\tlow", "no tag here"], 300), "tagged"),
        (lambda: list(parity_bpe_train(TINY, TINY, 20, ties="dict")), "ties"),
    ],
)
def test_bad_options_raise_invalid_input(call, message):
    with pytest.raises(InvalidInput, match=message):
        call()


def test_untagged_lines_go_by_their_script():
    """A corpus without tags: its lines grouped by script (one script: exactly byte_bpe)."""
    lines = ["low lower lowest", "Привет мир привет", "newer newest"]
    assert list(by_language(lines)) == ["Latin", "Cyrillic"]
    one = train_parity_bpe_lines(["low lower lowest", "newer newest"], 280)
    assert (
        one.model.merges == train_byte_bpe(["low lower lowest", "newer newest"], 280).model.merges
    )

"""BPE training ("bpe", "byte_bpe") and rank-based encoding.

Oracles: Hugging Face `tokenizers` (BpeTrainer) for "byte_bpe"; a recount-everything textbook loop
written here for "bpe". The heavier sweeps (every UDHR language at V=1000 and 4000) are in
benchmarks/verify_bpe_exactness.py.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.byte_level import str_to_byte_level
from tokenizers_core.corpora import load_corpus
from tokenizers_core.models.bpe.model import (
    BPE,
    BpeEncodeStep,
    BpeMergeStep,
    show_bytes,
    token_text,
)
from tokenizers_core.models.bpe.trainer import bpe_trainer, bpe_word_table, byte_bpe_trainer
from tokenizers_core.steps import step_from_dict

SEED = [
    "low low low low low",
    "lower lower",
    "newest newest newest newest newest newest",
    "widest widest widest",
]


# ---- the textbook oracle ------------------------------------------------------------------------
def textbook_bpe(
    words: dict[tuple[str, ...], int], vocab_size: int, specials=("<unk>",), min_frequency: int = 0
) -> list[tuple[str, str]]:
    """Recount every pair before every merge; best = highest count, then the smallest
    (id(left), id(right)) with ids in code-point order for the alphabet, creation order after."""
    symbols = list(specials) + sorted({s for w in words for s in w})
    ids = {s: i for i, s in enumerate(symbols)}
    merges = []
    while len(symbols) < vocab_size:
        counts: Counter = Counter()
        for word, c in words.items():
            for pair in zip(word, word[1:]):
                counts[pair] += c
        if not counts:
            break
        best = min(counts, key=lambda p: (-counts[p], ids[p[0]], ids[p[1]]))
        if counts[best] < max(1, min_frequency):
            break
        new = best[0] + best[1]
        if new not in ids:
            ids[new] = len(symbols)
            symbols.append(new)
        merges.append(best)
        merged: dict = {}
        for word, c in words.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(new)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + c
        words = merged
    last = {p: r for r, p in enumerate(merges)}
    return [p for r, p in enumerate(merges) if last[p] == r]


# ---- golden: the seed corpus --------------------------------------------------------------------
def test_seed_corpus_merges_by_hand():
    """Words: low x5, lower x2, newest x6, widest x3 (each + </w>). Ids: <unk> 0, then the
    alphabet in code-point order: </w> 1, d 2, e 3, i 4, l 5, n 6, o 7, r 8, s 9, t 10, w 11.

    1. e s, s t and t </w> all occur 9 times (newest 6 + widest 3): (3, 9) is smallest -> es.
    2. es t and t </w> both 9: (10, 1) < (12, 10) because es (id 12) is newer -> t</w>.
    3. es t</w> 9 -> est</w>.   4. l o and o w 7: (5, 7) < (7, 11) -> lo.   5. lo w 7 -> low.
    6. n e, e w, w est</w> all 6 (newest): (3, 11) is smallest -> ew.   7. n ew -> new.
    8. new est</w> -> newest</w>."""
    tok = tc.train("bpe", SEED, vocab_size=20)
    assert tok.model.merges == [
        ("e", "s"),
        ("t", "</w>"),
        ("es", "t</w>"),
        ("l", "o"),
        ("lo", "w"),
        ("e", "w"),
        ("n", "ew"),
        ("new", "est</w>"),
    ]
    assert tok.model.vocab["<unk>"] == 0 and tok.model.vocab["</w>"] == 1
    assert len(tok.model.vocab) == 20
    enc = tok.encode("lowest newest")
    assert enc.tokens == ["low", "est</w>", "newest</w>"]
    assert enc.offsets == [(0, 3), (3, 6), (7, 13)]
    assert tok.decode(enc.ids) == "lowest newest"
    assert tok.encode("lowz").tokens == ["low", "<unk>", "</w>"]


def test_seed_steps_show_ties():
    trainer = bpe_trainer(SEED, vocab_size=20)
    first = next(trainer)
    assert first.pair == ("e", "s") and first.count == 9
    assert set(first.tied) == {("s", "t"), ("t", "</w>")} and first.n_tied == 2
    assert first.tied[0] == ("s", "t")  # tie-break order: (id(s), id(t)) < (id(t), id(</w>))
    assert first.n_changed_words == 2 and set(first.changed_words) == {"newest</w>", "widest</w>"}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.text(alphabet="abcde ", min_size=1, max_size=30), min_size=1, max_size=8),
    st.integers(min_value=1, max_value=40),
)
def test_bpe_equals_textbook_loop(lines, extra):
    if not any(line.strip() for line in lines):
        return
    words = bpe_word_table(lines)
    alphabet = 1 + len({s for w in words for s in w})
    tok = tc.train("bpe", lines, vocab_size=alphabet + extra)
    assert tok.model.merges == textbook_bpe(words, alphabet + extra)


@pytest.mark.heavy
def test_bpe_equals_textbook_loop_on_english():
    lines = load_corpus("udhr/eng").splitlines()
    words = bpe_word_table(lines)
    assert tc.train("bpe", lines, vocab_size=400).model.merges == textbook_bpe(words, 400)


def test_min_frequency_stops_training():
    tok = tc.train("bpe", SEED, vocab_size=100, min_frequency=7)
    assert tok.model.merges == [("e", "s"), ("t", "</w>"), ("es", "t</w>"), ("l", "o"), ("lo", "w")]


# ---- exactness against Hugging Face -------------------------------------------------------------
def hf_byte_bpe(lines, vocab_size, special_tokens=(), min_frequency=0):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        show_progress=False,
        special_tokens=list(special_tokens),
        min_frequency=min_frequency,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(lines, trainer)
    model = json.loads(tok.to_str())["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    return merges, model["vocab"]


@pytest.mark.parametrize(
    "name,vocab_size",
    [
        ("botchan", 4000),
        ("udhr/eng", 1000),
        ("udhr/cmn_hans", 1000),
        ("udhr/hin", 1000),
        ("udhr/arb", 1000),
    ],
)
def test_byte_bpe_equals_hugging_face(name, vocab_size):
    lines = load_corpus(name).splitlines()
    merges, vocab = hf_byte_bpe(lines, vocab_size)
    tok = tc.train("byte_bpe", lines, vocab_size=vocab_size)
    assert tok.model.merges == merges
    assert tok.model.vocab == vocab


def test_byte_bpe_special_tokens_and_min_frequency_like_hugging_face():
    lines = load_corpus("udhr/fra").splitlines()
    specials = ["<|endoftext|>", "<pad>"]
    merges, vocab = hf_byte_bpe(lines, 600, specials, min_frequency=5)
    tok = tc.train("byte_bpe", lines, vocab_size=600, special_tokens=specials, min_frequency=5)
    assert tok.model.merges == merges and tok.model.vocab == vocab
    assert tok.model.vocab["<|endoftext|>"] == 0 and tok.model.vocab["<pad>"] == 1


def test_byte_bpe_encodes_like_hugging_face():
    from tokenizers import Tokenizer, models, pre_tokenizers

    lines = load_corpus("udhr/deu_1996").splitlines()
    tok = tc.train("byte_bpe", lines, vocab_size=700)
    hf = Tokenizer(models.BPE(dict(tok.model.vocab), list(tok.model.merges)))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    text = load_corpus("udhr/deu_1996")[:3000] + " Übermäßig 日本語 🙂"
    assert tok.encode(text).ids == hf.encode(text).ids
    assert tok.decode(tok.encode(text).ids) == text


# ---- encoding -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def botchan_byte_bpe():
    return tc.train("byte_bpe", load_corpus("botchan").splitlines()[:1500], vocab_size=800)


def replay(model: BPE, piece: str) -> list[str]:
    """Apply the merges in learned order, each everywhere, left to right."""
    parts = model.initial_parts(piece)
    for left, right in model.merges:
        out, i = [], 0
        while i < len(parts):
            if i + 1 < len(parts) and parts[i] == left and parts[i + 1] == right:
                out.append(left + right)
                i += 2
            else:
                out.append(parts[i])
                i += 1
        parts = out
    return parts


def test_rank_based_encoding_equals_replaying_merges(botchan_byte_bpe):
    model = botchan_byte_bpe.model
    words = Counter(
        w
        for line in load_corpus("botchan").splitlines()[1500:1700]
        for w, _ in botchan_byte_bpe.pre_tokenizer.pre_tokenize_str(line)
    )
    for word in list(words)[:300]:
        assert model.merge_parts(model.initial_parts(word)) == replay(model, word)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40))
def test_encode_steps_and_long_path_agree(botchan_byte_bpe, text):
    model = botchan_byte_bpe.model
    piece = str_to_byte_level(text)
    fast = model.merge_parts(list(piece))
    steps = list(model.encode_steps(piece))
    stepped = list(piece)
    if steps:
        last = steps[-1]
        stepped = (
            list(last.parts[: last.chosen]) + [last.merged] + list(last.parts[last.chosen + 2 :])
        )
    assert stepped == fast
    from tokenizers_core.models.bpe.model import _merge_long

    assert _merge_long(list(piece), model.rank, None) == fast
    assert botchan_byte_bpe.decode(botchan_byte_bpe.encode(text).ids) == text


def test_encode_steps_pick_lowest_rank_then_leftmost():
    model = BPE({"a": 0, "b": 1, "ab": 2, "ba": 3}, [("a", "b"), ("b", "a")])
    steps = list(model.encode_steps("abab"))
    assert steps[0].candidates == ((0, 0), (1, 1), (2, 0)) and steps[0].chosen == 0
    assert [s.merged for s in steps] == ["ab", "ab"]
    assert model.tokenize("abab") == [("ab", 2, 0, 2), ("ab", 2, 2, 4)]


def test_offsets_slice_the_original_text():
    tok = tc.train("byte_bpe", load_corpus("udhr/jpn").splitlines(), vocab_size=500)
    text = "人は、生まれながらにして自由 ok"
    enc = tok.encode(text)
    for token, (start, end) in zip(enc.tokens, enc.offsets):
        assert token in str_to_byte_level(text[start:end])  # a partial character: its span
    assert enc.offsets[0][0] == 0 and enc.offsets[-1][1] == len(text)


def test_merge_tree():
    tok = tc.train("bpe", SEED, vocab_size=20)
    tree = tok.model.merge_tree("newest</w>")
    assert [c["token"] for c in tree["children"]] == ["new", "est</w>"]
    with pytest.raises(ValueError):
        tok.model.merge_tree("zzz")


def test_show_bytes_never_hides_broken_utf8():
    assert show_bytes("あ".encode()[:2]) == "<E3 81>"
    assert token_text(str_to_byte_level("é")[:1], True) == "<C3>"
    assert token_text("Ġhello", True) == " hello"


# ---- steps ---------------------------------------------------------------------------------------
def test_steps_survive_json():
    trainer = byte_bpe_trainer(load_corpus("udhr/eng").splitlines(), vocab_size=300)
    steps = list(trainer)
    assert len(steps) == 300 - 256
    for s in steps:
        assert step_from_dict(json.loads(json.dumps(s.to_dict()))) == s
        assert isinstance(s, BpeMergeStep)
    enc = list(BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]).encode_steps("ab"))
    assert step_from_dict(json.loads(json.dumps(enc[0].to_dict()))) == enc[0]
    assert isinstance(enc[0], BpeEncodeStep)


def test_stepper_is_resumable_and_matches_train():
    lines = load_corpus("udhr/eng").splitlines()
    trainer = byte_bpe_trainer(lines, vocab_size=400)
    first = [next(trainer) for _ in range(10)]
    rest = list(trainer)
    assert [s.pair for s in first + rest] == tc.train(
        "byte_bpe", lines, vocab_size=400
    ).model.merges


def test_merge_that_makes_a_special_tokens_string_like_hugging_face():
    """("a", "b") makes "ab", already a special token: the merge reuses its id (the one case
    where a merged symbol is not new), which takes the trainer's general path."""
    lines = load_corpus("udhr/eng").splitlines() + ["<s> ab abab <s><s> the"] * 50
    specials = ["<s>", "ab", "the", "\u0120the"]
    merges, vocab = hf_byte_bpe(lines, 500, specials)
    assert ("a", "b") in merges and ("\u0120t", "he") in merges
    tok = tc.train("byte_bpe", lines, vocab_size=500, special_tokens=specials)
    assert tok.model.merges == merges and tok.model.vocab == vocab
    stepped = byte_bpe_trainer(lines, 500, special_tokens=specials)
    assert [s.pair for s in stepped] == merges


@pytest.mark.parametrize("make", [bpe_trainer, byte_bpe_trainer])
def test_plain_training_makes_the_same_merges(make):
    """Plain training leaves out the views' annotations (and the heap tidying that finding ties
    does): the merges must not change."""
    lines = load_corpus("botchan").splitlines()
    annotated = list(make(lines, vocab_size=3000))
    plain = list(make(lines, vocab_size=3000, annotate=False))
    assert [s.pair for s in plain] == [s.pair for s in annotated]
    assert [(s.count, s.new_id, s.n_changed_words) for s in plain] == [
        (s.count, s.new_id, s.n_changed_words) for s in annotated
    ]
    assert all(s.tied is None and s.changed_words is None for s in plain)
    assert step_from_dict(json.loads(json.dumps(plain[-1].to_dict()))) == plain[-1]
    assert sum(s.n_tied > 0 for s in annotated) > 100


# ---- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "algorithm,lines,kwargs,message",
    [
        ("bpe", [], {"vocab_size": 100}, "empty"),
        ("bpe", ["   ", ""], {"vocab_size": 100}, "empty"),
        ("byte_bpe", ["hello"], {"vocab_size": 100}, "below"),
        ("bpe", ["hello"], {"vocab_size": 3}, "below"),
        ("byte_bpe", ["hello"], {"vocab_size": 300, "pattern": "(unclosed"}, "regex"),
        ("bpe", ["hello"], {"vocab_size": "many"}, "whole number"),
        ("bpe", "one string", {"vocab_size": 100}, "list of lines"),
    ],
)
def test_bad_input_raises_value_error(algorithm, lines, kwargs, message):
    with pytest.raises(ValueError, match=message):
        tc.train(algorithm, lines, **kwargs)


def test_unknown_algorithm():
    """(A corpus has no ceiling but memory: tests/core/counting trains on one of 21 million
    characters.)"""
    with pytest.raises(ValueError, match="unknown algorithm"):
        tc.train("bpe2", ["a"], vocab_size=10)


# ---- random access for the views ----------------------------------------------------------------
@pytest.mark.parametrize(
    "variant,vocab_size", [("bpe", 300), ("byte_bpe", 400), ("sentencepiece_bpe", 300)]
)
def test_session_replay_equals_the_trainers_own_state(variant, vocab_size):
    """The view rebuilds the word table at step k by replaying the first k merges; that must be
    exactly the trainer's live state after k merges."""
    from tokenizers_core.models.bpe.sentencepiece_trainer import sentencepiece_bpe_trainer
    from tokenizers_core.models.bpe.session import training_session
    from tokenizers_core.models.bpe.trainer import bpe_trainer, byte_bpe_trainer

    text = load_corpus("udhr/eng")
    session = training_session(text, variant, vocab_size)
    make = {
        "bpe": bpe_trainer,
        "byte_bpe": byte_bpe_trainer,
        "sentencepiece_bpe": sentencepiece_bpe_trainer,
    }[variant]
    live = make(text.splitlines(), vocab_size)
    for k in (0, 1, 7, 60):
        while len(live.steps) < k:
            next(live)
        for i in range(len(live.word_keys)):
            assert session.segmentation(i, k) == live.segmentation(i), (k, live.word_text(i))
    total = session.total_steps()
    rows, pages = session.word_rows(total, 0, 10)
    assert len(rows) == 10 and pages >= 1
    assert session.step(total + 1) is None and session.trainer.stop_reason  # it says why


@pytest.mark.parametrize(
    "variant,vocab_size", [("bpe", 300), ("byte_bpe", 400), ("sentencepiece_bpe", 300)]
)
def test_changed_rows_are_every_word_the_merge_changed(variant, vocab_size):
    """`changed_rows` looks only at words that spell the merged symbol; that must find exactly
    the words whose replayed segmentation changed at merge k, most frequent first."""
    import pickle

    from tokenizers_core.models.bpe.session import BpeSession

    session = BpeSession(load_corpus("udhr/fra"), variant, vocab_size, {})
    total = session.total_steps()
    session = pickle.loads(pickle.dumps(session))  # as a worker process hands it over
    for k in range(1, total + 1, 7):
        every = [
            i for i in session.order if session.segmentation(i, k) != session.segmentation(i, k - 1)
        ]
        rows = session.changed_rows(k, limit=10**6)
        assert [r.word for r in rows] == [session.word(i) for i in every], k
        assert len(rows) == session.step(k).n_changed_words


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet=st.characters(max_codepoint=127), max_size=40)
    | st.text(alphabet=" \t\n\r\x0b\x0c\x1c\x1daAbB12'_-/sStTlLvVmdD", max_size=25)
)
def test_ascii_fast_split_equals_regex(text):
    """The `re` spelling of the presets and the Whitespace pattern used for ASCII text."""
    import regex

    from tokenizers_core.models.bpe.trainer import splitter
    from tokenizers_core.pre_tokenizers import GPT2_PATTERN, PRESETS, WHITESPACE_PATTERN

    for name, pattern in PRESETS.items():
        assert splitter(pattern, name)(text) == regex.findall(pattern, text), name
    assert splitter(GPT2_PATTERN, "gpt2")(text) == regex.findall(GPT2_PATTERN, text)
    assert splitter(WHITESPACE_PATTERN, "whitespace")(text) == regex.findall(
        WHITESPACE_PATTERN, text
    )

"""The grader's reference trainers are exact: each tie rule is the rule its course or library
states, proved on hand-derived cases and against the implementations that define them."""

from __future__ import annotations

import json

import pytest

from tokenizers_core.byte_level import bytes_to_unicode
from tokenizers_core.checker.first_seen import FirstSeenBpe
from tokenizers_core.corpora import load_corpus
from tokenizers_core.grading.reference import (
    encode_bytes,
    encode_ids,
    pretokenize,
    split_specials,
    train_reference,
    word_table,
)
from tokenizers_core.grading.shapes import Shape
from tokenizers_core.models.bpe.trainer import byte_bpe_trainer, byte_bpe_word_table

B2U = bytes_to_unicode()


def _spelled(pairs):
    """Merges as byte-level strings (Hugging Face's and the checker's alphabet)."""
    return [("".join(B2U[c] for c in a), "".join(B2U[c] for c in b)) for a, b in pairs]


def _pairs(trainer):
    return [(trainer.vocab[a], trainer.vocab[b]) for a, b in trainer.merges]


def test_cs336_tie_is_the_greater_pair_of_bytes():
    """ "ab ba" in CS336's shape: GPT-2's pattern gives the pre-tokens "ab" and " ba", so the
    pairs (a, b), (" ", b) and (b, a) occur once each: a three-way tie. CS336 takes the
    lexicographically greatest pair of byte strings, (b"b", b"a"). Then "ab" and " " + "ba" are
    left, once each; (b"a", b"b") > (b" ", b"ba") because "a" (97) > " " (32)."""
    shape = Shape("cs336", "gpt2", ())
    trainer, model = shape.train("ab ba", 258, "cs336")
    assert model.pairs == [(b"b", b"a"), (b"a", b"b")]
    assert model.counts == [1, 1]
    assert model.vocab[256] == b"ba" and len(model.vocab) == 258


def test_the_same_tie_under_each_rule():
    """The three-way tie above: minbpe's rule takes the pair seen first, (a, b); Hugging Face's
    the pair of earlier-made symbols, where a space byte is Ġ (U+0120), after every letter, so
    (a, b) too; the mistaken "smaller" rule (b" ", b"b")."""
    table = word_table(pretokenize("ab ba", "gpt2"))
    first = {
        ties: _pairs(train_reference(table, 1, ties=ties))[0]
        for ties in ("cs336", "minbpe", "hf", "smaller")
    }
    assert first == {
        "cs336": (b"b", b"a"),
        "minbpe": (b"a", b"b"),
        "hf": (b"a", b"b"),
        "smaller": (b" ", b"b"),
    }


def test_cs336_special_tokens_cut_the_text_and_take_the_first_ids():
    shape = Shape("cs336", "gpt2", ("<|endoftext|>",))
    _t, model = shape.train("hi<|endoftext|>hi", 258, "cs336")
    assert model.vocab[0] == b"<|endoftext|>" and model.vocab[1] == b"\x00"
    assert model.pairs == [(b"h", b"i")]  # one merge: vocab_size counts the special token
    assert b"i<" not in b"".join(model.vocab.values())


def test_minbpe_ties_equal_the_checkers_first_seen_trainer():
    """minbpe's RegexTokenizer (GPT-4's pattern over the whole text) with its tie: the same
    merges as tokenizers_core/checker/first_seen.py (the /check page's minbpe reference)."""
    text = load_corpus("botchan")[:40_000]
    ours = train_reference(word_table(pretokenize(text, "gpt4")), 150, ties="minbpe")
    table = list(byte_bpe_word_table([text], "cl100k").items())
    theirs = FirstSeenBpe(table, 256 + 150, alphabet=list(B2U.values()))
    merges = []
    while (step := theirs.merge_next()) is not None:
        merges.append(step[0])
    assert _spelled(_pairs(ours)) == merges


def test_minbpe_basic_reads_the_text_as_one_sequence():
    text = "aaa aaa\naaa"
    trainer = train_reference(word_table(pretokenize(text, "basic")), 3, ties="minbpe")
    assert _pairs(trainer)[0] == (b"a", b"a")
    assert any(b" " in a + b or b"\n" in a + b for a, b in _pairs(trainer))


def test_hf_ties_equal_our_hugging_face_trainer():
    """Hugging Face's rule over GPT-2's pre-tokens, line by line: the merges of tokvis's
    byte_bpe trainer (Hugging Face's BpeTrainer, step for step)."""
    lines = load_corpus("botchan").splitlines()[:600]
    table = word_table(p for line in lines for p in pretokenize(line, "gpt2_across"))
    ours = train_reference(table, 200, ties="hf")
    theirs = byte_bpe_trainer(lines, 256 + 200, annotate=False).run().merge_strings()
    assert _spelled(_pairs(ours)) == theirs


def test_hf_ties_equal_hugging_face_tokenizers():
    hf = pytest.importorskip("tokenizers")
    lines = load_corpus("udhr/eng").splitlines()
    tok = hf.Tokenizer(hf.models.BPE())
    tok.pre_tokenizer = hf.pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = hf.trainers.BpeTrainer(
        vocab_size=256 + 150,
        initial_alphabet=hf.pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(lines, trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    theirs = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in merges]
    table = word_table(p for line in lines for p in pretokenize(line, "gpt2_across"))
    ours = train_reference(table, 150, ties="hf")
    assert _spelled(_pairs(ours)) == theirs


def test_encoding_applies_merges_in_rank_order():
    """ "aaab" with merges aa (rank 0) then ab (rank 1): aa is merged first, left to right
    ([aa, a, b]), then ab: [aa, ab]."""
    assert encode_bytes(b"aaab", {(b"a", b"a"): 0, (b"a", b"b"): 1}) == [b"aa", b"ab"]
    assert encode_ids(list(b"aaab"), {(97, 97): 256, (97, 98): 257}) == [256, 257]


def test_overlapping_special_tokens():
    both = ["<|endoftext|>", "<|endoftext|><|endoftext|>"]
    text = "a<|endoftext|><|endoftext|>b"
    assert [p for p, s in split_specials(text, both) if s] == ["<|endoftext|><|endoftext|>"]
    shortest = split_specials(text, both, longest_first=False)
    assert [p for p, s in shortest if s] == ["<|endoftext|>", "<|endoftext|>"]


def test_the_reference_encoding_round_trips():
    shape = Shape("cs336", "gpt2", ("<|endoftext|>",))
    _t, model = shape.train(load_corpus("udhr/eng"), 400, "cs336")
    text = "Ça va? 你好 👍🏽<|endoftext|>Everyone has the right"
    ids = shape.encode(model, text, ["<|endoftext|>"])
    assert b"".join(model.vocab[i] for i in ids).decode("utf-8") == text
    assert ids.count(0) == 1

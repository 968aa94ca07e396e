"""Training from counts gives exactly the merges (and vocabulary) of training on the text the
counts were made from, for every trainer that trains on word counts; counts made for another
algorithm, pattern or normaliser are refused, naming both."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.corpora import corpus_names, load_corpus
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.stepping import training_run

MULTILINGUAL = [
    line
    for name in ("udhr/eng", "udhr/fra", "udhr/rus", "udhr/cmn_hans", "udhr/arb", "udhr/hin")
    if name in corpus_names()
    for line in load_corpus(name).splitlines()
]
BOTCHAN = load_corpus("botchan").splitlines()

CASES = [
    ("bpe", {}, {}),
    ("bpe", {}, {"min_frequency": 3, "limit_alphabet": 60}),
    ("byte_bpe", {}, {}),
    ("byte_bpe", {"pattern": "cl100k"}, {"special_tokens": ["<|endoftext|>"]}),
    ("byte_bpe", {"pattern": "o200k"}, {"min_frequency": 2, "max_token_length": 6}),
    ("wordpiece", {}, {}),
    ("wordpiece", {"lowercase": False}, {"special_tokens": ["[UNK]", "[CLS]", "[SEP]"]}),
    ("sentencepiece_bpe", {}, {}),
]


@pytest.mark.parametrize("algorithm, counting, training", CASES)
@pytest.mark.parametrize("corpus", ["botchan", "multilingual"])
def test_training_from_counts_is_training_on_the_text(algorithm, counting, training, corpus):
    lines = BOTCHAN if corpus == "botchan" else MULTILINGUAL + BOTCHAN[:1000]
    on_text = tc.train(algorithm, lines, 1200, **counting, **training)
    counts = tc.count(lines, algorithm, **counting)
    from_counts = tc.train(algorithm, counts=counts, vocab_size=1200, **training)
    assert from_counts.model.merges == on_text.model.merges
    assert from_counts.model.vocab == on_text.model.vocab
    sample = "The newest résumé — 日本語 🙂 don't"
    assert from_counts.encode(sample).ids == on_text.encode(sample).ids


def test_a_saved_counts_file_trains_as_the_text(tmp_path):
    path = tmp_path / "botchan.counts"
    tc.count(BOTCHAN, "byte_bpe").save(path)
    a = tc.train("byte_bpe", counts=tc.load_counts(path), vocab_size=600)
    assert a.model.merges == tc.train("byte_bpe", BOTCHAN, 600).model.merges


def test_the_step_by_step_run_takes_counts_too():
    run = training_run("bpe", None, 200, counts=tc.count(BOTCHAN, "bpe"))
    steps = list(run)
    assert [s.pair for s in steps] == [tuple(m) for m in tc.train("bpe", BOTCHAN, 200).model.merges]


def test_counts_of_another_algorithm_are_refused_naming_both():
    counts = tc.count(BOTCHAN, "byte_bpe")
    with pytest.raises(InvalidInput) as err:
        tc.train("bpe", counts=counts, vocab_size=300)
    message = str(err.value)
    assert "made for byte_bpe, and cannot train bpe" in message
    assert (
        "pre_tokenizer Split on the pattern, then ByteLevel in the counts, Whitespace for bpe"
        in message
    )
    assert message.endswith("Count the corpus again with --algorithm bpe")


def test_counts_of_another_pattern_or_case_are_refused():
    with pytest.raises(InvalidInput, match="pattern gpt2 in the counts, cl100k for byte_bpe"):
        tc.train("byte_bpe", counts=tc.count(BOTCHAN, "byte_bpe"), vocab_size=300, pattern="cl100k")
    with pytest.raises(InvalidInput, match="lowercase=True"):
        tc.train(
            "wordpiece", counts=tc.count(BOTCHAN, "wordpiece"), vocab_size=300, lowercase=False
        )


def test_the_counts_pattern_is_the_trained_tokenizers_pattern():
    counts = tc.count(BOTCHAN, "byte_bpe", pattern="cl100k")
    tok = tc.train("byte_bpe", counts=counts, vocab_size=400)
    assert (
        tok.encode("I'LL 12345").tokens
        == tc.train("byte_bpe", BOTCHAN, 400, pattern="cl100k").encode("I'LL 12345").tokens
    )


def test_what_cannot_train_from_counts_says_so():
    with pytest.raises(InvalidInput, match="unigram does not train on word counts"):
        tc.train("unigram", counts=tc.count(BOTCHAN, "bpe"), vocab_size=300)
    with pytest.raises(InvalidInput, match="not both"):
        tc.train("bpe", BOTCHAN, 300, counts=tc.count(BOTCHAN, "bpe"))
    with pytest.raises(InvalidInput, match="vocab_size"):
        tc.train("bpe", counts=tc.count(BOTCHAN, "bpe"))


@pytest.mark.slow
def test_a_corpus_over_twenty_million_characters_trains():
    """No ceiling but memory: 21 million characters of lines, read as they come."""
    lines = (BOTCHAN[i % len(BOTCHAN)] for i in range(21_000_000 // 45))
    counts = tc.count(lines, "bpe")
    assert counts.total > 3_000_000
    tok = tc.train("bpe", (BOTCHAN[i % len(BOTCHAN)] for i in range(21_000_000 // 45)), 300)
    assert tok.model.merges == tc.train("bpe", counts=counts, vocab_size=300).model.merges


corpora = st.lists(
    st.text(alphabet=st.sampled_from("abcab  éß日本🙂,.'\t-0123"), min_size=1, max_size=24),
    min_size=1,
    max_size=25,
).filter(lambda lines: any(line.strip() for line in lines))


@settings(max_examples=40, deadline=None)
@given(corpora, st.sampled_from(["bpe", "byte_bpe", "wordpiece", "sentencepiece_bpe"]))
def test_any_corpus_trains_from_its_counts_to_its_own_merges(lines, algorithm):
    """Whatever the text (ties everywhere in tiny corpora), the counts' training is the text's."""
    vocab_size = 300 if algorithm == "byte_bpe" else 60
    try:
        on_text = tc.train(algorithm, lines, vocab_size)
    except InvalidInput as exc:  # too small a corpus for the size: the counts say the same
        with pytest.raises(InvalidInput, match=re.escape(str(exc)[:40])):
            tc.train(algorithm, counts=tc.count(lines, algorithm), vocab_size=vocab_size)
        return
    from_counts = tc.train(algorithm, counts=tc.count(lines, algorithm), vocab_size=vocab_size)
    assert from_counts.model.merges == on_text.model.merges

"""`training_run` steps the same trainers `train` runs: same steps, same tokeniser."""

from __future__ import annotations

import pytest

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus
from tokenizers_core.implementations.stepping import training_run

TEXT = "Everyone has the right to life, liberty and security of person. <|endoftext|> 東京"


@pytest.mark.parametrize(
    "algorithm, options",
    [
        ("bpe", {"min_frequency": 2}),
        ("byte_bpe", {"pattern": "cl100k", "special_tokens": ["<|endoftext|>"]}),
        ("sentencepiece_bpe", {}),
        ("wordpiece", {"lowercase": False}),
        ("unigram", {}),
    ],
)
def test_a_run_learns_what_train_learns(algorithm, options):
    lines = load_corpus("udhr/eng").splitlines()
    run = training_run(algorithm, lines, 300, **dict(options))
    steps = list(run)
    assert run.done == len(steps) and (run.expected is None or len(steps) <= run.expected)
    ours, theirs = run.tokenizer(), tc.train(algorithm, lines, 300, **options)
    assert ours.encode(TEXT).ids == theirs.encode(TEXT).ids
    assert getattr(ours.model, "vocab", None) == getattr(theirs.model, "vocab", None)
    assert getattr(ours.model, "merges", None) == getattr(theirs.model, "merges", None)
    assert all(step.kind for step in steps)


def test_bad_options_are_value_errors():
    with pytest.raises(ValueError, match="does not take pattern"):
        training_run("bpe", ["a b"], 10, pattern="gpt2")
    with pytest.raises(ValueError, match="unknown algorithm"):
        training_run("nope", ["a b"], 10)
    with pytest.raises(ValueError, match="vocab_size"):
        training_run("wordpiece", ["a b"], True)
    with pytest.raises(ValueError, match="choose at most"):  # as train: a size that trains
        training_run("sentencepiece_bpe", ["ab ab"], 40).tokenizer()

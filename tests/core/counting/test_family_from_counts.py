"""The BPE family from counts: Picky BPE and parity-aware BPE train on byte_bpe's words, so a
byte_bpe counts file (one per language for parity_bpe) gives exactly the merges, removals and
vocabulary of training on the text. SuperBPE's stage 2 needs the lines themselves: it is
refused, with the reason."""

from __future__ import annotations

import pytest

import tokenizers_core as tc
from tokenizers_core.corpora import corpus_names, load_corpus
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.stepping import training_run

BOTCHAN = load_corpus("botchan").splitlines()
LANGUAGES = [
    c for c in ("eng", "fra", "rus", "cmn_hans", "arb", "hin") if f"udhr/{c}" in corpus_names()
]
TEXTS = {code: load_corpus(f"udhr/{code}").splitlines() for code in LANGUAGES}
MULTILINGUAL = [line for lines in TEXTS.values() for line in lines] + BOTCHAN[:1000]


@pytest.mark.parametrize("corpus", ["botchan", "multilingual"])
@pytest.mark.parametrize("threshold, pattern", [(0.9, "gpt2"), (0.7, "cl100k"), (1.1, "gpt2")])
def test_picky_bpe_from_counts_is_picky_bpe_on_the_text(corpus, threshold, pattern):
    lines = BOTCHAN if corpus == "botchan" else MULTILINGUAL
    on_text = tc.train("picky_bpe", lines, 900, threshold=threshold, pattern=pattern)
    counts = tc.count(lines, "byte_bpe", pattern=pattern)
    from_counts = tc.train("picky_bpe", counts=counts, vocab_size=900, threshold=threshold)
    assert from_counts.model.events == on_text.model.events  # merges and removals, in order
    assert from_counts.model.vocab == on_text.model.vocab
    sample = "The newest résumé — 日本語 🙂 don't"
    assert from_counts.encode(sample).ids == on_text.encode(sample).ids


@pytest.mark.parametrize("options", [{}, {"ties": "max_strings", "global_merges": 20}])
def test_parity_bpe_from_one_counts_file_per_language_is_parity_bpe_on_the_text(options):
    on_text = tc.train("parity_bpe", TEXTS, 800, **options)
    counts = {code: tc.count(lines, "byte_bpe") for code, lines in TEXTS.items()}
    from_counts = tc.train("parity_bpe", counts=counts, vocab_size=800, **options)
    assert from_counts.model.merges == on_text.model.merges
    assert from_counts.model.vocab == on_text.model.vocab


def test_parity_bpe_with_a_dev_set_of_counts_is_the_same_with_its_text():
    train = {code: lines[: len(lines) * 2 // 3] for code, lines in TEXTS.items()}
    dev = {code: lines[len(lines) * 2 // 3 :] for code, lines in TEXTS.items()}
    on_text = tc.train("parity_bpe", train, 700, dev=dev)
    counted = {code: tc.count(lines, "byte_bpe") for code, lines in train.items()}
    dev_counted = {code: tc.count(lines, "byte_bpe") for code, lines in dev.items()}
    from_counts = tc.train("parity_bpe", counts=counted, dev=dev_counted, vocab_size=700)
    assert from_counts.model.merges == on_text.model.merges


def test_the_step_by_step_runs_of_the_family_take_counts_too():
    counts = tc.count(BOTCHAN, "byte_bpe")
    run = training_run("picky_bpe", None, 500, counts=counts, threshold=0.8)
    steps = list(run)
    text_steps = list(training_run("picky_bpe", BOTCHAN, 500, threshold=0.8))
    assert [s.to_dict() for s in steps] == [s.to_dict() for s in text_steps]
    run = training_run("parity_bpe", None, 400, counts={"en": counts})
    assert run.tokenizer().model.merges == tc.train("byte_bpe", BOTCHAN, 400).model.merges


def test_superbpe_is_refused_with_the_reason():
    with pytest.raises(InvalidInput, match="superbpe cannot train from counts: its stage 2"):
        tc.train("superbpe", counts=tc.count(BOTCHAN, "byte_bpe"), vocab_size=500)


def test_counts_of_another_algorithm_or_shape_are_refused_naming_both():
    with pytest.raises(InvalidInput, match="made for bpe, and cannot train picky_bpe"):
        tc.train("picky_bpe", counts=tc.count(BOTCHAN, "bpe"), vocab_size=500)
    with pytest.raises(InvalidInput, match="one counts file per language"):
        tc.train("parity_bpe", counts=tc.count(BOTCHAN, "byte_bpe"), vocab_size=500)
    mixed = {"en": tc.count(BOTCHAN, "byte_bpe"), "ru": tc.count(TEXTS["rus"], "wordpiece")}
    with pytest.raises(InvalidInput, match="made for wordpiece, and cannot train parity_bpe"):
        tc.train("parity_bpe", counts=mixed, vocab_size=500)
    custom = {"en": tc.count(BOTCHAN, "byte_bpe", pattern=r"\w+")}
    with pytest.raises(InvalidInput, match="under a preset pattern"):
        tc.train("parity_bpe", counts=custom, vocab_size=500)


def test_the_views_runs_of_the_family_take_counted_words():
    """`family_run` (the step views' runs) on counted words: the same merges and removals as
    on the lines (picky_bpe), the same merges and languages (parity_bpe, one table per
    language); superbpe needs the lines."""
    from tokenizers_core.implementations.bpe_runs import family_run
    from tokenizers_core.implementations.counting.from_counts import trainer_words

    def merges(run):
        return [(s.pair, s.new_symbol, getattr(s, "removed", ())) for s in run.steps]

    words, options = trainer_words("picky_bpe", tc.count(BOTCHAN[:500], "byte_bpe"), {})
    on_text = family_run("picky_bpe", BOTCHAN[:500], 600, threshold=0.8)
    from_counts = family_run("picky_bpe", None, 600, words=words, threshold=0.8, **options)
    assert merges(from_counts) == merges(on_text) and on_text.removals
    counts = {code: tc.count(lines, "byte_bpe") for code, lines in TEXTS.items()}
    words, options = trainer_words("parity_bpe", counts, {})
    tagged = [f"{code}\t{line}" for code, lines in TEXTS.items() for line in lines]
    on_text = family_run("parity_bpe", tagged, 600)
    from_counts = family_run("parity_bpe", None, 600, words=words, **options)
    assert merges(from_counts) == merges(on_text)
    assert from_counts.languages == on_text.languages == tuple(TEXTS)
    with pytest.raises(InvalidInput, match="superbpe trains on the lines"):
        family_run("superbpe", None, 600, words={"ab": 1})

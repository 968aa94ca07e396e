"""Hugging Face's BpeTrainer options (limit_alphabet, initial_alphabet, continuing_subword_prefix,
end_of_word_suffix, max_token_length), checked against `tokenizers` itself on botchan.

Hugging Face numbers the prefixed and suffixed spellings ("##a", "a</w>") in its hash map's
order, which changes from run to run; where a test uses them it reads that numbering off Hugging
Face's vocabulary and replays it (`symbol_order`), so the comparison is exact, not "close".
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus
from tokenizers_core.models.bpe.alphabet import character_counts
from tokenizers_core.models.bpe.trainer import bpe_words, hf_bpe_trainer


@pytest.fixture(scope="module")
def botchan() -> list[str]:
    return load_corpus("botchan").splitlines()


@pytest.fixture(scope="module")
def botchan_words(botchan) -> dict[str, int]:
    return dict(bpe_words(botchan))  # Hugging Face's Whitespace words, with counts


def hf_train(lines, pre_tokenizer, **trainer_options):
    """(vocab, merges) of Hugging Face's BpeTrainer with these options."""
    from tokenizers import Tokenizer, models, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizer
    tok.train_from_iterator(lines, trainers.BpeTrainer(show_progress=False, **trainer_options))
    model = json.loads(tok.to_str())["model"]
    return model["vocab"], [tuple(m) for m in model["merges"]]


def hf_whitespace(lines, **options):
    from tokenizers import pre_tokenizers

    return hf_train(lines, pre_tokenizers.Whitespace(), **options)


def numbering(vocab: dict[str, int]) -> list[str]:
    """The symbols of a vocabulary in id order (what `symbol_order` replays)."""
    return sorted(vocab, key=vocab.get)


def ours(words, vocab_size, **options):
    trainer = hf_bpe_trainer(words, vocab_size, annotate=False, **options).run()
    return trainer.vocab(), trainer.merge_strings()


def untied_limit(words: dict[str, int], near: int) -> int:
    """A limit_alphabet close to `near` whose cut falls between two different counts (where
    counts tie at the cut, Hugging Face's unstable sort keeps a different character each run)."""
    counts = sorted(character_counts(words).values(), reverse=True)
    return next(k for k in range(near, len(counts)) if counts[k - 1] != counts[k])


def test_limit_alphabet_keeps_the_most_frequent_characters_like_hugging_face(
    botchan, botchan_words
):
    limit = untied_limit(botchan_words, 40)
    theirs = hf_whitespace(botchan, vocab_size=700, limit_alphabet=limit)
    mine = ours(botchan_words, 700, limit_alphabet=limit)
    assert len([t for t in mine[0] if len(t) == 1]) == limit
    assert mine == theirs


def test_initial_alphabet_is_forced_in_like_hugging_face(botchan, botchan_words):
    extra = ["é", "Ω", "z", "q"]  # two unseen, two seen (rare ones the limit would cut)
    limit = untied_limit(botchan_words, 45)
    theirs = hf_whitespace(
        botchan,
        vocab_size=600,
        initial_alphabet=extra,
        limit_alphabet=limit,
        special_tokens=["<unk>", "<pad>"],
    )
    mine = ours(
        botchan_words,
        600,
        initial_alphabet=extra,
        limit_alphabet=limit,
        special_tokens=["<unk>", "<pad>"],
    )
    assert {"é", "Ω", "z", "q"} <= set(mine[0])
    assert mine == theirs


@pytest.mark.parametrize("max_token_length", [1, 3, 5])
def test_max_token_length_skips_long_pairs_like_hugging_face(
    botchan, botchan_words, max_token_length
):
    theirs = hf_whitespace(botchan, vocab_size=1500, max_token_length=max_token_length)
    mine = ours(botchan_words, 1500, max_token_length=max_token_length)
    assert max(map(len, mine[0])) == max(2, max_token_length - 1)  # Hugging Face's `<`
    assert mine == theirs


@pytest.mark.parametrize(
    "options",
    [
        {"continuing_subword_prefix": "##"},
        {"end_of_word_suffix": "</w>"},
        {"continuing_subword_prefix": "##", "end_of_word_suffix": "</w>", "min_frequency": 2},
        {"continuing_subword_prefix": "@@", "max_token_length": 6, "special_tokens": ["[UNK]"]},
    ],
)
def test_prefix_and_suffix_merge_like_hugging_face(botchan, botchan_words, options):
    theirs = hf_whitespace(botchan, vocab_size=900, **options)
    mine = ours(botchan_words, 900, symbol_order=numbering(theirs[0]), **options)
    assert mine == theirs


def test_prefix_and_suffix_number_their_spellings_in_code_point_order(botchan_words):
    vocab, merges = ours(
        botchan_words, 600, continuing_subword_prefix="##", end_of_word_suffix="</w>"
    )
    chars = [t for t in numbering(vocab) if len(t) == 1]
    spellings = numbering(vocab)[len(chars) : len(chars) + 3]
    assert chars == sorted(chars) and spellings == ["!</w>", '"</w>', "##!</w>"]
    assert ("##t", "##h") in merges or ("t", "##h") in merges  # merges drop the prefix
    assert "th" in vocab and "##th" in vocab


def test_byte_bpe_takes_the_options_like_hugging_face(botchan):
    from tokenizers import pre_tokenizers

    lines = botchan[:1500]
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False)
    theirs = hf_train(
        lines,
        byte_level,
        vocab_size=600,
        max_token_length=4,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        end_of_word_suffix="</w>",
    )
    tok = tc.train(
        "byte_bpe",
        lines,
        600,
        max_token_length=4,
        end_of_word_suffix="</w>",
        symbol_order=numbering(theirs[0]),
    )
    assert (tok.model.vocab, tok.model.merges) == theirs


@pytest.mark.parametrize(
    "options, message",
    [
        ({"limit_alphabet": -1}, "limit_alphabet must be a whole number"),
        ({"max_token_length": 0}, "max_token_length must be a whole number of at least 1"),
        ({"initial_alphabet": "abc"}, "initial_alphabet must be a list"),
        ({"continuing_subword_prefix": 3}, "continuing_subword_prefix must be a string"),
        ({"limit_alphabets": 3}, "unknown option(s) limit_alphabets"),
    ],
)
def test_bad_options_are_value_errors(options, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tc.train("byte_bpe", ["low lower newest"], 300, **options)


def test_textbook_bpe_takes_the_alphabet_options():
    lines = ["low low low lower lowest newer wider"]
    tok = tc.train("bpe", lines, 12, limit_alphabet=4, max_token_length=3)
    chars = [t for t in tok.model.vocab if len(t) == 1]
    assert chars == ["e", "l", "o", "w"]  # the 4 most frequent; r, s, t, n, i, d cut
    assert tok.encode("wider").tokens == ["w", "<unk>", "<unk>", "e", "<unk>", "</w>"]
    assert max(len(t.replace("</w>", "_")) for t in tok.model.vocab if t != "<unk>") == 2
    with pytest.raises(ValueError, match="continuing_subword_prefix"):
        tc.train("bpe", lines, 30, continuing_subword_prefix="##")


@pytest.mark.heavy
@pytest.mark.parametrize(
    "algorithm, options",
    [
        (
            "byte_bpe",
            {
                "end_of_word_suffix": "</w>",
                "continuing_subword_prefix": "##",
                "limit_alphabet": 300,
            },
        ),
        ("bpe", {"limit_alphabet": 20, "max_token_length": 4}),
        ("char_bpe", {"min_frequency": 3}),
        ("wordlevel", {"min_frequency": 2}),
        ("wordpiece", {"limit_alphabet": 30, "initial_alphabet": ["ж"]}),
    ],
)
def test_step_by_step_runs_take_the_options_and_train_the_same(botchan, algorithm, options):
    from tokenizers_core.implementations.stepping import training_run

    lines = botchan[:1500]
    run = training_run(algorithm, lines, 700, **options)
    steps = sum(1 for _ in run)
    stepped, whole = run.tokenizer(), tc.train(algorithm, lines, 700, **options)
    assert stepped.model.vocab == whole.model.vocab
    assert getattr(stepped.model, "merges", None) == getattr(whole.model, "merges", None)
    assert steps == len(getattr(whole.model, "merges", ()))


@pytest.mark.heavy
@settings(max_examples=80, deadline=None)
@given(
    words=st.lists(st.text(alphabet="abeé", min_size=1, max_size=7), min_size=1, max_size=40),
    prefix=st.sampled_from([None, "##", "a"]),
    suffix=st.sampled_from([None, "</w>", "e"]),
    max_token_length=st.sampled_from([None, 1, 2, 3, 4]),
    extra=st.sampled_from([[], ["z", "a"]]),
    specials=st.sampled_from([[], ["ab"], ["<unk>", "ba"]]),
    vocab_size=st.integers(5, 60),
)
def test_any_options_on_small_corpora_match_hugging_face(
    words, prefix, suffix, max_token_length, extra, specials, vocab_size
):
    """Random words, with the collisions Hugging Face's quirks live in: a prefix or suffix that
    is a character of the corpus ("a", "e") or a special token that a merge spells ("ab"), so
    a merge makes an existing symbol anew, longer there (`max_token_length` counts it place by
    place, and a count gone negative wraps as a u64). Its numbering of the spellings is replayed."""
    lines = [" ".join(words)]
    options = {
        k: v
        for k, v in {
            "continuing_subword_prefix": prefix,
            "end_of_word_suffix": suffix,
            "max_token_length": max_token_length,
            "initial_alphabet": extra,
            "special_tokens": specials,
        }.items()
        if v
    }
    theirs = hf_whitespace(lines, vocab_size=vocab_size, **options)
    mine = ours(dict(bpe_words(lines)), vocab_size, symbol_order=numbering(theirs[0]), **options)
    assert mine == theirs

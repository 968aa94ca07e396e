"""CharBPE-style training and the WordLevel trainer, against Hugging Face's
`CharBPETokenizer().train_from_iterator` and `WordLevelTrainer` on real text."""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus
from tokenizers_core.models.wordlevel.trainer import wordlevel_vocab

TEXTS = [
    "Hello, world! I'm training a tokenizer.",
    "Botchan's mother died when he was young.",
    "Crème brûlée costs 5€ — naïve café.",
    "unknown characters: 日本語 ⅷ ☃",
]


@pytest.fixture(scope="module")
def botchan() -> list[str]:
    return load_corpus("botchan").splitlines()


def hf_model(tok) -> dict:
    return json.loads(tok.to_str())["model"]


@pytest.mark.parametrize(
    "vocab_size, options",
    [
        (1000, {}),
        (600, {"min_frequency": 5, "limit_alphabet": 50}),
    ],
)
def test_char_bpe_trains_and_encodes_like_hugging_face(botchan, vocab_size, options):
    from tokenizers import CharBPETokenizer

    hf = CharBPETokenizer()
    hf.train_from_iterator(botchan, vocab_size=vocab_size, show_progress=False, **options)
    model = hf_model(hf._tokenizer)
    order = sorted(model["vocab"], key=model["vocab"].get)  # its numbering of "x</w>"
    tok = tc.train("char_bpe", botchan, vocab_size, symbol_order=order, **options)
    assert tok.model.vocab == model["vocab"]
    assert tok.model.merges == [tuple(m) for m in model["merges"]]
    for text in [*TEXTS, *botchan[100:130]]:
        theirs = hf.encode(text)
        enc = tok.encode(text)
        assert (enc.tokens, enc.ids, enc.offsets) == (theirs.tokens, theirs.ids, theirs.offsets)
        assert tok.decode(enc.ids) == hf.decode(theirs.ids, skip_special_tokens=False)


def test_char_bpe_glues_the_suffix_to_the_last_character():
    tok = tc.train("char_bpe", ["low low low lower lowest newer wider"] * 2, 40)
    assert "w</w>" in tok.model.vocab and "</w>" not in tok.model.vocab
    assert tok.encode("low lowest").tokens[0] == "low</w>"
    assert tok.decode(tok.encode("low lower").ids) == "low lower"


def hf_wordlevel(lines, **trainer_options):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(
        lines, trainers.WordLevelTrainer(show_progress=False, **trainer_options)
    )
    return tok


@pytest.mark.parametrize(
    "vocab_size, options",
    [
        (2000, {"special_tokens": ["<unk>"]}),
        (500, {"special_tokens": ["<unk>", "<pad>"], "min_frequency": 3}),
        (100_000, {"special_tokens": ["<unk>"], "min_frequency": 2}),
    ],
)
def test_wordlevel_trains_and_encodes_like_hugging_face(botchan, vocab_size, options):
    hf = hf_wordlevel(botchan, vocab_size=vocab_size, **options)
    tok = tc.train("wordlevel", botchan, vocab_size, **options)
    assert tok.model.vocab == hf_model(hf)["vocab"]
    for text in [*TEXTS, *botchan[200:230]]:
        theirs = hf.encode(text)
        assert (tok.encode(text).ids, tok.encode(text).offsets) == (theirs.ids, theirs.offsets)


def test_wordlevel_order_is_count_then_the_word():
    """the: 3 and a: 3 tie on count, so "a" < "the" decides; cat and sat tie at 1."""
    vocab = wordlevel_vocab({"the": 3, "sat": 1, "a": 3, "cat": 1}, 10, special_tokens=["[UNK]"])
    assert list(vocab) == ["[UNK]", "a", "the", "cat", "sat"]
    assert list(wordlevel_vocab({"the": 3, "sat": 1, "a": 3}, 10, min_frequency=2)) == ["a", "the"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"vocab_size": 0}, "vocab_size must be a whole number of at least 1"),
        ({"vocab_size": 5, "min_frequency": -1}, "min_frequency must be a whole number"),
        ({"vocab_size": 5, "special_tokens": [""]}, "special tokens must be non-empty strings"),
    ],
)
def test_wordlevel_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tc.train("wordlevel", ["a b c"], **kwargs)


@pytest.mark.parametrize("algorithm", ["char_bpe", "wordlevel"])
def test_saved_tokenizer_json_loads_in_hugging_face_and_here(botchan, algorithm, tmp_path):
    from tokenizers import Tokenizer

    tok = tc.train(algorithm, botchan[:3000], 600)
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    hf, again = Tokenizer.from_file(str(path)), tc.load(str(path))
    for text in [*TEXTS, *botchan[3000:3100]]:
        assert hf.encode(text).ids == tok.encode(text).ids == again.encode(text).ids, text

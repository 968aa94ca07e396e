"""WordPiece training options limit_alphabet and initial_alphabet.

Our WordPiece trainer is the likelihood one (score = count(ab) / (count(a) count(b)), proved
against the textbook loop in test_wordpiece_train.py); Hugging Face's WordPieceTrainer is its
BpeTrainer (merge by count) with "##". So the merges differ by design, but the alphabet the
options choose is the same rule, and that is checked here against Hugging Face on botchan.
"""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus
from tokenizers_core.implementations.bert import count_words
from tokenizers_core.models.bpe.alphabet import character_counts

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


@pytest.fixture(scope="module")
def botchan() -> list[str]:
    return load_corpus("botchan").splitlines()


def hf_wordpiece_vocab(lines, **options) -> dict[str, int]:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(
        lines, trainers.WordPieceTrainer(show_progress=False, special_tokens=SPECIALS, **options)
    )
    return json.loads(tok.to_str())["model"]["vocab"]


def characters(vocab: dict[str, int], size: int) -> set[str]:
    """The characters under the first `size` entries (the initial symbols), "##" taken off."""
    first = sorted(vocab, key=vocab.get)[:size]
    return {t[2:] if t.startswith("##") else t for t in first if t not in SPECIALS}


def test_limit_alphabet_keeps_the_characters_hugging_face_keeps(botchan):
    counts = sorted(character_counts(count_words(botchan)).values(), reverse=True)
    limit = next(
        k for k in range(30, len(counts)) if counts[k - 1] != counts[k]
    )  # no tie at the cut
    theirs = hf_wordpiece_vocab(botchan, vocab_size=400, limit_alphabet=limit)
    tok = tc.train("wordpiece", botchan, 400, limit_alphabet=limit, special_tokens=SPECIALS)
    trainer_size = len(SPECIALS) + sum(1 for t in tok.model.vocab if len(t.lstrip("#")) == 1)
    ours = characters(tok.model.vocab, trainer_size)
    assert len(ours) == limit
    assert ours == {t for t in theirs if len(t) == 1 and t not in SPECIALS}
    dropped = set(character_counts(count_words(botchan))) - ours
    pieces = [t.removeprefix("##") for t in tok.model.vocab if t not in SPECIALS]
    assert dropped and not any(c in t for t in pieces for c in dropped)


def test_initial_alphabet_is_always_in_the_vocabulary(botchan):
    extra = ["ж", "ß", "ω"]  # unseen in botchan, and kept by BERT's normaliser
    theirs = hf_wordpiece_vocab(botchan[:500], vocab_size=300, initial_alphabet=extra)
    tok = tc.train("wordpiece", botchan[:500], 300, initial_alphabet=extra)
    assert set(extra) <= set(theirs) and set(extra) <= set(tok.model.vocab)
    assert tok.encode("ßж", add_special_tokens=False).tokens == ["ß", "##ж"]
    assert tc.train("wordpiece", botchan[:500], 300).encode(
        "ßж", add_special_tokens=False
    ).tokens == ["[UNK]"]


def test_defaults_train_as_before(botchan):
    plain = tc.train("wordpiece", botchan[:800], 500)
    same = tc.train("wordpiece", botchan[:800], 500, limit_alphabet=None, initial_alphabet=[])
    assert plain.model.merges == same.model.merges and plain.model.vocab == same.model.vocab


@pytest.mark.parametrize(
    "options, message",
    [
        ({"limit_alphabet": "ten"}, "limit_alphabet must be a whole number"),
        ({"initial_alphabet": "ab"}, "initial_alphabet must be a list of strings"),
    ],
)
def test_bad_wordpiece_options(options, message):
    with pytest.raises(ValueError, match=message):
        tc.train("wordpiece", ["a b c"], 30, **options)


def test_end_of_word_suffix_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="WordPiece takes no end_of_word_suffix"):
        tc.train("wordpiece", ["a b c"], 30, end_of_word_suffix="</w>")

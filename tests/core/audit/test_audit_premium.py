"""Language premiums (Petrov et al. 2023): tokens of a language's text over tokens of the same
text in English, on parallel texts (the bundled UDHR in 33 languages)."""

from __future__ import annotations

import pytest

import tokenizers_core as tc
from tokenizers_core.audit.premium import language_premiums, largest_premium, premiums, token_counts
from tokenizers_core.corpora import load_corpus, udhr_languages

# A toy parallel text: the word tokeniser makes 3 tokens of English, 5 of French, 2 of German.
TOY = {"eng": "the cat sat", "fra": "le chat s'est assis .", "deu": "Katze saß"}


def test_a_toy_tokenizer_pays_what_its_token_counts_say():
    tok = tc.load("word")
    assert token_counts(tok, TOY) == {"eng": 3, "fra": 5, "deu": 2}
    assert language_premiums(tok, TOY) == pytest.approx({"eng": 1.0, "fra": 5 / 3, "deu": 2 / 3})
    assert largest_premium(language_premiums(tok, TOY)) == ("fra", pytest.approx(5 / 3))


def test_special_tokens_added_around_a_text_are_not_charged():
    """BERT wraps every text in [CLS] ... [SEP]; the premium counts the text's own tokens."""
    tok = tc.load("bert-base-uncased")
    counts = token_counts(tok, {"eng": "hello world"})
    assert counts == {"eng": 2}


def test_the_character_tokenizer_premium_is_the_ratio_of_lengths_on_the_udhr():
    got = language_premiums(tc.load("char"))
    eng = len(load_corpus("udhr/eng"))
    assert set(got) == {lang.code for lang in udhr_languages()}
    for lang in udhr_languages():
        assert got[lang.code] == pytest.approx(len(load_corpus(f"udhr/{lang.code}")) / eng)


def test_a_real_tokenizer_charges_tamil_more_than_french():
    got = language_premiums(tc.load("r50k_base"))
    assert got["eng"] == 1.0
    assert 1.0 < got["fra"] < 2.0
    assert got["tam"] > 5 * got["fra"]


def test_no_english_text_or_no_english_tokens_is_a_clear_value_error():
    with pytest.raises(ValueError, match="'eng'"):
        premiums({"fra": 3})
    with pytest.raises(ValueError, match="no tokens"):
        premiums({"eng": 0, "fra": 3})
    with pytest.raises(ValueError, match="no texts"):
        token_counts(tc.load("word"), {})

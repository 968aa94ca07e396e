"""Compare metrics on small cases worked out by hand."""

from __future__ import annotations

import pytest

import tokenizers_core as tc
from tokenizers_core import metrics as M
from tokenizers_core.encoding import Encoding


def enc_with(offsets, special=None) -> Encoding:
    e = Encoding.from_tokens([])
    e.offsets = list(offsets)
    e.special_tokens_mask = list(special or [0] * len(offsets))
    return e


def test_char_and_word_metrics_by_hand():
    text = "ab cd"
    # char: a b · c d -> 5 tokens, 2 words: 2.5 tokens/word, 1 char and 1 byte per token
    m = M.encoding_metrics(text, tc.load("char").encode(text))
    assert (m.tokens, m.words, m.chars, m.bytes) == (5, 2, 5, 5)
    assert (m.tokens_per_word, m.chars_per_token, m.bytes_per_token) == (2.5, 1.0, 1.0)
    # word: ab cd -> 2 tokens: 1 token/word, 2.5 chars/token
    m = M.encoding_metrics(text, tc.load("word").encode(text))
    assert (m.tokens, m.tokens_per_word, m.chars_per_token) == (2, 1.0, 2.5)


def test_bert_special_tokens_are_not_charged_and_unk_is_counted():
    tok = tc.load("bert-base-uncased")
    text = "Hello, world! \U00013000"
    # [CLS] hello , world ! [UNK] [SEP]: 5 ordinary tokens, 2 special, 1 unknown;
    # 15 chars, 18 bytes (the hieroglyph is 4 bytes), 3 words
    m = M.encoding_metrics(text, tok.encode(text), M.unk_ids(tok.model))
    assert (m.tokens, m.special, m.unk, m.words, m.chars, m.bytes) == (5, 2, 1, 3, 15, 18)
    assert m.tokens_per_word == pytest.approx(5 / 3)
    assert m.bytes_per_token == pytest.approx(18 / 5)


def test_empty_text_has_zero_ratios():
    m = M.text_metrics("", [], special=0, unk=0)
    assert (m.tokens, m.chars_per_token, m.tokens_per_word) == (0, 0.0, 0.0)


def test_cut_points_ignore_which_side_the_space_is_on():
    text = "un happy"
    gpt_like = [(0, 2), (2, 8)]  # "un", " happy"
    bert_like = [(0, 2), (3, 8)]  # "un", "happy"
    assert M.cut_points(text, gpt_like) == M.cut_points(text, bert_like) == {0, 3, 8}
    # special tokens ([CLS] at (0, 0)) are ignored
    assert M.cut_points(text, [(0, 0), (0, 8)], [1, 0]) == {0, 8}


def test_disagreements_by_hand():
    text = "unhappiness"
    reference = M.cut_points(text, [(0, 2), (2, 11)])  # un | happiness
    assert M.disagreements(text, enc_with([(0, 3), (3, 11)]), reference) == [True, True]
    assert M.disagreements(text, enc_with([(0, 2), (2, 7), (7, 11)]), reference) == [
        False,
        True,
        True,
    ]
    assert M.disagreements(text, enc_with([(0, 0), (0, 2), (2, 11)], [1, 0, 0]), reference) == [
        False,
        False,
        False,
    ]


def test_relative_counts_and_scripts():
    assert M.relative_counts({"eng": 200, "hin": 500}, "eng") == {"eng": 1.0, "hin": 2.5}
    with pytest.raises(ValueError):
        M.relative_counts({"eng": 0}, "eng")
    assert M.dominant_script("مرحبا بالعالم") == "ARABIC"
    assert M.dominant_script("नमस्ते दुनिया") == "DEVANAGARI"


@pytest.mark.heavy
def test_metrics_per_language_covers_every_udhr_text():
    from tokenizers_core.corpora import udhr_languages

    per = M.metrics_per_language(tc.load("word"))
    assert set(per) == {lang.code for lang in udhr_languages()}
    assert all(m.tokens > 0 and m.unk == 0 for m in per.values())
    # BERT's vocabulary has no Amharic (Ethiopic) letters: most of those words are [UNK]
    bert = M.metrics_per_language(tc.load("bert-base-uncased"))
    assert bert["amh"].unk > bert["amh"].tokens / 2 and bert["eng"].unk == 0

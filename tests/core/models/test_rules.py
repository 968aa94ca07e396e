"""Rule tokenisers (as the 'How it works' guide lists them): characters, words, sentences, a user's regex.

The golden cases follow the seed's rules: code points for `char`; "letters/digits or a single
punctuation character" for `word` (the seed's ASCII regex, which ours extends to every script
and to inner apostrophes); . ! ? with an abbreviation block-list for `sentence`.
"""

from __future__ import annotations

import time

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import corpora
from tokenizers_core.corpora import load_corpus
from tokenizers_core.implementations.rules import (
    CharModel,
    PieceModel,
    char_tokenizer,
    regex_tokenizer,
    sentence_tokenizer,
    split_sentences,
    word_tokenizer,
)
from tokenizers_core.models import Model
from tokenizers_core.pretrained import load


def sentences(text: str, **options) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text, **options)]


# ---- the registry --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["char", "word", "sentence"])
def test_bundled_rule_tokenisers_load(name):
    tok = load(name)
    assert tok.name == name and tok.algorithm == name
    assert tok.vocab_size == 0
    assert tok.info()["pre_tokenizer"] and tok.info()["model"]


def test_models_follow_the_model_protocol():
    assert isinstance(CharModel(), Model) and isinstance(PieceModel(), Model)
    assert CharModel().id_to_token(0x1F600) == "😀" and CharModel().id_to_token(-1) is None
    assert CharModel().token_to_id("é") == 233 and CharModel().token_to_id("ab") is None
    assert PieceModel().id_to_token(0) is None and PieceModel().tokenize("") == []


# ---- char -----------------------------------------------------------------------------------
def test_char_golden():
    enc = char_tokenizer().encode("Añ 😀\n")
    assert enc.tokens == ["A", "ñ", " ", "😀", "\n"]
    assert enc.ids == [65, 241, 32, 0x1F600, 10]
    assert enc.offsets == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]


def test_char_is_code_points_not_graphemes():
    # "é" written as e + combining acute accent is two code points, so two tokens
    assert char_tokenizer().encode("e\u0301").tokens == ["e", "\u0301"]


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=40))
def test_char_round_trip(text):
    tok = char_tokenizer()
    enc = tok.encode(text)
    assert enc.ids == [ord(c) for c in text]
    assert tok.decode(enc.ids) == text


# ---- word -----------------------------------------------------------------------------------
def test_word_agrees_with_the_seed_rule_on_ascii_without_apostrophes():
    # the seed's word rule: one or more letters/digits OR a single punctuation character
    seed_rule = regex.compile(r"[A-Za-z0-9]+|[^\sA-Za-z0-9]")
    text = "Tokens: 42 of them (roughly), at $0.03 each -- cheap!?"
    assert word_tokenizer().encode(text).tokens == seed_rule.findall(text)


def test_word_golden():
    enc = word_tokenizer().encode("Don't panic, O’Brien... it's 3.5°C!")
    assert enc.tokens == [
        "Don't",
        "panic",
        ",",
        "O’Brien",
        ".",
        ".",
        ".",
        "it's",
        "3",
        ".",
        "5",
        "°",
        "C",
        "!",
    ]
    # quotes around a word are not inner apostrophes
    assert word_tokenizer().encode("'hi'").tokens == ["'", "hi", "'"]


def test_word_other_scripts():
    tok = word_tokenizer()
    # marks stay inside words (Devanagari vowel signs, virama)
    assert tok.encode("हिन्दी भाषा").tokens == ["हिन्दी", "भाषा"]
    # Persian: the zero-width non-joiner is part of the word
    assert tok.encode("می\u200cخواهم.").tokens == ["می\u200cخواهم", "."]
    # Han characters are one token each; kana runs stay whole
    assert tok.encode("人人生而自由。").tokens == ["人", "人", "生", "而", "自", "由", "。"]
    assert tok.encode("すべての人間は").tokens == ["すべての", "人", "間", "は"]


def test_word_ids_by_first_appearance():
    enc = word_tokenizer().encode("the cat saw the dog")
    assert enc.ids == [0, 1, 2, 0, 3]
    assert enc.word_ids == [0, 1, 2, 3, 4]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40)
    | st.text(alphabet=list(" \n\t'’-.,!aZé1\u0301人"), max_size=40)
)
def test_word_tokens_cover_every_non_space_character(text):
    enc = word_tokenizer().encode(text)
    assert "".join(enc.tokens) == regex.sub(r"\s", "", text)
    for token, (a, b) in zip(enc.tokens, enc.offsets):
        assert text[a:b] == token and not regex.search(r"\s", token)
    assert all(p[1] <= n[0] for p, n in zip(enc.offsets, enc.offsets[1:]))


# ---- sentence -------------------------------------------------------------------------------
def test_sentence_plain_terminators():
    assert sentences("It rained. Did it stop? No! Good.") == [
        "It rained.",
        "Did it stop?",
        "No!",
        "Good.",
    ]


@pytest.mark.parametrize(
    "text, expected",
    [
        # titles before a name never end a sentence
        (
            "Dr. Lee met Mr. and Mrs. Park. They talked.",
            ["Dr. Lee met Mr. and Mrs. Park.", "They talked."],
        ),
        (
            "Ask Prof. Ito or Ms. Ruiz at St. Mary's. Then wait.",
            ["Ask Prof. Ito or Ms. Ruiz at St. Mary's.", "Then wait."],
        ),
        # Latin and short forms
        (
            "Bring fruit, e.g. plums, i.e. anything. Fine.",
            ["Bring fruit, e.g. plums, i.e. anything.", "Fine."],
        ),
        ("It was red vs. blue. Blue won.", ["It was red vs. blue.", "Blue won."]),
        ("The U.S. Senate met. It voted.", ["The U.S. Senate met.", "It voted."]),
        # "etc." and "p.m." end a sentence only before a capital letter
        (
            "Pens, ink, etc. are here. We start at 9 a.m. sharp.",
            ["Pens, ink, etc. are here.", "We start at 9 a.m. sharp."],
        ),
        (
            "Bring pens, ink, etc. Then sit. It ends at 5 p.m. Go home.",
            ["Bring pens, ink, etc.", "Then sit.", "It ends at 5 p.m.", "Go home."],
        ),
        # "No." before a number, initials
        ("See No. 7 on p. 12. I said no. Right.", ["See No. 7 on p. 12.", "I said no.", "Right."]),
        ("J. R. R. Tolkien wrote it. Read it.", ["J. R. R. Tolkien wrote it.", "Read it."]),
    ],
)
def test_sentence_abbreviations(text, expected):
    assert sentences(text) == expected


def test_sentence_decimals_and_dotted_words():
    assert sentences("Pi is 3.14159 roughly. Visit example.org now. Version 2.0.1 is out.") == [
        "Pi is 3.14159 roughly.",
        "Visit example.org now.",
        "Version 2.0.1 is out.",
    ]


def test_sentence_ellipses():
    assert sentences("Wait... what? Hmm… Fine.") == ["Wait... what?", "Hmm…", "Fine."]
    assert sentences("And then... They left.") == ["And then...", "They left."]


def test_sentence_closing_quotes_and_brackets():
    assert sentences('He said "Stop." Then he ran.') == ['He said "Stop."', "Then he ran."]
    assert sentences("(It was late.) We slept.") == ["(It was late.)", "We slept."]
    assert sentences("“Really?” she asked. “Yes!” He nodded.") == [
        "“Really?” she asked.",
        "“Yes!”",
        "He nodded.",
    ]
    assert sentences("'Stop!' he cried.") == ["'Stop!' he cried."]


def test_sentence_repeated_and_mixed_terminators():
    assert sentences("What?! No!!! Ok?") == ["What?!", "No!!!", "Ok?"]


def test_sentence_newlines():
    text = "Article 1\nAll are born free.\n\n  Article 2  \nEveryone counts"
    assert sentences(text) == ["Article 1", "All are born free.", "Article 2", "Everyone counts"]
    # paragraph mode: a single line break is a space (hard-wrapped prose)
    wrapped = "This sentence is\nwrapped. Next one.\n\nNew paragraph"
    assert sentences(wrapped, newlines="paragraph") == [
        "This sentence is\nwrapped.",
        "Next one.",
        "New paragraph",
    ]
    with pytest.raises(ValueError, match="newlines"):
        split_sentences("x", newlines="never")


def test_sentence_other_scripts():
    assert sentences("我来了。你呢？好的") == ["我来了。", "你呢？", "好的"]
    assert sentences("यह है। वह है।") == ["यह है।", "वह है।"]
    assert sentences("هل أنت هنا؟ نعم.") == ["هل أنت هنا؟", "نعم."]


def test_sentence_offsets_exclude_whitespace():
    text = "  One.   Two?\n\tThree  "
    enc = sentence_tokenizer().encode(text)
    assert enc.tokens == ["One.", "Two?", "Three"]
    assert enc.offsets == [(2, 6), (9, 13), (15, 20)]
    assert [text[a:b] for a, b in enc.offsets] == enc.tokens
    assert sentence_tokenizer().encode("   ").tokens == []


def test_sentence_tokens_numbered_by_first_appearance():
    assert sentence_tokenizer().encode("Yes. No. Yes.").ids == [0, 1, 0]


@pytest.mark.parametrize("corpus", corpora.names())  # udhr/all as its seams (tests/corpora.py)
def test_sentence_on_corpora(corpus):
    text = corpora.text(corpus)
    spans = split_sentences(text)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert len(spans) >= len(lines)  # every line break ends a sentence
    for a, b in spans:
        piece = text[a:b]
        assert piece and piece == piece.strip() and "\n" not in piece


def test_sentence_english_udhr_starts_with_capitals():
    text = load_corpus("udhr/eng")
    starts = [text[a] for a, _ in split_sentences(text)]
    assert all(not c.islower() for c in starts)


_SENTENCE_ALPHABET = list(" \n\t.!?…\"')”abAB1Dr.e.g.") + ["Mr.", "etc.", "...", "U.S.", "3.14"]


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(st.sampled_from(_SENTENCE_ALPHABET), max_size=30).map("".join) | st.text(max_size=40),
    st.sampled_from(["line", "paragraph"]),
)
def test_sentence_spans_partition_the_text(text, newlines):
    spans = split_sentences(text, newlines=newlines)
    assert all(a < b for a, b in spans)
    assert all(p[1] <= n[0] for p, n in zip(spans, spans[1:]))
    for a, b in spans:
        assert not regex.match(r"\s", text[a]) and not regex.match(r"\s", text[b - 1])
    # nothing but whitespace lies outside the sentences
    outside = [text[p[1] : n[0]] for p, n in zip([(0, 0)] + spans, spans + [(len(text),) * 2])]
    assert all(not regex.search(r"\S", gap) for gap in outside)


# ---- a user's regex -------------------------------------------------------------------------
def test_regex_tokenizer_matches():
    tok = regex_tokenizer(r"\p{Lu}\p{Ll}*|\d+")
    enc = tok.encode("NewYork 2024 x")
    assert enc.tokens == ["New", "York", "2024"]
    assert enc.offsets == [(0, 3), (3, 7), (8, 12)]
    assert tok.algorithm == "regex"


def test_regex_tokenizer_errors():
    with pytest.raises(ValueError, match=r"invalid regex: .* at position \d+"):
        regex_tokenizer("[unclosed")
    with pytest.raises(ValueError, match="empty"):
        regex_tokenizer("")
    tok = regex_tokenizer(r"(a|a)+$", timeout=0.2)
    start = time.process_time()  # this process's CPU seconds: work done, whatever the load
    with pytest.raises(ValueError, match="took longer than 0.2 s"):
        tok.encode("a" * 40 + "b")
    assert time.process_time() - start < 5


def test_regex_tokenizer_empty_matches_are_safe():
    assert regex_tokenizer(r"a*").encode("baab").tokens == ["aa"]

"""How tokenisers spell numbers: token counts of 0-9999 and the digit grouping
each uses, detected from its behaviour, on real bundled tokenisers and toy ones built to have
each grouping."""

from __future__ import annotations

import pytest

import tokenizers_core as tc

# the shared data beside the checkout (../shared), from the main checkout or a worktree
from tests.shared_data import INTEROP
from tokenizers_core.audit.numbers import (
    FORMATS,
    INTEGERS,
    detect_grouping,
    digit_chunks,
    digit_rules,
    integer_token_counts,
    number_report,
)
from tokenizers_core.implementations.openai_public import ENCODINGS, load_ranks
from tokenizers_core.implementations.rules import regex_tokenizer
from tokenizers_core.pre_tokenizers import PRESETS


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_openai_gpt4_encodings_group_three_digits_from_the_left(name):
    g = detect_grouping(tc.load(name))
    assert (g.kind, g.size, g.name) == ("left_to_right", 3, "up to 3 digits, left to right")
    assert g.example == "123|456|789|0"
    assert any(r.startswith(r"\p{N}{1,3}") for r in g.rules)
    assert "up to 3 digits, left to right" in g.sentence()


@pytest.mark.heavy
def test_llama3_groups_like_cl100k():
    path = INTEROP / "converted" / "llama3.tokenizer.json"
    if not path.exists():
        pytest.skip(f"the real Llama 3 tokenizer is not here ({path}: ../shared is absent)")
    g = detect_grouping(tc.load(str(path)))
    assert (g.kind, g.size) == ("left_to_right", 3) and g.rules == (r"\p{N}{1,3}",)


def test_gpt2_has_no_rule_but_every_two_digit_number_in_its_vocabulary():
    g = detect_grouping(tc.load("r50k_base"))
    assert (g.kind, g.size) == ("whole", 2)
    assert g.name.startswith("whole numbers up to 2 digits in the vocabulary")
    assert g.rules == (r" ?\p{N}++",)
    assert g.example == "123|45|678|90"


@pytest.mark.heavy
@pytest.mark.parametrize("name", ["mistral_v1", "mistral_v3", "qwen3", "mistral_tekken"])
def test_llama2_style_sentencepiece_and_qwen_split_every_digit(name):
    g = detect_grouping(tc.load(name))
    assert (g.kind, g.name) == ("single", "single digits")


def test_sentencepiece_pays_for_its_dummy_prefix_but_groups_by_digit_tokens():
    tok = tc.load("mistral_v1")  # "7" -> "▁", "7"
    assert integer_token_counts(tok, 12)[7] == 2 and integer_token_counts(tok, 12)[11] == 3
    assert digit_chunks(tok, "2024") == (1, 1, 1, 1)
    assert digit_rules(tok) == ()


def test_a_word_level_tokenizer_keeps_every_number_whole():
    g = detect_grouping(tc.load("word"))
    assert (g.kind, g.size, g.name) == ("whole", 0, "every number is one token, however long")
    assert detect_grouping(tc.load("char")).name == "single digits"


def test_a_small_trained_model_uses_learned_chunks():
    g = detect_grouping(tc.load("botchan_en_unigram_1000"))
    assert (g.kind, g.name) == ("learned", "learned chunks (no rule)")


@pytest.mark.parametrize(
    "pattern, kind, size, example",
    [
        (r"\d", "single", 1, "1|2|3|4|5|6|7|8|9|0"),
        (r"\d{1,2}", "left_to_right", 2, "12|34|56|78|90"),
        (r"\d{1,3}(?=(?:\d{3})*(?!\d))", "right_to_left", 3, "1|234|567|890"),
        (r"\d{1,4}", "left_to_right", 4, "1234|5678|90"),
    ],
)
def test_toy_tokenizers_built_to_have_each_grouping(pattern, kind, size, example):
    g = detect_grouping(regex_tokenizer(pattern))
    assert (g.kind, g.size, g.example) == (kind, size, example)
    way = {"left_to_right": "left to right", "right_to_left": "right to left"}.get(kind)
    if way:
        assert g.name == f"up to {size} digits, {way}"


def test_counts_match_tiktoken_on_every_integer():
    import tiktoken

    preset, specials = ENCODINGS["r50k_base"]
    ref = tiktoken.Encoding(
        "r50k_base",
        pat_str=PRESETS[preset],
        mergeable_ranks=load_ranks("r50k_base"),
        special_tokens=specials,
    )
    counts = integer_token_counts(tc.load("r50k_base"))
    assert len(counts) == INTEGERS
    assert counts == [len(ref.encode_ordinary(str(n))) for n in range(INTEGERS)]


def test_the_report_has_counts_histogram_formats_and_json():
    report = number_report(tc.load("cl100k_base"))
    assert report.histogram() == {1: 1000, 2: 9000}
    rows = {f.text: f for f in report.formats}
    assert [f.text for f in report.formats] == [text for _label, text in FORMATS]
    assert rows["1,000,000"].tokens == ("1", ",", "000", ",", "000")
    assert "".join(rows["2024-03-15"].tokens) == "2024-03-15"
    data = report.to_dict()
    assert data["grouping"]["kind"] == "left_to_right" and len(data["counts"]) == INTEGERS
    assert data["formats"][0]["count"] == len(rows["3.14"].ids)


def test_bert_special_tokens_are_not_counted():
    assert integer_token_counts(tc.load("bert-base-uncased"), 3) == [1, 1, 1]

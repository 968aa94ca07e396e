"""`tc.diff`: two tokenizers on the same texts, the first divergence and its pipeline stage.

Every pair is real: bundled encodings, tokenizer.json files written from them (and edited the
way converters get them wrong), and the Llama 3 files of the shared interop data.
"""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc
from tests.shared_data import INTEROP
from tokenizers_core.corpora import load_corpus
from tokenizers_core.diff import (
    STAGES,
    corpus_texts,
    diagnose,
    diff,
    first_difference,
    stress_texts,
)

LLAMA3_JSON = INTEROP / "converted" / "llama3.tokenizer.json"
LLAMA3_RANKS = INTEROP / "raw" / "llama3" / "tokenizer.model"
ENDOFTEXT = "<|endoftext|>"


def from_json(config: dict) -> tc.Tokenizer:
    return tc.load(json.dumps(config).encode("utf-8"))


@pytest.fixture(scope="module")
def cl100k() -> tc.Tokenizer:
    return tc.load("cl100k_base")


@pytest.fixture(scope="module")
def cl100k_json(cl100k) -> dict:
    return cl100k.to_hf_json()


def with_bos(config: dict) -> dict:
    """`config` with a post-processor that puts <|endoftext|> before every text (a BOS)."""
    eot = next(t["id"] for t in config["added_tokens"] if t["content"] == ENDOFTEXT)
    single = [
        {"SpecialToken": {"id": ENDOFTEXT, "type_id": 0}},
        {"Sequence": {"id": "A", "type_id": 0}},
    ]
    return {
        **config,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": single,
            "pair": single + [{"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {ENDOFTEXT: {"id": ENDOFTEXT, "ids": [eot], "tokens": [ENDOFTEXT]}},
        },
    }


def test_an_alias_is_identical_to_its_encoding():
    report = diff(tc.load("gpt2"), tc.load("r50k_base"), stress_texts())
    assert report.identical == report.texts and report.share_identical == 1.0
    assert report.differences == () and report.by_stage == {}


@pytest.mark.heavy
def test_a_tokenizer_json_written_from_cl100k_differs_only_on_special_token_strings(
    cl100k, cl100k_json
):
    """The OpenAI encoding reads "<|endoftext|>" typed in a text as ordinary text (tiktoken's
    encode_ordinary); the tokenizer.json matches it as an added token, first of all stages."""
    converted = from_json(cl100k_json)
    botchan = diff(cl100k, converted, corpus_texts(load_corpus("botchan")))
    assert botchan.identical == botchan.texts > 4000
    stress = diff(cl100k, converted, stress_texts())
    assert {d.text for d in stress.differences} == {
        "<|endoftext|>",
        "a<|endoftext|>b",
        "<|fim_prefix|>x<|fim_suffix|>",
    }
    first = next(d for d in stress.differences if d.text == "a<|endoftext|>b")
    assert first.stage == "added tokens" and first.position == 1
    assert first.evidence == {"a": None, "b": ENDOFTEXT}
    assert [t[1] for t in first.window_b] == ["a", ENDOFTEXT, "b"]


def test_cl100k_and_o200k_split_a_contraction_differently(cl100k):
    """cl100k cuts "'t" off as its own piece; o200k's pattern keeps "don't" whole."""
    report = diff(cl100k, tc.load("o200k_base"), ["I don't know"])
    (d,) = report.differences
    assert d.stage == "pre-tokenizer split" and d.position == 1
    assert d.evidence["a"]["text"] == " don" and d.evidence["b"]["text"] == " don't"
    assert "cl100k" in d.evidence["a_name"] and "o200k" in d.evidence["b_name"]


def test_cl100k_and_o200k_split_a_russian_word_differently_in_the_model(cl100k):
    report = diff(cl100k, tc.load("o200k_base"), ["Съешь же"])
    (d,) = report.differences
    assert d.stage == "model" and d.evidence["word"] == "Съешь"
    assert (
        "".join(d.evidence["a"]) == "".join(d.evidence["b"]) and d.evidence["a"] != d.evidence["b"]
    )
    assert set(d.differs) == {"ids", "tokens", "offsets"}


def test_the_same_tokens_numbered_differently_is_the_models_doing(cl100k):
    report = diff(cl100k, tc.load("o200k_base"), ["The quick brown fox"])
    (d,) = report.differences
    assert d.differs == ("ids",) and d.stage == "model"
    assert d.evidence["token"] == "The" and d.evidence["id_a"] != d.evidence["id_b"]


def test_bert_cased_and_uncased_part_at_the_normaliser():
    uncased = tc.load("bert-base-uncased")
    config = uncased.to_hf_json()
    cased = from_json({**config, "normalizer": {**config["normalizer"], "lowercase": False}})
    report = diff(uncased, cased, ["hello there", "Hello There", "ok World"])
    assert report.identical == 1 and report.by_stage == {"normaliser": 2}
    d = next(d for d in report.differences if d.text == "ok World")
    assert d.position == 3 and d.evidence["a"].startswith("ok w") and d.evidence["b"] == "ok World"


@pytest.mark.heavy
def test_a_bos_added_by_one_post_processor_is_the_post_processors_doing(cl100k_json):
    plain, bos = from_json(cl100k_json), from_json(with_bos(cl100k_json))
    report = diff(plain, bos, ["Hello world", "Hello world", "x"])
    assert report.identical == 0 and report.by_stage == {"post-processor": 3}
    d = report.differences[0]
    assert d.evidence["b"]["before"] == [ENDOFTEXT] and d.evidence["a"]["before"] == []
    assert d.token_a == d.token_b == 0 and d.position == 0
    assert [d.index for d in report.differences] == [2, 0, 1]  # the shorter text first


def test_first_difference_by_tokens_then_by_ids(cl100k):
    o200k = tc.load("o200k_base")
    assert first_difference(cl100k.encode("I don't"), o200k.encode("I don't")) == 1
    assert first_difference(cl100k.encode("The cat"), o200k.encode("The cat")) == 0
    assert first_difference(cl100k.encode("The cat"), cl100k.encode("The cat")) is None


@pytest.mark.heavy
@pytest.mark.skipif(not LLAMA3_JSON.is_file(), reason="shared/data/interop is absent")
def test_llama3_ranks_with_the_gpt2_pattern_part_at_the_pre_tokenizer():
    """Llama 3's pattern matches contractions in any case (`(?i:'s|'t|...|'m)`); GPT-2's only
    in lower case, so "I'M" is cut after the apostrophe. The tokenizer.json also puts
    <|begin_of_text|> first, which the ranks file does not: texts the patterns cut alike, or
    cut differently into the same tokens (" 12345"), part at the post-processor only."""
    hf = tc.load(str(LLAMA3_JSON))
    ranks = tc.load(
        str(LLAMA3_RANKS),
        pattern="gpt2",
        special_tokens={"<|begin_of_text|>": 128000, "<|end_of_text|>": 128001},
    )
    report = diff(hf, ranks, ["Hello world", "I'M here", "It costs 12345 dollars"])
    assert report.by_stage == {"pre-tokenizer split": 1, "post-processor": 2}
    d = report.differences[0]
    assert d.text == "I'M here" and d.position == 1
    assert d.evidence["a"]["text"] == "'M" and d.evidence["b"]["text"] == "'"
    assert "gpt2" in d.evidence["b_name"]
    assert [t[1] for t in d.window_a][:2] == ["<|begin_of_text|>", "I"]


def test_stress_texts_are_fixed_and_cover_the_hard_cases():
    texts = stress_texts()
    assert texts == stress_texts() and len(texts) == len(set(texts)) >= 80
    for needed in (
        "a\r\nb",
        "123456789012",
        "👨‍👩‍👧‍👦 family",
        "e\u0301 vs \u00e9",
        "<|endoftext|>",
        "a   b",
    ):
        assert needed in texts


def test_the_report_is_json_safe(cl100k):
    report = diff(cl100k, tc.load("o200k_base"), stress_texts())
    data = json.loads(json.dumps(report.to_dict()))
    assert data["texts"] == len(stress_texts()) and set(data["by_stage"]) <= set(STAGES)
    assert sum(data["by_stage"].values()) == len(data["differences"])


def test_a_text_that_is_not_a_string_is_refused(cl100k):
    with pytest.raises(ValueError, match="must be a str"):
        diff(cl100k, cl100k, ["ok", 3])


@pytest.mark.heavy
def test_the_untraced_shortcuts_agree_with_tracing(cl100k, cl100k_json):
    """Renumbered tokens and a post-processor's BOS are found without tracing; tracing the
    same texts finds the same stage, position and tokens."""
    pairs = [
        (cl100k, tc.load("o200k_base")),
        (from_json(cl100k_json), from_json(with_bos(cl100k_json))),
    ]
    for a, b in pairs:
        for d in diff(a, b, stress_texts()).differences:
            traced = diagnose(a, b, d.text, index=d.index)
            assert (traced.stage, traced.position, traced.window_a, traced.window_b) == (
                d.stage,
                d.position,
                d.window_a,
                d.window_b,
            ), d.text


def test_a_coarser_split_whose_tokens_respect_the_finer_one_is_no_pre_tokenizer_difference():
    """botchan's unigram model (sentencepiece: the whole text is one piece, a space written ▁
    by the normaliser) against the tokenizer.json written from it (Metaspace: a piece per
    word, a space written ▁ by the pre-tokenizer). They give the same tokens; only the lone
    "▁" token's offsets differ ((0, 0) against (0, 1)): the model's output, not the
    normaliser's or the split's."""
    sp = tc.load("botchan_en_unigram_1000")
    converted = from_json(sp.to_hf_json())
    report = diff(sp, converted, ["12 apples", "naïve café"])
    assert report.by_stage == {"model": 2}
    d = report.differences[0]
    assert d.differs == ("offsets",) and d.evidence["a"] == d.evidence["b"]
    assert d.evidence["offsets_a"][0] == [0, 0] and d.evidence["offsets_b"][0] == [0, 1]

"""The plain byte-level fast path (`byte_level_fast`) gives exactly the general pipeline's
encoding (which `trace` runs), and Hugging Face's, on tokenizer.json files of both shapes it
takes: Split(regex) + ByteLevel(use_regex=False) as Llama 3, and ByteLevel with its own regex
as GPT-2 / RoBERTa; with added tokens in the text."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tests.oracles import assert_fast_is_general_and_hf
from tokenizers_core.corpora import load_corpus
from tokenizers_core.pre_tokenizers import byte_level_fast

tokenizers = pytest.importorskip("tokenizers")

LLAMA3_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
LINES = load_corpus("botchan").splitlines()[:1500] + load_corpus("udhr/jpn").splitlines()[:60]


def _train(split_first: bool) -> tuple[tc.Tokenizer, object]:
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    hf = Tokenizer(models.BPE(ignore_merges=split_first))
    if split_first:
        hf.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(LLAMA3_SPLIT), "isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    else:
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = tokenizers.decoders.ByteLevel()
    hf.train_from_iterator(
        LINES,
        trainers.BpeTrainer(
            vocab_size=800,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            special_tokens=["<|start|>", "<|end|>"],
        ),
    )
    return tc.load(hf.to_str().encode("utf-8")), hf


@pytest.fixture(scope="module", params=[True, False], ids=["split+bytelevel", "bytelevel"])
def pair(request):
    return _train(request.param)


def test_the_fast_path_applies_to_these_shapes_only(pair):
    ours, _hf = pair
    assert byte_level_fast.pieces_of(ours.pre_tokenizer) is not None
    assert byte_level_fast.pieces_of(tc.load("bert-base-uncased").pre_tokenizer) is None


@settings(max_examples=120, deadline=None)
@given(st.text(max_size=50) | st.text(alphabet=" \n\tab1'é東<|>startend", max_size=40))
def test_fast_path_equals_the_general_path_and_hugging_face(pair, text):
    ours, hf = pair
    fast = ours.encode(text)
    general, _steps = ours.trace(text)
    want = hf.encode(text)
    assert fast.to_dict() == general.to_dict()
    assert (fast.ids, fast.tokens, [tuple(o) for o in fast.offsets]) == (
        want.ids,
        want.tokens,
        [tuple(o) for o in want.offsets],
    )


def test_real_text_and_added_tokens(pair):
    ours, hf = pair
    for text in LINES[1500:] + [json.dumps(LINES[:3]), "a<|start|>b <|end|>\n\n  東京"]:
        fast = ours.encode(text)
        assert fast.to_dict() == ours.trace(text)[0].to_dict()
        assert fast.ids == hf.encode(text).ids


@pytest.mark.parametrize("behavior", ["Removed", "MergedWithPrevious", "Contiguous"])
def test_other_split_behaviors_match_too(behavior):
    ours, hf = _train(True)
    config = json.loads(hf.to_str())
    config["pre_tokenizer"]["pretokenizers"][0]["behavior"] = behavior
    raw = json.dumps(config)
    ours, hf = tc.load(raw.encode("utf-8")), tokenizers.Tokenizer.from_str(raw)
    assert (byte_level_fast.pieces_of(ours.pre_tokenizer) is None) == (behavior == "Removed")
    for text in LINES[1500:1530] + ["  a  b\n\n東京 x's", ""]:
        fast = ours.encode(text)
        assert fast.to_dict() == ours.trace(text)[0].to_dict()
        want = hf.encode(text)
        assert (fast.ids, [tuple(o) for o in fast.offsets]) == (
            want.ids,
            [tuple(o) for o in want.offsets],
        )


# ---- a normaliser in front: Qwen3's NFC -------------------------------------------------------
# The fast path also takes a pipeline whose normaliser left the text as it was (Qwen's NFC on
# text already in NFC); a text NFC changes goes the general way. Both give Hugging Face's.
UDHR_LINES = load_corpus("udhr/all").splitlines()


@pytest.fixture(scope="module")
def qwen3():
    from tokenizers_core.formats.bundled_models import _read

    return tc.load("qwen3"), tokenizers.Tokenizer.from_str(
        _read("qwen3_tokenizer.json.gz").decode("utf-8")
    )


@pytest.mark.heavy
def test_qwen3_nfc_pipeline_on_real_multilingual_text(qwen3):
    ours, hf = qwen3
    assert ours.normalizer is not None
    for text in UDHR_LINES[::7] + ["e\u0301te\u0301 Å \u212b", "<|im_start|>user\ncafé<|im_end|>"]:
        assert_fast_is_general_and_hf(ours, hf, text)


@pytest.mark.heavy
@settings(max_examples=100, deadline=None)
@given(
    st.text(max_size=40) | st.text(alphabet="ae\u0301\u0308\u212b 東\n'<|im_start|>", max_size=30)
)
def test_qwen3_nfc_pipeline_on_any_text(qwen3, text):
    ours, hf = qwen3
    assert_fast_is_general_and_hf(ours, hf, text)

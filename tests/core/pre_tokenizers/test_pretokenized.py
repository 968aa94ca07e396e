"""Pre-tokenized input: `encode(words, is_pretokenized=True)` (and pairs,
and `encode_batch`) against Hugging Face `tokenizers` on the same tokenizer.json: each word goes
through the normaliser and the pre-tokenizer on its own, word ids are list indices, offsets are
characters of each word. BERT (WordPiece), GPT-2 style (ByteLevel with add_prefix_space), Llama 3
(Split + ByteLevel, a template post-processor) and a Unigram with Metaspace."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.corpora import corpus_names, load_corpus
from tokenizers_core.formats.hf_json import load_bytes
from tokenizers_core.implementations.bert import VOCAB_PATH

T = pytest.importorskip("tokenizers")
pytest.importorskip("numpy", reason="tokenizers reads pre-tokenized input through numpy")

from tests.shared_data import INTEROP

WORDS = [
    ["Hello", "world"],
    ["Hello", "world!", "naïve", "café"],
    ["", "a", ""],
    [],
    ["two words", " lead", "trail ", "  "],
    ["[MASK]", "x[SEP]y", "<|begin_of_text|>hi"],
    ["日本語", "🙂👍🏽", "Straße", "ﬁ"],
    ["don't", "I'll", "12345", "\t\n"],
    ["▁", "Ġ", "##ing"],
]


def view(e) -> dict:
    return {
        "ids": list(e.ids),
        "tokens": list(e.tokens),
        "offsets": [tuple(o) for o in e.offsets],
        "word_ids": list(e.word_ids),
        "type_ids": list(e.type_ids),
        "special_tokens_mask": list(e.special_tokens_mask),
        "attention_mask": list(e.attention_mask),
    }


def _bert():
    vocab = gzip.decompress(VOCAB_PATH.read_bytes()).decode("utf-8").splitlines()
    hf = T.Tokenizer(T.models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]"))
    hf.normalizer = T.normalizers.BertNormalizer(lowercase=True)
    hf.pre_tokenizer = T.pre_tokenizers.BertPreTokenizer()
    hf.add_special_tokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    hf.post_processor = T.processors.BertProcessing(("[SEP]", 102), ("[CLS]", 101))
    return hf.to_str()


def _gpt2():
    """r50k_base's BPE behind GPT-2's pre-tokenizer: ByteLevel with add_prefix_space."""
    config = tc.load("r50k_base").to_hf_json()
    config["pre_tokenizer"] = {
        "type": "ByteLevel",
        "add_prefix_space": True,
        "trim_offsets": True,
        "use_regex": True,
    }
    config["post_processor"] = {
        "type": "ByteLevel",
        "add_prefix_space": True,
        "trim_offsets": True,
        "use_regex": True,
    }
    return json.dumps(config)


def _llama3():
    path = INTEROP / "converted" / "llama3.tokenizer.json"
    if not path.is_file():
        pytest.skip(f"needs the shared interop files ({path})")
    return path.read_text(encoding="utf-8")


def _unigram(scheme):
    """The bundled sentencepiece Unigram as a tokenizer.json, Metaspace prepending as `scheme`."""
    config = tc.load("botchan_en_unigram_1000").to_hf_json()
    text = json.dumps(config)
    assert "Metaspace" in text
    for section in ("pre_tokenizer", "decoder"):
        stages = config[section].get(
            "pretokenizers", config[section].get("decoders", [config[section]])
        )
        for stage in stages:
            if stage.get("type") == "Metaspace":
                stage["prepend_scheme"] = scheme
    return json.dumps(config)


FILES = {
    "bert": _bert,
    "gpt2": _gpt2,
    "llama3": _llama3,
    "unigram-always": lambda: _unigram("always"),
    "unigram-first": lambda: _unigram("first"),
}


@pytest.fixture(scope="module", params=list(FILES))
def pair(request):
    text = FILES[request.param]()
    return load_bytes(text.encode("utf-8")), T.Tokenizer.from_str(text)


@pytest.mark.heavy
@pytest.mark.parametrize("words", WORDS)
def test_words_encode_as_hugging_face(pair, words):
    ours, hf = pair
    assert view(ours.encode(words, is_pretokenized=True)) == view(
        hf.encode(words, is_pretokenized=True)
    )
    assert view(ours.encode(words, is_pretokenized=True, add_special_tokens=False)) == view(
        hf.encode(words, is_pretokenized=True, add_special_tokens=False)
    )


@pytest.mark.heavy
def test_pairs_of_word_lists_encode_as_hugging_face(pair):
    ours, hf = pair
    for a, b in zip(WORDS, WORDS[1:] + WORDS[:1]):
        assert view(ours.encode(a, b, is_pretokenized=True)) == view(
            hf.encode(a, b, is_pretokenized=True)
        ), (a, b)


@pytest.mark.heavy
def test_batches_read_word_lists_and_pairs_as_hugging_face(pair):
    ours, hf = pair
    batch = [["Hello", "world"], ("two", "words"), (["a", "pair"], ["of", "lists"]), ("x", "y")]
    assert [view(e) for e in ours.encode_batch(batch, is_pretokenized=True)] == [
        view(e) for e in hf.encode_batch(batch, is_pretokenized=True)
    ]


def test_corpus_words_encode_as_hugging_face(pair):
    ours, hf = pair
    for name in corpus_names():
        words = load_corpus(name)[:600].split(" ")
        assert view(ours.encode(words, is_pretokenized=True)) == view(
            hf.encode(words, is_pretokenized=True)
        ), name


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.text(max_size=8), max_size=6))
def test_hypothesis_words(pair, words):
    ours, hf = pair
    assert view(ours.encode(words, is_pretokenized=True)) == view(
        hf.encode(words, is_pretokenized=True)
    )


@pytest.mark.parametrize("bad", ["Hello world", ["a", 3], [["a"]], None, b"ab"])
def test_the_wrong_kind_of_input_is_a_value_error(bad):
    tok = tc.load("bert-base-uncased")
    with pytest.raises(ValueError, match="list of words"):
        tok.encode(bad, is_pretokenized=True)
    with pytest.raises(ValueError, match="must be a string"):
        tok.encode(["a", "b"])


def test_tiktoken_encodings_take_words_too():
    """tiktoken has no pre-tokenized input: each word is encoded as its own text."""
    tok = tc.load("cl100k_base")
    enc = tok.encode(
        ["Hello", " world", "<|endoftext|>"], is_pretokenized=True, allowed_special="all"
    )
    assert enc.ids == [*tok.encode("Hello").ids, *tok.encode(" world").ids, 100257]
    assert enc.word_ids == [0, 1, 2] and enc.offsets == [(0, 5), (0, 6), (0, 13)]
    both = tok.encode(["a"], ["b", "c"], is_pretokenized=True)
    assert both.type_ids == [0, 1, 1] and both.word_ids == [0, 0, 1]
    with pytest.raises(ValueError, match="list of words"):
        tok.encode("a b", is_pretokenized=True)


def test_truncation_and_padding_apply_to_the_whole_word_list():
    hf = T.Tokenizer.from_str(_bert())
    hf.enable_truncation(7, stride=1)
    hf.enable_padding(length=9, pad_id=0, pad_token="[PAD]")
    ours = load_bytes(hf.to_str().encode("utf-8"))
    words, more = ["Tokenisation", "of", "pre-tokenized", "words"], ["and", "a", "pair", "too"]
    for args in ((words,), (words, more)):
        theirs = hf.encode(*args, is_pretokenized=True)
        mine = ours.encode(*args, is_pretokenized=True)
        assert view(mine) == view(theirs)
        assert [view(o) for o in mine.overflowing] == [view(o) for o in theirs.overflowing]
    batch = [words, (words, more), ["short"]]
    assert [view(e) for e in ours.encode_batch(batch, is_pretokenized=True)] == [
        view(e) for e in hf.encode_batch(batch, is_pretokenized=True)
    ]

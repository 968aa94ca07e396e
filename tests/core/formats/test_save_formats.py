"""Saving in the formats other libraries read, each checked by the library that owns the format:
sentencepiece loads our .model, tiktoken our ranks file, Hugging Face's BertWordPieceTokenizer our
vocab.txt; each gives the same pieces and ids as the tokeniser we saved, and so does
`tc.load(saved)`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus
from tokenizers_core.formats import dump_bytes, format_for_path, save
from tokenizers_core.formats.tiktoken_file import parse_ranks
from tokenizers_core.pre_tokenizers import PRESETS

TRAIN = load_corpus("botchan").splitlines()[:3000]
TEXTS = (
    load_corpus("botchan").splitlines()[3000:3400]
    + [load_corpus(f"udhr/{c}")[:2000] for c in ("fra", "jpn", "rus", "hin")]
    + ["  Hello  World ①ﬁ", "東京 👍", "naïve\tcafé\n"]
)


@pytest.fixture(scope="module")
def trained():
    return {a: tc.train(a, TRAIN, vocab_size=600) for a in tc.algorithms()}


@pytest.mark.heavy
@pytest.mark.parametrize(
    "which", ["unigram", "sentencepiece_bpe", "botchan_en_unigram_1000", "botchan_en_bpe_1000"]
)
def test_sentencepiece_loads_our_model_files(which, trained, tmp_path):
    spm = pytest.importorskip("sentencepiece")
    tok = trained.get(which) or tc.load(which)
    path = tmp_path / "out.model"
    assert save(tok, str(path)) == "sentencepiece"
    sp = spm.SentencePieceProcessor(model_file=str(path))
    again = tc.load(str(path))
    for text in TEXTS:
        enc = tok.encode(text)
        assert sp.encode(text, out_type=str) == enc.tokens, text
        assert sp.encode(text) == enc.ids == again.encode(text).ids, text


@pytest.mark.heavy
@pytest.mark.parametrize("which", ["byte_bpe", "r50k_base", "cl100k_base"])
def test_tiktoken_loads_our_ranks_files(which, trained):
    tiktoken = pytest.importorskip("tiktoken")
    tok = trained.get(which) or tc.load(which)
    data = dump_bytes(tok, "tiktoken")
    pattern = "gpt2" if which != "cl100k_base" else "cl100k"
    ref = tiktoken.Encoding(
        "saved", pat_str=PRESETS[pattern], mergeable_ranks=parse_ranks(data), special_tokens={}
    )
    again = tc.load(data, pattern=pattern)
    for text in TEXTS:
        ids = tok.encode(text).ids
        assert ref.encode_ordinary(text) == ids == again.encode(text).ids, text


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40))
def test_a_trained_byte_bpe_ranks_file_agrees_with_tiktoken_on_any_text(text):
    tiktoken = pytest.importorskip("tiktoken")
    tok = _byte_bpe()
    ref = _byte_bpe_ref(tiktoken)
    assert ref.encode_ordinary(text) == tok.encode(text).ids


_CACHE: dict = {}


def _byte_bpe():
    if "tok" not in _CACHE:
        _CACHE["tok"] = tc.train("byte_bpe", TRAIN, vocab_size=600)
    return _CACHE["tok"]


def _byte_bpe_ref(tiktoken):
    if "ref" not in _CACHE:
        _CACHE["ref"] = tiktoken.Encoding(
            "saved",
            pat_str=PRESETS["gpt2"],
            special_tokens={},
            mergeable_ranks=parse_ranks(dump_bytes(_byte_bpe(), "tiktoken")),
        )
    return _CACHE["ref"]


@pytest.mark.heavy
@pytest.mark.parametrize("which", ["wordpiece", "bert-base-uncased"])
def test_hugging_face_loads_our_vocab_txt(which, trained, tmp_path):
    from tokenizers import BertWordPieceTokenizer

    tok = trained.get(which) or tc.load(which)
    path = tmp_path / "vocab.txt"
    assert save(tok, str(path)) == "vocab_txt"
    ref = BertWordPieceTokenizer(str(path), lowercase=True)
    again = tc.load(str(path), lowercase=True)
    for text in TEXTS:
        ids = tok.encode(text).ids
        assert ref.encode(text).ids == ids == again.encode(text).ids, text


@pytest.mark.heavy
def test_a_format_without_an_exact_form_says_so(trained, tmp_path):
    with pytest.raises(ValueError, match="not byte-level BPE"):
        dump_bytes(trained["bpe"], "tiktoken")
    with pytest.raises(ValueError, match="not a sentencepiece model"):
        dump_bytes(tc.load("cl100k_base"), "sentencepiece")
    with pytest.raises(ValueError, match="not WordPiece"):
        dump_bytes(trained["unigram"], "vocab_txt")
    with pytest.raises(ValueError, match="cannot tell the format"):
        format_for_path("out.bin")
    with pytest.raises(ValueError, match="cannot write"):
        save(trained["wordpiece"], str(tmp_path / "no" / "such" / "dir" / "vocab.txt"))

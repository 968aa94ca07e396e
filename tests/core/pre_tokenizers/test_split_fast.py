"""The fast path of pipelines whose pre-tokenizer only cuts (`split_fast`: BERT's, Whitespace,
WhitespaceSplit) gives exactly the general pipeline's encoding (which `trace` runs) and Hugging
Face's, on real multilingual text and on any text; and BERT's one-pass `spans` cuts as the
textbook loop does, code point by code point."""

from __future__ import annotations

import gzip

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tests.oracles import assert_fast_is_general_and_hf
from tokenizers_core.corpora import load_corpus
from tokenizers_core.implementations.bert import VOCAB_PATH
from tokenizers_core.pre_tokenizers import BertPreTokenizer, ByteLevel, is_bert_punctuation
from tokenizers_core.pre_tokenizers.split_fast import spans_of

tokenizers = pytest.importorskip("tokenizers")

WHITE_SPACE = regex.compile(r"\s")
UDHR_LINES = load_corpus("udhr/all").splitlines()
ODD = [
    "",
    "  ",
    "Crème\x00 Brûlée\u200b",
    "ﬁne İstanbul ǅ",
    "東京タワー、！",
    "a\tb\r\nc",
    "[UNK]x",
]


def textbook_bert_spans(text: str) -> list[tuple[int, int]]:
    """BERT's pre-tokenisation as the textbook says it: split on whitespace, then cut before
    and after each punctuation character; the empty pieces dropped. Whitespace is Unicode's
    White_Space (Rust's `char::is_whitespace`, as Hugging Face), not `str.isspace`."""
    spans, start = [], None
    for i, c in enumerate(text + " "):
        if WHITE_SPACE.match(c) or is_bert_punctuation(c):
            if start is not None:
                spans.append((start, i))
            start = None
            if i < len(text) and is_bert_punctuation(c):
                spans.append((i, i + 1))
        elif start is None:
            start = i
    return spans


@pytest.mark.heavy
def test_bert_spans_equal_the_textbook_loop_on_every_code_point():
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    text = "".join(f"a{c}b {c}" for c in chars)
    assert BertPreTokenizer().spans(text) == textbook_bert_spans(text)


def test_only_pre_tokenizers_that_cut_take_the_fast_path():
    assert spans_of(tc.load("bert-base-uncased").pre_tokenizer) is not None
    assert spans_of(ByteLevel()) is None


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    path = tmp_path_factory.mktemp("bert") / "vocab.txt"
    path.write_bytes(gzip.decompress(open(VOCAB_PATH, "rb").read()))
    return tc.load("bert-base-uncased"), tokenizers.BertWordPieceTokenizer(str(path))


def test_bert_on_real_multilingual_text(bert):
    ours, hf = bert
    for text in UDHR_LINES[::5] + ODD:
        assert_fast_is_general_and_hf(ours, hf, text)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40) | st.text(alphabet="aA é\u0301東,.!\x00\u200b\t\nİﬁ[UNK]", max_size=30))
def test_bert_on_any_text(bert, text):
    assert_fast_is_general_and_hf(*bert, text)


@pytest.fixture(scope="module", params=["Whitespace", "WhitespaceSplit"])
def trained(request):
    """A WordLevel model of Hugging Face's, with a normaliser that moves characters (NFKC),
    behind a pre-tokenizer that only cuts."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    hf = Tokenizer(models.WordLevel(unk_token="<unk>"))
    hf.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    hf.pre_tokenizer = getattr(pre_tokenizers, request.param)()
    hf.train_from_iterator(
        UDHR_LINES[::3], trainers.WordLevelTrainer(vocab_size=3000, special_tokens=["<unk>"])
    )
    return tc.load(hf.to_str().encode("utf-8")), hf


def test_other_cutting_pre_tokenizers_on_real_text(trained):
    ours, hf = trained
    assert spans_of(ours.pre_tokenizer) is not None
    for text in UDHR_LINES[1::9] + ODD:
        assert_fast_is_general_and_hf(ours, hf, text)

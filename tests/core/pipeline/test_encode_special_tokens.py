"""`Tokenizer.encode(text, encode_special_tokens=True)`: special added tokens typed in the text
are ordinary text, as Hugging Face's `encode_special_tokens` (a test-only oracle); the other
added tokens still match, and the default is unchanged (specials matched)."""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc
from tokenizers_core.added_tokens import AddedToken
from tokenizers_core.models.wordpiece.model import WordPiece
from tokenizers_core.normalizers import Lowercase
from tokenizers_core.pipeline import Tokenizer
from tokenizers_core.pre_tokenizers import Whitespace

tokenizers = pytest.importorskip("tokenizers")

from tests.shared_data import INTEROP

LLAMA3_JSON = INTEROP / "converted" / "llama3.tokenizer.json"

VOCAB = {
    t: i
    for i, t in enumerate(
        [
            "[UNK]",
            "[CLS]",
            "[SEP]",
            "[MASK]",
            "<new>",
            "[",
            "]",
            "<",
            ">",
            "cls",
            "mask",
            "new",
            "hi",
            "##s",
            "c",
            "##l",
            "m",
            "##a",
            "##k",
            "n",
            "##e",
            "##w",
            "h",
            "##i",
        ]
    )
}
ADDED = [
    AddedToken("[CLS]", special=True, normalized=False),
    AddedToken("[MASK]", special=True, normalized=True, lstrip=True),
    AddedToken("<new>", special=False, normalized=True),
]
TEXTS = ["[CLS] hi [MASK] <new>", "hi [mask]<NEW>[CLS]", "[CLS][CLS] [MASK]", "no added here"]


def ours() -> Tokenizer:
    return Tokenizer(
        WordPiece(VOCAB), normalizer=Lowercase(), pre_tokenizer=Whitespace(), added_tokens=ADDED
    )


def theirs(encode_special_tokens: bool):
    tok = tokenizers.Tokenizer(tokenizers.models.WordPiece(VOCAB, unk_token="[UNK]"))
    tok.normalizer = tokenizers.normalizers.Lowercase()
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    for t in ADDED:
        added = tokenizers.AddedToken(
            t.content, special=t.special, normalized=t.normalized, lstrip=t.lstrip
        )
        (tok.add_special_tokens if t.special else tok.add_tokens)([added])
    tok.encode_special_tokens = encode_special_tokens
    return tok


def same(enc, ref) -> None:
    assert (enc.tokens, enc.ids, enc.offsets, enc.special_tokens_mask) == (
        ref.tokens,
        ref.ids,
        [tuple(o) for o in ref.offsets],
        ref.special_tokens_mask,
    )


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("plain", [False, True])
def test_matches_hugging_face_either_way(text, plain):
    same(ours().encode(text, encode_special_tokens=plain), theirs(plain).encode(text))


@pytest.mark.parametrize("text", TEXTS)
def test_the_default_matches_the_special_tokens_and_trace_agrees(text):
    tok = ours()
    assert tok.encode(text).tokens == tok.encode(text, encode_special_tokens=False).tokens
    enc, _ = tok.trace(text, encode_special_tokens=True)
    assert enc.tokens == tok.encode(text, encode_special_tokens=True).tokens


def test_non_special_added_tokens_still_match():
    enc = ours().encode("[CLS] <new>", encode_special_tokens=True)
    assert "<new>" in enc.tokens and "[CLS]" not in enc.tokens


def test_a_tokenizer_without_special_tokens_is_itself():
    tok = tc.load("botchan_en_unigram_1000")
    assert tok._matching(True) is tok


@pytest.mark.heavy
@pytest.mark.skipif(not LLAMA3_JSON.is_file(), reason="shared/data/interop is absent")
def test_llama3_special_texts_as_ordinary_text_match_hugging_face():
    ref = tokenizers.Tokenizer.from_file(str(LLAMA3_JSON))
    ref.encode_special_tokens = True
    tok = tc.load(str(LLAMA3_JSON))
    texts = json.loads((INTEROP / "special_texts.json").read_text())["llama3.tokenizer.json"]
    for text in texts:
        same(tok.encode(text, encode_special_tokens=True), ref.encode(text))
    assert tok.encode(texts[0]).tokens[:3] == [
        "<|begin_of_text|>",
        "<|begin_of_text|>",
        "<|start_header_id|>",
    ]

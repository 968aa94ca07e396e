"""The BERT pipeline and the bundled bert-base-uncased, against Hugging Face's
`BertWordPieceTokenizer(vocab, lowercase=True)` (a test-only oracle)."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tests import corpora
from tokenizers_core.corpora import load_corpus
from tokenizers_core.decoders import WordPiece as WordPieceDecoder
from tokenizers_core.encoding import Token
from tokenizers_core.implementations.bert import VOCAB_PATH, bert_pipeline, count_words
from tokenizers_core.models.wordpiece.model import WordPiece
from tokenizers_core.processors import BertProcessing, TemplateProcessing

tokenizers = pytest.importorskip("tokenizers")

SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


@pytest.fixture(scope="module")
def hf(tmp_path_factory):
    path = tmp_path_factory.mktemp("bert") / "vocab.txt"
    with gzip.open(VOCAB_PATH, "rb") as f:
        path.write_bytes(f.read())
    return tokenizers.BertWordPieceTokenizer(str(path), lowercase=True)


@pytest.fixture(scope="module")
def ours():
    return tc.load("bert-base-uncased")


def assert_same(ours_enc, hf_enc):
    assert ours_enc.tokens == hf_enc.tokens
    assert ours_enc.ids == hf_enc.ids
    assert ours_enc.offsets == [tuple(o) for o in hf_enc.offsets]
    assert ours_enc.type_ids == hf_enc.type_ids
    assert ours_enc.attention_mask == hf_enc.attention_mask
    assert ours_enc.special_tokens_mask == hf_enc.special_tokens_mask
    assert ours_enc.word_ids == hf_enc.word_ids


# ---- golden ---------------------------------------------------------------------------------
def test_hello_world(ours):
    """SOURCES.md's check: "Hello, world!" -> [101, 7592, 1010, 2088, 999, 102]."""
    enc = ours.encode("Hello, world!")
    assert enc.ids == [101, 7592, 1010, 2088, 999, 102]
    assert enc.tokens == ["[CLS]", "hello", ",", "world", "!", "[SEP]"]
    assert enc.offsets == [(0, 0), (0, 5), (5, 6), (7, 12), (12, 13), (0, 0)]
    assert enc.attention_mask == [1] * 6 and enc.special_tokens_mask == [1, 0, 0, 0, 0, 1]
    assert ours.decode(enc.ids, skip_special_tokens=True) == "hello, world!"
    assert ours.decode(enc.ids, skip_special_tokens=False) == "[CLS] hello, world! [SEP]"


def test_bundled_listing(ours):
    assert ours.name == "bert-base-uncased" and ours.algorithm == "wordpiece"
    assert ours.vocab_size == 30522 and ours.model.vocab["[UNK]"] == 100
    assert "bert-base-uncased" in tc.pretrained.bundled()
    info = ours.info()
    assert "BertNormalizer" in info["normalizer"] and "[CLS] $A [SEP]" in info["post_processor"]


# ---- differential: real text ----------------------------------------------------------------
@pytest.mark.heavy
@pytest.mark.parametrize("name", corpora.names(large=False))  # udhr/all as its seams
def test_identical_to_hugging_face(hf, ours, name):
    text = corpora.text(name)
    assert_same(ours.encode(text), hf.encode(text))


@pytest.mark.parametrize("name", ["udhr/eng", "udhr/cmn_hans", "udhr/hin", "udhr/arb"])
def test_decode_identical(hf, ours, name):
    """Decoding joins ## pieces and tidies spaces exactly as Hugging Face's decoder."""
    text = load_corpus(name)
    ids = ours.encode(text).ids
    assert ours.decode(ids, skip_special_tokens=True) == hf.decode(ids)
    assert ours.decode(ids, skip_special_tokens=False) == hf.decode(ids, skip_special_tokens=False)


def test_vie_tokens_identical(hf, ours):
    text = load_corpus("udhr/vie")
    ours_enc, hf_enc = ours.encode(text), hf.encode(text)
    assert ours_enc.tokens == hf_enc.tokens and ours_enc.ids == hf_enc.ids


def test_pairs_identical(hf, ours):
    first, second = load_corpus("udhr/fra")[:300], load_corpus("udhr/tha")[:300]
    assert_same(ours.encode(first, second), hf.encode(first, second))


def test_lines_identical(hf, ours):
    lines = load_corpus("botchan").splitlines()[:400]
    for ours_enc, hf_enc in zip((ours.encode(line) for line in lines), hf.encode_batch(lines)):
        assert_same(ours_enc, hf_enc)


# ---- differential: generated text -----------------------------------------------------------
# Assigned characters only (the Unicode tables of Python and of Rust can differ on new ones).
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cn", "Co")), max_size=60)
MIXED = st.lists(
    st.sampled_from(
        [
            "Hello",
            "WORLD",
            "naïve",
            "über",
            "café",
            "中文",
            "ไทย",
            "مرحبا",
            "नमस्ते",
            "don't",
            "...",
            " ",
            "\t",
            "\n",
            "unaffable",
            "x" * 101,
            "Ǆ",
            "ﬁ",
            "\u0301",
            "İ",
            "ß",
            "12,5%",
        ]
    ),
    max_size=12,
).map("".join)


# Text with special tokens typed in it, whole, in the wrong case, broken or nested.
WITH_SPECIALS = st.lists(
    st.one_of(
        st.sampled_from(
            SPECIALS + ("[cls]", "[Sep]", "[", "]", "MASK", "[MASK", "SEP]", " ", "\u0301")
        ),
        st.sampled_from(["Hello", "naïve", "中文", "don't", "x" * 101, "İ", "\t"]),
        TEXT.map(lambda t: t[:8]),
    ),
    max_size=10,
).map("".join)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.one_of(TEXT, MIXED, WITH_SPECIALS))
def test_hypothesis_identical(hf, ours, text):
    assert_same(ours.encode(text), hf.encode(text))
    assert_same(
        ours.encode(text, add_special_tokens=False), hf.encode(text, add_special_tokens=False)
    )


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.one_of(TEXT, MIXED, WITH_SPECIALS), st.one_of(TEXT, MIXED, WITH_SPECIALS))
def test_hypothesis_pairs_and_decode(hf, ours, a, b):
    ours_enc = ours.encode(a, b)
    assert_same(ours_enc, hf.encode(a, b))
    assert ours.decode(ours_enc.ids, skip_special_tokens=True) == hf.decode(ours_enc.ids)
    assert ours.decode(ours_enc.ids, skip_special_tokens=False) == hf.decode(
        ours_enc.ids, skip_special_tokens=False
    )


# ---- special tokens typed in the text (Hugging Face's added tokens) -------------------------
@pytest.mark.parametrize(
    "text, tokens, offsets, word_ids",
    [
        (
            "[CLS] hello [SEP]",
            ["[CLS]", "[CLS]", "hello", "[SEP]", "[SEP]"],
            [(0, 0), (0, 5), (6, 11), (12, 17), (0, 0)],
            [None, 0, 1, 2, None],
        ),
        (
            "a[MASK]b",
            ["[CLS]", "a", "[MASK]", "b", "[SEP]"],
            [(0, 0), (0, 1), (1, 7), (7, 8), (0, 0)],
            [None, 0, 1, 2, None],
        ),
        # Matched as typed, before lowercasing: "[cls]" is ordinary text.
        (
            "[cls]",
            ["[CLS]", "[", "cl", "##s", "]", "[SEP]"],
            [(0, 0), (0, 1), (1, 3), (3, 4), (4, 5), (0, 0)],
            [None, 0, 1, 1, 2, None],
        ),
        ("[UNK]", ["[CLS]", "[UNK]", "[SEP]"], [(0, 0), (0, 5), (0, 0)], [None, 0, None]),
        (
            "[[MASK]]",
            ["[CLS]", "[", "[MASK]", "]", "[SEP]"],
            [(0, 0), (0, 1), (1, 7), (7, 8), (0, 0)],
            [None, 0, 1, 2, None],
        ),
        # Each stretch between matches is normalised alone: the lone accent is stripped away.
        (
            "É[PAD]\u0301",
            ["[CLS]", "e", "[PAD]", "[SEP]"],
            [(0, 0), (0, 1), (1, 6), (0, 0)],
            [None, 0, 1, None],
        ),
    ],
)
def test_special_tokens_in_text(hf, ours, text, tokens, offsets, word_ids):
    enc = ours.encode(text)
    assert enc.tokens == tokens and enc.offsets == offsets and enc.word_ids == word_ids
    # Only the post-processor's tokens are marked special (as in Hugging Face).
    assert enc.special_tokens_mask == [1] + [0] * (len(tokens) - 2) + [1]
    assert_same(enc, hf.encode(text))


def test_special_tokens_in_pairs(hf, ours):
    enc = ours.encode("[CLS] a", "b [SEP] c")
    assert enc.tokens == ["[CLS]", "[CLS]", "a", "[SEP]", "b", "[SEP]", "c", "[SEP]"]
    assert enc.type_ids == [0, 0, 0, 0, 1, 1, 1, 1]
    assert enc.word_ids == [None, 0, 1, None, 0, 1, 2, None]
    assert enc.offsets[5] == (2, 7)
    assert_same(enc, hf.encode("[CLS] a", "b [SEP] c"))


def test_special_tokens_decode(hf, ours):
    ids = ours.encode("hi [MASK] there [UNK]").ids
    assert ids == [101, 7632, 103, 2045, 100, 102]
    assert ours.decode(ids, skip_special_tokens=True) == hf.decode(ids) == "hi there"
    assert (
        ours.decode(ids, skip_special_tokens=False)
        == hf.decode(ids, skip_special_tokens=False)
        == "[CLS] hi [MASK] there [UNK] [SEP]"
    )


def test_special_tokens_in_the_trace(ours):
    """The trace runs the same code: the matched token is a piece of the pre_tokenize step."""
    enc, trace = ours.trace("Go[MASK]!")
    normalize, pre_tokenize, model, post = list(trace)
    assert normalize.output == "go[MASK]!"
    assert pre_tokenize.pieces == (("go", 0, 2), ("[MASK]", 2, 8), ("!", 8, 9))
    assert model.tokens == (("go", 2175, 0, 2, 0), ("[MASK]", 103, 2, 8, 1), ("!", 999, 8, 9, 2))
    assert enc == ours.encode("Go[MASK]!")


def test_trained_model_matches_its_special_tokens():
    tok = tc.train(
        "wordpiece",
        ["hug pug pun bun hugs"] * 3,
        vocab_size=30,
        special_tokens=["<pad>", "[UNK]", "<mask>"],
    )
    enc = tok.encode("hug<mask>pug", add_special_tokens=False)
    assert enc.tokens[1] == "<mask>" and enc.offsets[1] == (3, 9)
    assert tok.decode(enc.ids, skip_special_tokens=True) == "hug pug"
    # Hugging Face's tokenizer after training holds the trainer's special tokens as special
    # added tokens: the same vocabulary and pipeline, with those added, gives the same result.
    hf_tok = tokenizers.Tokenizer(tokenizers.models.WordPiece(tok.model.vocab, unk_token="[UNK]"))
    hf_tok.normalizer = tokenizers.normalizers.BertNormalizer(lowercase=True)
    hf_tok.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    hf_tok.add_special_tokens(["<pad>", "[UNK]", "<mask>"])
    for text in ["hug<mask>pug", "<MASK> <pad><mask>[UNK]", "<pad", "hugs [UNK]s"]:
        assert_same(tok.encode(text), hf_tok.encode(text))


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.one_of(TEXT, MIXED))
def test_offsets_slice_the_original(ours, text):
    """Every token's offsets slice the original text; after normalising, that slice spells the
    token (without ##), unless the token is [UNK]."""
    enc = ours.encode(text, add_special_tokens=False)
    for token, (start, end) in zip(enc.tokens, enc.offsets):
        assert 0 <= start <= end <= len(text)
        if token != "[UNK]":
            normalized = ours.normalize(text[start:end]).normalized.replace(" ", "")
            assert token.removeprefix("##") in normalized


# ---- post-processor and decoder -------------------------------------------------------------
def test_bert_processing_pairs():
    proc = BertProcessing(sep=("[SEP]", 3), cls=("[CLS]", 2))
    a = [Token(10, "a", (0, 1), 0)]
    b = [Token(11, "b", (0, 1), 0), Token(12, "##c", (1, 2), 0)]
    tokens, type_ids = proc.process(a, b)
    assert [t.value for t in tokens] == ["[CLS]", "a", "[SEP]", "b", "##c", "[SEP]"]
    assert type_ids == [0, 0, 0, 1, 1, 1]
    assert [t.special for t in tokens] == [True, False, True, False, False, True]
    assert tokens[0].offsets == (0, 0) and tokens[0].word_id is None


def test_template_processing():
    proc = TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> </s> $B:1 </s>:1",
        special_tokens=[("<s>", 0), ("</s>", 2)],
    )
    tokens, type_ids = proc.process([Token(5, "x", (0, 1), 0)], [Token(6, "y", (0, 1), 0)])
    assert [t.value for t in tokens] == ["<s>", "x", "</s>", "</s>", "y", "</s>"]
    assert type_ids == [0, 0, 0, 0, 1, 1]
    with pytest.raises(ValueError, match="neither"):
        TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 1)])
    with pytest.raises(ValueError, match="no template for a pair"):
        TemplateProcessing(single="$A").process([], [])


def test_decoder_matches_hugging_face():
    tokens = [
        "hello",
        ",",
        "world",
        "##s",
        "!",
        "do",
        "not",
        "it",
        "'",
        "s",
        "a",
        ".",
        "?",
        "don",
        "'",
        "t",
        "n't",
        "'m",
        "x",
        "##",
        "##y",
        "'s",
        "'ve",
        "'re",
    ]
    ref = tokenizers.decoders.WordPiece()
    assert WordPieceDecoder().decode(tokens) == ref.decode(tokens)
    assert WordPieceDecoder(cleanup=False).decode(tokens) == tokenizers.decoders.WordPiece(
        cleanup=False
    ).decode(tokens)
    assert WordPieceDecoder().decode(["##a", "b"]) == "##a b"


def test_decode_rejects_unknown_id(ours):
    with pytest.raises(ValueError):
        ours.decode([10**9])


def test_trained_model_gets_the_pipeline():
    tok = tc.train("wordpiece", load_corpus("udhr/eng").splitlines(), vocab_size=400)
    enc = tok.encode("Everyone has the right", "to life")
    assert enc.tokens[0] == "[CLS]" and enc.type_ids[-1] == 1
    # The same text through Hugging Face's WordPiece model with OUR vocabulary: same tokens.
    hf_tok = tokenizers.Tokenizer(tokenizers.models.WordPiece(tok.model.vocab, unk_token="[UNK]"))
    hf_tok.normalizer = tokenizers.normalizers.BertNormalizer(lowercase=True)
    hf_tok.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    hf_tok.post_processor = tokenizers.processors.BertProcessing(
        ("[SEP]", tok.model.vocab["[SEP]"]), ("[CLS]", tok.model.vocab["[CLS]"])
    )
    text = load_corpus("udhr/deu_1996")[:2000]
    assert_same(tok.encode(text), hf_tok.encode(text))


def test_pipeline_without_cls_has_no_post_processor():
    model = WordPiece({"[UNK]": 0, "a": 1})
    tok = bert_pipeline(model)
    assert tok.post_processor is None
    assert tok.encode("a b").tokens == ["a", "[UNK]"]


def training_words(tok, lines):
    """The words a new tokenizer's training counts: each line normalised, then pre-tokenised.
    A tokenizer being trained has no added tokens yet (its trainer's special tokens join the
    vocabulary after the count), so a "[SEP]" typed in a line is three words, as Hugging
    Face's `train_from_iterator` counts it; `tok.pre_tokenize` would keep it whole."""
    words: dict[str, int] = {}
    for line in lines:
        normalized = tok.normalizer.normalize_str(line)
        for piece, _ in tok.pre_tokenizer.pre_tokenize_str(normalized):
            words[piece] = words.get(piece, 0) + 1
    return words


def test_count_words_matches_the_pipeline(ours):
    lines = load_corpus("udhr/vie").splitlines()[:20]
    assert count_words(lines) == training_words(ours, lines)
    assert count_words(["[SEP] x"]) == {"[": 1, "sep": 1, "]": 1, "x": 1}


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.one_of(TEXT, MIXED), max_size=4))
def test_count_words_fast_path(ours, lines):
    """count_words (ASCII fast path, chunk cache) sees exactly the pipeline's words."""
    assert count_words(lines) == training_words(ours, lines)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(TEXT, MIXED), max_size=4))
def test_count_words_cased(lines):
    cased = bert_pipeline(WordPiece({"[UNK]": 0}), lowercase=False)
    assert count_words(lines, lowercase=False) == training_words(cased, lines)


def test_load_a_vocab_file_by_path(tmp_path):
    import tokenizers_core as tc

    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\nplay\n##ing\n", encoding="utf-8")
    tok = tc.load(str(vocab))
    assert tok.encode("Playing").tokens == ["[CLS]", "play", "##ing", "[SEP]"]
    vocab.write_text("[PAD]\nplay\n", encoding="utf-8")
    import pytest

    with pytest.raises(ValueError, match=r"\[UNK\]"):
        tc.load(str(vocab))

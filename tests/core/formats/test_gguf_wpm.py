"""llama.cpp's WordPiece (`tokenizer.ggml.model` "bert") and the pre-tokenizer names added from
llama.cpp's `llama_vocab::impl::load`, with golden cases worked from llama.cpp's source.

The WPM cases run on a tiny GGUF written here (so they always run), in the converter's form: a
word-initial token has a leading "▁", a continuation has no "##". Each expected answer follows
`llm_tokenizer_wpm_session::preprocess` (src/llama-vocab.cpp) with the tables of src/unicode.cpp,
then `llm_tokenizer_wpm_session::tokenize`: "▁" + word, longest match, then longest matches of
the bare rest, the unknown token when a position has no match, and no limit on a word's length.
When llama.cpp's `ggml-vocab-bert-bge.gguf` is in the cache, a few cases run on it too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import tokenizers_core as tc
from tokenizers_core.formats import gguf_pre, gguf_writer
from tokenizers_core.formats.gguf_tokenizer import load_bytes
from tokenizers_core.formats.gguf_wpm import (
    WpmNormalizer,
    WpmPreTokenizer,
    first_of_nfd,
    is_own_word,
)
from tokenizers_core.formats.hf_json import from_dict
from tokenizers_core.implementations.bert import bert_base_uncased
from tokenizers_core.models.sentencepiece_common import CONTROL, NORMAL, UNKNOWN

# id -> token, as llama.cpp's converter writes a BERT vocabulary
TOKENS = [
    "[PAD]",  # 0
    "[UNK]",  # 1
    "[CLS]",  # 2
    "[SEP]",  # 3
    "[MASK]",  # 4
    "\u2581hello",  # 5
    "\u2581,",  # 6
    "\u2581\u1112",  # 7  ▁ᄒ (Hangul choseong hieuh)
    "\u1100",  # 8  ᄀ as a continuation (##ᄀ)
    "\u2581\u0915",  # 9  ▁क
    "\u2581a",  # 10
    "\u2581b",  # 11
    "\u2581xx",  # 12
    "xx",  # 13 (##xx)
    "\u2581cr",  # 14
    "eme",  # 15 (##eme)
    "\u2581中",  # 16
    "\u2581文",  # 17
    "\u2581!",  # 18
    "\u2581$",  # 19
    "\u2581€",  # 20
    "€",  # 21 (##€)
    "\u2581istanbul",  # 22
    "\u2581σσ",  # 23
    "\u2581world",  # 24
    "\u2581Cr",  # 25
    "\u00e8me",  # 26 (##ème)
]
TYPES = [CONTROL, UNKNOWN, CONTROL, CONTROL, CONTROL] + [NORMAL] * (len(TOKENS) - 5)


def _bert_gguf(**extra: object) -> tc.Tokenizer:
    kv = {
        "general.architecture": "bert",
        "tokenizer.ggml.model": "bert",
        "tokenizer.ggml.tokens": TOKENS,
        "tokenizer.ggml.token_type": TYPES,
        "tokenizer.ggml.bos_token_id": 2,
        "tokenizer.ggml.seperator_token_id": 3,
        "tokenizer.ggml.unknown_token_id": 1,
        "tokenizer.ggml.padding_token_id": 0,
        **extra,
    }
    return load_bytes(gguf_writer.encode_file(kv))


@pytest.fixture(scope="module")
def wpm() -> tc.Tokenizer:
    return _bert_gguf()


def _ids(tok: tc.Tokenizer, text: str) -> list[int]:
    return tok.encode(text, add_special_tokens=False).ids


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        # Hangul: unicode_cpts_normalize_nfd keeps the FIRST code point of each NFD, so
        # 한 (U+D55C) -> ᄒ (U+1112) and 국 (U+AD6D) -> ᄀ (U+1100); the vowels and the final
        # consonant are gone. The word "ᄒᄀ" is "▁ᄒ" + "ᄀ". (BERT keeps all six jamo.)
        ("한국", [7, 8]),
        # a spacing mark: ा (U+093E) is Mc, flagged as an accent mark, dropped with
        # strip_accents; "का" is "क" (BERT drops only Mn and keeps the vowel sign)
        ("का", [9]),
        # \x0b is in llama.cpp's White_Space table: it ends the word (BERT drops it as a
        # control character and reads "ab", one word)
        ("a\x0bb", [10, 11]),
        # no word-length limit: 150 x's are "▁xx" and 74 "xx" (BERT: [UNK] past 100)
        ("x" * 150, [12] + [13] * 74),
        # accented text: è's NFD starts with "e"; then lowercase: "creme" = "▁cr" + "eme"
        ("Crème", [14, 15]),
        # CJK ideographs (is_chinese_char) are words of their own
        ("中文", [16, 17]),
        # punctuation (P*) is a word of its own; an ASCII symbol ($) too, but € (Sc, above
        # 0x7F) joins the word it is in
        ("hello, world!", [5, 6, 24, 18]),
        ("a$", [10, 19]),
        ("a€", [10, 21]),
        # one code point to one: İ's NFD starts with "I" -> "i"; Σ -> σ even at a word's end
        # (no final sigma)
        ("İstanbul ΣΣ", [22, 23]),
        # NUL, U+FFFD and Cf (U+200D) are dropped; U+00A0 and U+3000 end words
        ("he\u200dllo\x00\ufffd\u00a0a\u3000b", [5, 10, 11]),
        # a position with no match: the whole word is the unknown token
        ("hellq", [1]),
    ],
)
def test_wpm_golden_cases(wpm: tc.Tokenizer, text: str, ids: list[int]) -> None:
    assert _ids(wpm, text) == ids


def test_wpm_adds_cls_and_sep_and_keeps_offsets(wpm: tc.Tokenizer) -> None:
    """With special tokens, llama.cpp's WPM puts the BOS ([CLS]) first and the separator
    ([SEP]) last; offsets are characters of the original text."""
    enc = wpm.encode("Crème, 中")
    assert enc.tokens == ["[CLS]", "cr", "##eme", ",", "中", "[SEP]"]
    assert enc.offsets[1:5] == [(0, 2), (2, 5), (5, 6), (7, 8)]
    assert wpm.gguf["add_bos_token"] is True and wpm.gguf["bos_token_id"] == 2


def test_wpm_reads_the_normalizer_keys() -> None:
    """`tokenizer.ggml.normalizer.lowercase` false: no lowercase, and strip_accents follows
    it, so no NFD either: "Crème" is "▁Cr" + "ème"."""
    tok = _bert_gguf(**{"tokenizer.ggml.normalizer.lowercase": False})
    assert _ids(tok, "Crème") == [25, 26]
    tok = _bert_gguf(
        **{
            "tokenizer.ggml.normalizer.lowercase": False,
            "tokenizer.ggml.normalizer.strip_accents": True,
        }
    )
    assert _ids(tok, "Crème") == [25, 15]  # "Creme": "▁Cr" + "eme"


def test_wpm_special_tokens_typed_in_the_text(wpm: tc.Tokenizer) -> None:
    """Control tokens are matched whole (llama.cpp's tokenizer_st_partition with
    parse_special), before the text is pre-processed."""
    assert _ids(wpm, "a[MASK]b") == [10, 4, 11]


def test_the_normaliser_and_pre_tokenizer_alone() -> None:
    assert WpmNormalizer().normalize_str("Ñandú\x0bका") == "nandu क"
    assert [p for p, _ in WpmPreTokenizer().pre_tokenize_str("a,b€c 中d")] == [
        "a",
        ",",
        "b€c",
        "中",
        "d",
    ]


@pytest.mark.heavy
def test_lowercase_never_changes_how_a_character_splits() -> None:
    """llama.cpp classifies the code point before lowercasing it; we lowercase in the
    normaliser and classify after. The two agree when lowercasing keeps a character's kind."""
    norm = WpmNormalizer()
    for cp in range(0x110000):
        c = chr(cp)
        if 0xD800 <= cp <= 0xDFFF:
            continue
        low = norm.char(c)
        if len(low) == 1 and low != " ":
            assert is_own_word(low) == is_own_word(first_of_nfd(c)), hex(cp)


def test_bert_as_gguf_differs_from_hugging_face_where_llama_cpp_does() -> None:
    """The bundled BERT written as a GGUF: the same tokens on plain text, llama.cpp's on the
    cases above."""
    tok = load_bytes(gguf_writer.dump_bytes(bert_base_uncased()))
    hf = bert_base_uncased()
    plain = "The quick brown fox, 3 times!"
    assert tok.encode(plain).ids == hf.encode(plain).ids
    long_word = "a" * 150
    assert hf.encode(long_word, add_special_tokens=False).tokens == ["[UNK]"]
    assert "[UNK]" not in tok.encode(long_word, add_special_tokens=False).tokens
    assert tok.encode("a\x0bb", add_special_tokens=False).tokens == ["a", "b"]
    assert hf.encode("a\x0bb", add_special_tokens=False).tokens == ["ab"]


# ---- the real bert-bge vocabulary, when llama.cpp's files are fetched -----------------------
BGE = Path.home() / ".cache" / "tokvis" / "llama-cpp-vocabs" / "0.3.36" / "ggml-vocab-bert-bge.gguf"


@pytest.mark.skipif(not BGE.is_file(), reason="llama.cpp's vocab files are not fetched")
@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("한국어", ["ᄒ", "##ᄀ", "##ᄋ"]),  # the leading consonants only
        ("का", ["क"]),  # the spacing vowel sign dropped
        ("a\x0bb", ["a", "b"]),  # vertical tab ends the word
        ("Crème brûlée", ["cr", "##eme", "br", "##ule", "##e"]),
        ("$5+3", ["$", "5", "+", "3"]),
    ],
)
def test_bert_bge_golden_cases(text: str, tokens: list[str]) -> None:
    tok = tc.load(str(BGE))
    assert tok.encode(text, add_special_tokens=False).tokens == tokens


@pytest.mark.skipif(not BGE.is_file(), reason="llama.cpp's vocab files are not fetched")
def test_bert_bge_long_word_is_not_unknown() -> None:
    tok = tc.load(str(BGE))
    tokens = tok.encode("x" * 150, add_special_tokens=False).tokens
    assert "[UNK]" not in tokens and "".join(t.removeprefix("##") for t in tokens) == "x" * 150


# ---- pre-tokenizer names ----------------------------------------------------------------------
NEW_NAMES = [
    "minicpm5",
    "jina-v5-nano",
    "spark2_5",
    "youtu",
    "modern-bert",
    "jais-2",
    "sarvam-moe",
    "whitespace",
    "glm5",
    "exaone-moe",
    "chameleon",
    "kanana2",
    "talkie",
    "granite-embed-multi-97m",
    "tiny_aya",
    "cohere2moe",
    "superbpe",
    "trillion",
    "granite-docling",
    "bailingmoe",
    "bailingmoe2",
    "llada-moe",
    "seed-coder",
    "hunyuan",
    "hunyuan-dense",
    "hy_v4",
    "joyai-llm",
    "kimi-k2",
    "ufakzeka",
    "grok-2",
    "afmoe",
    "laguna",
    "minimax-m2",
    "solar-open",
    "mellum2",
]


@pytest.mark.parametrize("name", NEW_NAMES)
def test_new_names_are_known(name: str) -> None:
    assert gguf_pre.lookup(name).known
    assert gguf_pre.warning(name) is None


@pytest.mark.parametrize(
    ("name", "ignore_merges", "add_bos"),
    [
        ("glm4", True, False),  # llama.cpp: glm4/glm5 set ignore_merges
        ("glm5", True, False),
        ("chatglm-bpe", False, False),
        ("youtu", True, False),
        ("minicpm5", True, False),
        ("granite-embed-multi-97m", True, False),
        ("jina-v5-nano", True, True),  # the Llama 3 group
        ("chameleon", False, True),
        ("tiny_aya", False, False),
    ],
)
def test_flags_as_llama_cpp_sets_them(name: str, ignore_merges: bool, add_bos: bool) -> None:
    spec = gguf_pre.lookup(name)
    assert (spec.ignore_merges, spec.add_bos) == (ignore_merges, add_bos)


def _split(name: str, text: str) -> list[str]:
    """`text` cut by the pre-tokenizer's regexes, each splitting the pieces of the one before."""
    splits = [
        {"type": "Split", "pattern": {"Regex": r}, "behavior": "Isolated", "invert": False}
        for r in gguf_pre.lookup(name).regexes
    ]
    pre = from_dict(
        {
            "model": {"type": "BPE", "vocab": {}, "merges": []},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": splits},
        }
    ).pre_tokenizer
    return [piece for piece, _ in pre.pre_tokenize_str(text)]


@pytest.mark.parametrize(
    ("name", "text", "pieces"),
    [
        # Youtu: Hangul runs first; then llama.cpp's collapsed \p{Lu}/\p{Ll} are any letter, so
        # "HelloWorld" is not cut at the capital; " I'm" keeps its space and contraction
        ("youtu", "HelloWorld 한국어 I'm", ["HelloWorld", " ", "한국어", " I'm"]),
        # Tiny Aya: digits in threes from the right; the first group's piece also takes
        # "abc", which the second regex splits off again
        ("tiny_aya", "abc1234567 x", ["abc", "1", "234", "567", " x"]),
        # AFMoE: the same digit rule, and a control character before the digits stays with
        # the first group (no later regex matches it)
        ("afmoe", "\x011234", ["\x011", "234"]),
        # Kimi K2: Han runs, other letters, numbers by three, then white space
        ("kimi-k2", "中文abc 123456", ["中文", "abc", " ", "123", "456"]),
        # SuperBPE: numbers, then an empty match before each group of three digits
        ("superbpe", "x1234567", ["x", "1", "234", "567"]),
        # Jais 2: white space cut in runs of 8 then 1 (the last space goes with " b")
        ("jais-2", "a" + " " * 10 + "b", ["a", " " * 8, " ", " b"]),
        # EXAONE MoE: letters joined by single spaces are one piece
        ("exaone-moe", "hello world 42", ["hello world", " ", "4", "2"]),
        # Seed-Coder: digits one by one, punctuation never takes a newline
        ("seed-coder", "x=12;\n", ["x", "=", "1", "2", ";", "\n"]),
        # grok-2 is Qwen 2's regex
        ("grok-2", "It's 2024", ["It", "'s", " ", "2", "0", "2", "4"]),
    ],
)
def test_golden_splits(name: str, text: str, pieces: list[str]) -> None:
    assert _split(name, text) == pieces


def _gpt2_gguf(pre: str, **extra: object) -> tc.Tokenizer:
    tokens = [chr(c) for c in range(ord("a"), ord("a") + 26)] + ["ab"]
    kv = {
        "general.architecture": "gpt2",
        "tokenizer.ggml.model": "gpt2",
        "tokenizer.ggml.pre": pre,
        "tokenizer.ggml.tokens": tokens,
        "tokenizer.ggml.merges": ["a b"],
        **extra,
    }
    return load_bytes(gguf_writer.encode_file(kv))


def test_chatglm_has_no_default_bos() -> None:
    """llama.cpp's BPE BOS defaults to id 11; chatglm-bpe, glm4 and glm5 set it to none, so
    only the file's bos_token_id gives them one."""
    llama = _gpt2_gguf("llama-bpe")
    assert llama.gguf["bos_token_id"] == 11
    assert llama.encode("ab").ids[0] == 11  # add_bos is on for the Llama 3 group
    for name in ("chatglm-bpe", "glm4", "glm5"):
        tok = _gpt2_gguf(name, **{"tokenizer.ggml.add_bos_token": True})
        assert tok.gguf["bos_token_id"] is None
        assert 11 not in tok.encode("ab").ids
    given = _gpt2_gguf("glm4", **{"tokenizer.ggml.bos_token_id": 3})
    assert given.gguf["bos_token_id"] == 3

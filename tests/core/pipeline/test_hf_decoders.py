"""The decoders of Hugging Face `tokenizer.json` files, against `tokenizers` 0.23.3 itself.

Each decoder and option is built here and in Hugging Face and both decode the same token lists:
tokens made from every UDHR text and botchan (byte-level pieces, Metaspace pieces, byte tokens,
WordPiece-style pieces) and Hypothesis lists of token-like strings. Configs are also loaded
from Hugging Face's own JSON.
"""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizers_core.corpora import corpus_names, load_corpus
from tokenizers_core.decoders import (
    CTC,
    BPEDecoder,
    ByteFallback,
    ByteLevel,
    Fuse,
    Metaspace,
    Replace,
    Sequence,
    Strip,
    WordPiece,
    from_hf_config,
)

tokenizers = pytest.importorskip("tokenizers")
hf = tokenizers.decoders

CASES = [
    ("ByteLevel", ByteLevel(), lambda: hf.ByteLevel()),
    ("Metaspace", Metaspace(), lambda: hf.Metaspace()),
    (
        "Metaspace(first)",
        Metaspace(prepend_scheme="first"),
        lambda: hf.Metaspace(prepend_scheme="first"),
    ),
    (
        "Metaspace(never, _)",
        Metaspace("_", "never"),
        lambda: hf.Metaspace(replacement="_", prepend_scheme="never"),
    ),
    ("WordPiece", WordPiece(), lambda: hf.WordPiece()),
    (
        "WordPiece(no cleanup, @@)",
        WordPiece("@@", cleanup=False),
        lambda: hf.WordPiece(prefix="@@", cleanup=False),
    ),
    ("BPEDecoder", BPEDecoder(), lambda: hf.BPEDecoder()),
    ("BPEDecoder(_)", BPEDecoder("_"), lambda: hf.BPEDecoder(suffix="_")),
    ("ByteFallback", ByteFallback(), lambda: hf.ByteFallback()),
    ("Fuse", Fuse(), lambda: hf.Fuse()),
    ("Strip", Strip(" ", 1, 0), lambda: hf.Strip(" ", 1, 0)),
    ("Strip(▁, 2, 1)", Strip("▁", 2, 1), lambda: hf.Strip("▁", 2, 1)),
    ("Replace", Replace("▁", " "), lambda: hf.Replace("▁", " ")),
    (
        "Replace(regex)",
        Replace(r"\s+|#", "_", is_regex=True),
        lambda: hf.Replace(tokenizers.Regex(r"\s+|#"), "_"),
    ),
    ("Replace(empty)", Replace("", "x"), lambda: hf.Replace("", "x")),
    ("CTC", CTC(), lambda: hf.CTC()),
    (
        "CTC(no cleanup)",
        CTC("[PAD]", "▁", cleanup=False),
        lambda: hf.CTC(pad_token="[PAD]", word_delimiter_token="▁", cleanup=False),
    ),
    (
        "Sequence(Llama 2)",
        Sequence([Replace("▁", " "), ByteFallback(), Fuse(), Strip(" ", 1, 0)]),
        lambda: hf.Sequence(
            [hf.Replace("▁", " "), hf.ByteFallback(), hf.Fuse(), hf.Strip(" ", 1, 0)]
        ),
    ),
    (
        "Sequence(Metaspace, ByteFallback)",
        Sequence([ByteFallback(), Metaspace()]),
        lambda: hf.Sequence([hf.ByteFallback(), hf.Metaspace()]),
    ),
    (
        "Sequence(Fuse, Strip)",
        Sequence([Fuse(), Strip("a", 3, 3)]),
        lambda: hf.Sequence([hf.Fuse(), hf.Strip("a", 3, 3)]),
    ),
]
IDS = [c[0] for c in CASES]


def token_lists(text):
    """Token lists of several shapes made from `text`."""
    byte_level = [p for p, _ in tokenizers.pre_tokenizers.ByteLevel().pre_tokenize_str(text)]
    meta = [p for p, _ in tokenizers.pre_tokenizers.Metaspace().pre_tokenize_str(text)]
    words = text.split()
    wordpiece = [w if i % 3 else "##" + w for i, w in enumerate(words)]
    data = text.encode("utf-8")
    fallback = [f"<0x{b:02X}>" if i % 5 else f"<0x{b:02x}>" for i, b in enumerate(data[:400])]
    mixed = [*meta[:20], *fallback[:7], *meta[20:40], f"<0x{data[0]:02X}>", "<0xFF>", "x"]
    return [byte_level, meta, words, wordpiece, fallback, mixed, [w + "</w>" for w in words]]


def assert_same(ours, theirs, tokens, where):
    """Same text; where Hugging Face panics (Strip with `stop` on a token shorter than what it
    strips indexes out of bounds in Rust), ours must still decode without an error."""
    try:
        want = theirs.decode(tokens)
    except BaseException as err:  # pyo3's PanicException
        if "Panic" not in type(err).__name__:
            raise
        ours.decode(tokens)
        return
    assert ours.decode(tokens) == want, where


@pytest.mark.heavy
@pytest.mark.parametrize("label,ours,make_hf", CASES, ids=IDS)
def test_same_as_hugging_face_on_corpora(label, ours, make_hf):
    theirs = make_hf()
    for name in corpus_names():
        for tokens in token_lists(load_corpus(name)[:600]):
            assert_same(ours, theirs, tokens, f"{label} on {name}")


TOKEN = st.one_of(
    st.text(st.sampled_from("ab ▁#<>x0|_ĠÃ©"), max_size=6),
    st.sampled_from(
        [
            "<0xE3>",
            "<0x81>",
            "<0x82>",
            "<0xff>",
            "<0x41>",
            "<0x+A>",
            "<0x-1>",
            "<0xé>",
            "<pad>",
            "|",
            "##",
            "</w>",
            "▁",
            " ",
            "  ",
            "ãģ",
            "Ġ",
        ]
    ),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=4),
)


@pytest.mark.parametrize("label,ours,make_hf", CASES, ids=IDS)
def test_same_as_hugging_face_on_hypothesis_tokens(label, ours, make_hf):
    theirs = make_hf()

    @settings(max_examples=40)
    @given(st.lists(TOKEN, min_size=1, max_size=10))
    def check(tokens):
        assert_same(ours, theirs, tokens, f"{label} on {tokens!r}")

    check()


def test_byte_fallback_reads_lower_case_hex():
    """Issue 11: `<0x8f>` is a byte token as well as `<0x8F>` (as Hugging Face reads it)."""
    assert (
        ByteFallback().decode(["<0xc3>", "<0xA9>"])
        == "é"
        == hf.ByteFallback().decode(["<0xc3>", "<0xA9>"])
    )
    assert ByteFallback().decode(["<0xc3>", "z"]) == "\ufffdz"


def test_byte_level_joins_bytes_across_tokens_and_specials():
    """Bytes split over tokens join; a token outside the alphabet adds its own bytes."""
    assert ByteLevel().decode(["ãģ", "Ĥ", "<|endoftext|>", "日"]) == "あ<|endoftext|>日"


def hf_config(hf_decoder):
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.decoder = hf_decoder
    return json.loads(tok.to_str())["decoder"]


@pytest.mark.parametrize("label,ours,make_hf", CASES, ids=IDS)
def test_hugging_face_json_loads(label, ours, make_hf):
    """Hugging Face's JSON builds the same decoder, with its options as attributes."""
    built = pickle.loads(pickle.dumps(from_hf_config(hf_config(make_hf()))))
    assert built == ours if not isinstance(ours, Sequence) else built.decoders == ours.decoders


def test_options_are_kept_as_attributes():
    strip = from_hf_config({"type": "Strip", "content": " ", "start": 1, "stop": 0})
    assert (strip.content, strip.start, strip.stop) == (" ", 1, 0)
    ctc = from_hf_config(
        {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": False}
    )
    assert (ctc.pad_token, ctc.word_delimiter_token, ctc.cleanup) == ("<pad>", "|", False)
    meta = from_hf_config(
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}
    )
    assert (meta.replacement, meta.prepend_scheme, meta.split) == ("▁", "first", False)
    replace = from_hf_config({"type": "Replace", "pattern": {"String": "▁"}, "content": " "})
    assert (replace.pattern, replace.is_regex, replace.content) == ("▁", False, " ")
    assert from_hf_config(None) is None


@pytest.mark.parametrize(
    "config,message",
    [
        ({"type": "Magic"}, "'Magic' is not supported"),
        ({"decoders": []}, '"type"'),
        ({"type": "Strip", "content": "ab", "start": 1, "stop": 0}, "one character"),
        ({"type": "Strip", "content": " ", "start": -1, "stop": 0}, "start"),
        ({"type": "Strip", "content": " ", "start": True, "stop": 0}, "start"),
        ({"type": "Replace", "pattern": {"Regex": "("}, "content": ""}, "Replace"),
        ({"type": "Replace", "pattern": {"String": "a"}}, "content"),
        ({"type": "Metaspace"}, "replacement"),
        ({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "often"}, "often"),
        ({"type": "WordPiece", "prefix": 3}, "prefix"),
        ({"type": "CTC", "cleanup": "no"}, "cleanup"),
        ({"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "Nope"}]}, "Nope"),
        ({"type": "Sequence"}, "decoders"),
    ],
)
def test_bad_configs_raise_value_error_naming_the_problem(config, message):
    with pytest.raises(ValueError, match=message):
        from_hf_config(config)


@pytest.mark.parametrize("label,ours,make_hf", CASES, ids=IDS)
def test_to_hf_config_writes_what_hugging_face_writes(label, ours, make_hf):
    """`to_hf_config()` is Hugging Face's own JSON for the same component, and reads back."""
    config = ours.to_hf_config()
    assert config == hf_config(make_hf())
    assert from_hf_config(json.loads(json.dumps(config))).to_hf_config() == config


def test_a_tokenizer_with_no_decoder_joins_tokens_with_spaces_as_hugging_face():
    """No decoder in a tokenizer.json: Hugging Face's decode joins the tokens with a space."""
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import models, pre_tokenizers

    ref = HFTokenizer(models.WordLevel({"the": 0, "cat": 1, "[UNK]": 2}, unk_token="[UNK]"))
    ref.pre_tokenizer = pre_tokenizers.Whitespace()
    from tokenizers_core.formats import hf_json

    ours = hf_json.from_dict(json.loads(ref.to_str()))
    ids = ref.encode("the cat sat").ids
    assert ours.encode("the cat sat").ids == ids
    assert ours.decode(ids) == ref.decode(ids) == "the cat [UNK]"


# ---- ids the vocabulary lacks ---------------------------------------------------------------
# A tokenizer.json converted from an OpenAI encoding keeps tiktoken's numbering: cl100k's ranks
# end at 100255 and its special tokens start at 100257, so 100256 (and 100261-100275) are no
# token. Hugging Face's decode drops such an id (`id_to_token` gives None, filtered out).
CL100K_GAP = [100256, 100261, 100275]


@pytest.fixture(scope="module")
def cl100k_json(tmp_path_factory):
    """cl100k as a tokenizer.json, written by our own save, with Hugging Face's reading of it."""
    from tokenizers import Tokenizer as HFTokenizer

    import tokenizers_core as tc

    path = tmp_path_factory.mktemp("cl100k") / "tokenizer.json"
    tc.load("cl100k_base").save(str(path))
    return tc.load(str(path)), HFTokenizer.from_file(str(path))


@pytest.mark.heavy
@pytest.mark.parametrize(
    "ids",
    [
        [9906, 100256, 1917],  # "Hello", the gap, " world"
        [100256],
        [9906, 100257, 100256, 100276, 1917],  # special tokens beside the gap
        [9906, *CL100K_GAP, 10**6, 2**32 - 1, 1917],
        [8582, 100256, 9468],  # a character cut across ids, the gap between its bytes
    ],
)
@pytest.mark.parametrize("skip", [False, True])
def test_an_id_the_vocabulary_lacks_is_dropped_as_hugging_face_drops_it(cl100k_json, ids, skip):
    ours, ref = cl100k_json
    assert ours.decode(ids, skip_special_tokens=skip) == ref.decode(ids, skip_special_tokens=skip)
    gone = [i for i in ids if i in CL100K_GAP or i >= 10**6]
    assert ours.unknown_ids(ids) == gone
    assert ours.drops_unknown_ids


@pytest.mark.heavy
@settings(max_examples=120, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 300), st.integers(100250, 100280)), max_size=12))
def test_any_ids_around_the_gap_decode_as_hugging_face(cl100k_json, ids):
    ours, ref = cl100k_json
    assert ours.decode(ids, skip_special_tokens=False) == ref.decode(ids, skip_special_tokens=False)


@pytest.mark.heavy
@pytest.mark.parametrize("bad", [-1, 2**32, "7", 1.0, True])
def test_what_is_no_id_at_all_is_still_refused(cl100k_json, bad):
    """Hugging Face refuses these too (OverflowError, TypeError): a ValueError here."""
    ours, _ = cl100k_json
    with pytest.raises(ValueError, match="is not in the vocabulary"):
        ours.decode([9906, bad])


def test_a_model_folder_drops_them_too(tmp_path, cl100k_json):
    """Its tokenizer_config.json adds tokens (a new Tokenizer): the rule goes with it."""
    import tokenizers_core as tc

    ours, ref = cl100k_json
    (tmp_path / "tokenizer.json").write_text(json.dumps(ours.to_hf_json()))
    (tmp_path / "tokenizer_config.json").write_text(
        json.dumps(
            {"added_tokens_decoder": {"100300": {"content": "<|im_start|>", "special": True}}}
        )
    )
    folder = tc.load(str(tmp_path))
    assert folder.decode([9906, 100256, 1917]) == ref.decode([9906, 100256, 1917]) == "Hello world"

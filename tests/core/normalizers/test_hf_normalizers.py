"""The normalisers of Hugging Face `tokenizer.json` files, against `tokenizers` 0.23.3 itself.

Each normaliser and option is built both here and in Hugging Face; on every UDHR text, botchan,
hand-picked hard strings and Hypothesis text we compare the normalised text and each normalised
character's span in the original (read through a tokenizer that isolates every character, as in
test_normalizers.py). Configs are taken from Hugging Face's own JSON (`Tokenizer.to_str()`).
"""

from __future__ import annotations

import base64
import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import corpora as bundled
from tokenizers_core.formats.sentencepiece_model import _bundled_proto
from tokenizers_core.normalized import NormalizedString
from tokenizers_core.normalizers import (
    NFC,
    NFD,
    NFKC,
    NFKD,
    BertNormalizer,
    Lowercase,
    Prepend,
    Replace,
    Sequence,
    Strip,
    StripAccents,
)
from tokenizers_core.normalizers.hf import ByteLevel, Nmt, Precompiled, from_hf_config

tokenizers = pytest.importorskip("tokenizers")
hf = tokenizers.normalizers

CHARSMAP = _bundled_proto("botchan_en_bpe_1000.model.gz").normalizer_spec["precompiled_charsmap"]

HARD = [
    "",
    " ",
    "a",
    "ﬁ\u0301ne",
    "e\u0301\u0323x",
    "Ａ１ｶﾞ①",
    "\u3000 a\tb\n\x01\x0b\ufeff",
    "\u200b\u200d\u2581 \ufffd\x7f\x8f\x9f\x00",
    "👍🏽 👨‍👩‍👧 🇫🇷",
    "कि\u093c\u0958",
    "한국어 각\u11a8",
    "İΣ ß",
    "a  b   c ",
    "\u0f73\u0f75",
    "Ⅻ㍿㌀",
    "\u00ad\u034f\u180e",
    "e\u0301\u0301\u0301\u0301\u0301",
    "ᄀ\u1161\u11a8\u1100",
    "\x01\x02ab\x03c",
    "\x01",
    "a\x01",
    "\x01ﬁ①\x02x",
    "¨a\x01½",
]  # deletions, longer

# (label, ours, Hugging Face's); each is checked on the corpora, HARD and Hypothesis text.
CASES = [
    ("NFC", NFC(), lambda: hf.NFC()),
    ("NFD", NFD(), lambda: hf.NFD()),
    ("NFKC", NFKC(), lambda: hf.NFKC()),
    ("NFKD", NFKD(), lambda: hf.NFKD()),
    ("Lowercase", Lowercase(), lambda: hf.Lowercase()),
    ("Strip", Strip(), lambda: hf.Strip()),
    ("Strip(left)", Strip(right=False), lambda: hf.Strip(left=True, right=False)),
    (
        "StripAccents",
        Sequence([NFD(), StripAccents()]),
        lambda: hf.Sequence([hf.NFD(), hf.StripAccents()]),
    ),
    ("Replace(string)", Replace("  ", "_-_"), lambda: hf.Replace("  ", "_-_")),
    ("Replace(string, delete)", Replace("a", ""), lambda: hf.Replace("a", "")),
    ("Replace(empty string)", Replace("", "_"), lambda: hf.Replace("", "_")),
    (
        "Replace(regex)",
        from_hf_config({"type": "Replace", "pattern": {"Regex": r" {2,}"}, "content": "▁"}),
        lambda: hf.Replace(tokenizers.Regex(r" {2,}"), "▁"),
    ),
    (
        "Replace(regex, empty matches)",
        from_hf_config({"type": "Replace", "pattern": {"Regex": r"\d*"}, "content": "#"}),
        lambda: hf.Replace(tokenizers.Regex(r"\d*"), "#"),
    ),
    (
        "Replace(regex, anchors)",
        from_hf_config({"type": "Replace", "pattern": {"Regex": r"^\s+|\s+$"}, "content": ""}),
        lambda: hf.Replace(tokenizers.Regex(r"^\s+|\s+$"), ""),
    ),
    ("Prepend", Prepend("▁"), lambda: hf.Prepend("▁")),
    ("Prepend(long)", Prepend("<s> "), lambda: hf.Prepend("<s> ")),
    ("Bert", BertNormalizer(), lambda: hf.BertNormalizer()),
    ("Bert(cased)", BertNormalizer(lowercase=False), lambda: hf.BertNormalizer(lowercase=False)),
    (
        "Bert(no clean, strip)",
        BertNormalizer(clean_text=False, strip_accents=True, lowercase=False),
        lambda: hf.BertNormalizer(clean_text=False, strip_accents=True, lowercase=False),
    ),
    ("Precompiled", Precompiled(CHARSMAP), lambda: hf.Precompiled(CHARSMAP)),
    ("Nmt", Nmt(), lambda: hf.Nmt()),
    ("ByteLevel", ByteLevel(), lambda: hf.ByteLevel()),
    (
        "T5-style",
        Sequence(
            [
                Precompiled(CHARSMAP),
                Replace(
                    from_hf_config(
                        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}
                    ).pattern,
                    " ",
                ),
            ]
        ),
        lambda: hf.Sequence([hf.Precompiled(CHARSMAP), hf.Replace(tokenizers.Regex(" {2,}"), " ")]),
    ),
    (
        "Llama2-style",
        Sequence([Prepend("▁"), Replace(" ", "▁")]),
        lambda: hf.Sequence([hf.Prepend("▁"), hf.Replace(" ", "▁")]),
    ),
    (
        "Nmt+NFKC+Lowercase",
        Sequence([Nmt(), NFKC(), Lowercase()]),
        lambda: hf.Sequence([hf.Nmt(), hf.NFKC(), hf.Lowercase()]),
    ),
]
IDS = [c[0] for c in CASES]


def hf_aligned(hf_normalizer, text):
    """Hugging Face's normalised text and each normalised character's span in `text`."""
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.normalizer = hf_normalizer
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Split(tokenizers.Regex(r"[\s\S]"), "isolated")
    out = hf_normalizer.normalize_str(text)
    offsets = tok.encode(text, add_special_tokens=False).offsets
    return out, offsets


def ours_aligned(normalizer, text):
    ns = normalizer.normalize(NormalizedString(text))
    return ns.normalized, ns.alignments


def assert_same(ours, theirs, text, where):
    got, want = ours_aligned(ours, text), hf_aligned(theirs, text)
    assert got[0] == want[0], f"{where}: normalised text differs"
    assert got[1] == want[1], f"{where}: alignments differ"


@pytest.fixture(scope="module")
def corpora():
    return bundled.texts(large=False)  # udhr/all as its seams (tests/corpora.py)


@pytest.mark.parametrize("label,ours,make_hf", CASES, ids=IDS)
def test_same_as_hugging_face_on_corpora_and_hard_text(corpora, label, ours, make_hf):
    theirs = make_hf()
    for name, text in corpora.items():
        assert_same(ours, theirs, text[:1500], f"{label} on {name}")
    for text in HARD:
        assert_same(ours, theirs, text, f"{label} on {text!r}")


TEXT = st.text(
    st.one_of(
        st.sampled_from("".join(HARD) + "  \t\n"),
        st.characters(codec="utf-8", exclude_categories=("Cs", "Cn")),
    ),
    max_size=24,
)


@pytest.mark.parametrize("label,ours,make_hf", CASES, ids=IDS)
def test_same_as_hugging_face_on_hypothesis_text(label, ours, make_hf):
    theirs = make_hf()

    @settings(max_examples=40)
    @given(TEXT)
    def check(text):
        assert_same(ours, theirs, text, f"{label} on {text!r}")

    check()


def test_precompiled_takes_the_shortest_rule_for_the_whole_grapheme():
    """Hugging Face's quirk: a grapheme shorter than 6 bytes is rewritten whole by the shortest
    rule matching its start ("ﬁ" + U+0301 -> "fi", the accent gone); a longer one character by
    character. Both as Hugging Face does."""
    ours, theirs = Precompiled(CHARSMAP), hf.Precompiled(CHARSMAP)
    for text in ["ﬁ\u0301", "ﬁ\u0301\u0301\u0301"]:
        assert ours.normalize_str(text) == theirs.normalize_str(text)
    assert ours.normalize_str("ﬁ\u0301") == "fi"


def hf_config(hf_normalizer):
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.normalizer = hf_normalizer
    return json.loads(tok.to_str())["normalizer"]


@pytest.mark.parametrize("label,ours,make_hf", CASES, ids=IDS)
def test_hugging_face_json_loads(label, ours, make_hf):
    """The config Hugging Face writes builds a normaliser that normalises the same way (and
    pickles)."""
    built = pickle.loads(pickle.dumps(from_hf_config(hf_config(make_hf()))))
    for text in HARD:
        assert ours_aligned(built, text) == ours_aligned(ours, text)


def test_precompiled_json_is_base64_and_kept():
    config = hf_config(hf.Precompiled(CHARSMAP))
    assert base64.b64decode(config["precompiled_charsmap"]) == CHARSMAP
    built = from_hf_config(config)
    assert built.precompiled_charsmap == CHARSMAP
    assert pickle.loads(pickle.dumps(built)).normalize_str("ﬁ①") == "fi1"


def test_config_values_are_kept_as_attributes():
    assert from_hf_config({"type": "Strip", "strip_left": False, "strip_right": True}) == Strip(
        left=False, right=True
    )
    bert = from_hf_config(
        {
            "type": "BertNormalizer",
            "clean_text": False,
            "handle_chinese_chars": True,
            "strip_accents": None,
            "lowercase": False,
        }
    )
    assert (bert.clean_text, bert.handle_chinese_chars, bert.strip_accents, bert.lowercase) == (
        False,
        True,
        None,
        False,
    )
    replace = from_hf_config({"type": "Replace", "pattern": {"Regex": "a+"}, "content": "b"})
    assert replace.pattern.pattern == "a+" and replace.content == "b"
    assert from_hf_config({"type": "Prepend", "prepend": "▁"}).prepend == "▁"
    assert from_hf_config(None) is None


@pytest.mark.parametrize(
    "config,message",
    [
        ({"type": "Unicode"}, "'Unicode' is not supported"),
        ({"kind": "NFC"}, '"type"'),
        ("NFC", '"type"'),
        ({"type": "Precompiled", "precompiled_charsmap": ""}, "Precompiled"),
        ({"type": "Precompiled", "precompiled_charsmap": "@@@"}, "base64"),
        (
            {
                "type": "Precompiled",
                "precompiled_charsmap": base64.b64encode(b"\x10\0\0\0abc").decode(),
            },
            "Precompiled",
        ),
        ({"type": "Precompiled"}, "precompiled_charsmap"),
        ({"type": "Replace", "pattern": {"Regex": "("}, "content": ""}, "Replace"),
        ({"type": "Replace", "pattern": {"Glob": "*"}, "content": ""}, "pattern"),
        ({"type": "Replace", "pattern": {"String": "a"}}, "content"),
        ({"type": "Prepend"}, "prepend"),
        ({"type": "Strip", "strip_left": "yes"}, "strip_left"),
        ({"type": "BertNormalizer", "lowercase": 1}, "lowercase"),
        ({"type": "Sequence", "normalizers": {"type": "NFC"}}, "Sequence"),
        ({"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Magic"}]}, "Magic"),
    ],
)
def test_bad_configs_raise_value_error_naming_the_problem(config, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        from_hf_config(config)


@pytest.mark.parametrize("label,ours,make_hf", CASES, ids=IDS)
def test_to_hf_config_writes_what_hugging_face_writes(label, ours, make_hf):
    """`to_hf_config()` is Hugging Face's own JSON for the same component, and reads back."""
    config = ours.to_hf_config()
    assert config == hf_config(make_hf())
    assert from_hf_config(json.loads(json.dumps(config))).to_hf_config() == config

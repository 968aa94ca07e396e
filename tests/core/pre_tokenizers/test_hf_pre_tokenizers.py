"""The pre-tokenizers of Hugging Face `tokenizer.json` files, against `tokenizers` 0.23.3 itself.

Each pre-tokenizer and option is built here and in Hugging Face; on every UDHR text, botchan,
hard strings and Hypothesis text the pieces and their offsets (`pre_tokenize_str`) must be
identical. The regex patterns of real models (GPT-2, Llama 3, Qwen 2, GPT-4o, DeepSeek V3) are
run through `Split`, so Oniguruma (Hugging Face) and the `regex` module (here) are compared on
them. Configs are also loaded from Hugging Face's own JSON.
"""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import corpora as bundled
from tokenizers_core.pre_tokenizers import (
    BertPreTokenizer,
    ByteLevel,
    Metaspace,
    Sequence,
    Whitespace,
    WhitespaceSplit,
)
from tokenizers_core.pre_tokenizers.hf import (
    BEHAVIORS,
    CharDelimiterSplit,
    Digits,
    FixedLength,
    Punctuation,
    Split,
    UnicodeScripts,
    from_hf_config,
    script_of,
)

tokenizers = pytest.importorskip("tokenizers")
hf = tokenizers.pre_tokenizers
Regex = tokenizers.Regex

LLAMA3 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
    r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
QWEN2 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
    r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
GPT4O = "|".join(
    [
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"\p{N}{1,3}",
        r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
        r"\s*[\r\n]+",
        r"\s+(?!\S)",
        r"\s+",
    ]
)
GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
DEEPSEEK = [
    r"\p{N}{1,3}",
    r"[一-龥\u3040-ゟ゠-ヿ]+",
    r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+|"
    r" ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
]


def split_pair(pattern, behavior, invert=False, is_regex=True):
    ours = Split(pattern, behavior, invert, is_regex=is_regex)
    return (
        ours,
        lambda: hf.Split(Regex(pattern) if is_regex else pattern, behavior, invert=invert),
    )


CASES = [
    ("ByteLevel", ByteLevel(add_prefix_space=True), lambda: hf.ByteLevel(add_prefix_space=True)),
    (
        "ByteLevel(no prefix)",
        ByteLevel(add_prefix_space=False),
        lambda: hf.ByteLevel(add_prefix_space=False),
    ),
    (
        "ByteLevel(no regex)",
        ByteLevel(add_prefix_space=False, use_regex=False),
        lambda: hf.ByteLevel(add_prefix_space=False, use_regex=False),
    ),
    (
        "ByteLevel(prefix, no regex)",
        ByteLevel(add_prefix_space=True, use_regex=False),
        lambda: hf.ByteLevel(add_prefix_space=True, use_regex=False),
    ),
    *[(f"Split(string, {b})", *split_pair(" ", b, is_regex=False)) for b in BEHAVIORS],
    *[
        (f"Split(string, {b}, invert)", *split_pair("ab", b, True, is_regex=False))
        for b in BEHAVIORS
    ],
    *[(f"Split(regex, {b})", *split_pair(r"\s+|[,.]", b)) for b in BEHAVIORS],
    *[(f"Split(regex, {b}, invert)", *split_pair(r"\w+", b, True)) for b in BEHAVIORS],
    ("Split(empty matches)", *split_pair(r"\d*", "isolated")),
    ("Split(empty string)", *split_pair("", "merged_with_previous", is_regex=False)),
    *[(f"Split(empty matches, {b})", *split_pair(r"\b|x*", b)) for b in BEHAVIORS],
    ("Split(empty matches, next)", *split_pair(r"(?=[A-Z])|\d*", "merged_with_next")),
    ("Split(anchors)", *split_pair(r"^\s*|\s*$", "removed")),
    ("Split(Ruby's m option)", *split_pair(r"(?im:a.b)|x.", "isolated")),
    ("Split(Oniguruma classes)", *split_pair(r"\w+|\W|\h+|[\w]", "isolated")),
    ("Split(counted repeat +)", *split_pair(r"\p{N}{1,3}+|[a-z]{2}+|(ab){1}+", "isolated")),
    (
        "Split(cl100k verbatim)",
        *split_pair(
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}+|"
            r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
            "isolated",
        ),
    ),
    ("Split(GPT-2)", *split_pair(GPT2, "isolated")),
    ("Split(Llama 3)", *split_pair(LLAMA3, "isolated")),
    ("Split(Qwen 2)", *split_pair(QWEN2, "isolated")),
    ("Split(GPT-4o)", *split_pair(GPT4O, "isolated")),
    ("Metaspace", Metaspace(), lambda: hf.Metaspace()),
    (
        "Metaspace(first)",
        Metaspace(prepend_scheme="first"),
        lambda: hf.Metaspace(prepend_scheme="first"),
    ),
    (
        "Metaspace(never)",
        Metaspace(prepend_scheme="never"),
        lambda: hf.Metaspace(prepend_scheme="never"),
    ),
    ("Metaspace(no split)", Metaspace(split=False), lambda: hf.Metaspace(split=False)),
    (
        "Metaspace(_)",
        Metaspace(replacement="_", prepend_scheme="first"),
        lambda: hf.Metaspace(replacement="_", prepend_scheme="first"),
    ),
    ("Whitespace", Whitespace(), lambda: hf.Whitespace()),
    ("WhitespaceSplit", WhitespaceSplit(), lambda: hf.WhitespaceSplit()),
    ("BertPreTokenizer", BertPreTokenizer(), lambda: hf.BertPreTokenizer()),
    *[(f"Punctuation({b})", Punctuation(b), lambda b=b: hf.Punctuation(b)) for b in BEHAVIORS],
    ("Digits", Digits(), lambda: hf.Digits()),
    (
        "Digits(individual)",
        Digits(individual_digits=True),
        lambda: hf.Digits(individual_digits=True),
    ),
    ("CharDelimiterSplit", CharDelimiterSplit(" "), lambda: hf.CharDelimiterSplit(" ")),
    ("CharDelimiterSplit(é)", CharDelimiterSplit("é"), lambda: hf.CharDelimiterSplit("é")),
    ("UnicodeScripts", UnicodeScripts(), lambda: hf.UnicodeScripts()),
    ("FixedLength", FixedLength(), lambda: hf.FixedLength()),
    ("FixedLength(1)", FixedLength(1), lambda: hf.FixedLength(1)),
    (
        "Sequence(Llama 3)",
        Sequence(
            [
                Split(LLAMA3, "isolated", is_regex=True),
                ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        ),
        lambda: hf.Sequence(
            [
                hf.Split(Regex(LLAMA3), "isolated"),
                hf.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        ),
    ),
    (
        "Sequence(DeepSeek)",
        Sequence(
            [
                *(Split(p, "isolated", is_regex=True) for p in DEEPSEEK),
                ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        ),
        lambda: hf.Sequence(
            [
                *(hf.Split(Regex(p), "isolated") for p in DEEPSEEK),
                hf.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        ),
    ),
    (
        "Sequence(Whitespace, Digits, Punctuation)",
        Sequence([WhitespaceSplit(), Digits(True), Punctuation("contiguous")]),
        lambda: hf.Sequence([hf.WhitespaceSplit(), hf.Digits(True), hf.Punctuation("contiguous")]),
    ),
    (
        "Sequence(Metaspace after Split)",
        Sequence([Split(r"\d+", "isolated", is_regex=True), Metaspace(prepend_scheme="first")]),
        lambda: hf.Sequence(
            [hf.Split(Regex(r"\d+"), "isolated"), hf.Metaspace(prepend_scheme="first")]
        ),
    ),
]
IDS = [c[0] for c in CASES]

HARD = [
    "",
    " ",
    "  ",
    "a",
    "a\nb A\nB x\n",
    "Hello world!",
    "I'm, you're 'S 'ſ 'K'LL 'Ｓ",
    "a\tb\n\nc  \n d ",
    "   leading and trailing   ",
    "x1234567y 12 3.14 ١٢٣ ½ Ⅻ 三",
    "ab  ab abab",
    "Hi,,, there... (ok)? «yes» — no!",
    "日本語とカタカナー、한국어 and English.",
    "👍🏽 👨‍👩‍👧 🇫🇷",
    "e\u0301 क्षि",
    "\r\n\r\n",
    "a\u00a0b\u3000c\u2028d",
    "▁a▁ ▁",
    "ProperCase camelCaseWords ALLCAPS",
    "é|é||",
    "Ⓐ ǅ ʰ",
    "¹x x²a ¾ a\u200db",  # word characters to Oniguruma's \b, not to regex's (Hypothesis)
]


@pytest.fixture(scope="module")
def corpora():
    return bundled.texts(large=False)  # udhr/all as its seams (tests/corpora.py)


def assert_same(ours, theirs, text, where):
    assert ours.pre_tokenize_str(text) == theirs.pre_tokenize_str(text), where


@pytest.mark.heavy
@pytest.mark.parametrize("label,ours,make_hf", CASES, ids=IDS)
def test_same_as_hugging_face_on_corpora_and_hard_text(corpora, label, ours, make_hf):
    theirs = make_hf()
    for name, text in corpora.items():
        assert_same(ours, theirs, text[:1500], f"{label} on {name}")
    for text in HARD:
        assert_same(ours, theirs, text, f"{label} on {text!r}")


TEXT = st.text(
    st.one_of(
        st.sampled_from("".join(HARD) + "  \t\n\r'sS"),
        st.characters(codec="utf-8", exclude_categories=("Cs", "Cn")),
    ),
    max_size=30,
)


@pytest.mark.parametrize("label,ours,make_hf", CASES, ids=IDS)
def test_same_as_hugging_face_on_hypothesis_text(label, ours, make_hf):
    theirs = make_hf()

    @settings(max_examples=30)
    @given(TEXT)
    def check(text):
        assert_same(ours, theirs, text, f"{label} on {text!r}")

    check()


def hf_config(hf_pre_tokenizer):
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.pre_tokenizer = hf_pre_tokenizer
    return json.loads(tok.to_str())["pre_tokenizer"]


@pytest.mark.parametrize("label,ours,make_hf", CASES, ids=IDS)
def test_hugging_face_json_loads(label, ours, make_hf):
    """The config Hugging Face writes builds a pre-tokenizer that splits the same way, and
    keeps the options as attributes; it pickles."""
    built = pickle.loads(pickle.dumps(from_hf_config(hf_config(make_hf()))))
    assert type(built) is type(ours)
    for text in HARD:
        assert built.pre_tokenize_str(text) == ours.pre_tokenize_str(text)


def test_options_are_kept_as_attributes():
    split = from_hf_config(
        {"type": "Split", "pattern": {"Regex": r"\d"}, "behavior": "MergedWithNext", "invert": True}
    )
    assert (split.pattern, split.is_regex, split.behavior, split.invert) == (
        r"\d",
        True,
        "merged_with_next",
        True,
    )
    meta = from_hf_config(
        {"type": "Metaspace", "replacement": "_", "prepend_scheme": "first", "split": False}
    )
    assert (meta.replacement, meta.prepend_scheme, meta.split_pieces) == ("_", "first", False)
    byte = from_hf_config(
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    )
    assert (byte.add_prefix_space, byte.trim_offsets, byte.use_regex) == (False, False, False)
    assert from_hf_config({"type": "Digits", "individual_digits": True}).individual_digits
    assert from_hf_config({"type": "Punctuation"}).behavior == "isolated"
    assert from_hf_config({"type": "CharDelimiterSplit", "delimiter": "|"}).delimiter == "|"
    assert from_hf_config(None) is None


def test_legacy_metaspace_add_prefix_space():
    """Old files say `add_prefix_space`; Hugging Face accepts it when it agrees with
    `prepend_scheme` (whose default is "always"), and so do we."""
    legacy = {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}
    assert from_hf_config(legacy).prepend_scheme == "always"
    never = {**legacy, "add_prefix_space": False, "prepend_scheme": "never"}
    assert from_hf_config(never).prepend_scheme == "never"
    for config in (legacy, never):
        theirs = tokenizers.Tokenizer.from_str(
            json.dumps(
                {
                    "version": "1.0",
                    "model": {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"},
                    "pre_tokenizer": config,
                }
            )
        )
        assert theirs.pre_tokenizer.pre_tokenize_str("a b") == from_hf_config(
            config
        ).pre_tokenize_str("a b")
    with pytest.raises(ValueError, match="add_prefix_space"):
        from_hf_config({**legacy, "add_prefix_space": False})


def test_scripts_follow_hugging_face():
    """Kana and the prolonged sound mark count as Han; digits and punctuation are Common."""
    assert [script_of(c) for c in "aカひーa1,"] == [
        "Latin",
        "Han",
        "Han",
        "Han",
        "Latin",
        "Common",
        "Common",
    ]


@pytest.mark.parametrize(
    "config,message",
    [
        ({"type": "Magic"}, "'Magic' is not supported"),
        ({"kind": "Whitespace"}, '"type"'),
        (
            {"type": "Split", "pattern": {"Regex": "("}, "behavior": "Isolated", "invert": False},
            "Split",
        ),
        (
            {"type": "Split", "pattern": {"String": " "}, "behavior": "sideways", "invert": False},
            "sideways",
        ),
        ({"type": "Split", "pattern": {"String": " "}, "invert": False}, "behavior"),
        ({"type": "Split", "pattern": " ", "behavior": "Isolated", "invert": False}, "pattern"),
        (
            {"type": "Split", "pattern": {"String": " "}, "behavior": "isolated", "invert": False},
            "'isolated'",
        ),
        ({"type": "Metaspace", "replacement": "ab"}, "one character"),
        ({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "sometimes"}, "sometimes"),
        (
            {
                "type": "Metaspace",
                "replacement": "▁",
                "add_prefix_space": False,
                "prepend_scheme": "always",
            },
            "add_prefix_space",
        ),
        ({"type": "Punctuation", "behavior": "Dropped"}, "Dropped"),
        ({"type": "Digits", "individual_digits": "yes"}, "individual_digits"),
        ({"type": "CharDelimiterSplit", "delimiter": ""}, "CharDelimiterSplit"),
        ({"type": "ByteLevel", "add_prefix_space": 1}, "add_prefix_space"),
        ({"type": "FixedLength", "length": 0}, "length"),
        ({"type": "Sequence", "pretokenizers": [{"type": "Nope"}]}, "Nope"),
    ],
)
def test_bad_configs_raise_value_error_naming_the_problem(config, message):
    with pytest.raises(ValueError, match=message):
        from_hf_config(config)


@pytest.mark.heavy
def test_scripts_of_every_character():
    """Every assigned code point (sampled in the big ideograph blocks), each between two
    letters of one script (Latin and Greek by turns): the pieces (so each character's script, or its being unknown to Hugging Face's
    Unicode 9 table) are the same."""
    import unicodedata

    # all of planes 0 and 1; the big uniform ideograph blocks above, sampled with their edges
    sampled = [
        *range(0x20000),
        *range(0x20000, 0x110000, 37),
        0x2A6D6,
        0x2A6D7,
        0x2A6DF,
        0x2B734,
        0x2B735,
        0x2B738,
        0x2CEAF,
        0x2CEB0,
        0x2EBE0,
        0x30000,
        0x3134A,
    ]
    chars = [chr(cp) for cp in sampled if unicodedata.category(chr(cp)) not in ("Cn", "Cs", "Co")]
    text = "".join(("a" if i % 2 else "α") + c for i, c in enumerate(chars)) + "a"
    assert UnicodeScripts().pre_tokenize_str(text) == hf.UnicodeScripts().pre_tokenize_str(text)


@pytest.mark.parametrize("label,ours,make_hf", CASES, ids=IDS)
def test_to_hf_config_writes_what_hugging_face_writes(label, ours, make_hf):
    """`to_hf_config()` is Hugging Face's own JSON for the same component, and reads back."""
    config = ours.to_hf_config()
    assert config == hf_config(make_hf())
    assert from_hf_config(json.loads(json.dumps(config))).to_hf_config() == config


@pytest.mark.parametrize("preset", ["gpt2", "cl100k", "o200k"])
def test_tiktoken_style_regex_writes_an_equivalent_split(corpora, preset):
    """Our tiktoken-style `Regex` pre-tokenizer is written as Hugging Face's inverted `Split`,
    which Hugging Face then runs (with Oniguruma) to the same pieces."""
    from tokenizers_core.pre_tokenizers import Regex as RegexPre

    ours = RegexPre(preset)
    theirs = tokenizers.Tokenizer.from_str(
        json.dumps(
            {
                "version": "1.0",
                "model": {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"},
                "pre_tokenizer": ours.to_hf_config(),
            }
        )
    ).pre_tokenizer
    for name, text in corpora.items():
        assert ours.pre_tokenize_str(text[:1500]) == theirs.pre_tokenize_str(text[:1500]), name


def test_components_without_a_json_form_say_so():
    from tokenizers_core.normalizers import Sequence as NormalizerSequence
    from tokenizers_core.normalizers.sentencepiece import SentencePieceNormalizer

    with pytest.raises(ValueError, match="SentencePieceNormalizer"):
        NormalizerSequence([SentencePieceNormalizer(None)]).to_hf_config()
    with pytest.raises(ValueError, match="object"):
        Sequence([object()]).to_hf_config()


@pytest.mark.parametrize(
    "pattern",
    [r"\w", r"\W", r"[\w]", r"[^\w\s]", r"\h", r"\H", r"[\h]", r"\s", r"\d", r"\p{L}", r"\p{P}"],
)
def test_regex_classes_match_oniguruma_on_every_character(pattern):
    """Each class, as `compile_hf` reads it, takes exactly the characters Oniguruma takes
    (every assigned character, each match replaced by a marker on both sides)."""
    import unicodedata

    from tokenizers_core.hf_regex import compile_hf

    text = "".join(
        chr(cp) for cp in range(0x110000) if unicodedata.category(chr(cp)) not in ("Cn", "Cs")
    )
    theirs = tokenizers.normalizers.Replace(Regex(pattern), "\x00").normalize_str(text)
    assert compile_hf(pattern).sub("\x00", text) == theirs

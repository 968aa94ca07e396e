"""Normalisers: golden cases, Hugging Face `tokenizers` as the oracle, and properties.

The oracle runs on real text (every UDHR language and botchan, from tokenizers_core.corpora) and
on a hand-picked set of hard characters. We compare the normalised text, and the alignment of
every normalised character to the original: Hugging Face does not expose alignments directly, so
we read them through a `Tokenizer` whose pre-tokeniser isolates every character and whose
WordLevel model maps each one to [UNK]; `Encoding.offsets` is then, character by character, the
original span of each normalised character.

Alignments are identical to Hugging Face's, including its choices: composing "e" + U+0301 into
"é" maps it to the "e" alone, a replacement maps to the last matched character, and NFD assigns
sources through the reordering of marks as its alignment crate does. One string of every
assigned character also goes through BERT's cleaning and CJK spacing, both accent strippers and
lowercase, against Hugging Face (which pins the character tables its older Unicode data imply).
"""

from __future__ import annotations

import json
import random
import unicodedata

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import corpora as bundled
from tokenizers_core.normalized import NormalizedString
from tokenizers_core.normalizers import (
    NFC,
    NFD,
    NFKC,
    NFKD,
    WHITESPACE,
    BertNormalizer,
    Lowercase,
    Prepend,
    Replace,
    Sequence,
    Strip,
    StripAccents,
)
from tokenizers_core.normalizers.hf import from_hf_config

tokenizers = pytest.importorskip("tokenizers")
hf = tokenizers.normalizers


def norm(normalizer, text):
    ns = normalizer.normalize(NormalizedString(text))
    return ns.normalized, ns.alignments


# ---- golden cases ------------------------------------------------------------------------------
GOLDEN = [
    # (normalizer, input, expected output, expected alignment of each output character)
    (NFKC(), "ﬁ", "fi", [(0, 1), (0, 1)]),  # ligature: both from it
    (NFKC(), "ﬃx", "ffix", [(0, 1)] * 3 + [(1, 2)]),
    (NFKC(), "①", "1", [(0, 1)]),
    (NFKC(), "１２３ＡＢ", "123AB", [(i, i + 1) for i in range(5)]),  # full-width: one for one
    (NFKD(), "ǆ", "dz\u030c", [(0, 1)] * 3),
    (NFD(), "é", "e\u0301", [(0, 1), (0, 1)]),
    (NFD(), "café", "cafe\u0301", [(0, 1), (1, 2), (2, 3), (3, 4), (3, 4)]),
    (NFC(), "e\u0301", "é", [(0, 1)]),  # composed: from the "e" (HF)
    (NFC(), "cafe\u0301!", "café!", [(0, 1), (1, 2), (2, 3), (3, 4), (5, 6)]),
    (NFC(), "café", "café", [(0, 1), (1, 2), (2, 3), (3, 4)]),  # already NFC
    (NFC(), "\u1100\u1161\u11a8", "각", [(0, 1)]),  # Hangul jamo compose
    (NFC(), "가\u11a8", "각", [(0, 1)]),  # LV + T
    (NFC(), "\u1100\u1100", "\u1100\u1100", [(0, 1), (1, 2)]),  # L + L: nothing to do
    (NFD(), "각", "\u1100\u1161\u11a8", [(0, 1)] * 3),
    (NFC(), "\u0b47\u0b3e", "\u0b4b", [(0, 1)]),  # two starters compose (Oriya)
    (NFC(), "Å", "Å", [(0, 1)]),  # Angstrom sign -> Å
    # canonical reordering: the dot below (class 220) moves before the circumflex (230); each
    # character's source follows Hugging Face's alignment crate
    (NFD(), "ê\u0323", "e\u0323\u0302", [(0, 1), (1, 2), (1, 2)]),
    (NFC(), "ê\u0323", "ệ", [(0, 1)]),
    (NFC(), "e\u0301\u0323", "ẹ\u0301", [(0, 1), (2, 3)]),  # HF: sources taken in order
    (Lowercase(), "İ", "i\u0307", [(0, 1), (0, 1)]),  # Turkish dotted capital I
    (
        Lowercase(),
        "İSTANBUL",
        "i\u0307stanbul",
        [(0, 1), (0, 1)] + [(i, i + 1) for i in range(1, 8)],
    ),
    (Lowercase(), "ΟΔΟΣ", "οδοσ", [(i, i + 1) for i in range(4)]),  # no final sigma (as HF)
    (StripAccents(), "e\u0301a", "ea", [(0, 1), (2, 3)]),
    (StripAccents(), "का", "क", [(0, 1)]),  # HF drops spacing marks too
    (Strip(), " \t a b\u3000\n", "a b", [(3, 4), (4, 5), (5, 6)]),
    (Strip(left=False), "  ab  ", "  ab", [(0, 1), (1, 2), (2, 3), (3, 4)]),
    (Strip(), "\x1cab\x1c", "\x1cab\x1c", [(0, 1), (1, 2), (2, 3), (3, 4)]),  # not White_Space
    (Strip(), "   ", "", []),
    (Replace("''", '"'), "a ''b''", 'a "b"', [(0, 1), (1, 2), (3, 4), (4, 5), (6, 7)]),
    (Replace("a", "xyz"), "bab", "bxyzb", [(0, 1), (1, 2), (1, 2), (1, 2), (2, 3)]),
    (Replace("ab", "xy"), "cab", "cxy", [(0, 1), (2, 3), (2, 3)]),  # from the last matched
    (Replace(" ", ""), "a b", "ab", [(0, 1), (2, 3)]),
    (Replace("", "x"), "ab", "xaxbx", [(0, 0), (0, 1), (0, 1), (1, 2), (1, 2)]),  # as HF
    (Replace(".", "!"), "a.b", "a!b", [(0, 1), (1, 2), (2, 3)]),  # a string is literal
    (Replace(regex.compile(r"\s+"), " "), "a \n\tb", "a b", [(0, 1), (3, 4), (4, 5)]),
    (Prepend("▁"), "hi", "▁hi", [(0, 1), (0, 1), (1, 2)]),
    (Prepend("▁"), "", "", []),
    (BertNormalizer(), "a中b", "a 中 b", [(0, 1), (1, 2), (1, 2), (1, 2), (2, 3)]),
    (
        BertNormalizer(),
        "A\x00B\u200bC\x7fD\ufffdE\tF\xa0G",
        "abcde f g",
        [(0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (9, 10), (10, 11), (11, 12), (12, 13)],
    ),
    (BertNormalizer(), "Crème", "creme", [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
    (BertNormalizer(lowercase=False), "Crème", "Crème", [(i, i + 1) for i in range(5)]),
    (
        BertNormalizer(lowercase=False, strip_accents=True),
        "Crème",
        "Creme",
        [(i, i + 1) for i in range(5)],
    ),
    (BertNormalizer(), "का", "का", [(0, 1), (1, 2)]),  # BERT drops only Mn
    (
        Sequence([NFD(), StripAccents(), Lowercase()]),
        "Ünïcödé",
        "unicode",
        [(i, i + 1) for i in range(7)],
    ),
    (Sequence([]), "abc", "abc", [(0, 1), (1, 2), (2, 3)]),
]


@pytest.mark.parametrize(
    "normalizer,text,expected,alignments",
    GOLDEN,
    ids=[f"{g[0].describe()}:{g[1]!r}" for g in GOLDEN],
)
def test_golden(normalizer, text, expected, alignments):
    out, align = norm(normalizer, text)
    assert out == expected
    assert align == alignments
    assert normalizer.normalize_str(text) == expected


def test_offsets_survive_into_spans():
    """A token over normalised characters maps back to the original text through the spans."""
    text = "ﬁne ①, İstanbul cafe\u0301"
    ns = Sequence([NFKC(), Lowercase()]).normalize(NormalizedString(text))
    assert ns.normalized == "fine 1, i\u0307stanbul café"
    word = ns.normalized.index("café")
    start, end = ns.span(word, word + 4)
    assert text[start:end] == "cafe"  # HF: a composed "é" comes from the "e"
    start, end = ns.span(0, 2)  # "fi": the ligature
    assert text[start:end] == "ﬁ"


def test_fast_paths_return_the_input():
    for normalizer in (
        NFC(),
        NFD(),
        NFKC(),
        NFKD(),
        Lowercase(),
        StripAccents(),
        Strip(),
        BertNormalizer(lowercase=False, clean_text=False),
    ):
        ns = NormalizedString("plain ascii text")
        assert normalizer.normalize(ns) is ns
    ns = NormalizedString("déjà vu, 日本語")
    assert NFC().normalize(ns) is ns and NFKC().normalize(ns) is ns


def test_describe():
    assert NFKC().describe() == "NFKC"
    assert BertNormalizer().describe() == (
        "BertNormalizer(clean_text, handle_chinese_chars, strip_accents, lowercase)"
    )
    assert (
        BertNormalizer(clean_text=False, handle_chinese_chars=False, lowercase=False).describe()
        == "BertNormalizer()"
    )
    assert (
        BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=False).describe()
        == "BertNormalizer(lowercase)"
    )
    assert Sequence([NFD(), StripAccents(), Lowercase()]).describe() == (
        "Sequence[NFD, StripAccents, Lowercase]"
    )
    assert Strip().describe() == "Strip" and Strip(right=False).describe() == "Strip(left)"
    assert Replace(" ", "▁").describe() == "Replace(' ' -> '▁')"
    assert Replace(regex.compile(r"\s+"), " ").describe() == r"Replace(/\s+/ -> ' ')"


@pytest.mark.parametrize(
    "make",
    [
        lambda: Replace(3, "x"),
        lambda: Replace("a", None),
        lambda: Strip(left="yes"),
        lambda: BertNormalizer(strip_accents="yes"),
        lambda: BertNormalizer(lowercase=1),
        lambda: Sequence([NFC(), "NFD"]),
        lambda: Sequence("NFC"),
        lambda: Prepend(None),
    ],
)
def test_bad_arguments_raise_value_error(make):
    with pytest.raises(ValueError):
        make()


def test_normalize_wants_a_normalized_string():
    with pytest.raises(ValueError, match="normalize_str"):
        NFC().normalize("text")
    with pytest.raises(ValueError):
        NFC().normalize_str(b"bytes")


def test_only_dotted_capital_i_lowercases_to_several_characters():
    """Lowercase relies on this: everything but U+0130 lowercases one for one."""
    assert [c for c in map(chr, range(0x110000)) if len(c.lower()) != 1] == ["\u0130"]


def test_whitespace_is_unicode_white_space():
    """Strip and BERT use Unicode White_Space (Rust's is_whitespace): str.isspace() minus the
    four information separators U+001C..U+001F."""
    pyspace = {c for c in map(chr, range(0x110000)) if c.isspace()}
    assert WHITESPACE == pyspace - set("\x1c\x1d\x1e\x1f")


# ---- Hugging Face as the oracle -----------------------------------------------------------
def hf_aligned(hf_normalizer, text):
    """Hugging Face's normalised text and each normalised character's span in `text`."""
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.normalizer = hf_normalizer
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Split(tokenizers.Regex(r"[\s\S]"), "isolated")
    out = hf_normalizer.normalize_str(text)
    offsets = tok.encode(text, add_special_tokens=False).offsets
    assert len(offsets) == len(out)
    return out, offsets


# (label, ours, Hugging Face's, identical alignments?) Where not identical, ours contain theirs.
PAIRS = [
    ("NFC", NFC(), lambda: hf.NFC(), True),
    ("NFD", NFD(), lambda: hf.NFD(), True),
    ("NFKC", NFKC(), lambda: hf.NFKC(), True),
    ("NFKD", NFKD(), lambda: hf.NFKD(), True),
    ("Lowercase", Lowercase(), lambda: hf.Lowercase(), True),
    (
        "NFD+StripAccents",
        Sequence([NFD(), StripAccents()]),
        lambda: hf.Sequence([hf.NFD(), hf.StripAccents()]),
        True,
    ),
    ("StripAccents", StripAccents(), lambda: hf.StripAccents(), True),
    ("Strip", Strip(), lambda: hf.Strip(), True),
    ("Strip(right)", Strip(left=False), lambda: hf.Strip(left=False, right=True), True),
    ("Bert", BertNormalizer(), lambda: hf.BertNormalizer(), True),
    (
        "Bert(cased)",
        BertNormalizer(lowercase=False),
        lambda: hf.BertNormalizer(lowercase=False),
        True,
    ),
    (
        "Bert(cased, strip)",
        BertNormalizer(lowercase=False, strip_accents=True),
        lambda: hf.BertNormalizer(lowercase=False, strip_accents=True),
        True,
    ),
    (
        "Bert(raw)",
        BertNormalizer(clean_text=False, handle_chinese_chars=False),
        lambda: hf.BertNormalizer(clean_text=False, handle_chinese_chars=False),
        True,
    ),
    ("Replace(' ')", Replace(" ", "▁"), lambda: hf.Replace(" ", "▁"), True),
    (
        "Replace(regex)",
        Replace(regex.compile(r"\s+"), " "),
        lambda: hf.Replace(tokenizers.Regex(r"\s+"), " "),
        False,
    ),
    (
        "Sequence",
        Sequence([NFKD(), StripAccents(), Lowercase(), Strip()]),
        lambda: hf.Sequence([hf.NFKD(), hf.StripAccents(), hf.Lowercase(), hf.Strip()]),
        True,
    ),
]
PAIR_IDS = [p[0] for p in PAIRS]

# Characters that exercise every rule, all from Unicode <= 8 (so that the Unicode versions of
# Python, Rust and Hugging Face's tables agree on them).
HARD = (
    "aZé\u0301\u0323\u0302\u0308Åﬁﬃ①①１Ａ\u00bdİıΣσςǅ\u1e9e\u0130\u0131ß"
    "\u1100\u1161\u11a8가각\u0b47\u0b3e\u0f73\u0f71\u0f72\uff9e\u30ab\u3099ｶﾞ"
    "中文\u3400\uf900\U00020000ひカ한"
    "\x00\x01\t\n\r\x0b\x0c\x1c\x7f\x85\xa0\u1680\u2000\u200b\u200d\u2028\u202f\u3000"
    "\ufeff\ufffd\ue000\u00ad\u0600\u180e"
    "कािं\u093c\u0958ক\u09be\u09c7\u09cbমা\u0e33\u0e31ا\u064b\u0651\u0654أ"
    " .,!?'\"-"
)


@pytest.fixture(scope="module")
def corpora():
    return bundled.texts(large=False)  # udhr/all as its seams (tests/corpora.py)


def assert_same_or_wider(text, ours, theirs, identical, where):
    """Same normalised text; each character's span identical to Hugging Face's, or (for the
    deliberate differences) a span that contains it."""
    (out, align), (hf_out, hf_align) = ours, theirs
    assert out == hf_out, f"{where}: normalised text differs"
    assert len(align) == len(hf_align)
    if align == hf_align:
        return
    differ = [i for i, (mine, hfs) in enumerate(zip(align, hf_align)) if mine != hfs]
    i = differ[0]
    assert not identical, (
        f"{where}: char {i} {out[i]!r} from {text[slice(*align[i])]!r}, "
        f"Hugging Face: from {text[slice(*hf_align[i])]!r}"
    )
    for i in differ:
        (start, end), (hf_start, hf_end) = align[i], hf_align[i]
        assert start <= hf_start and hf_end <= end, f"{where}: char {i} {out[i]!r}"


@pytest.mark.heavy
@pytest.mark.parametrize("label,ours,make_hf,identical", PAIRS, ids=PAIR_IDS)
def test_matches_hugging_face_on_corpora(corpora, label, ours, make_hf, identical):
    theirs = make_hf()
    for name, text in corpora.items():
        assert_same_or_wider(
            text, norm(ours, text), hf_aligned(theirs, text), identical, f"{label} on {name}"
        )


@pytest.mark.parametrize("label,ours,make_hf,identical", PAIRS, ids=PAIR_IDS)
def test_matches_hugging_face_on_hard_text(label, ours, make_hf, identical):
    theirs = make_hf()
    rng = random.Random(label)
    samples = [HARD, HARD[::-1]] + [
        "".join(rng.choices(HARD, k=rng.randint(1, 12))) for _ in range(300)
    ]
    for text in samples:
        assert_same_or_wider(
            text, norm(ours, text), hf_aligned(theirs, text), identical, f"{label} on {text!r}"
        )


@pytest.fixture(scope="module")
def every_character():
    """Every assigned character of Python's Unicode database, as one string. (Unassigned code
    points are left out: Hugging Face's Rust side may know newer characters, e.g. their case.)
    U+11938 is left out too: Python decomposes it canonically (Unicode 13), Hugging Face's
    older normalisation table does not. An "a" between characters keeps marks from reordering
    across them (Hugging Face's table lacks the combining classes of recent marks)."""
    return "a".join(
        chr(cp)
        for cp in range(0x110000)
        if unicodedata.category(chr(cp)) not in ("Cn", "Cs") and cp != 0x11938
    )


@pytest.mark.heavy
@pytest.mark.parametrize(
    "ours,make_hf",
    [
        (
            BertNormalizer(handle_chinese_chars=False, lowercase=False),
            lambda: hf.BertNormalizer(
                handle_chinese_chars=False, strip_accents=False, lowercase=False
            ),
        ),
        (
            BertNormalizer(clean_text=False, lowercase=False),
            lambda: hf.BertNormalizer(clean_text=False, strip_accents=False, lowercase=False),
        ),
        (
            BertNormalizer(
                clean_text=False, handle_chinese_chars=False, lowercase=False, strip_accents=True
            ),
            lambda: hf.BertNormalizer(
                clean_text=False, handle_chinese_chars=False, lowercase=False, strip_accents=True
            ),
        ),
        (StripAccents(), lambda: hf.StripAccents()),
        (Lowercase(), lambda: hf.Lowercase()),
    ],
    ids=["bert-clean", "bert-cjk", "bert-strip", "strip-accents", "lowercase"],
)
def test_matches_hugging_face_on_every_character(every_character, ours, make_hf):
    """What BERT's cleaner drops, spaces or keeps (with Hugging Face's older idea of which
    characters are format controls), which marks each accent stripper drops, and lowercase."""
    assert ours.normalize_str(every_character) == make_hf().normalize_str(every_character)


@pytest.mark.parametrize("label,ours,make_hf,identical", PAIRS, ids=PAIR_IDS)
def test_from_hf_config_round_trip(label, ours, make_hf, identical):
    """Hugging Face's own JSON for each normaliser builds the same normaliser here."""
    built = from_hf_config(json.loads(make_hf().__getstate__()))
    if isinstance(ours.__dict__.get("pattern"), regex.Pattern):
        assert built.pattern.pattern == ours.pattern.pattern and built.content == ours.content
    else:
        assert built == ours


@pytest.mark.parametrize(
    "config",
    [
        {"type": "Precompiled", "precompiled_charsmap": ""},
        {"type": "Replace", "pattern": {"Regex": "("}, "content": ""},
        {"type": "Prepend"},
        {"kind": "NFC"},
        "NFC",
    ],
)
def test_from_hf_config_errors(config):
    with pytest.raises(ValueError):
        from_hf_config(config)


def test_replace_alignment_is_hugging_faces():
    """Hugging Face maps every replacement character to the last matched character."""
    text = "cabab"
    out, align = norm(Replace("ab", "xyz"), text)
    hf_out, hf_align = hf_aligned(hf.Replace("ab", "xyz"), text)
    assert out == hf_out == "cxyzxyz"
    assert align == hf_align == [(0, 1)] + [(2, 3)] * 3 + [(4, 5)] * 3


# ---- the Unicode forms against unicodedata -------------------------------------------------
FORMS = {"NFC": NFC(), "NFD": NFD(), "NFKC": NFKC(), "NFKD": NFKD()}


def _interesting_code_points():
    points = [
        cp
        for cp in range(0x110000)
        if not 0xD800 <= cp < 0xE000
        and (unicodedata.decomposition(chr(cp)) or unicodedata.combining(chr(cp)))
    ]
    return (
        points
        + list(range(0x1100, 0x1200))
        + list(range(0xAC00, 0xAC40))
        + [ord(c) for c in "aeiouAEIOU \u0b3e\u0b57\u0cc2\u0dcf\u0ddf\u102e\u1b35"]
    )


@pytest.mark.heavy
def test_forms_equal_unicodedata_on_random_mixtures():
    """Composition and decomposition in every combination the database offers: random short
    strings of characters that have decompositions or combining classes, Hangul jamo and
    starters that compose (Indic vowel signs)."""
    pool = [chr(cp) for cp in _interesting_code_points()]
    rng = random.Random(2)
    for _ in range(4000):
        text = "".join(rng.choices(pool, k=rng.randint(1, 6)))
        for form, normalizer in FORMS.items():
            out, align = norm(normalizer, text)
            assert out == unicodedata.normalize(form, text), (form, text)
            check_alignments(text, out, align)


# ---- properties ---------------------------------------------------------------------------
ALL = [
    NFC(),
    NFD(),
    NFKC(),
    NFKD(),
    Lowercase(),
    StripAccents(),
    Strip(),
    Strip(right=False),
    BertNormalizer(),
    BertNormalizer(lowercase=False),
    Replace("ab", "x"),
    Replace(regex.compile(r"\s+"), " "),
    Prepend("▁"),
    Sequence([NFD(), StripAccents(), Lowercase()]),
    Sequence([NFKC(), BertNormalizer()]),
]
# Context-free normalisers: each chunk of the original normalises on its own.
CONTEXT_FREE = [
    NFC(),
    NFD(),
    NFKC(),
    NFKD(),
    Lowercase(),
    StripAccents(),
    BertNormalizer(),
    BertNormalizer(lowercase=False),
    Sequence([NFD(), StripAccents(), Lowercase()]),
    Sequence([NFKC(), BertNormalizer()]),
]

texts = st.text(alphabet=st.one_of(st.characters(), st.sampled_from(HARD)), max_size=40)


def check_alignments(text, out, align):
    """One span per normalised character, inside the original, in order."""
    assert len(align) == len(out)
    for start, end in align:
        assert 0 <= start <= end <= len(text)
    for (s1, e1), (s2, e2) in zip(align, align[1:]):
        assert s1 <= s2 and e1 <= e2


@settings(max_examples=150, deadline=None)
@given(texts)
def test_alignments_are_monotone_and_inside_the_original(text):
    for normalizer in ALL:
        out, align = norm(normalizer, text)
        check_alignments(text, out, align)
        if not isinstance(normalizer, Replace):
            assert all(start < end for start, end in align)  # no empty spans


@settings(max_examples=150, deadline=None)
@given(texts)
def test_one_to_one_characters_come_from_their_span(text):
    """Where exactly one normalised character maps to a span, and that span of the original
    normalises on its own to a single character, it is that character.

    The exceptions are canonical reordering and composition: there we follow Hugging Face,
    whose alignment is positional (the first character of the reordered run takes the first
    source character, ...), so that text is skipped for the normalisers it affects."""
    reorders = any(
        "".join(unicodedata.normalize(f, c) for c in text) != unicodedata.normalize(f, text)
        for f in ("NFD", "NFKD")
    )
    composes = any(
        "".join(unicodedata.normalize(f, c) for c in text) != unicodedata.normalize(f, text)
        for f in ("NFC", "NFKC")
    )
    for normalizer in CONTEXT_FREE:
        if reorders and normalizer.describe() not in ("NFC", "NFKC", "Lowercase"):
            continue
        if composes and normalizer.describe() in ("NFC", "NFKC"):
            continue
        out, align = norm(normalizer, text)
        for i, (start, end) in enumerate(align):
            if align.count((start, end)) != 1:
                continue
            alone = normalizer.normalize_str(text[start:end])
            if len(alone) == 1:
                assert alone == out[i], (normalizer.describe(), text, i)


@settings(max_examples=150, deadline=None)
@given(texts)
def test_composed_chunks_normalise_on_their_own(text):
    """For the composing forms, each output character comes from one original character, in
    order, and a composed character from the first character it was composed of (as Hugging
    Face)."""
    for form in ("NFC", "NFKC"):
        out, align = norm(FORMS[form], text)
        assert out == unicodedata.normalize(form, text)
        assert all(end == start + 1 for start, end in align)
        assert align == sorted(align)
        for c, (start, _) in zip(out, align):
            if unicodedata.decomposition(c) and not unicodedata.combining(text[start]):
                assert (
                    unicodedata.normalize("NFD", c)[0]
                    == unicodedata.normalize("NFD", text[start])[0]
                    or form == "NFKC"
                )


@settings(max_examples=150, deadline=None)
@given(texts)
def test_forms_are_unicodedata_and_composing_forms_idempotent(text):
    for form, normalizer in FORMS.items():
        once = normalizer.normalize(NormalizedString(text))
        assert once.normalized == unicodedata.normalize(form, text)
        twice = normalizer.normalize(once)
        assert twice.normalized == once.normalized
        if form in ("NFC", "NFKC"):
            assert twice is once  # the fast path: already normal


@settings(max_examples=100, deadline=None)
@given(texts, st.lists(st.sampled_from(ALL), min_size=0, max_size=3))
def test_sequence_composes(text, steps):
    ns = NormalizedString(text)
    expected = ns
    for step in steps:
        expected = step.normalize(expected)
    got = Sequence(steps).normalize(ns)
    assert got.normalized == expected.normalized and got.alignments == expected.alignments


@settings(max_examples=100, deadline=None)
@given(texts)
def test_lowercase_is_per_character_lower(text):
    assert Lowercase().normalize_str(text) == "".join(c.lower() for c in text)


def test_replace_takes_a_pattern_of_the_stdlib_re_as_one_of_regex():
    """The package's searches pass `concurrent=False` to `regex` patterns only: a `re` pattern
    (which always keeps the interpreter, and takes no such keyword) works as before."""
    import re as stdlib_re

    from tokenizers_core.normalizers import Replace
    from tokenizers_core.user_regex import match_spans

    for compile_ in (stdlib_re.compile, regex.compile):
        replace = Replace(compile_(r"\s+"), " ")
        assert replace.normalize_str("a \n\t b  c") == "a b c"
        assert match_spans(compile_(r"\d+"), "a1b22") == [(1, 2), (3, 5)]

"""A normaliser may make a text at most GROWTH (20) times longer, or FLOOR (100,000) characters
long, whichever is more (issue 27, item 3).

An uploaded tokenizer.json whose normalizer is a Sequence of 20 `Replace "a" -> "aa"` doubles
the text 20 times: "aaaa" became 4,194,304 characters (10 s and 700 MB in-process, 56 s in the
server). Real normalisers grow a text far less: NFKC spells "ﷺ" (U+FDFA) as 18 characters, the
most any character takes; BertNormalizer writes " 中 " for "中" (3); sentencepiece's charsmaps are
NFKC plus short rules. So the bound refuses the hostile chain before it builds the long text,
naming the member, and lets every real normaliser through.
"""

from __future__ import annotations

import gzip
import json
import struct
import tracemalloc

import pytest
import regex

import tokenizers_core as tc
from tests import corpora as bundled
from tokenizers_core import pretrained
from tokenizers_core.normalized import NormalizedString
from tokenizers_core.normalizers import (
    FLOOR,
    GROWTH,
    NFKC,
    NFKD,
    BertNormalizer,
    Lowercase,
    NormalizedTooLong,
    Prepend,
    Replace,
    Sequence,
    max_length,
)
from tokenizers_core.normalizers.hf import ByteLevel, Precompiled, from_hf_config
from tokenizers_core.normalizers.sentencepiece import (
    _NMT_NFKC,
    PrecompiledCharsMap,
    SentencePieceNormalizer,
)

PEAK_LIMIT = 50_000_000  # bytes


def _peak(run) -> tuple[BaseException | None, int]:
    """What `run()` raised (or None), and the peak memory it allocated."""
    tracemalloc.start()
    try:
        try:
            run()
            raised = None
        except ValueError as err:
            raised = err
        return raised, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _doubling_tokenizer(times: int = 20) -> tc.Tokenizer:
    """bert-base-uncased with the issue's normalizer: `times` x Replace "a" -> "aa"."""
    data = tc.load("bert-base-uncased").to_hf_json()
    data["normalizer"] = {
        "type": "Sequence",
        "normalizers": [{"type": "Replace", "pattern": {"String": "a"}, "content": "aa"}] * times,
    }
    return tc.load(json.dumps(data).encode())


# ---- the hostile chain --------------------------------------------------------------------------
@pytest.mark.heavy
def test_the_issues_doubling_chain_is_refused_naming_its_member():
    """4 characters double at each member: 8, 16, ... member 15 would write 4 x 2^15 = 131,072,
    past the floor of 100,000 (20 x 4 = 80 is less), so member 15 is refused before it runs."""
    tok = _doubling_tokenizer()
    raised, peak = _peak(lambda: tok.encode("aaaa"))
    assert isinstance(raised, NormalizedTooLong) and isinstance(raised, ValueError)
    assert str(raised) == (
        "the normalizer Replace('a' -> 'aa'), member 15 of the Sequence, would make this "
        "4-character text 131,072 characters long; a normalizer may make a text at most 20 "
        "times longer (or 100,000 characters)"
    )
    assert (raised.where, raised.source_length, raised.length) == ((15,), 4, 131_072)
    assert peak < PEAK_LIMIT, f"peak {peak / 1e6:.1f} MB"


def test_fourteen_doublings_fit_and_fifteen_do_not():
    assert len(_doubling_tokenizer(14).normalize("aaaa")) == 4 * 2**14
    with pytest.raises(NormalizedTooLong, match="member 15 of the Sequence"):
        _doubling_tokenizer(15).normalize("aaaa")


def test_the_visualisers_steps_are_bounded_too():
    """The step-by-step trace runs a Sequence's members one at a time; each Replace checks
    itself, so the chain stops at the same member, and the trace says which it is."""
    with pytest.raises(
        NormalizedTooLong,
        match=r"Replace\('a' -> 'aa'\), member 15 of the "
        r"Sequence, would make this 4-character text "
        r"131,072",
    ):
        _doubling_tokenizer().trace("aaaa")


def test_a_nested_sequence_names_both_places():
    inner = Sequence([Lowercase(), Replace("a", "a" * 30_000)])
    with pytest.raises(NormalizedTooLong, match="member 2 of member 3 of the Sequence"):
        Sequence([NFKC(), Lowercase(), inner]).normalize_str("aaaa")


def test_a_regex_replace_counts_its_matches_first():
    doubling = Replace(regex.compile("a"), "aa")
    with pytest.raises(NormalizedTooLong, match="member 15 of the Sequence"):
        Sequence([doubling] * 20).normalize_str("aaaa")


def test_a_megabyte_replacement_is_refused_before_it_is_written():
    """Replace "a" by a 1 MB string: 1,000 a's would make a gigabyte. The matches are counted
    first, so nothing near that size is allocated."""
    content = "x" * 1_000_000
    replace = Replace("a", content)
    raised, peak = _peak(lambda: replace.normalize_str("a" * 1000))
    assert isinstance(raised, NormalizedTooLong)
    assert raised.length == 1000 * 1_000_000
    assert peak < PEAK_LIMIT, f"peak {peak / 1e6:.1f} MB"
    assert len(str(raised)) < 300  # the description is cut short
    assert replace.normalize_str("nothing to see") == "nothing to see"


def test_a_megabyte_replacement_in_a_tokenizer_json():
    data = tc.load("bert-base-uncased").to_hf_json()
    data["normalizer"] = {"type": "Replace", "pattern": {"String": "a"}, "content": "x" * 1_000_000}
    tok = tc.load(json.dumps(data).encode())
    raised, peak = _peak(lambda: tok.encode("a banana"))
    assert isinstance(raised, NormalizedTooLong)
    assert "would make this 8-character text 4,000,004 characters long" in str(raised)
    assert peak < PEAK_LIMIT, f"peak {peak / 1e6:.1f} MB"


def test_prepend_and_byte_level_are_bounded():
    with pytest.raises(NormalizedTooLong, match="Prepend"):
        Prepend("▁" * 200_000).normalize_str("hi")
    # "é" is 2 bytes, spelled "Ã©", whose characters are 2 bytes each again: every ByteLevel
    # doubles the text, so 1,000 characters pass 100,000 at the 7th (128,000)
    with pytest.raises(NormalizedTooLong, match="ByteLevel, member 7 of the Sequence"):
        Sequence([ByteLevel()] * 30).normalize_str("é" * 1000)


def test_a_charsmap_with_a_long_replacement_is_stopped_as_it_goes():
    """A sentencepiece charsmap (from an uploaded model or tokenizer.json) may map a character
    to any string; the output is counted rule by rule."""
    charsmap = _one_rule_charsmap("a", "x" * 50_000)
    precompiled = Precompiled(charsmap)
    with pytest.raises(NormalizedTooLong, match="Precompiled"):
        precompiled.normalize_str("aaa")
    spm = SentencePieceNormalizer(PrecompiledCharsMap(charsmap), name="uploaded")
    with pytest.raises(NormalizedTooLong, match=r"SentencePiece\(uploaded\)"):
        spm.normalize(NormalizedString("aaa"))
    assert precompiled.normalize_str("a") == "x" * 50_000  # 1 character to 50,000: fits the floor


def _one_rule_charsmap(key: str, value: str) -> bytes:
    """A precompiled charsmap with the single rule `key` (one byte) -> `value`: a darts-clone
    double array of one key, then the NUL-terminated replacement (the layout
    `PrecompiledCharsMap` reads)."""
    key_bytes = key.encode()
    assert len(key_bytes) == 1
    # units: root at 0 with offset 1 (so child = 1 ^ label); the child holds a leaf flag and
    # points (offset) to the value unit; see PrecompiledCharsMap._step
    label = key_bytes[0]
    child = 1 ^ label
    value_unit = child ^ 1
    size = max(child, value_unit) + 1
    units = [0] * size
    units[0] = 1 << 10  # offset 1
    units[child] = label | (1 << 8) | (1 << 10)  # has a leaf; offset 1 -> value_unit
    units[value_unit] = 0 | (1 << 31)  # value: replacement at byte 0
    blob = b"".join(struct.pack("<I", u) for u in units)
    return struct.pack("<I", len(blob)) + blob + value.encode() + b"\x00"


# ---- real normalisers stay inside ---------------------------------------------------------------
def test_the_bound_is_a_ratio_or_a_floor():
    assert (GROWTH, FLOOR) == (20, 100_000)
    assert max_length(NormalizedString("a" * 4)) == FLOOR
    assert max_length(NormalizedString("a" * 10_000)) == 200_000


def test_nfkc_spells_out_the_longest_ligature():
    """U+FDFA is 18 characters in NFKC and NFKD, the most any character becomes; 10,000 of them
    (180,000 characters) are past the floor and still inside 20 x 10,000."""
    assert len(NFKC().normalize_str("\ufdfa")) == 18
    for text in ("\ufdfa" * 1000, "\ufdfa" * 10_000):
        assert len(NFKC().normalize_str(text)) == 18 * len(text)
        assert len(NFKD().normalize_str(text)) == 18 * len(text)


def test_bert_spaces_every_ideograph():
    text = "中文字" * 40_000  # 120,000 characters -> 360,000
    assert BertNormalizer().normalize_str(text) == " 中  文  字 " * 40_000


def test_a_sentencepiece_chain_on_the_longest_ligature():
    """T5-style: the nmt_nfkc charsmap, then Replace " " -> "▁" and Prepend "▁"."""
    blob = gzip.decompress(_NMT_NFKC.read_bytes())
    chain = Sequence([Precompiled(blob), Replace(" ", "▁"), Prepend("▁")])
    text = "\ufdfa" * 10_000
    out = chain.normalize_str(text)
    assert len(out) <= GROWTH * len(text) and out.startswith("▁صلى▁الله")
    assert from_hf_config(chain.to_hf_config()).normalize_str(text) == out


@pytest.fixture(scope="module")
def corpora():
    """The shared corpora (botchan and 33 UDHR translations; the package bundles the same
    texts as ../shared/data/corpora; udhr/all as its seams, tests/corpora.py)."""
    return bundled.texts(large=False)


@pytest.mark.heavy
def test_every_bundled_normalizer_passes_the_corpora(corpora):
    """Every bundled tokenizer that has a normaliser (BERT's, Claude's NFKC, Qwen3's NFC, CLIP's
    Sequence, the sentencepiece models' charsmaps) normalises every corpus inside the bound."""
    checked = []
    for name in pretrained.bundled():
        normalizer = getattr(tc.load(name), "normalizer", None)
        if normalizer is None:
            continue
        for corpus, text in corpora.items():
            out = normalizer.normalize(NormalizedString(text))
            assert len(out) <= max(GROWTH * len(text), FLOOR), (name, corpus)
        checked.append(name)
    assert {
        "bert-base-uncased",
        "claude_2023",
        "qwen3",
        "clip",
        "mistral_v3",
        "botchan_en_unigram_1000",
        "botchan_en_bpe_1000",
    } <= set(checked)

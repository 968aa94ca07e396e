"""The issue's bar for diff: a GGUF written from Llama 3's tokenizer.json (as llama.cpp's
converter writes it) is identical to it on 1 MB of text; with the pre-tokenizer `default`, the
first divergences are the pre-tokenizer's split, and say so."""

from __future__ import annotations

import os

import pytest

import tokenizers_core as tc
from tests.gguf_files import INTEROP, botchan_sample, one_megabyte, write_llama3
from tokenizers_core.diff import diff

pytestmark = pytest.mark.skipif(not INTEROP, reason="../shared/data/interop is absent")


@pytest.fixture(scope="module")
def source() -> tc.Tokenizer:
    return tc.load(os.path.join(INTEROP, "converted", "llama3.tokenizer.json"))


@pytest.mark.heavy
def test_the_llama3_gguf_is_identical_to_its_tokenizer_json_on_a_megabyte(tmp_path, source):
    gguf = tc.load(write_llama3(str(tmp_path / "llama3.gguf")))
    texts = one_megabyte()
    report = diff(source, gguf, texts)
    assert report.texts == len(texts) > 4_000
    assert report.identical == report.texts and report.differences == ()


@pytest.mark.heavy
def test_the_default_pre_tokenizer_parts_at_the_split(tmp_path, source):
    """llama.cpp's `default` pre-tokenizer splits punctuation off on its own ("1.F." gives
    "." where Llama 3's pattern keeps ".F"), and digits differently."""
    gguf = tc.load(write_llama3(str(tmp_path / "llama3-default.gguf"), pre="default"))
    report = diff(source, gguf, botchan_sample() + ["It costs 12345 dollars"])
    assert 0.5 < report.share_identical < 0.95
    assert report.by_stage == {"pre-tokenizer split": len(report.differences)}
    first = report.differences[0]
    assert (first.text, first.position) == ("1.F.", 1)
    assert first.evidence["a"]["text"] == ".F" and first.evidence["b"]["text"] == "."

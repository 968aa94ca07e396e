"""`tokvis encode --words` (pre-tokenized input) and `tokvis decode` (`--bytes`: the raw bytes
as hex), run for real in a subprocess (`python -m app.cli` from this checkout), and model names
as tokeniser names (issue 20, item 17)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tokenizers_core as tc

ROOT = Path(__file__).resolve().parents[2]


def tokvis(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        capture_output=True,
        cwd=ROOT,
        env={**os.environ, "NO_COLOR": ""},
        timeout=120,
        text=True,
    )


def test_encode_words_json_is_the_engines_pre_tokenized_encoding():
    proc = tokvis(
        "encode", "-t", "bert-base-uncased", "--words", "--json", '["Hello", "playing games"]'
    )
    assert proc.returncode == 0, proc.stderr
    enc = tc.load("bert-base-uncased").encode(["Hello", "playing games"], is_pretokenized=True)
    assert json.loads(proc.stdout) == {
        "ids": enc.ids,
        "tokens": enc.tokens,
        "word_ids": enc.word_ids,
        "offsets": [list(o) for o in enc.offsets],
    }


@pytest.mark.heavy
def test_encode_words_prints_a_line_of_chips_per_word():
    proc = tokvis("encode", "-t", "gpt2", "--words", '["a b", "c"]')
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("0: a") and lines[1] == "1: c"
    assert lines[2] == "ids: 64 275 66" and lines[3] == "3 tokens · 2 words (r50k_base)"


@pytest.mark.parametrize(
    "words, says", [("hello", "JSON list of words"), ("[1]", "JSON list of strings")]
)
def test_bad_words_are_one_line_errors(words, says):
    proc = tokvis("encode", "--words", words)
    assert proc.returncode == 1 and says in proc.stderr and proc.stderr.count("\n") == 1


@pytest.mark.heavy
def test_decode_prints_the_text_and_with_bytes_the_hex():
    ids = tc.load("r50k_base").encode("🙂").ids
    proc = tokvis("decode", "-t", "gpt2", str(ids[0]))
    assert proc.returncode == 0 and proc.stdout == "\ufffd\n"
    proc = tokvis("decode", "-t", "gpt2", "--bytes", str(ids[0]))
    assert proc.stdout == "f09f\n"
    proc = tokvis("decode", "-t", "gpt2", "--bytes", ",".join(map(str, ids)))
    assert bytes.fromhex(proc.stdout.strip()) == "🙂".encode()
    proc = tokvis("decode", "-t", "gpt-4o-mini", "13225", "2375", "199999", "--skip-special")
    assert proc.stdout == "Hello world\n"


@pytest.mark.parametrize(
    "args, says",
    [
        (["x1"], "'x1' is not a token id"),
        (["999999999"], "not in the vocabulary of cl100k_base"),
        (["--bytes", "100261"], "not in the vocabulary of cl100k_base"),
    ],
)
def test_decode_errors_are_one_line(args, says):
    proc = tokvis("decode", *args)
    assert proc.returncode == 1 and says in proc.stderr and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr


@pytest.mark.heavy
def test_a_model_name_is_a_tokeniser_name():
    proc = tokvis("encode", "-t", "gpt-3.5-turbo-0301", "--json", "Hello, world!")
    assert json.loads(proc.stdout)["ids"] == [9906, 11, 1917, 0]
    proc = tokvis("encode", "-t", "text-davinci-003", "--json", "Hello, world!")  # p50k_base
    assert json.loads(proc.stdout)["ids"] == [15496, 11, 995, 0]


@pytest.mark.heavy
def test_decode_of_a_tokenizer_json_drops_an_id_it_lacks_and_says_so(tmp_path):
    from tests.app.test_api import gap_tokenizer_json

    path = tmp_path / "tokenizer.json"
    path.write_bytes(gap_tokenizer_json())
    proc = tokvis("decode", "-t", str(path), "263", "265", "264")
    assert proc.returncode == 0 and proc.stdout == "hello world\n"
    assert "dropped 1 id not in the vocabulary" in proc.stderr and "265" in proc.stderr

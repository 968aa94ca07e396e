"""`tokvis parity` as a CI job runs it: exit 0 when every runtime agrees, 1 when any differs, 2
when the tokenizer or the texts cannot be read; `--json` is `tc.parity`'s answer; texts from
`--text` (repeated) and `--texts FILE` (one per line)."""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc
from app.cli import main

ACCENT = "e\u0301"  # NFC makes it "é": Qwen3's tokenizer.json does, its GGUF does not


def test_all_runtimes_agreeing_exits_0(capsys):
    assert main(["parity", "bert-base-uncased", "--text", "Hello, world!", "--text", "naïve"]) == 0
    out = capsys.readouterr().out
    assert "tokenizers, transformers, llama.cpp agree on all 2 texts" in out
    assert "tiktoken        skipped: not a tiktoken ranks file" in out


@pytest.mark.heavy
def test_a_mismatch_exits_1_naming_the_rule(capsys):
    assert main(["parity", "qwen3", "--text", "Hello", "--text", ACCENT]) == 1
    out = capsys.readouterr().out
    assert "disagree on 1 of 2 texts" in out
    assert "first mismatch: text 2, tokenizers against llama.cpp at token 0" in out
    assert "rule: normaliser" in out


def test_json_is_the_python_answer_with_texts_from_a_file(tmp_path, capsys):
    path = tmp_path / "texts.txt"
    path.write_text("Hello, world!\r\nI don't know\nnaïve 🙂\n", encoding="utf-8")
    assert main(["parity", "bert-base-uncased", "--texts", str(path), "--text", "x", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    texts = ["x", "Hello, world!", "I don't know", "naïve 🙂"]
    assert [row["text"] for row in data["rows"]] == texts
    assert data == tc.parity("bert-base-uncased", texts).to_dict()
    assert data["runtimes"] == ["tokenizers", "transformers", "llama.cpp"]
    assert data["first_mismatch"] is None and all(row["same"] for row in data["rows"])


def test_the_special_switch_reaches_tiktoken(capsys):
    assert main(["parity", "gpt2", "--text", "<|endoftext|>", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["first_mismatch"]["rule"] == "refused"
    assert data["rows"][0]["ids"]["tiktoken"] is None
    assert main(["parity", "gpt2", "--text", "<|endoftext|>", "--special", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["ids"]["tiktoken"] == [50256]


@pytest.mark.parametrize(
    "argv, says",
    [
        (["parity", "no-such-tokenizer", "--text", "x"], "no such file, and not a bundled"),
        (["parity", "bert-base-uncased", "--texts", "/no/such/texts.txt"], "no/such/texts.txt"),
        (["parity", "char", "--text", "x"], "no runtime reads char"),
        (["parity", "gpt2", "--pattern", "gpt2", "--text", "x"], "applies only to tokenizer files"),
    ],
)
def test_what_cannot_be_read_exits_2_in_one_line(argv, says, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tokvis parity: cannot read: ") and says in err
    assert err.count("\n") == 1


def test_a_file_that_is_no_tokenizer_exits_2(tmp_path, capsys):
    path = tmp_path / "junk.bin"
    path.write_bytes(b"\x00\x01\x02junk")
    assert main(["parity", str(path), "--text", "x"]) == 2
    assert "not a tokenizer file we know" in capsys.readouterr().err

"""`tokvis diff -a A -b B [--corpus NAME|FILE | --text T | --stress] [--json]`: exit status 0
when identical, 1 when the tokenisers differ, 2 for bad input (as diff(1))."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from tests.shared_data import INTEROP


def test_an_alias_and_its_encoding_are_identical(capsys):
    assert main(["diff", "-a", "gpt2", "-b", "r50k_base"]) == 0
    assert "88 of 88 texts identical (100.0%)" in capsys.readouterr().out


def test_two_encodings_differ_and_say_where(capsys):
    assert (
        main(
            [
                "diff",
                "-a",
                "cl100k_base",
                "-b",
                "o200k_base",
                "--text",
                "I don't know",
                "--show",
                "1",
            ]
        )
        == 1
    )
    out = capsys.readouterr().out
    assert "0 of 1 texts identical" in out
    assert "line 1, character 1: pre-tokenizer split" in out
    assert "cl100k_base: I [·don] 't ·know" in out and "o200k_base: I [·don't] ·know" in out


def test_json_is_the_whole_report(capsys, tmp_path):
    corpus = tmp_path / "lines.txt"
    corpus.write_text("hello world\n\nBonjour, ça va?\n", encoding="utf-8")
    assert (
        main(["diff", "-a", "cl100k_base", "-b", "o200k_base", "--corpus", str(corpus), "--json"])
        == 1
    )
    data = json.loads(capsys.readouterr().out)
    assert data["texts"] == 2 and len(data["differences"]) == 2
    assert data["a"] == "cl100k_base" and data["differences"][0]["stage"] in (
        "pre-tokenizer split",
        "model",
    )


def test_bad_input_exits_2_with_one_line(capsys):
    assert main(["diff", "-a", "no-such-tokenizer", "-b", "gpt2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tokvis diff: error: no-such-tokenizer") and err.count("\n") == 1
    assert main(["diff", "-a", "gpt2", "-b", "gpt2", "--corpus", "no/such/file"]) == 2


@pytest.mark.heavy
@pytest.mark.skipif(not (INTEROP / "converted").is_dir(), reason="shared/data/interop is absent")
def test_file_options_go_to_the_ranks_file_not_the_tokenizer_json(capsys):
    """--pattern and --special-tokens are the ranks file's; the tokenizer.json has its own."""
    code = main(
        [
            "diff",
            "-a",
            str(INTEROP / "converted" / "llama3.tokenizer.json"),
            "-b",
            str(INTEROP / "raw" / "llama3" / "tokenizer.model"),
            "--pattern",
            "gpt2",
            "--special-tokens",
            '{"<|begin_of_text|>": 128000}',
            "--text",
            "I'M here",
        ]
    )
    assert code == 1
    assert "character 1: pre-tokenizer split" in capsys.readouterr().out

"""`tokvis train` and `tokvis trace` pass Hugging Face's trainer options and train the new
algorithms (char_bpe, wordlevel)."""

from __future__ import annotations

import json

import tokenizers_core as tc
from app.cli import main
from tokenizers_core.corpora import load_corpus


def test_train_char_bpe_with_a_limited_alphabet(tmp_path, capsys):
    out = tmp_path / "char_bpe.json"
    code = main(
        [
            "train",
            "char_bpe",
            "botchan",
            "--vocab-size",
            "800",
            "--limit-alphabet",
            "60",
            "--initial-alphabet",
            "ж",
            "--no-progress",
            "-o",
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr().err
    saved = tc.load(str(out))
    lines = load_corpus("botchan").splitlines()
    expected = tc.train("char_bpe", lines, 800, limit_alphabet=60, initial_alphabet=["ж"])
    assert saved.model.vocab == expected.model.vocab
    assert "ж" in saved.model.vocab and "ж</w>" not in saved.model.vocab  # unseen: no spelling


def test_trace_byte_bpe_with_prefix_suffix_and_max_length(capsys):
    code = main(
        [
            "trace",
            "byte_bpe",
            "botchan",
            "--vocab-size",
            "600",
            "--max-token-length",
            "3",
            "--continuing-subword-prefix",
            "##",
            "--end-of-word-suffix",
            "</w>",
        ]
    )
    steps = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and steps
    assert all(len(step["new_symbol"].replace("##", "").replace("</w>", "")) <= 2 for step in steps)
    assert any(step["new_symbol"].endswith("</w>") for step in steps)


def test_an_option_the_algorithm_does_not_take_is_one_line_on_stderr(capsys):
    code = main(["train", "bpe", "botchan", "--vocab-size", "300", "--end-of-word-suffix", "</w>"])
    err = capsys.readouterr().err
    assert code != 0 and "bpe does not take end_of_word_suffix" in err and err.count("\n") == 1

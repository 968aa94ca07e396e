"""`tokvis vocab-diff A B [--corpus NAME|FILE] [--json]`: exit status 0 when the two have the
same tokens under the same ids, 1 when they differ, 2 for bad input (as diff(1))."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from tests.shared_data import INTEROP


def test_an_alias_and_its_encoding_have_the_same_vocabulary(capsys):
    assert main(["vocab-diff", "gpt2", "r50k_base"]) == 0
    out = capsys.readouterr().out
    assert "50,257 tokens shared; 0 only in gpt2, 0 only in r50k_base" in out
    assert "ranks agree up to 50,257: every id below it" in out


@pytest.mark.heavy
def test_two_encodings_differ_and_the_words_of_a_corpus_show_both_splits(capsys, tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text(" Kiyo Kiyo the Kiyo Clown\n", encoding="utf-8")
    assert main(["vocab-diff", "cl100k_base", "o200k_base", "--corpus", str(corpus)]) == 1
    out = capsys.readouterr().out
    assert "85,035 tokens shared; 15,226 only in cl100k_base, 114,965 only in o200k_base" in out
    assert "ranks agree up to 259, then part: id 259 is '·t' in cl100k_base" in out
    assert "split differently: 4 of 5 (2 distinct)" in out
    assert "Kiyo ×3   cl100k_base: ·Ki yo   o200k_base: ·K iyo" in out


def test_json_is_the_report(capsys):
    assert main(["vocab-diff", "r50k_base", "p50k_base", "--json", "--limit", "2"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["only_b"] == 24 and len(data["only_b_tokens"]) == 2
    assert data["only_b_tokens"][0]["bytes"] == "2020" and data["ranks"]["prefix"] == 50_257


@pytest.mark.heavy
def test_a_ranks_file_takes_its_pattern_and_llama3_keeps_cl100k(capsys):
    ranks = INTEROP / "raw" / "llama3" / "tokenizer.model"
    if not ranks.is_file():
        pytest.skip(
            f"needs the shared interop files ({ranks}): ../shared/data/interop is absent beside the repository"
        )
    assert main(["vocab-diff", "cl100k_base", str(ranks), "--pattern", "llama3"]) == 1
    out = capsys.readouterr().out
    assert "ranks agree up to 100,256, where cl100k_base has no id 100,256" in out


def test_bad_input_is_one_line_and_status_2(capsys):
    assert main(["vocab-diff", "char", "gpt2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no vocabulary" in err
    assert main(["vocab-diff", "gpt2", "nope.json"]) == 2
    assert main(["vocab-diff", "gpt2", "gpt2", "--corpus", "nope"]) == 2

"""`tokvis fingerprint`, `tokvis lock` and `tokvis verify` as a CI job runs them: the exit status
(0 the same ids, 1 any differs, 2 the lock or the tokenizer unreadable), the report in text, JSON
and JUnit, `-o FILE`, and `--max-tokens`."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest

import tokenizers_core as tc
from app.cli import main

TEXTS = "Hello, world!\nI don't know\nnaïve 🙂\n"


@pytest.fixture
def texts(tmp_path):
    path = tmp_path / "texts.txt"
    path.write_text(TEXTS, encoding="utf-8")
    return path


@pytest.fixture
def locked(tmp_path, texts, capsys):
    out = tmp_path / "tokvis.lock.json"
    assert main(["lock", "-t", "cl100k_base", "--texts", str(texts), "-o", str(out)]) == 0
    assert "3 texts locked (cl100k_base)" in capsys.readouterr().err
    return out


def test_fingerprint_json_has_the_four_keys_and_is_the_python_answer(capsys):
    assert main(["fingerprint", "gpt2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == tc.fingerprint("gpt2").to_dict()


def test_fingerprint_for_people_names_llama_cpp_s_pre_tokenizer(capsys):
    assert main(["fingerprint", "o200k_base"]) == 0
    assert "llama_cpp_pre  gpt-4o" in capsys.readouterr().out


def test_the_lock_holds_the_same_ids_as_tokvis_encode(locked, capsys):
    doc = json.loads(locked.read_text(encoding="utf-8"))
    assert doc["tokenizer"] == "cl100k_base" and len(doc["texts"]) == 3
    main(["encode", "-t", "cl100k_base", "--json", "I don't know"])
    assert doc["texts"][1]["ids"] == json.loads(capsys.readouterr().out)["ids"]


def test_verify_passes_with_exit_0(locked, capsys):
    assert main(["verify", str(locked)]) == 0
    assert "cl100k_base: all 3 texts give their locked ids" in capsys.readouterr().out


def test_verify_against_another_tokenizer_exits_1_and_names_the_first_divergence(locked, capsys):
    assert main(["verify", str(locked), "-t", "o200k_base"]) == 1
    out = capsys.readouterr().out
    assert "text 2: differs at token 1: the lock has 'Ġdon'" in out
    assert "o200k_base: 3 of 3 texts fail; the fingerprint changed" in out


def test_junit_to_a_file(locked, tmp_path, capsys):
    report = tmp_path / "report.xml"
    assert (
        main(["verify", str(locked), "-t", "o200k_base", "--format", "junit", "-o", str(report)])
        == 1
    )
    suite = ElementTree.parse(report).getroot()
    assert suite.tag == "testsuite" and len(suite.findall("testcase")) == 3
    assert len(suite.findall("testcase/failure")) == 3
    assert capsys.readouterr().out == ""  # the report went to the file


def test_json_report(locked, capsys):
    assert main(["verify", str(locked), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] and data["texts"] == 3 and data["fingerprint"]["changed"] == []


def test_max_tokens_fails_a_text_over_the_budget(locked, capsys):
    assert main(["verify", str(locked), "--max-tokens", "3"]) == 1
    assert "over the budget of 3" in capsys.readouterr().out


@pytest.mark.parametrize(
    "content, says",
    [(None, "no such lock file"), ("{", "not JSON"), ('{"texts": 3}', "sha256")],
)
def test_an_unreadable_lock_exits_2(tmp_path, capsys, content, says):
    path = tmp_path / "lock.json"
    if content is not None:
        path.write_text(content)
    assert main(["verify", str(path)]) == 2
    assert says in capsys.readouterr().err


def test_a_tokenizer_that_cannot_be_loaded_exits_2(locked, capsys):
    assert main(["verify", str(locked), "-t", "no-such-tokenizer"]) == 2
    assert "not a bundled tokeniser" in capsys.readouterr().err


def test_a_ranks_file_s_options_are_kept_in_the_lock(tmp_path, capsys):
    """A tiktoken ranks file needs its pattern: the lock keeps it, so verify loads it again."""
    from tokenizers_core.formats.bundled_models import _read

    ranks = tmp_path / "r50k.tiktoken"
    ranks.write_bytes(_read("r50k_base.tiktoken.gz"))
    texts = tmp_path / "t.txt"
    texts.write_text("hello there\n")
    out = tmp_path / "lock.json"
    args = ["lock", "-t", str(ranks), "--pattern", "gpt2", "--texts", str(texts), "-o", str(out)]
    assert main(args) == 0
    assert json.loads(out.read_text())["load_options"] == {"pattern": "gpt2"}
    assert main(["verify", str(out)]) == 0

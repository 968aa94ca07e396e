"""The child runner: the student's code runs in a process of its own, and whatever it does
(loops, crashes, exits, prints, reaches for the network) comes back as that item's failure."""

from __future__ import annotations

import pytest

import tokenizers_core as tc
from tokenizers_core.grading.runner import run_child

pytestmark = pytest.mark.slow

ADAPTERS = """
import socket, sys
def run_train_bpe(input_path, vocab_size, special_tokens, **kw):
{body}
def get_tokenizer(vocab, merges, special_tokens=None):
    raise RuntimeError("not graded here")
"""


def _train(tmp_path, body: str, **kw):
    path = tmp_path / "adapters.py"
    path.write_text(ADAPTERS.format(body=body), encoding="utf-8")
    (tmp_path / "corpus.txt").write_text("low lower", encoding="utf-8")
    job = {
        "shape": "cs336",
        "path": str(path),
        "class": "",
        "corpus": str(tmp_path / "corpus.txt"),
        "vocab_size": 257,
        "specials": [],
    }
    return run_child(job, [{"name": "train", "kind": "train"}], **{"timeout": 5, **kw})


def test_a_result_comes_back(tmp_path):
    run = _train(tmp_path, "    return {0: b'a'}, [(b'a', b'b')]")
    res = run.result("train")
    assert res.ok and res.value["merges"] == [["61", "62"]]


def test_an_infinite_loop_is_killed(tmp_path):
    run = _train(tmp_path, "    while True:\n        pass", timeout=2)
    res = run.result("train")
    assert run.timed_out and not res.ok
    assert "timed out: killed after 2 s" in res.error


def test_cpu_time_is_limited_too(tmp_path):
    run = _train(tmp_path, "    while True:\n        pass", timeout=30, cpu_seconds=1)
    assert not run.timed_out and "CPU-time limit" in run.result("train").error


def test_the_network_is_refused(tmp_path):
    body = "    socket.create_connection(('127.0.0.1', 9), timeout=1)"
    res = _train(tmp_path, body).result("train")
    assert "PermissionError: network access is disabled while grading" in res.error


def test_output_is_captured_and_bounded(tmp_path):
    run = _train(tmp_path, "    print('x' * 1_000_000)\n    print('the end')\n    return {}, []")
    assert run.result("train").ok
    assert run.stdout.endswith("the end\n") and len(run.stdout) < 5000 and "bytes cut" in run.stdout


def test_os_exit_is_the_process_ending(tmp_path):
    res = _train(tmp_path, "    import os\n    os._exit(7)").result("train")
    assert "exited with status 7" in res.error


def test_a_wrong_return_type_is_named(tmp_path):
    res = _train(tmp_path, "    return [1, 2, 3]").result("train")
    assert "run_train_bpe must return (vocab, merges)" in res.error


def test_a_syntax_error_fails_every_check(tmp_path):
    path = tmp_path / "adapters.py"
    path.write_text("def run_train_bpe(:\n", encoding="utf-8")
    report = tc.grade("cs336", path, corpus=["low lower"], vocab_size=260, timeout=10)
    assert not any(t.ok for t in report.tests)
    assert "SyntaxError" in report.test("train: merges").output


def test_bad_arguments_are_value_errors(tmp_path):
    (tmp_path / "m.py").write_text("class A:\n    pass\n", encoding="utf-8")
    with pytest.raises(ValueError, match="defines no 'B'"):
        tc.grade("minbpe", f"{tmp_path / 'm.py'}:B", corpus=["x"], vocab_size=300)
    with pytest.raises(ValueError, match="no such file"):
        tc.grade("cs336", tmp_path / "nope.py", corpus=["x"], vocab_size=300)
    with pytest.raises(ValueError, match="unknown tie rule"):
        tc.grade("minbpe", f"{tmp_path / 'm.py'}:A", corpus=["x"], vocab_size=300, ties="dict")
    with pytest.raises(ValueError, match="vocab_size must be"):
        tc.grade("cs336", tmp_path / "m.py", corpus=["x"], vocab_size=256, special_tokens=["<s>"])

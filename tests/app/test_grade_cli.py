"""`tokvis grade` as course staff run it: the exit status (0 all pass, 1 any fails, 2 usage),
the four formats, `-o FILE`, and `--bundle`'s Gradescope autograder, unzipped and run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from app.cli import main

ROOT = Path(__file__).resolve().parents[2]
STUDENTS = ROOT / "tests" / "grading_students"
EOT = "<|endoftext|>"
CORPUS = f"low low low lower{EOT}newest newest widest{EOT}the cat sat on the mat\n"
FAST = ["--timeout", "8", "--time-limit", "5", "--memory-mb", "1024"]


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(CORPUS, encoding="utf-8")
    return path


def _minbpe(cls: str, corpus: Path | str, *more: str) -> list[str]:
    target = f"{STUDENTS / 'minbpe_students.py'}:{cls}"
    return [
        "grade",
        "--minbpe",
        target,
        "--corpus",
        str(corpus),
        "--vocab-size",
        "300",
        *FAST,
        *more,
    ]


@pytest.mark.slow
def test_all_pass_is_exit_0_and_a_report_for_people(corpus, capsys):
    assert main(_minbpe("RegexTokenizer", corpus, "--special", EOT)) == 0
    out = capsys.readouterr().out
    assert "PASS  train: merges" in out and "every check passed." in out


@pytest.mark.slow
def test_any_failure_is_exit_1_and_gradescope_json_to_a_file(corpus, tmp_path, capsys):
    results = tmp_path / "results.json"
    # udhr/eng, not the tiny corpus: it has pairs left for every merge, so one too few shows
    args = _minbpe("OffByOneVocab", "udhr/eng", "--format", "gradescope", "-o", str(results))
    assert main(args) == 1
    doc = json.loads(results.read_text(encoding="utf-8"))
    by_name = {t["name"]: t for t in doc["tests"]}
    assert by_name["train: merges"]["status"] == "failed"
    assert by_name["train: merges"]["max_score"] == 3.0
    assert "num_merges = vocab_size - 256" in by_name["train: merges"]["output"]
    assert doc["score"] == sum(t["score"] for t in doc["tests"])
    assert "checks failed" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "junit"])
def test_json_and_junit(corpus, capsys, fmt):
    assert main(_minbpe("DroppingDecode", corpus, "--format", fmt)) == 1
    out = capsys.readouterr().out
    if fmt == "json":
        doc = json.loads(out)
        assert [t["name"] for t in doc["tests"] if t["status"] == "failed"] == [
            "decode: round trip"
        ]
    else:
        suite = ElementTree.fromstring(out.split("?>", 1)[1])
        assert suite.get("failures") == "1"


@pytest.mark.parametrize(
    "args, says",
    [
        (["--minbpe", "nope.py:Tok"], "no such file"),
        (["--minbpe", str(STUDENTS / "minbpe_students.py")], "takes PATH.py:Class"),
        (["--minbpe", f"{STUDENTS / 'minbpe_students.py'}:Nope"], "defines no 'Nope'"),
        (
            ["--adapters", str(STUDENTS / "cs336_crash.py"), "--corpus", "no-such-corpus"],
            "neither a bundled corpus",
        ),
    ],
)
def test_usage_errors_are_exit_2(args, says, capsys):
    argv = ["grade", *args, "--vocab-size", "300"]
    if "--corpus" not in argv:
        argv += ["--corpus", "botchan"]
    assert main(argv) == 2
    assert says in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["grade", "--corpus", "botchan", "--vocab-size", "300"],  # no target
        ["grade", "--minbpe", "a.py:A", "--adapters", "b.py", "--corpus", "x", "--vocab-size", "1"],
        ["grade", "--adapters", "a.py", "--corpus", "x", "--vocab-size", "300", "--ties", "dict"],
        ["grade", "--adapters", "a.py", "--corpus", "x", "--vocab-size", "3", "--format", "xml"],
    ],
)
def test_argparse_errors_are_exit_2(argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2


@pytest.mark.slow
def test_the_gradescope_bundle_runs_a_submission(corpus, tmp_path):
    """The zip holds setup.sh, run_autograder, the options and the package's source; unzipped
    as Gradescope would (source/), with a student's submission beside it, run_autograder writes
    results/results.json with the same checks (against the installed package: the root is
    $TOKVIS_GRADESCOPE_ROOT, and setup.sh's pip step is not run)."""
    zip_path = tmp_path / "autograder.zip"
    argv = [
        "grade",
        "--bundle",
        "--adapters",
        "student/adapters.py",
        "--corpus",
        str(corpus),
        "--vocab-size",
        "300",
        "--special",
        EOT,
        "--timeout",
        "120",
        "-o",
        str(zip_path),
    ]
    assert main(argv) == 0
    root = tmp_path / "autograder"
    with zipfile.ZipFile(zip_path) as z:
        names = set(z.namelist())
        assert {
            "setup.sh",
            "run_autograder",
            "tokvis-grade.json",
            "tokvis-src.tar.gz",
            "corpus.txt",
        } <= names
        assert z.getinfo("run_autograder").external_attr >> 16 & 0o111
        z.extractall(root / "source")
    setup = (root / "source" / "setup.sh").read_text(encoding="utf-8")
    assert "pip install" in setup and "tokvis-src.tar.gz" in setup
    with tarfile.open(root / "source" / "tokvis-src.tar.gz") as tar:
        members = set(tar.getnames())
    assert {
        "tokvis/pyproject.toml",
        "tokvis/tokenizers_core/grading/child.py",
        "tokvis/app/cli/grade.py",
    } <= members
    config = json.loads((root / "source" / "tokvis-grade.json").read_text(encoding="utf-8"))
    assert config["target"] == "student/adapters.py" and config["special"] == [EOT]

    submission = root / "submission"
    (submission / "student").mkdir(parents=True)
    shutil.copy(STUDENTS / "cs336_bpe.py", submission / "cs336_bpe.py")
    shutil.copy(STUDENTS / "cs336_good" / "adapters.py", submission / "student" / "adapters.py")
    env = {**os.environ, "TOKVIS_GRADESCOPE_ROOT": str(root), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(root / "source" / "run_autograder")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == 12.0 and len(results["tests"]) == 10, results
    assert all(t["status"] == "passed" for t in results["tests"])


def test_bundle_needs_an_output_and_a_relative_target(corpus, tmp_path, capsys):
    base = ["grade", "--bundle", "--corpus", str(corpus), "--vocab-size", "300"]
    assert main([*base, "--adapters", "student/adapters.py"]) == 2
    assert "-o autograder.zip" in capsys.readouterr().err
    out = ["-o", str(tmp_path / "a.zip")]
    assert main([*base, "--adapters", str(tmp_path / "adapters.py"), *out]) == 2
    assert "a path inside the student's submission" in capsys.readouterr().err

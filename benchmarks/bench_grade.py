"""Time of `tokvis grade` for each shape, on our good students (tests/grading_students/): the
whole command in a fresh process (the reference's training, the student's code in its child
processes, every check), on botchan at vocab 500 and on the pinned 1 MB English text
(benchmarks/corpus.py) at 4,000. Beside it: the student's own training time (what the
`train: time` check measures, inside the child) and the reference's training alone, in this
process. Wall times (the machine may be shared).

Run: .venv/bin/python benchmarks/bench_grade.py [--quick]   (--quick: botchan only)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.corpus import english_1mb  # noqa: E402
from tokenizers_core.corpora import load_corpus  # noqa: E402
from tokenizers_core.grading.shapes import Shape  # noqa: E402

STUDENTS = ROOT / "tests" / "grading_students"
EOT = "<|endoftext|>"
TARGETS = {
    "minbpe": ["--minbpe", f"{STUDENTS / 'minbpe_students.py'}:RegexTokenizer"],
    "cs336": ["--adapters", str(STUDENTS / "cs336_good" / "adapters.py")],
}


def grade(shape: str, corpus: str, vocab_size: int) -> tuple[float, dict]:
    argv = [
        sys.executable, "-m", "app.cli", "grade", *TARGETS[shape], "--corpus", corpus,
        "--vocab-size", str(vocab_size), "--special", EOT, "--format", "json",
        "--time-limit", "3600", "--timeout", "3600",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"tokvis grade failed: {done.stderr}")
    return seconds, json.loads(done.stdout)


def reference_seconds(shape: str, text: str, vocab_size: int) -> float:
    words = "gpt2" if shape == "cs336" else "gpt4"
    sh = Shape(shape, words, (EOT,) if shape == "cs336" else ())
    start = time.perf_counter()
    sh.train(text, vocab_size, "cs336" if shape == "cs336" else "minbpe")
    return time.perf_counter() - start


def main() -> None:
    quick = "--quick" in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        cases = [("botchan", "botchan", load_corpus("botchan"), 500)]
        if not quick:
            path = Path(tmp) / "english_1mb.txt"
            text = english_1mb()
            path.write_text(text, encoding="utf-8")
            cases.append(("1 MB English", str(path), text, 4000))
        print(f"{'shape':<7} {'corpus':<13} {'vocab':>5}  {'tokvis grade':>12}  "
              f"{'student train':>13}  {'reference train':>15}  score")  # fmt: skip
        for label, corpus, text, vocab_size in cases:
            for shape in TARGETS:
                seconds, report = grade(shape, corpus, vocab_size)
                train = next(t for t in report["tests"] if t["name"] == "train: time")
                student = train["output"].split(" s;")[0].split()[-1]
                ours = reference_seconds(shape, text, vocab_size)
                print(
                    f"{shape:<7} {label:<13} {vocab_size:>5}  {seconds:>10.1f} s  "
                    f"{student:>11} s  {ours:>13.1f} s  "
                    f"{report['score']:g}/{report['max_score']:g}",
                    flush=True,
                )


if __name__ == "__main__":
    main()

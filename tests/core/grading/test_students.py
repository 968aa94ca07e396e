"""Our own students' implementations (tests/grading_students/, never a course's files), graded:
the good ones pass every check, and each buggy one fails exactly the checks its bug breaks,
with the cause named. Each grading runs the student's code in 3-4 child processes."""

from __future__ import annotations

from pathlib import Path

import pytest

import tokenizers_core as tc
from tokenizers_core.corpora import SENNRICH

pytestmark = pytest.mark.slow

STUDENTS = Path(__file__).resolve().parents[2] / "grading_students"
EOT = "<|endoftext|>"
# Sennrich's corpus and a few short documents, cut by the special token: ties, a special token
# to not merge across, and multi-byte characters
CORPUS = EOT.join(
    [
        SENNRICH,
        "the cat sat on the mat.\nThe dog ate the cat's food",
        "aaaa bbbb abab baba\n",
        "Ça va? 你好 😀 the end.\n",
        "low low low lower",
    ]
)
FAST = dict(time_limit=5, timeout=6, memory_mb=1024, iterable_chars=150_000)

ALL_CS336 = {
    "train: merges",
    "train: vocabulary",
    "train: time",
    "encode: english",
    "encode: multilingual",
    "encode: emoji",
    "encode: special tokens",
    "encode: overlapping special tokens",
    "decode: round trip",
    "encode_iterable: streams",
}


def cs336(name: str, **kw):
    path = STUDENTS / ("cs336_good/adapters.py" if name == "good" else f"cs336_{name}.py")
    return tc.grade(
        "cs336",
        path,
        corpus=CORPUS.splitlines(),
        vocab_size=300,
        special_tokens=[EOT],
        **{**FAST, **kw},
    )


def minbpe(cls: str, **kw):
    return tc.grade(
        "minbpe",
        f"{STUDENTS / 'minbpe_students.py'}:{cls}",
        corpus=CORPUS.splitlines(),
        vocab_size=300,
        special_tokens=[EOT],
        **{**FAST, **kw},
    )


def failed(report) -> set[str]:
    return {t.name for t in report.failures}


def test_a_good_cs336_student_passes_everything():
    report = cs336("good")
    assert {t.name for t in report.tests} == ALL_CS336
    assert report.ok, report.to_text()
    assert report.score == report.max_score == 12


@pytest.mark.parametrize("cls", ["RegexTokenizer", "BasicTokenizer"])
def test_good_minbpe_students_pass_everything(cls):
    report = minbpe(cls)
    assert report.ok, report.to_text()
    names = {t.name for t in report.tests}
    assert ("encode: special tokens" in names) == (cls == "RegexTokenizer")


@pytest.mark.parametrize(
    "bug, fails, says",
    [
        (
            "smaller_ties",
            {"train: merges", "train: vocabulary"},
            "the tie rule: replaying with another rule (on a tie, the lexicographically smaller",
        ),
        (
            "merge_across_specials",
            {"train: merges", "train: vocabulary"},
            "special tokens merged across",
        ),
        (
            "no_special_split",
            {
                "encode: special tokens",
                "encode: overlapping special tokens",
                "encode_iterable: streams",
            },
            "special tokens are not matched before pre-tokenising",
        ),
        (
            "shortest_special_first",
            {"encode: overlapping special tokens"},
            "Match the longest special token first",
        ),
        ("iterable_reads_all", {"encode_iterable: streams"}, "reads everything first"),
        (
            "infinite_loop",
            {"train: merges", "train: vocabulary", "train: time"},
            "timed out: killed after",
        ),
        ("crash", {"decode: round trip"}, "IndexError: list index out of range"),
        ("memory_hog", {"train: merges", "train: vocabulary", "train: time"}, "MemoryError"),
        ("exit", {"train: merges", "train: vocabulary", "train: time"}, "SystemExit: 3"),
    ],
)
def test_each_buggy_cs336_student_fails_what_its_bug_breaks(bug, fails, says):
    report = cs336(bug)
    assert failed(report) == fails, report.to_text()
    assert says in report.to_text()


def test_the_first_divergent_merge_is_named_with_both_counts():
    """(l, o) and (o, w) each occur 11 times (low x5 and lower x2 in Sennrich's lines, low x3
    and lower once in the last document), more than any other pair: CS336 takes the greater
    pair of bytes, (o, w); the student's min takes (l, o)."""
    text = cs336("smaller_ties").test("train: merges").output
    assert text.startswith("Merge 1: you merged b'l' + b'o', the reference merges b'o' + b'w'.")
    assert "Both occur 11 times: a tie, and the tie-break decides." in text


@pytest.mark.parametrize(
    "cls, fails, says",
    [
        (
            "GreaterIdsTies",
            {"train: merges", "train: vocabulary"},
            "on a tie, the pair of greater token ids wins",
        ),
        ("OffByOneVocab", {"train: merges", "train: vocabulary"}, "num_merges = vocab_size - 256"),
        ("DroppingDecode", {"decode: round trip"}, "each token decoded on its own"),
    ],
)
def test_each_buggy_minbpe_student_fails_what_its_bug_breaks(cls, fails, says):
    report = minbpe(cls)
    assert failed(report) == fails, report.to_text()
    assert says in report.to_text()


def test_ties_override_the_shapes_rule():
    """The good CS336 student breaks ties CS336's way: graded under minbpe's rule, its merges
    differ (the corpus has ties), and the report says which rule the reference used."""
    report = cs336("good", ties="minbpe")
    assert failed(report) == {"train: merges", "train: vocabulary"}
    assert "minbpe's rule" in report.test("train: merges").output

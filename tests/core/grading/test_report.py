"""A grading's report in its four renderings."""

from __future__ import annotations

import json
from xml.etree import ElementTree

from tokenizers_core.grading import GradeReport, GradeTest

REPORT = GradeReport(
    "cs336",
    "student/adapters.py",
    [
        GradeTest("train: merges", 0.0, 3.0, "failed", "Merge 4: you merged b'a' + b'b', ..."),
        GradeTest("decode: round trip", 1.0, 1.0, "passed", "decode(encode(text)) == text"),
    ],
    settings={"corpus": "botchan", "vocab_size": 500, "ties": "cs336"},
    seconds=1.5,
)


def test_scores_and_status():
    assert (REPORT.ok, REPORT.score, REPORT.max_score) == (False, 1.0, 4.0)
    assert [t.name for t in REPORT.failures] == ["train: merges"]


def test_gradescope_results_json_has_the_documented_fields():
    doc = json.loads(REPORT.render("gradescope"))
    assert doc["score"] == 1.0 and doc["execution_time"] == 1.5
    assert doc["visibility"] == "visible" and doc["stdout_visibility"] == "hidden"
    assert doc["tests"][0] == {
        "name": "train: merges",
        "score": 0.0,
        "max_score": 3.0,
        "status": "failed",
        "output": "Merge 4: you merged b'a' + b'b', ...",
        "visibility": "visible",
    }


def test_junit_has_a_testcase_per_check_and_a_failure_per_failed_one():
    suite = ElementTree.fromstring(REPORT.to_junit().split("?>", 1)[1])
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["train: merges", "decode: round trip"]
    assert cases[0].find("failure").get("message").startswith("Merge 4")


def test_json_and_text():
    doc = json.loads(REPORT.to_json())
    assert doc["ok"] is False and doc["tests"][1]["status"] == "passed"
    text = REPORT.to_text()
    assert "FAIL  train: merges" in text and "Score 1/4: 1 of 2 checks failed." in text
    assert "--- train: merges ---\nMerge 4" in text

"""A grading's report: named tests with scores, and its four renderings (text for people, JSON,
JUnit XML for CI, Gradescope's results.json).

>>> r = GradeReport("cs336", "adapters.py", [GradeTest("train: merges", 0, 2, "failed", "x"),
...                                          GradeTest("decode", 1, 1, "passed", "")])
>>> r.ok, r.score, r.max_score
(False, 1.0, 3.0)
>>> r.to_gradescope()["tests"][0]["status"]
'failed'
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any
from xml.etree import ElementTree

STATUSES = ("passed", "failed")


@dataclass(frozen=True)
class GradeTest:
    """One named check: `score` of `max_score`, `status` passed or failed, and `output` (what
    was compared, and why it failed: the first divergent merge, a traceback, ...)."""

    name: str
    score: float
    max_score: float
    status: str
    output: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "passed"


@dataclass(frozen=True)
class GradeReport:
    """What `tc.grade` found: its tests, in the order they ran, and what was graded."""

    shape: str
    target: str
    tests: list[GradeTest]
    settings: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return all(t.ok for t in self.tests)

    @property
    def score(self) -> float:
        return float(sum(t.score for t in self.tests))

    @property
    def max_score(self) -> float:
        return float(sum(t.max_score for t in self.tests))

    @property
    def failures(self) -> list[GradeTest]:
        return [t for t in self.tests if not t.ok]

    def test(self, name: str) -> GradeTest:
        """The test of that name (KeyError if none)."""
        for t in self.tests:
            if t.name == name:
                return t
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "target": self.target,
            "ok": self.ok,
            "score": self.score,
            "max_score": self.max_score,
            "seconds": round(self.seconds, 3),
            "settings": self.settings,
            "tests": [asdict(t) for t in self.tests],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1) + "\n"

    def to_text(self) -> str:
        """The report for people: a line per test, then what each failure says."""
        s = self.settings
        lines = [
            f"tokvis grade: {self.target} ({self.shape} shape), corpus {s.get('corpus')}, "
            f"vocab_size {s.get('vocab_size')}, ties {s.get('ties')}",
            "",
        ]
        width = max((len(t.name) for t in self.tests), default=0)
        for t in self.tests:
            mark = "PASS" if t.ok else "FAIL"
            lines.append(f"  {mark}  {t.name:<{width}}  {_num(t.score)}/{_num(t.max_score)}")
        lines.append("")
        lines.append(
            f"Score {_num(self.score)}/{_num(self.max_score)}: "
            + (
                "every check passed."
                if self.ok
                else f"{len(self.failures)} of {len(self.tests)} checks failed."
            )
        )
        for t in self.failures:
            lines += ["", f"--- {t.name} ---", t.output.rstrip()]
        return "\n".join(lines) + "\n"

    def to_junit(self) -> str:
        """JUnit XML: a `testsuite` of one `testcase` per check, a `failure` for each failed
        one (CI systems show these per test)."""
        suite = ElementTree.Element(
            "testsuite",
            name=f"tokvis grade {self.target}",
            tests=str(len(self.tests)),
            failures=str(len(self.failures)),
            errors="0",
            time=f"{self.seconds:.3f}",
        )
        for t in self.tests:
            case = ElementTree.SubElement(
                suite, "testcase", classname=f"tokvis.grade.{self.shape}", name=t.name
            )
            if not t.ok:
                failure = ElementTree.SubElement(
                    case, "failure", message=(t.output.split("\n")[0])[:300], type="GradeFailure"
                )
                failure.text = t.output
            elif t.output:
                ElementTree.SubElement(case, "system-out").text = t.output
        return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"

    def to_gradescope(self, visibility: str = "visible") -> dict[str, Any]:
        """Gradescope's results.json: `score`, `execution_time`, `output`, `visibility`,
        `stdout_visibility` and `tests` [{name, score, max_score, status, output,
        visibility}] (gradescope-autograders.readthedocs.io, "Autograder Specifications")."""
        return {
            "score": self.score,
            "execution_time": round(self.seconds, 3),
            "output": (
                f"tokvis grade ({self.shape}): {_num(self.score)}/{_num(self.max_score)}"
                + ("" if self.ok else f"; {len(self.failures)} check(s) failed")
            ),
            "visibility": visibility,
            "stdout_visibility": "hidden",
            "tests": [
                {
                    "name": t.name,
                    "score": t.score,
                    "max_score": t.max_score,
                    "status": t.status,
                    "output": t.output,
                    "visibility": visibility,
                }
                for t in self.tests
            ],
        }

    def render(self, fmt: str) -> str:
        """The report in one of `FORMATS`."""
        if fmt == "text":
            return self.to_text()
        if fmt == "json":
            return self.to_json()
        if fmt == "junit":
            return self.to_junit()
        if fmt == "gradescope":
            return json.dumps(self.to_gradescope(), ensure_ascii=False, indent=1) + "\n"
        raise ValueError(f"unknown format {fmt!r}; choose one of: {', '.join(FORMATS)}")


FORMATS = ("text", "json", "junit", "gradescope")


def _num(x: float) -> str:
    return f"{x:g}"

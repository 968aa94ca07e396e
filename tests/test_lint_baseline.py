"""scripts/lint_baseline.py, the lint baseline that only shrinks, on fixtures (not on ruff or
mypy themselves): findings grouped by (file, rule), a grown or new group fails the check and is
printed, a shrunk one passes, and `--update` refuses growth unless told."""

from __future__ import annotations

import doctest
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC = importlib.util.spec_from_file_location(
    "lint_baseline", ROOT / "scripts" / "lint_baseline.py"
)
assert SPEC is not None and SPEC.loader is not None
lint_baseline = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(lint_baseline)

MYPY_OUTPUT = """\
app/a.py:3: error: Argument 1 has incompatible type "str"; expected "int"  [arg-type]
app/a.py:3: note: see the docs
app/a.py:9: error: Argument 2 has incompatible type "str"; expected "int"  [arg-type]
tokenizers_core/b.py:12:5: error: Name "x" is not defined  [name-defined]
Found 3 errors in 2 files (checked 2 source files)
"""


def test_the_doctests_of_the_script():
    assert doctest.testmod(lint_baseline).failed == 0


def test_mypy_findings_group_by_file_and_code_not_by_line():
    grouped = lint_baseline.group(lint_baseline.parse_mypy(MYPY_OUTPUT))
    assert grouped == {"app/a.py": {"arg-type": 2}, "tokenizers_core/b.py": {"name-defined": 1}}
    # the same findings on other lines (code moved) are the same groups
    moved = MYPY_OUTPUT.replace(":3:", ":30:").replace(":9:", ":90:")
    assert lint_baseline.group(lint_baseline.parse_mypy(moved)) == grouped


def test_ruff_json_is_read_relative_to_the_root(tmp_path):
    text = json.dumps(
        [
            {
                "filename": str(tmp_path / "pkg" / "m.py"),
                "code": "E501",
                "location": {"row": 7, "column": 101},
                "message": "Line too long",
            }
        ]
    )
    assert lint_baseline.parse_ruff(text, tmp_path) == [
        {"file": "pkg/m.py", "code": "E501", "line": 7, "message": "Line too long"}
    ]


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """The script pointed at a baseline folder in tmp_path, with the findings `now` holds."""
    now: list[dict] = []
    monkeypatch.setattr(lint_baseline, "BASELINE_DIR", tmp_path / "lint-baseline")
    monkeypatch.setattr(lint_baseline, "ROOT", tmp_path)
    monkeypatch.setattr(lint_baseline, "run_tool", lambda tool: list(now))
    return now


def _finding(file: str, code: str, line: int = 1) -> dict:
    return {"file": file, "code": code, "line": line, "message": f"{code} here"}


def test_a_grown_or_new_group_fails_and_is_printed(fake, capsys):
    fake[:] = [_finding("a.py", "E501"), _finding("a.py", "F401")]
    assert lint_baseline.main(["ruff", "--update", "--allow-growth"]) == 0
    fake.append(_finding("a.py", "E501", 40))  # the group grew: 1 -> 2
    fake.append(_finding("b.py", "E741", 3))  # a new group
    assert lint_baseline.main(["ruff"]) == 1
    out = capsys.readouterr().out
    assert "ruff: 2 in the baseline -> 4 now (2 groups grew" in out
    assert "a.py [E501]: 1 -> 2" in out and "a.py:40: E501 here" in out
    assert "b.py [E741]: 0 -> 1" in out and "b.py:3: E741 here" in out


def test_a_shrunk_group_passes_and_update_lowers_the_baseline(fake, capsys, tmp_path):
    fake[:] = [_finding("a.py", "E501"), _finding("a.py", "E501", 2), _finding("a.py", "F401")]
    lint_baseline.main(["mypy", "--update", "--allow-growth"])
    del fake[1:]  # two findings fixed
    assert lint_baseline.main(["mypy"]) == 0
    assert "--update" in capsys.readouterr().out  # it says how to lock it in
    assert lint_baseline.main(["mypy", "--update"]) == 0
    saved = json.loads((tmp_path / "lint-baseline" / "mypy.json").read_text(encoding="utf-8"))
    assert saved == {"a.py": {"E501": 1}}


def test_update_refuses_growth_unless_allowed(fake, tmp_path):
    fake[:] = [_finding("a.py", "E501")]
    lint_baseline.main(["ruff", "--update", "--allow-growth"])
    fake.append(_finding("a.py", "E501", 9))
    assert lint_baseline.main(["ruff", "--update"]) == 1
    path = tmp_path / "lint-baseline" / "ruff.json"
    assert json.loads(path.read_text(encoding="utf-8")) == {"a.py": {"E501": 1}}
    assert lint_baseline.main(["ruff", "--update", "--allow-growth"]) == 0
    assert json.loads(path.read_text(encoding="utf-8")) == {"a.py": {"E501": 2}}

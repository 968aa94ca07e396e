"""The tests' own hygiene, kept by a test: data found one way, waits that poll.

- No test hard-codes where this machine keeps the checkout or the shared data: paths come from
  `tests/shared_data.py` (which alone knows that `shared` sits beside the repository).
- A fixed `time.sleep` in a test body (not inside a polling loop) assumes how far a job or a
  server got, which is what flakes on a busy machine: poll with `tests/polling.wait_until`
  instead, or say on the line, after `# sleep:`, why waiting blindly is the point.
- A test file cited in the code or the docs (a docstring saying which test proves a claim, a
  Makefile line naming a file) names a file that exists: when tests move, the citations follow.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
FILES = sorted(p for p in TESTS.rglob("*.py") if p.name != Path(__file__).name)
ABSOLUTE = re.compile(r"""["'](/work|/tmp/ci-check|/root)/""")
OWN_SEARCH = re.compile(r"""["']shared["']\s*/\s*["']data["']|parents[^\n]*shared""")


def rel(path: Path) -> str:
    return str(path.relative_to(TESTS.parent))


@pytest.mark.parametrize("path", FILES, ids=rel)
def test_no_absolute_paths_and_one_way_to_the_shared_data(path):
    text = path.read_text(encoding="utf-8")
    assert not ABSOLUTE.search(text), f"{rel(path)}: an absolute path; use tests/shared_data.py"
    if path.name != "shared_data.py":
        assert not OWN_SEARCH.search(text), (
            f"{rel(path)}: searches for the shared data itself; import it from tests.shared_data"
        )


def blind_sleeps(tree: ast.AST) -> list[int]:
    """Lines of `time.sleep(<constant of 0.2 s or more>)` not inside a loop or a lambda."""
    found: list[int] = []

    def visit(node: ast.AST, in_loop: bool) -> None:
        in_loop = in_loop or isinstance(node, (ast.For, ast.While, ast.Lambda, ast.AsyncFor))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "sleep"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, (int, float))
            and node.args[0].value >= 0.2
            and not in_loop
        ):
            found.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, in_loop)

    visit(tree, False)
    return found


@pytest.mark.parametrize("path", FILES, ids=rel)
def test_a_fixed_sleep_says_why(path):
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    unexplained = [n for n in blind_sleeps(ast.parse(text)) if "# sleep:" not in lines[n - 1]]
    assert not unexplained, (
        f"{rel(path)}: fixed sleeps at lines {unexplained}; poll with tests.polling.wait_until, "
        "or say after '# sleep:' on the line why a blind wait is the point"
    )


def test_the_rules_catch_what_they_are_for():
    code = "import time\ndef test():\n    time.sleep(1)\n    while x:\n        time.sleep(1)\n"
    assert blind_sleeps(ast.parse(code)) == [3]
    assert ABSOLUTE.search('INTEROP = Path("/work/shared/data")')
    assert OWN_SEARCH.search('next(p / "shared" / "data" for p in here.parents)')


# ---- a fresh clone, without ../shared (issue 38, item 7) ----------------------------------------
@pytest.mark.heavy
def test_hiding_the_shared_data_hides_every_path_and_the_fixture_skips_even_under_ci(tmp_path):
    (tmp_path / "test_it.py").write_text(
        "from tests import shared_data as where\n"
        "def test_paths():\n"
        "    assert where.HIDDEN and not where.INTEROP.exists() and not where.DATA.exists()\n"
        "    assert 'TOKVIS_HIDE_SHARED' in where.missing_reason()\n"
        "def test_fixture(shared_data):\n"
        "    raise AssertionError('not skipped')\n",
        encoding="utf-8",
    )
    (tmp_path / "conftest.py").write_text(
        "from tests.conftest import shared_data  # noqa: F401\n", encoding="utf-8"
    )
    env = {**os.environ, "TOKVIS_HIDE_SHARED": "1", "CI": "true", "PYTHONPATH": str(TESTS.parent)}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed, 1 skipped" in out.stdout and "hidden" in out.stdout, out.stdout


def files_reading_the_shared_data() -> set[str]:
    """Test files that import tests.shared_data, take its fixture, or import a helper of tests/
    that reads it."""
    helpers = [p.stem for p in TESTS.glob("*.py") if "shared_data" in p.read_text(encoding="utf-8")]
    helpers = [h for h in helpers if h != "conftest" and not h.startswith("test_")]
    return {
        rel(p)
        for p in FILES
        if p.name.startswith("test_") and any(h in p.read_text(encoding="utf-8") for h in helpers)
    }


def test_ci_runs_every_test_that_reads_the_shared_data_again_without_it():
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    ci = (TESTS.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "\ntime make test-without-shared || status=1\n" in ci
    out = subprocess.run(
        ["make", "-n", "test-without-shared"],
        cwd=TESTS.parent,
        capture_output=True,
        text=True,
    )
    command = next(line for line in out.stdout.splitlines() if "TOKVIS_HIDE_SHARED=1" in line)
    assert '-m "not slow or heavy"' in command
    listed = {word for word in command.split() if word.startswith("tests/")}
    wanted = files_reading_the_shared_data()
    assert "tests/core/formats/test_exactness.py" in wanted
    assert wanted <= listed, sorted(wanted - listed)


# where a citation of a test file may be: the code, the docs and the build files, not the lint
# baselines (which name files that are gone until they are regenerated) nor the environments
CITING_SUFFIXES = {".py", ".md", ".html", ".txt", ".toml", ".yaml", ".yml", ".cfg", ".j2", ".json"}
CITING_NAMES = {"Makefile", "Dockerfile", "PROVENANCE", "NOTICE", "run"}
NOT_CITING = {".git", ".venv", "lint-baseline", "site", "build", "dist", "node_modules", ".tokvis"}
TEST_PATH = re.compile(r"\btests/[A-Za-z0-9_/]+\.py\b")


def citing_files(root: Path) -> list[Path]:
    """The text files under `root` that may cite a test file (small ones: no data file)."""
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in NOT_CITING and not d.startswith((".", "__"))]
        dirs += [d for d in (".ci",) if folder == str(root) and (root / d).is_dir()]
        for name in names:
            path = Path(folder) / name
            if path.suffix in CITING_SUFFIXES or name in CITING_NAMES:
                if path.stat().st_size < 2_000_000:
                    found.append(path)
    return found


def stale_citations(root: Path) -> list[str]:
    """`file: cited path` for every test file cited under `root` that does not exist."""
    stale = []
    for path in citing_files(root):
        text = path.read_text(encoding="utf-8", errors="replace")
        for cited in sorted(set(TEST_PATH.findall(text))):
            if not (root / cited).is_file():
                stale.append(f"{path.relative_to(root)}: {cited}")
    return stale


def test_every_cited_test_file_exists():
    assert stale_citations(TESTS.parent) == []


def test_a_citation_of_a_moved_test_file_is_found(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_here.py").write_text("")
    here, gone = "tests/" + "test_here.py", "tests/" + "gone/test_there.py"  # (split: not cited)
    (tmp_path / "notes.md").write_text(f"see {here} and {gone}\n")
    assert stale_citations(tmp_path) == [f"notes.md: {gone}"]

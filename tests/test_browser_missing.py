"""`make test` on a machine without Chromium: the browser tests are skipped
with one line saying how to install it; under CI=true a missing browser fails the run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs pytest twice in subprocesses

ROOT = Path(__file__).resolve().parent.parent


def run_browser_tests(**env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "CI"}
    environ.update(TOKVIS_CHROMIUM="/nonexistent/chromium", **env)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/browser/test_layout_browser.py",
            "tests/app/pages/test_docs.py",
        ],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_chromium_browser_tests_skip_with_one_line():
    r = run_browser_tests()
    assert r.returncode == 0, r.stdout[-2000:]
    lines = [line for line in r.stdout.splitlines() if "chromium" in line.lower()]
    assert len(lines) == 1, lines
    assert "apt-get install -y chromium" in lines[0] and "browser tests skipped" in lines[0]
    assert " passed" in r.stdout and "error" not in r.stdout.lower()


def test_under_ci_a_missing_chromium_fails_the_run():
    r = run_browser_tests(CI="true")
    assert r.returncode != 0
    assert "chromium" in (r.stdout + r.stderr).lower()

"""`tokenizers_core` is a library of its own: it needs `regex` and `jinja2` (with MarkupSafe,
which jinja2 installs) and nothing else: no FastAPI, no database drivers, no test libraries.
Proved in a Python that sees only those three packages and the library (`-I -S`: no
site-packages, no PYTHONPATH, so any other import fails): every module of the library imports,
and loading, encoding, training and a chat template run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jinja2
import markupsafe
import regex

import tokenizers_core

PROGRAM = r"""
import pkgutil, sys
sys.path.insert(0, sys.argv[1])
import tokenizers_core as tc
for info in pkgutil.walk_packages(tc.__path__, "tokenizers_core."):
    __import__(info.name)
tok = tc.load("gpt2")
ids = tok.encode("Hello, world! Καλημέρα κόσμε").ids
assert tok.decode(ids) == "Hello, world! Καλημέρα κόσμε", ids
trained = tc.train("bpe", ["low lower newest widest"] * 20, vocab_size=40)
assert trained.encode("lowest").ids
from tokenizers_core.chat import apply_chat_template
print(apply_chat_template(None, [{"role": "user", "content": "hi"}],
                          chat_template="{% for m in messages %}{{ m.content }}|{% endfor %}"))
"""


def _site(tmp_path: Path) -> Path:
    """A folder holding only the library and the packages it may need, as links."""
    site = tmp_path / "site"
    site.mkdir()
    for module in (tokenizers_core, regex, jinja2, markupsafe):
        package = Path(module.__file__).parent
        (site / package.name).symlink_to(package, target_is_directory=True)
    return site


def test_the_library_runs_with_regex_and_jinja2_alone(tmp_path):
    site = _site(tmp_path)
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROGRAM, str(site)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "hi|" in done.stdout, done.stdout


def test_a_missing_package_is_seen_as_missing(tmp_path):
    """The check can fail: without regex in the folder, importing the library fails."""
    site = _site(tmp_path)
    (site / "regex").unlink()
    done = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); import tokenizers_core",
            str(site),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode != 0 and "regex" in done.stderr

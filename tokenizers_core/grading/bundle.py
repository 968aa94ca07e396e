"""A Gradescope autograder for `tokvis grade`: a zip with `setup.sh`, `run_autograder`, the
options (`tokvis-grade.json`), this package's source (`tokvis-src.tar.gz`, which setup.sh
installs with pip) and the corpus when it is a file.

Gradescope unpacks the zip into /autograder/source, runs setup.sh once when it builds the image,
and run_autograder for each submission (the student's files in /autograder/submission); the
results go to /autograder/results/results.json (gradescope-autograders.readthedocs.io,
"Autograder Specifications"). run_autograder runs `python3 -m app.cli grade ...` (`tokvis
grade`) with the options, `--format gradescope`, the target path taken inside the submission,
and writes a results.json saying what went wrong if the grader itself fails. The root is
$TOKVIS_GRADESCOPE_ROOT when set (the tests run it under a temporary folder, against the
package already installed) and /autograder otherwise.
"""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path
from typing import Any

from ..errors import InvalidInput

CONFIG = "tokvis-grade.json"
SOURCE_ARCHIVE = "tokvis-src.tar.gz"
# what the package's source is: pyproject.toml's packages and package-dir
SOURCE_PARTS = (
    "pyproject.toml",
    "README.md",
    "LICENSE",
    "tokenizers_core",
    "app",
    "templates",
    "static",
)

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (written by
# `tokvis grade --bundle`). tokvis needs Python 3.11 or later: pick an Ubuntu 24.04 base image.
set -euo pipefail
cd /autograder/source
python3 -m pip install --break-system-packages ./{archive} \\
  || python3 -m pip install ./{archive}
"""

RUN_AUTOGRADER = '''#!/usr/bin/env python3
"""Gradescope runs this for each submission (written by `tokvis grade --bundle`): the same
`tokvis grade` with the options in tokvis-grade.json, on the files in submission/, writing
results/results.json. The root is $TOKVIS_GRADESCOPE_ROOT, else /autograder."""
import json
import os
import subprocess
import sys

root = os.environ.get("TOKVIS_GRADESCOPE_ROOT", "/autograder")
source = os.path.join(root, "source")
results = os.path.join(root, "results", "results.json")
os.makedirs(os.path.dirname(results), exist_ok=True)
with open(os.path.join(source, "{config}"), encoding="utf-8") as fh:
    config = json.load(fh)
target = os.path.join(root, "submission", config["target"])
argv = [sys.executable, "-m", "app.cli", "grade", "--" + config["shape_flag"], target]
corpus = config["corpus"]
if config.get("corpus_file"):
    corpus = os.path.join(source, corpus)
argv += ["--corpus", corpus, "--vocab-size", str(config["vocab_size"])]
for token in config.get("special", []):
    argv += ["--special", token]
for flag in ("ties", "time_limit", "timeout", "memory_mb"):
    if config.get(flag) is not None:
        argv += ["--" + flag.replace("_", "-"), str(config[flag])]
argv += ["--format", "gradescope", "-o", results]
done = subprocess.run(argv, cwd=root, capture_output=True, text=True)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
if done.returncode not in (0, 1) or not os.path.exists(results):
    message = (done.stderr or done.stdout).strip()[-3000:]
    with open(results, "w", encoding="utf-8") as fh:
        json.dump({{"score": 0, "output": "The autograder could not grade this submission: "
                   + message, "tests": []}}, fh)
sys.exit(0)
'''


def source_root() -> Path:
    """The folder holding this package's pyproject.toml (a source checkout)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "pyproject.toml").is_file():
        raise InvalidInput(
            "--bundle packs the tokvis source it runs from, and this tokvis is not a source "
            "checkout (no pyproject.toml beside tokenizers_core/): run it from a clone"
        )
    return root


def source_archive(root: Path) -> bytes:
    """The package's source as a .tar.gz that pip installs (an sdist's content)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for part in SOURCE_PARTS:
            path = root / part
            if not path.exists():
                continue
            files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
            for f in files:
                if "__pycache__" in f.parts or f.suffix == ".pyc":
                    continue
                tar.add(f, arcname=f"tokvis/{f.relative_to(root)}", recursive=False)
    return buf.getvalue()


def write_bundle(
    output: str | Path,
    *,
    shape: str,
    target: str,
    corpus: str,
    vocab_size: int,
    special_tokens: list[str],
    options: dict[str, Any],
    corpus_is_file: bool,
) -> dict[str, Any]:
    """Write the autograder zip; returns the config it holds. `target` is the path inside the
    submission (minbpe: `PATH.py:Class`)."""
    if Path(target.split(":")[0]).is_absolute():
        raise InvalidInput(
            f"with --bundle, the target is a path inside the student's submission "
            f"(e.g. student/adapters.py), not {target!r}"
        )
    config: dict[str, Any] = {
        "shape_flag": "minbpe" if shape == "minbpe" else "adapters",
        "target": target,
        "corpus": Path(corpus).name if corpus_is_file else corpus,
        "corpus_file": corpus_is_file,
        "vocab_size": vocab_size,
        "special": list(special_tokens),
        **options,
    }
    archive = source_archive(source_root())
    with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as z:
        _add(z, "setup.sh", SETUP_SH.format(archive=SOURCE_ARCHIVE), executable=True)
        _add(z, "run_autograder", RUN_AUTOGRADER.format(config=CONFIG), executable=True)
        _add(z, CONFIG, json.dumps(config, indent=1, ensure_ascii=False) + "\n")
        z.writestr(SOURCE_ARCHIVE, archive)
        if corpus_is_file:
            z.write(corpus, arcname=Path(corpus).name)
    return config


def _add(z: zipfile.ZipFile, name: str, text: str, *, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name)
    info.external_attr = (0o755 if executable else 0o644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, text)

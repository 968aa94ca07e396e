"""The pinned 1 MB English text that every benchmark uses.

It is the start of Debian's ``fortunes`` package (quotations, ~2.6 MB of real English in
``/usr/share/games/fortunes``): the plain fortune files (no ``.dat`` index, no ``.u8`` link) in
sorted file-name order, concatenated, cut at the last line boundary at or before 1,000,000 bytes.
The bytes are pinned by SHA-256, so a different package version fails loudly instead of silently
changing every figure.

>>> text = english_1mb()          # doctest: +SKIP
>>> len(text.encode("utf-8")) <= 1_000_000 and text.endswith("\\n")   # doctest: +SKIP
True

If the package is missing and we run as root with apt-get available, it is installed
(``apt-get install -y fortunes``); otherwise a RuntimeError says how to install it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

FORTUNES_DIR = Path("/usr/share/games/fortunes")
LIMIT_BYTES = 1_000_000
# Debian bookworm fortunes 1:1.99.1-7.3; see english_1mb_bytes().
PINNED_SHA256 = "cc5fd64e8fb623e41a9ec6c1552f1a2ad1e6d2ad23e93b5085418c4629cb47e4"


def _fortune_files() -> list[Path]:
    """The plain fortune files, sorted by name (the fixed file order)."""
    return sorted(
        p
        for p in FORTUNES_DIR.iterdir()
        if p.is_file() and not p.is_symlink() and "." not in p.name
    )


def _ensure_installed() -> None:
    if FORTUNES_DIR.is_dir() and _fortune_files():
        return
    if os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(
            ["apt-get", "install", "-y", "fortunes"],
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    if not (FORTUNES_DIR.is_dir() and _fortune_files()):
        raise RuntimeError(
            "the benchmark corpus needs Debian's fortunes package: "
            "run `apt-get update && apt-get install -y fortunes`"
        )


@functools.lru_cache(maxsize=1)
def english_1mb_bytes() -> bytes:
    """The pinned bytes (UTF-8), at most 1,000,000, ending at a line boundary."""
    _ensure_installed()
    data = b"".join(p.read_bytes() for p in _fortune_files())
    cut = data.rfind(b"\n", 0, LIMIT_BYTES) + 1
    data = data[:cut]
    digest = hashlib.sha256(data).hexdigest()
    if digest != PINNED_SHA256:
        raise RuntimeError(
            f"benchmark corpus changed: sha256 {digest}, expected {PINNED_SHA256} "
            f"(a different fortunes package version?)"
        )
    return data


def english_1mb() -> str:
    """The pinned 1 MB English text (str) used by ALL benchmarks."""
    return english_1mb_bytes().decode("utf-8")


def english_1mb_lines() -> list[str]:
    """The same text as a list of lines (without the newlines), for line-based trainers."""
    return english_1mb().split("\n")[:-1]


if __name__ == "__main__":
    text = english_1mb()
    print(
        f"{len(text.encode('utf-8'))} bytes, {len(text)} chars, "
        f"{text.count(chr(10))} lines, sha256 {hashlib.sha256(text.encode()).hexdigest()}"
    )


def precompile() -> None:
    """Byte-compile the project as pip byte-compiles an installed package (the references'
    Python code in site-packages already has its .pyc). Without this, an environment with
    PYTHONDONTWRITEBYTECODE=1 recompiles our sources in every fresh process and a
    whole-process timing charges us for it."""
    import compileall

    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "tokenizers_core"), quiet=1)

"""Fetch llama.cpp's tokenizer test vocabularies into a cache directory (not the repository).

llama.cpp ships `models/ggml-vocab-*.gguf` (GGUF files holding only a tokenizer) with
`.gguf.inp` / `.gguf.out` pairs: test texts and the token ids llama.cpp gives them
(`tests/test-tokenizer-0.cpp`). The same files are vendored in the `llama-cpp-python` sdist
on PyPI, which pip can download anywhere PyPI is reachable. This script downloads that sdist
(pinned by version and sha256), checks it, and extracts only `models/ggml-vocab-*` into

    ~/.cache/tokvis/llama-cpp-vocabs/<version>/        ($TOKVIS_CACHE replaces ~/.cache/tokvis)

It is idempotent: when the directory already holds the files (a `.complete` marker written
last) it does nothing. It never runs at app run time; `tests/core/formats/
test_llama_cpp_vocabs.py` reads the directory, and runs this script itself under CI=true.

    .venv/bin/python scripts/fetch_llama_cpp_vocabs.py          # prints the directory
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

VERSION = "0.3.36"
SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
SDIST = f"llama_cpp_python-{VERSION}.tar.gz"
MEMBER_PREFIX = f"llama_cpp_python-{VERSION}/vendor/llama.cpp/models/ggml-vocab-"
MARKER = ".complete"


def cache_dir(version: str = VERSION) -> Path:
    """Where the vocabularies of `version` live (the directory may not exist yet)."""
    root = os.environ.get("TOKVIS_CACHE") or os.path.join(Path.home(), ".cache", "tokvis")
    return Path(root) / "llama-cpp-vocabs" / version


def is_complete(directory: Path) -> bool:
    return (directory / MARKER).is_file()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(into: Path) -> Path:
    """The sdist, downloaded by pip (no dependencies, no wheel). pip prepares the sdist's
    metadata in an isolated environment (it installs the build backend there, ~30 s); the
    package itself is never built."""
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        f"llama-cpp-python=={VERSION}",
        "--no-deps",
        "--no-binary",
        ":all:",
        "--quiet",
        "-d",
        str(into),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    sdist = into / SDIST
    # the checked file is what counts, whatever pip said after saving it
    if not sdist.is_file():
        raise RuntimeError(
            f"pip could not download llama-cpp-python=={VERSION} "
            f"(exit {done.returncode}): {done.stderr.strip()[-500:]}"
        )
    return sdist


def _extract(sdist: Path, directory: Path) -> int:
    """Extract the `ggml-vocab-*` members into `directory` (flat); returns how many."""
    count = 0
    with tarfile.open(sdist, "r:gz") as tar:
        for member in tar:
            if not member.isfile() or not member.name.startswith(MEMBER_PREFIX):
                continue
            name = os.path.basename(member.name)
            source = tar.extractfile(member)
            if source is None:
                continue
            with source, open(directory / name, "wb") as out:
                shutil.copyfileobj(source, out)
            count += 1
    return count


def fetch(version: str = VERSION, *, quiet: bool = False) -> Path:
    """Download, check and extract (once); returns the directory holding the files."""
    if version != VERSION:
        raise ValueError(f"only the pinned version {VERSION} has a known sha256")
    directory = cache_dir(version)
    if is_complete(directory):
        return directory
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tokvis-llama-cpp-") as tmp:
        sdist = _download(Path(tmp))
        digest = _sha256(sdist)
        if digest != SHA256:
            raise RuntimeError(f"{SDIST} has sha256 {digest}, expected {SHA256}")
        size = sdist.stat().st_size
        directory.mkdir(parents=True, exist_ok=True)
        count = _extract(sdist, directory)
    if count == 0:
        raise RuntimeError(f"{SDIST} holds no {MEMBER_PREFIX}* files")
    (directory / MARKER).write_text(f"{SDIST} sha256 {SHA256} {size} bytes\n")
    if not quiet:
        print(
            f"fetched {SDIST} ({size:,} bytes, sha256 {SHA256[:12]}...), "
            f"{count} files in {time.monotonic() - started:.1f} s",
            file=sys.stderr,
        )
    return directory


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quiet", action="store_true", help="print only the directory")
    args = parser.parse_args(argv)
    try:
        print(fetch(quiet=args.quiet))
    except (OSError, RuntimeError, tarfile.TarError) as exc:
        print(f"fetch_llama_cpp_vocabs: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

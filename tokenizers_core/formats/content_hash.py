"""The content hash of a tokenizer's file, bytes or folder (a fingerprint's `sha256`, see
`tokenizers_core.fingerprints`): sha256 of a file's bytes, read a MiB at a time (a GGUF model may be
gigabytes), or of a folder's manifest, one line per tokenizer file in it."""

from __future__ import annotations

import os
from hashlib import sha256
from typing import Any

from .model_folder import file_key


def source_sha256(source: Any) -> str | None:
    """sha256 of a file's bytes, of bytes, or of a folder's manifest; None for a name."""
    if isinstance(source, (bytes, bytearray)):
        return sha256(bytes(source)).hexdigest()
    path = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
    if path and os.path.isfile(path):
        return file_sha256(path)
    if path and os.path.isdir(path):
        return sha256(folder_manifest(path).encode()).hexdigest()
    return None


def file_sha256(path: str, chunk: int = 1 << 20) -> str:
    """sha256 of a file, read a MiB at a time."""
    digest = sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def folder_manifest(path: str) -> str:
    """One line per tokenizer file of a model folder (the files `tc.load` reads from it: see
    `model_folder.file_key`), sorted: `<name> <sha256>`. Weights and READMEs beside them are not
    in it."""
    lines = []
    for root, _dirs, files in os.walk(path):
        for name in files:
            full = os.path.join(root, name)
            key = file_key(os.path.relpath(full, path))
            if key is not None:
                lines.append(f"{key} {file_sha256(full)}\n")
    return "".join(sorted(lines))

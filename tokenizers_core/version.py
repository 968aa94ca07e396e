"""The installed package's version (pyproject.toml is the one place it is written)."""

from __future__ import annotations

import importlib.metadata


def version() -> str:
    """The version pip installed; a source tree that was never installed says so rather than
    guess."""
    try:
        return importlib.metadata.version("tokenizer-visualiser")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"

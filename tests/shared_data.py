"""Where the tests find data: the one place that knows.

The repository is checked out beside `../shared` (here /work/shared; CI clones the repository to a
fresh folder with `shared` beside it), which holds the real vocabularies, corpora and the Llama
interop files (`data/interop/`, see its SOURCES.md). `TOKVIS_SHARED_DATA` points elsewhere. Tests
import the paths from here (`from tests.shared_data import INTEROP`) or take the `shared_data`
fixture (tests/conftest.py), which skips, or fails under CI, when the folder is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("TOKVIS_SHARED_DATA") or REPO.parent / "shared")
DATA = SHARED / "data"
INTEROP = DATA / "interop"
BUNDLED = REPO / "tokenizers_core" / "data"


def missing_reason() -> str | None:
    """Why the shared data cannot be used, or None when it can."""
    if not INTEROP.is_dir():
        return f"needs the shared data beside the repository: {INTEROP} is absent"
    return None

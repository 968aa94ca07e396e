"""Where the tests find data: the one place that knows.

The repository is checked out beside `../shared` (here /work/shared; CI clones the repository to a
fresh folder with `shared` beside it), which holds the real vocabularies, corpora and the Llama
interop files (`data/interop/`, see its SOURCES.md). `TOKVIS_SHARED_DATA` points elsewhere. Tests
import the paths from here (`from tests.shared_data import INTEROP`) or take the `shared_data`
fixture (tests/conftest.py), which skips, or fails under CI, when the folder is absent.

`TOKVIS_HIDE_SHARED=1` makes the tests see a fresh clone with nothing beside it: every path here
points at a folder that does not exist, and the `shared_data` fixture skips (also under CI). CI
runs the tests that read the shared data once more so (.ci/run), which proves that each of them
passes or skips without it.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HIDDEN = os.environ.get("TOKVIS_HIDE_SHARED", "").strip() not in ("", "0")
_FOUND = Path(os.environ.get("TOKVIS_SHARED_DATA") or REPO.parent / "shared")
# hidden: a name that no checkout has beside it, so every `is_dir()` / `is_file()` says no
SHARED = REPO.parent / "shared-hidden-by-TOKVIS_HIDE_SHARED" if HIDDEN else _FOUND
DATA = SHARED / "data"
INTEROP = DATA / "interop"
BUNDLED = REPO / "tokenizers_core" / "data"


def missing_reason() -> str | None:
    """Why the shared data cannot be used, or None when it can."""
    if HIDDEN:
        return f"the shared data is hidden (TOKVIS_HIDE_SHARED=1; it is at {_FOUND})"
    if not INTEROP.is_dir():
        return f"needs the shared data beside the repository: {INTEROP} is absent"
    return None

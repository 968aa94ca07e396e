"""Running Python code as on an install without the `mix` extra: a subprocess in which
importing scipy fails (the tests of the "scipy is absent" sentences, core and web)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_BLOCK = (
    "import sys\n"
    "class Block:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'scipy' or name.startswith('scipy.'):\n"
    "            raise ImportError('no scipy here')\n"
    "sys.meta_path.insert(0, Block())\n"
)


def run_without_scipy(code: str) -> subprocess.CompletedProcess:
    """Run `code` from the checkout's root with scipy unimportable; stdout and stderr as text."""
    return subprocess.run(
        [sys.executable, "-c", _BLOCK + code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )

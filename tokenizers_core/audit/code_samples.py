"""The "code" sample of training-mix inference: this project's own Python source.

Hayase et al. (2024) need a sample of each category a tokenizer may have been trained on. For
code, the licence-clean sample at hand is the engine's own source, which ships in the wheel
anyway: the modules of `tokenizers_core`, read at run time through `importlib.resources`, in
path order, whole files until the sample holds `max_bytes`. It is Python only (docstrings and
comments included, as in real code), so a tokenizer trained mostly on other languages' code
shows less "code" than it saw.

>>> text = code_sample(4_000)
>>> 0 < len(text.encode("utf-8")) <= 4_000 and "def " in text
True
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

from ..errors import InvalidInput

CODE_BYTES = 20_000


def code_sample(max_bytes: int = CODE_BYTES) -> str:
    """The first whole source files of `tokenizers_core` (sorted by path) that fit in
    `max_bytes` bytes of UTF-8 (at least the first file's opening, if none fits whole)."""
    if max_bytes < 1:
        raise InvalidInput(f"the code sample needs at least one byte, not {max_bytes}")
    out: list[str] = []
    size = 0
    for text in _sources(resources.files("tokenizers_core")):
        data = text.encode("utf-8")
        if size + len(data) > max_bytes:
            if not out:
                out.append(data[:max_bytes].decode("utf-8", "ignore"))
            break
        out.append(text)
        size += len(data)
    return "".join(out)


def _sources(folder: Traversable):
    """The text of each .py file under `folder`, sorted by path (data folders skipped)."""
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir() and entry.name not in ("data", "__pycache__"):
            yield from _sources(entry)
        elif entry.is_file() and entry.name.endswith(".py"):
            yield entry.read_text(encoding="utf-8")

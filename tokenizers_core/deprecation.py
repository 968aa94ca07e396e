"""Moved public names keep working for one release, with a `DeprecationWarning`.

A module whose public name moved puts a `__getattr__` made here at its end, with a table of
old name -> (module of the new home, name there). Python calls a module's `__getattr__` only for
a name the module lacks (PEP 562), so the real names cost nothing; an old name warns once per
use, saying the new spelling, and gives the same object:

>>> import warnings
>>> __getattr__ = moved_names("demo", {"dumps": ("json", "dumps")})
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     import json
...     __getattr__("dumps") is json.dumps, str(caught[0].message)
(True, 'demo.dumps moved: use json.dumps (the old name goes in the next release)')
>>> __getattr__("nothing")
Traceback (most recent call last):
...
AttributeError: module 'demo' has no attribute 'nothing'

The new home's module is named by a plain string in the table, so the import-graph test
(`tests/test_layers.py`) sees the dependency as it sees an import.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any, Callable, Mapping

Moves = Mapping[str, tuple[str, str]]


def moved_names(module: str, moves: Moves) -> Callable[[str], Any]:
    """A module `__getattr__` for `module` that serves each moved name from its new home."""

    def __getattr__(name: str) -> Any:
        if name not in moves:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        home, new_name = moves[name]
        warnings.warn(
            f"{module}.{name} moved: use {home}.{new_name} (the old name goes in the next release)",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(home), new_name)

    return __getattr__

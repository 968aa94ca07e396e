"""The old home of the chat template's environment, budget and render, now split by idea:
`budget`, `filters`, `environment` and `runner` (jinja2's sandbox stays inside `environment`).

A plain re-export for app/ until it imports the new names: app/sandbox/pool.py and
app/sandbox/worker.py import `TemplateFailure` from here (`tokenizers_core.chat` exports it).
This module goes then, so that one thing in the project is called a sandbox: `app/sandbox/`.
"""

from __future__ import annotations

from .budget import (
    MAX_EXPONENT,
    MAX_INDENT,
    MAX_INT_BITS,
    MAX_ITEMS,
    MAX_OUTPUT,
    TIME_LIMIT,
    weight,
)
from .environment import ChatEnvironment
from .runner import TemplateFailure, compile_template, literals, render

__all__ = [
    "MAX_EXPONENT",
    "MAX_INDENT",
    "MAX_INT_BITS",
    "MAX_ITEMS",
    "MAX_OUTPUT",
    "TIME_LIMIT",
    "ChatEnvironment",
    "TemplateFailure",
    "compile_template",
    "literals",
    "render",
    "weight",
]

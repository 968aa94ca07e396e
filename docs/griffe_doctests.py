"""A griffe extension for the docs site: doctest examples in docstrings become code blocks.

Our docstrings follow the stdlib's habit: `>>>` lines written straight into the prose, checked by
the doctest run. Markdown would read them as prose (and `['a', 'b']` in an output line as a
link), so each run of such lines, with its output up to the next blank line, is fenced as
`pycon` before mkdocstrings renders the docstring. Lines indented under a section are left
alone: Markdown already shows them as code.
"""

from __future__ import annotations

import griffe


def fence_doctests(text: str) -> str:
    """The docstring with each top-level doctest block fenced: a line that starts with `>>>`
    opens a `pycon` fence, the next blank line closes it. Blocks already fenced stay as they are.
    """
    out: list[str] = []
    in_fence = in_doctest = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if in_doctest and not line.strip():
            out.append("```")
            in_doctest = False
        elif not in_fence and not in_doctest and line.startswith(">>>"):
            out.append("```pycon")
            in_doctest = True
        out.append(line)
    if in_doctest:
        out.append("```")
    return "\n".join(out)


class FenceDoctests(griffe.Extension):
    """Fence the doctests of every object's docstring as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)

"""A chat template's text in, its render out: compiled once (cached by its text), rendered
under a fresh budget, every failure a `TemplateFailure` (a `ValueError`) naming the template's
line.

`render` is what `render.render_text` (and so the server's sandboxed child) calls; `literals` is
the text a template writes itself, which the lints read. The environment it renders in is
`environment.ChatEnvironment`; the limits are `budget`'s.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2
import jinja2.exceptions
import jinja2.nodes

from ..errors import InvalidInput
from .budget import MAX_OUTPUT, TIME_LIMIT, Budget, BudgetExceeded, active
from .environment import ChatEnvironment


class TemplateFailure(InvalidInput):
    """A chat template that does not compile or render; `line` is its 1-based line, or None."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.reason = message
        self.line = line
        super().__init__(
            f"the chat template failed at line {line}: {message}"
            if line
            else f"the chat template failed: {message}"
        )


_ENVIRONMENT = ChatEnvironment()


@lru_cache(maxsize=64)
def compile_template(source: str) -> jinja2.Template:
    """The compiled template (cached by its text); a syntax error is a `TemplateFailure`.

    >>> compile_template("{% if %}")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.runner.TemplateFailure: the chat template failed at line 1: Expected an
    expression, got 'end of statement block'
    """
    if not isinstance(source, str) or not source.strip():
        raise TemplateFailure("the template is empty")
    try:
        return _ENVIRONMENT.from_string(source)
    except jinja2.exceptions.TemplateSyntaxError as exc:
        raise TemplateFailure(exc.message or str(exc), exc.lineno) from None


@lru_cache(maxsize=64)
def literals(source: str) -> tuple[str, ...]:
    """The text a template writes itself: its template data and its string constants.

    >>> literals("{{ '<|im_start|>' + m }}x")
    ('<|im_start|>', 'x')
    """
    compile_template(source)  # a syntax error says so first
    tree = _ENVIRONMENT.parse(source)
    found = [node.data for node in tree.find_all(jinja2.nodes.TemplateData)]
    found += [
        node.value for node in tree.find_all(jinja2.nodes.Const) if isinstance(node.value, str)
    ]
    return tuple(sorted(set(found)))


def render(
    source: str, variables: dict[str, Any], *, time_limit: float = TIME_LIMIT
) -> tuple[str, list[tuple[int, int]]]:
    """Render `source` with `variables`: the text and the `{% generation %}` spans (character
    offsets in the text). Raises `TemplateFailure` for any error, with the template's line;
    `time_limit` is in seconds of the rendering thread's CPU time (see `budget.Budget`).

    >>> render("{% for m in messages %}{{ m.role }}{% endfor %}", {"messages": [{"role": "user"}]})
    ('user', [])
    >>> render("{% set l = range(100000) | list %}\\n{{ ([l] * 300) | sum(start=[]) }}",
    ...        {})  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.runner.TemplateFailure: the chat template failed at line 2: it was
    stopped: it multiplied a value to more than 1,000,000 items
    """
    template = compile_template(source)
    budget = Budget(time_limit)
    with active(budget):
        try:
            for chunk in template.generate(**variables):
                budget.written.append(chunk)
                budget.written_chars += len(chunk)
                if budget.written_chars > MAX_OUTPUT:
                    raise BudgetExceeded(f"its output passed {MAX_OUTPUT:,} characters")
                budget.tick()
        except BudgetExceeded as exc:
            raise TemplateFailure(f"it was stopped: {exc}", _template_line(exc)) from None
        except jinja2.exceptions.TemplateError as exc:
            raise TemplateFailure(_message(exc), _template_line(exc)) from None
        except (
            ArithmeticError,
            TypeError,
            ValueError,
            LookupError,
            AttributeError,
            RecursionError,
            AssertionError,
        ) as exc:
            # AssertionError: jinja's `truncate` asserts its arguments. (A MemoryError goes on:
            # it is the process's, and a sandboxed child reports it as its memory budget.)
            raise TemplateFailure(f"{type(exc).__name__}: {exc}", _template_line(exc)) from None
    return "".join(budget.written), budget.generation_spans


def _message(exc: jinja2.exceptions.TemplateError) -> str:
    if isinstance(exc, jinja2.exceptions.UndefinedError):
        return f"undefined: {exc.message}"
    if isinstance(exc, jinja2.exceptions.SecurityError):
        return f"the sandbox refused it: {exc.message}"
    if type(exc) is jinja2.exceptions.TemplateError:
        return f"raise_exception: {exc.message}"
    return exc.message or type(exc).__name__


def _template_line(exc: BaseException) -> int | None:
    """The template line the error happened on: jinja rewrites the traceback so the template's
    frames have the file name "<template>" and the template's line numbers; the innermost wins."""
    line = getattr(exc, "lineno", None)
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line

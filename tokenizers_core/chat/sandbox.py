"""The jinja2 environment a chat template runs in, as transformers builds it, under a budget.

transformers (`utils/chat_template_utils.py`, `_compile_jinja_template`) renders a template in an
`ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)` with the `loopcontrols`
extension and a `{% generation %}` block that records where the assistant's text lands; it
replaces `tojson` by `json.dumps(x, ensure_ascii=False, indent=..., separators=...,
sort_keys=...)` and adds the globals `raise_exception`, `strftime_now`, `dict` and a `namespace`
that refuses underscore names. We build the same environment (our own code), and add what a web
page needs: a template is untrusted code, so rendering runs under a budget

- ranges: the sandbox's own limit (`range(10**9)` is refused before it starts);
- size: `*`, `+`, `%` and `**` are checked before they run, and so are string methods and
  filters that could build a huge string (a width, a format, `replace`, `join`); `~`, a macro's
  output and a namespace's values stop at `MAX_OUTPUT` characters, and so does the output;
- time: the clock is read at every call, attribute, item, operator and loop step, and rendering
  stops once `time_limit` seconds have passed.

Every failure is a `TemplateFailure` (a `ValueError`) that names the template's line.
"""
from __future__ import annotations

import json
import re
import string
import time
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
import functools
from functools import lru_cache
from typing import Any, Iterator

import jinja2
import jinja2.compiler
import jinja2.ext
import jinja2.nodes
import jinja2.utils
from jinja2.sandbox import ImmutableSandboxedEnvironment

MAX_OUTPUT = 1_000_000        # characters a render may produce (and any one string it builds)
MAX_EXPONENT = 1_000          # `a ** b` with a larger b is refused
MAX_INDENT = 100              # tojson's indent (transformers has no limit; templates use 2 or 4)
TIME_LIMIT = 2.0              # seconds a render may take


class TemplateFailure(ValueError):
    """A chat template that does not compile or render; `line` is its 1-based line, or None."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.reason = message
        self.line = line
        super().__init__(f"the chat template failed at line {line}: {message}" if line
                         else f"the chat template failed: {message}")


class _BudgetExceeded(Exception):
    """Raised inside a render that went over its time or size budget (not a TemplateError, so
    no `{% if %}` or filter swallows it)."""


class _Budget:
    """The deadline of the render under way and the spans `{% generation %}` recorded."""

    def __init__(self, time_limit: float) -> None:
        self.deadline = time.monotonic() + time_limit
        self.time_limit = time_limit
        self.written: list[str] = []            # the output so far, chunk by chunk
        self.written_chars = 0
        self.generation_spans: list[tuple[int, int]] = []

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise _BudgetExceeded(f"it ran for more than {self.time_limit:g} seconds")


_BUDGET: ContextVar[_Budget | None] = ContextVar("chat_template_budget", default=None)


def _tick() -> None:
    budget = _BUDGET.get()
    if budget is not None:
        budget.tick()


def _check_size(value: Any) -> Any:
    if isinstance(value, (str, list, tuple)) and len(value) > MAX_OUTPUT:
        raise _BudgetExceeded(f"it built a value of more than {MAX_OUTPUT:,} items")
    return value


def _size_of(value: Any) -> int:
    return len(value) if isinstance(value, (str, list, tuple)) else 0


def _checked_concat(parts: Any) -> str:
    """`~` and a macro's output: the pieces joined, stopping at MAX_OUTPUT characters."""
    out, size = [], 0
    for part in parts:
        part = part if isinstance(part, str) else str(part)
        size += len(part)
        if size > MAX_OUTPUT:
            raise _BudgetExceeded(f"it joined strings into more than {MAX_OUTPUT:,} characters")
        out.append(part)
    return "".join(out)


_NUMBER = re.compile(r"\d+")
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\d*)(?:\.(\d*))?")
# string methods and filters whose numeric arguments are widths (the result that long)
_WIDTH_TAKERS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs", "indent", "format",
                           "format_map"})


def _check_arguments(name: str, target: Any, args: tuple, kwargs: dict) -> None:
    """Refuse, before it runs, a string method or filter `name` on `target` that would build
    more than MAX_OUTPUT characters: a huge width or count, a huge width inside a format
    string, a `replace` or `join` whose result would be too long.

    >>> _check_arguments("center", "a", (10**9,), {})
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.sandbox._BudgetExceeded: center was asked for more than 1,000,000 characters
    >>> _check_arguments("replace", "abc", ("", "x" * 400_000), {})
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.sandbox._BudgetExceeded: replace would build more than 1,000,000 characters
    """
    values = [*args, *kwargs.values()]
    takes_widths = name in _WIDTH_TAKERS or (name == "%" and "*" in str(target))  # '%*d'
    if takes_widths and any(isinstance(v, int) and v > MAX_OUTPUT for v in values):
        raise _BudgetExceeded(f"{name} was asked for more than {MAX_OUTPUT:,} characters")
    if name in ("format", "format_map", "%") and isinstance(target, str) \
            and max(_format_widths(target, percent=name != "format_map"), default=0) > MAX_OUTPUT:
        raise _BudgetExceeded(f"a format asked for a width over {MAX_OUTPUT:,} characters")
    if _estimate(name, target, args) > MAX_OUTPUT:
        raise _BudgetExceeded(f"{name} would build more than {MAX_OUTPUT:,} characters")


def _format_widths(text: str, percent: bool) -> list[int]:
    """The widths and precisions a format string asks for: its `%` conversions (`percent`) and
    its `{...:spec}` fields (digits elsewhere in the text are not widths).

    >>> _format_widths("on 20240101: %-12s|{:>8.3f}", percent=True)
    [12, 8, 3]
    """
    widths = []
    if percent:
        widths += [int(n) for spec in _PERCENT_SPEC.findall(text) for n in spec if n]
    try:
        fields = [spec for _, _, spec, _ in string.Formatter().parse(text) if spec]
    except ValueError:              # not a {}-format: str.format will say so itself
        fields = []
    widths += [int(n) for spec in fields for n in _NUMBER.findall(spec)]
    return widths


def _estimate(name: str, target: Any, args: tuple) -> int:
    """An upper bound of the size `replace`, `join` or `indent` would build (0 for others)."""
    size = _size_of(target)
    if name == "replace" and len(args) >= 2 and isinstance(args[0], str) \
            and isinstance(args[1], str):
        return size + (size // max(len(args[0]), 1) + 1) * len(args[1])
    if name == "join" and args:
        joiner, items = (target, args[0]) if isinstance(target, str) else (args[0], target)
        if isinstance(joiner, str) and hasattr(items, "__len__"):
            return len(joiner) * len(items)
    if name == "indent" and args and isinstance(args[0], str) and isinstance(target, str):
        return size + (target.count("\n") + 1) * len(args[0])
    return 0


def _guarded_filter(name: str, function: Any) -> Any:
    """A filter that checks its arguments (`_check_arguments`) and its result's size."""
    @functools.wraps(function)          # keeps jinja's pass_context / pass_environment marks
    def guarded(*args: Any, **kwargs: Any) -> Any:
        _tick()
        plain = [a for a in args if not isinstance(a, (jinja2.runtime.Context,
                                                       jinja2.nodes.EvalContext,
                                                       jinja2.Environment))]
        if plain:
            _check_arguments(name, plain[0], tuple(plain[1:]), kwargs)
        return _check_size(function(*args, **kwargs))
    return guarded


class _GenerationBlock(jinja2.ext.Extension):
    """`{% generation %}...{% endgeneration %}`: renders its body and records the body's
    character span in the output (transformers' AssistantTracker)."""

    tags = {"generation"}

    def parse(self, parser: Any) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render_generation"), [], [],
                                      body).set_lineno(lineno)

    def _render_generation(self, caller: Any) -> str:
        text = caller()
        budget = _BUDGET.get()
        if budget is not None:
            start = budget.written_chars
            budget.generation_spans.append((start, start + len(text)))
        return text


class _TemplateDict:
    """`dict(...)` in a template, without the class itself (transformers' TemplateDict)."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict:
        return dict.fromkeys(*args, **kwargs)


class _Namespace(jinja2.utils.Namespace):
    """`namespace(...)` that refuses underscore names (as transformers') and huge values."""

    def __init__(*args: Any, **kwargs: Any) -> None:      # noqa: N805 (jinja's own signature trick)
        self, args = args[0], args[1:]
        attrs = dict(*args, **kwargs)
        for name, value in attrs.items():
            _Namespace._check(name, value)
        jinja2.utils.Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        _Namespace._check(name, value)
        jinja2.utils.Namespace.__setitem__(self, name, value)

    @staticmethod
    def _check(name: Any, value: Any) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise jinja2.exceptions.SecurityError(
                f"a chat template cannot store the underscore name {name!r} on a namespace")
        _check_size(value)


class _CodeGenerator(jinja2.compiler.CodeGenerator):
    """jinja's code generator, with `~` joined by the environment's checked `concat` (jinja
    writes `str_join`, which no environment can replace)."""

    def visit_Concat(self, node: jinja2.nodes.Concat, frame: Any) -> None:
        self.write("environment.concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class ChatEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox with transformers' settings, reading the clock and sizes as it goes."""

    intercepted_binops = frozenset({"*", "+", "**", "%"})
    code_generator_class = _CodeGenerator
    concat = staticmethod(_checked_concat)     # a macro's output, and `~`

    def __init__(self) -> None:
        super().__init__(trim_blocks=True, lstrip_blocks=True,
                         extensions=[_GenerationBlock, jinja2.ext.loopcontrols])
        for name, function in list(self.filters.items()):
            self.filters[name] = _guarded_filter(name, function)
        self.filters["tojson"] = _tojson
        self.globals.update(raise_exception=_raise_exception, strftime_now=_strftime_now,
                            dict=_TemplateDict(), namespace=_Namespace)

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        _tick()
        if operator == "*":
            n = right if isinstance(right, int) else left if isinstance(left, int) else 0
            if n * max(_size_of(left), _size_of(right)) > MAX_OUTPUT:
                raise _BudgetExceeded(f"it multiplied a value to more than {MAX_OUTPUT:,} items")
        elif operator == "+":
            if _size_of(left) + _size_of(right) > MAX_OUTPUT:
                raise _BudgetExceeded(f"it built a value of more than {MAX_OUTPUT:,} items")
        elif operator == "%":
            if isinstance(left, str):
                arguments = right if isinstance(right, tuple) else (right,)
                _check_arguments("%", left, arguments, {})
                return _check_size(super().call_binop(context, operator, left, right))
        elif isinstance(right, int) and abs(right) > MAX_EXPONENT:
            raise _BudgetExceeded(f"it raised a number to a power above {MAX_EXPONENT}")
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        _tick()
        target = getattr(__obj, "__self__", None)
        if isinstance(target, str):
            _check_arguments(getattr(__obj, "__name__", "a string method"), target, args, kwargs)
        return _check_size(super().call(__context, __obj, *args, **kwargs))

    def wrap_str_format(self, value: Any) -> Any:
        """`str.format` and `str.format_map`, which the sandbox wraps when they are read: the
        format string and the arguments checked first, the result's size after."""
        wrapper = super().wrap_str_format(value)
        if wrapper is None:
            return None

        def checked(*args: Any, **kwargs: Any) -> str:
            _check_arguments("format", value.__self__, args, kwargs)
            return _check_size(wrapper(*args, **kwargs))
        return checked

    def getattr(self, obj: Any, attribute: str) -> Any:
        _tick()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        _tick()
        return super().getitem(obj, argument)


def _raise_exception(message: str) -> None:
    raise jinja2.exceptions.TemplateError(message)


def _tojson(x: Any, ensure_ascii: bool = False, indent: int | str | None = None,
            separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:
    """transformers' `tojson`: plain `json.dumps` (jinja's own escapes HTML characters); an
    indent over MAX_INDENT is refused (a wide indent of a long list would build gigabytes)."""
    width = len(indent) if isinstance(indent, str) else indent or 0
    if width > MAX_INDENT:
        raise _BudgetExceeded(f"tojson's indent is over {MAX_INDENT}")
    return _check_size(json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys))


def _strftime_now(format: str) -> str:
    return datetime.now().strftime(format)


_ENVIRONMENT = ChatEnvironment()


@lru_cache(maxsize=64)
def compile_template(source: str) -> jinja2.Template:
    """The compiled template (cached by its text); a syntax error is a `TemplateFailure`.

    >>> compile_template("{% if %}")
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.sandbox.TemplateFailure: the chat template failed at line 1: Expected an expression, got 'end of statement block'
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
    compile_template(source)                       # a syntax error says so first
    tree = _ENVIRONMENT.parse(source)
    found = [node.data for node in tree.find_all(jinja2.nodes.TemplateData)]
    found += [node.value for node in tree.find_all(jinja2.nodes.Const)
              if isinstance(node.value, str)]
    return tuple(sorted(set(found)))


def render(source: str, variables: dict[str, Any], *,
           time_limit: float = TIME_LIMIT) -> tuple[str, list[tuple[int, int]]]:
    """Render `source` with `variables`: the text and the `{% generation %}` spans (character
    offsets in the text). Raises `TemplateFailure` for any error, with the template's line.

    >>> render("{% for m in messages %}{{ m.role }}{% endfor %}", {"messages": [{"role": "user"}]})
    ('user', [])
    """
    template = compile_template(source)
    budget = _Budget(time_limit)
    with _active(budget):
        try:
            for chunk in template.generate(**variables):
                budget.written.append(chunk)
                budget.written_chars += len(chunk)
                if budget.written_chars > MAX_OUTPUT:
                    raise _BudgetExceeded(f"its output passed {MAX_OUTPUT:,} characters")
                budget.tick()
        except _BudgetExceeded as exc:
            raise TemplateFailure(f"it was stopped: {exc}", _template_line(exc)) from None
        except jinja2.exceptions.TemplateError as exc:
            raise TemplateFailure(_message(exc), _template_line(exc)) from None
        except (ArithmeticError, TypeError, ValueError, LookupError, AttributeError,
                RecursionError) as exc:
            raise TemplateFailure(f"{type(exc).__name__}: {exc}", _template_line(exc)) from None
    return "".join(budget.written), budget.generation_spans


@contextmanager
def _active(budget: _Budget) -> Iterator[None]:
    token = _BUDGET.set(budget)
    try:
        yield
    finally:
        _BUDGET.reset(token)


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

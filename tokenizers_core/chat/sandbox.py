"""The jinja2 environment a chat template runs in, as transformers builds it, under a budget.

transformers (`utils/chat_template_utils.py`, `_compile_jinja_template`) renders a template in an
`ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)` with the `loopcontrols`
extension and a `{% generation %}` block that records where the assistant's text lands; it
replaces `tojson` by `json.dumps(x, ensure_ascii=False, indent=..., separators=...,
sort_keys=...)` and adds the globals `raise_exception`, `strftime_now`, `dict` and a `namespace`
that refuses underscore names. We build the same environment (our own code), and add what a web
page needs: a template is untrusted code, so rendering runs under a budget, and each budget is
checked *before* the value it limits is built (a check after `sum` or `tojson` returns comes
after the gigabytes and the minutes):

- ranges: the sandbox's own limit (`range(10**9)` is refused before it starts);
- size: a value's `weight` (the characters of its strings and numbers plus one per item of its
  containers, nested: about the length of its text, and cheap to find) bounds what printing,
  joining or serialising it builds. `*` multiplies a weight and `+` adds lengths; `{{ }}`, `~`,
  `join`, `sum`, `tojson`, `pprint`, `string` and the other filters that make text of a value,
  formats (`%`, `.format`, the `format` filter, with their widths), `center`, `indent`,
  `expandtabs`, `replace`, `translate`, `wordwrap`, `urlize`, `batch`, `slice` and `lipsum`
  work out the size of their result from their arguments and refuse one over `MAX_OUTPUT`
  characters (or items); the output stops there too;
- work inside one call: filters that go item by item in Python (`sort`, `unique`, `dictsort`,
  `groupby`, `min`, `max`, `pprint`, `wordwrap`, `urlize`, `slice`, `lipsum`) take at most
  `MAX_ITEMS` items (or characters, or words), so that no single call runs for long between two
  looks at the clock;
- time: the CPU time of the rendering thread is read (see `_Budget`: it counts work, not
  waiting) at every call, attribute, item, operator and loop step, and rendering stops once
  `time_limit` seconds of it have been used.

Every failure is a `TemplateFailure` (a `ValueError`) that names the template's line.

This is the first line of defence, and the only one a library user rendering in-process has; it
bounds what a template can build, not what the interpreter needs to run it (a server also renders
in a child process with hard limits).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import json
import re
import string
import time
from collections.abc import ItemsView, KeysView, ValuesView
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from functools import lru_cache
from typing import Any, Callable, Iterator

import jinja2
import jinja2.compiler
import jinja2.ext
import jinja2.filters
import jinja2.nodes
import jinja2.utils
from jinja2.sandbox import ImmutableSandboxedEnvironment

from ..errors import InvalidInput

MAX_OUTPUT = 1_000_000  # characters a render may produce (and any one value it builds)
MAX_ITEMS = 100_000  # items (characters, words) one call of an item-by-item filter takes
MAX_EXPONENT = 1_000  # `a ** b` with a larger b is refused
MAX_INT_BITS = 100_000  # bits of an integer `*` or `**` may build (str() stops at 4,300 digits)
MAX_INDENT = 100  # tojson's indent (transformers has no limit; templates use 2 or 4)
TIME_LIMIT = 2.0  # seconds of CPU time a render may take


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


class _BudgetExceeded(Exception):
    """Raised inside a render that went over its time or size budget (not a TemplateError, so
    no `{% if %}` or filter swallows it)."""


class _Budget:
    """The render under way: its limit of CPU time, its output so far and the spans
    `{% generation %}` recorded.

    The limit counts work, not waiting: it reads `time.thread_time()`, the CPU time of the
    thread that renders. The wall clock (`time.monotonic()`) also counts the time the thread
    waits, for the interpreter lock while other requests' threads run and for a core on a busy
    machine, so on a loaded server a template that needs a tenth of a second of work would fail
    its two seconds. Reading a thread's CPU clock is a system call (about 0.6 µs, against 0.05 µs
    for the wall clock, and `tick` runs at every attribute and loop step), so `tick` reads it only
    once `READ_EVERY` seconds of wall time have passed since its last reading: a thread cannot
    use more CPU time than wall time goes by, so an overrun is still seen within 10 ms.
    """

    READ_EVERY = 0.01

    def __init__(self, time_limit: float) -> None:
        self.time_limit = time_limit
        self.cpu_deadline = time.thread_time() + time_limit
        self.next_reading = time.monotonic() + self.READ_EVERY
        self.written: list[str] = []  # the output so far, chunk by chunk
        self.written_chars = 0
        self.generation_spans: list[tuple[int, int]] = []

    def tick(self) -> None:
        if time.monotonic() >= self.next_reading:
            self.read_clock()

    def read_clock(self) -> None:
        self.next_reading = time.monotonic() + self.READ_EVERY
        if time.thread_time() > self.cpu_deadline:
            raise _BudgetExceeded(f"it ran for more than {self.time_limit:g} seconds (of CPU time)")


_BUDGET: ContextVar[_Budget | None] = ContextVar("chat_template_budget", default=None)


def _tick() -> None:
    budget = _BUDGET.get()
    if budget is not None and time.monotonic() >= budget.next_reading:  # budget.tick(), inlined
        budget.read_clock()


# ---- the weight of a value ------------------------------------------------------------------
_END = object()
_SEQUENCES = (list, tuple, set, frozenset, KeysView, ValuesView, ItemsView)


def weight(value: Any, limit: int = MAX_OUTPUT, *, indent: int = 0) -> int:
    """About how many characters `value` takes as text: the characters of its strings and of
    its numbers, plus one for each item of a list, tuple, set, dict or namespace, nested; plus
    `indent` characters per item and level of nesting (what `json.dumps(indent=...)` or
    `pprint` add). Printing, joining or serialising a value builds a few times its weight at
    most (quotes, commas, escapes). Other objects (a generator, a range, a loop) weigh 1: their
    text is a short description.

    Weighing stops once past `limit` and returns the count so far (some number over `limit`),
    so it takes at most about `limit` steps whatever the value: a list that holds one
    million-character string a thousand times is found too heavy at its first item.

    >>> weight(["ab", {"c": [1, 22]}])      # 2 items, "ab", 1 pair, "c", 2 items, 1, 22
    11
    >>> weight([["x" * 1_000_000] * 1000, "never reached"]) > MAX_OUTPUT
    True
    >>> weight([[1, 2]], indent=2)          # 1 item 1 level deep, 2 items 2 levels deep
    15
    """
    total = 0
    pending = [iter((value,))]  # one iterator per level of nesting being walked
    while pending:
        item = next(pending[-1], _END)
        if item is _END:
            pending.pop()
            continue
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, (int, float)) or item is None:
            total += _scalar_weight(item)
        else:
            if isinstance(item, jinja2.utils.Namespace):  # its text shows its values
                item = object.__getattribute__(item, "_Namespace__attrs")
            if isinstance(item, dict):
                total += len(item) * (1 + indent * len(pending))
                pending.append(itertools.chain.from_iterable(item.items()))
            elif isinstance(item, _SEQUENCES):
                total += len(item) * (1 + indent * len(pending))
                pending.append(iter(item))
            else:
                total += _scalar_weight(item)
        if total > limit:
            return total
    return total


def _scalar_weight(value: Any) -> int:
    """The characters of a number's text (an upper bound for an integer: its bits times
    log10(2), plus one), 5 for True/False/None, 1 for anything else.

    >>> _scalar_weight(10**100), _scalar_weight(0.1), _scalar_weight(None)
    (101, 3, 5)
    """
    if isinstance(value, bool) or value is None:
        return 5
    if isinstance(value, int):
        return value.bit_length() * 30103 // 100000 + 1
    if isinstance(value, float):
        return len(repr(value))
    if isinstance(value, (bytes, bytearray)):
        return 4 * len(value)  # repr() writes a byte as up to 4 characters
    return 1


def _refuse_heavy(what: str, value: Any, limit: int = MAX_OUTPUT, indent: int = 0) -> None:
    """Refuse to make text of `value` when it weighs more than `limit`."""
    if not isinstance(value, str) and weight(value, limit, indent=indent) > limit:
        raise _BudgetExceeded(f"{what} would write a value of more than {limit:,} characters")


def _checked_str(value: Any, limit: int = MAX_OUTPUT) -> str:
    """`str(value)`, refused before it is built when `value` weighs more than `limit`."""
    if isinstance(value, str):
        return value
    _refuse_heavy("it", value, limit)
    return _check_size(str(value))


def _check_size(value: Any) -> Any:
    if isinstance(value, (str, list, tuple)) and len(value) > MAX_OUTPUT:
        raise _BudgetExceeded(f"it built a value of more than {MAX_OUTPUT:,} items")
    return value


def _size_of(value: Any) -> int:
    return len(value) if isinstance(value, (str, list, tuple)) else 0


def _take(iterable: Any, what: str, limit: int = MAX_OUTPUT) -> list:
    """The items of `iterable` as a list, refused past `limit` items (without taking more).

    >>> _take(range(3), "join")
    [0, 1, 2]
    """
    items = list(itertools.islice(iterable, limit + 1))
    if len(items) > limit:
        raise _BudgetExceeded(f"{what} was given more than {limit:,} items")
    return items


def _checked_concat(parts: Any) -> str:
    """`~` and a macro's output: the pieces joined, stopping at MAX_OUTPUT characters."""
    out, size = [], 0
    for part in parts:
        part = _checked_str(part, MAX_OUTPUT - size)
        size += len(part)
        if size > MAX_OUTPUT:
            raise _BudgetExceeded(f"it joined strings into more than {MAX_OUTPUT:,} characters")
        out.append(part)
    return "".join(out)


def _checked_output(value: Any) -> Any:
    """The environment's `finalize`: a `{{ value }}` that is not text is weighed before
    jinja makes text of it (the list of a thousand million-character strings is refused here,
    not after a gigabyte of `str()`)."""
    if not isinstance(value, str):
        _refuse_heavy("printing it", value)
    return value


# ---- string methods, `%` and formats ----------------------------------------------------------
_NUMBER = re.compile(r"\d+")
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\d*)(?:\.(\d*))?")
# string methods and filters whose numeric arguments are widths (the result that long)
# (a format's fields are sized by `_format_size`, widths taken from its arguments included)
_WIDTH_TAKERS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs", "indent"})
_FLOAT_FIELD = 330  # the longest text of a float in a field: '%f' % 1e308 is 316


def _check_arguments(name: str, target: Any, args: tuple, kwargs: dict) -> None:
    """Refuse, before it runs, a string method `name` on `target` (or `%`, with `target` the
    format) that would build more than MAX_OUTPUT characters: a huge width or count, huge
    widths inside a format string, or a result (`replace`, `join`, `format`, `expandtabs`,
    `translate`, `indent`) whose size `_estimate` puts over the limit.

    >>> _check_arguments("center", "a", (10**9,), {})  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.sandbox._BudgetExceeded: center was asked for more than
    1,000,000 characters
    >>> _check_arguments("replace", "abc", ("", "x" * 400_000), {})
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.sandbox._BudgetExceeded: replace would build more than 1,000,000 characters
    >>> _check_arguments("%", "%999999s" * 2, ("a", "b"), {})
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.sandbox._BudgetExceeded: % would build more than 1,000,000 characters
    """
    values = [*args, *kwargs.values()]
    takes_widths = name in _WIDTH_TAKERS or (name == "%" and "*" in str(target))  # '%*d'
    if takes_widths and any(isinstance(v, int) and v > MAX_OUTPUT for v in values):
        raise _BudgetExceeded(f"{name} was asked for more than {MAX_OUTPUT:,} characters")
    if (
        name in ("format", "format_map", "%")
        and isinstance(target, str)
        and max(_format_widths(target, percent=name == "%"), default=0) > MAX_OUTPUT
    ):
        raise _BudgetExceeded(f"a format asked for a width over {MAX_OUTPUT:,} characters")
    if _estimate(name, target, args, kwargs) > MAX_OUTPUT:
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
    widths += [int(n) for spec in _format_specs(text) for n in _NUMBER.findall(spec)]
    return widths


def _format_specs(text: str) -> list[str]:
    """The spec of each `{}` field of a `str.format` string ("" for a field without one)."""
    try:
        return [
            spec or ""
            for _, field_name, spec, _ in string.Formatter().parse(text)
            if field_name is not None
        ]
    except ValueError:  # not a {}-format: str.format will say so itself
        return []


def _format_size(template: str, arguments: list, *, percent: bool) -> int:
    """An upper bound of the length of `template % arguments` (`percent`) or of
    `template.format(*arguments)`: the template, the widths it asks for, and each field filled
    with the heaviest argument; `%` with a tuple fills each conversion with its own argument,
    so there the arguments' total. Widths taken from the arguments (`%*d`, `{:{}}`) count as
    the largest integer given.

    >>> _format_size("%s-%s", ["ab", "cde"], percent=True)    # 5 + "ab" + "cde"
    10
    >>> _format_size("{0}{0}{0}", ["x" * 10], percent=False)   # 9 + 3 x 10
    39
    """
    weights = [_FLOAT_FIELD if isinstance(a, float) else weight(a, MAX_OUTPUT) for a in arguments]
    largest_int = max(
        (a for a in arguments if isinstance(a, int) and not isinstance(a, bool)), default=0
    )
    if percent:  # (a {} field is literal text to `%`, and a % one to format)
        specs = _PERCENT_SPEC.findall(template)
        widths = sum(int(n) for spec in specs for n in spec if n)
        fields = len(specs)
        filled = sum(weights) if len(arguments) > 1 or fields <= 1 else fields * sum(weights)
        from_arguments = fields * max(largest_int, 0) if "*" in template else 0
    else:
        specs = _format_specs(template)
        widths = sum(int(n) for spec in specs for n in _NUMBER.findall(spec))
        fields = len(specs)
        filled = fields * max(weights, default=0)
        from_arguments = sum(spec.count("{") for spec in specs) * max(largest_int, 0)
    return len(template) + widths + filled + from_arguments


def _estimate(name: str, target: Any, args: tuple, kwargs: dict | None = None) -> int:
    """An upper bound of the size a string method (or `%`) would build; 0 for those that
    cannot grow a string much (`upper` at most triples it; `split` makes pieces of it)."""
    kwargs = kwargs or {}
    if not isinstance(target, str):
        return 0
    size = len(target)
    if (
        name == "replace"
        and len(args) >= 2
        and isinstance(args[0], str)
        and isinstance(args[1], str)
    ):
        return size + (size // max(len(args[0]), 1) + 1) * len(args[1])
    if name == "join" and args:
        return _join_size(args[0], target)
    if name == "indent" and args:
        return _indent_size(target, args[0])
    if name == "expandtabs":
        tabsize = args[0] if args else kwargs.get("tabsize", 8)
        if isinstance(tabsize, int):
            return size + target.count("\t") * max(tabsize, 0)
    if name == "translate" and args:
        table = args[0]
        replacements = table.values() if isinstance(table, dict) else table
        if isinstance(replacements, (list, tuple, ValuesView)):
            longest = max(
                (weight(r, MAX_OUTPUT) for r in replacements if isinstance(r, str)), default=1
            )
            return size * max(longest, 1)
    if name in ("format", "format_map"):
        arguments = [*args, *kwargs.values()]
        return _format_size(target, arguments, percent=False)
    if name == "%":
        return _format_size(target, list(args), percent=True)
    return 0


def _join_size(items: Any, separator: Any) -> int:
    """The length of `separator.join(map(str, items))`, near enough (the items' weight).

    >>> _join_size(["ab", "c"], ", ")
    5
    """
    if not hasattr(items, "__len__"):
        return 0
    n = len(items)
    return weight(items, MAX_OUTPUT + n) - n + len(_checked_str(separator)) * max(n - 1, 0)


def _indent_size(text: str, width: Any) -> int:
    """An upper bound of `indent`'s result: every line prefixed by the indentation."""
    per_line = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
    return len(text) + (text.count("\n") + 2) * max(per_line, 0)


# ---- filters ----------------------------------------------------------------------------------
# Filters that make text of the value they are given: a value that is not a string is weighed
# first (`str()` of a list of a thousand million-character strings is a gigabyte).
_TEXT_MAKERS = frozenset(
    {
        "string",
        "e",
        "escape",
        "forceescape",
        "safe",
        "upper",
        "lower",
        "capitalize",
        "title",
        "trim",
        "striptags",
        "replace",
        "wordcount",
        "wordwrap",
        "urlize",
        "urlencode",
        "center",
        "indent",
        "format",
        "xmlattr",
    }
)
# Filters that go item by item in Python, or copy each item (case-insensitive keys lowercase a
# copy of every string): at most MAX_ITEMS items, weighing at most MAX_OUTPUT.
_ITEM_BY_ITEM = frozenset({"sort", "unique", "dictsort", "groupby", "min", "max"})
# Filters whose other arguments `_check_filter` reads too (the others only weigh their value).
_READS_ARGUMENTS = _ITEM_BY_ITEM | {
    "batch",
    "slice",
    "pprint",
    "replace",
    "indent",
    "center",
    "wordwrap",
    "urlize",
    "format",
}
_PASSED = frozenset({"environment", "env", "eval_ctx", "context"})


def _parameters(function: Callable) -> inspect.Signature | None:
    """A filter's signature without the environment or context jinja passes it first."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # pragma: no cover - every jinja filter has one
        return None
    return signature.replace(
        parameters=[p for p in signature.parameters.values() if p.name not in _PASSED]
    )


def _check_filter(name: str, params: dict[str, Any]) -> Any:
    """Refuse a filter call that would build more than the budget, from its arguments (by
    name, defaults filled in); returns the value to filter (an iterator the filter takes item
    by item comes back wrapped, so that it stops at MAX_ITEMS).

    >>> _check_filter("batch", {"value": [1], "linecount": 10**8,
    ...                         "fill_with": 0})  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.sandbox._BudgetExceeded: batch was asked for batches of 100,000,000
    items (at most 1,000,000)
    """
    value = next(iter(params.values()))
    size = 0
    if name in _TEXT_MAKERS:
        size = len(value) if isinstance(value, str) else weight(value)
        if size > MAX_OUTPUT:
            raise _BudgetExceeded(
                f"{name} would write a value of more than {MAX_OUTPUT:,} characters"
            )
    if (
        name == "batch"
        and params.get("fill_with") is not None
        and _count(params.get("linecount")) > MAX_OUTPUT
    ):
        raise _BudgetExceeded(
            f"batch was asked for batches of {params['linecount']:,} items (at most {MAX_OUTPUT:,})"
        )
    if name == "slice" and _count(params.get("slices")) > MAX_ITEMS:
        raise _BudgetExceeded(
            f"slice was asked for {params['slices']:,} slices (at most {MAX_ITEMS:,})"
        )
    if name == "pprint":
        _refuse_heavy("pprint", value, MAX_ITEMS, indent=1)
    if name in ("wordwrap", "urlize") and size > MAX_ITEMS:
        raise _BudgetExceeded(f"{name} takes at most {MAX_ITEMS:,} characters, not {size:,}")
    estimate = 0
    if (
        name == "replace"
        and isinstance(params.get("old"), str)
        and isinstance(params.get("new"), str)
    ):
        estimate = size + (size // max(len(params["old"]), 1) + 1) * len(params["new"])
    elif name == "indent":
        if isinstance(params.get("width"), int) and params["width"] > MAX_OUTPUT:
            raise _BudgetExceeded(f"indent was asked for more than {MAX_OUTPUT:,} characters")
        estimate = _indent_size(value, params.get("width")) if isinstance(value, str) else 0
    elif name == "center" and _count(params.get("width")) > MAX_OUTPUT:
        raise _BudgetExceeded(f"center was asked for more than {MAX_OUTPUT:,} characters")
    elif name == "wordwrap":
        wrap = params.get("wrapstring")
        estimate = size + (size + 1) * (len(wrap) if isinstance(wrap, str) else 1)
    elif name == "urlize":
        extras = sum(len(params[p]) for p in ("target", "rel") if isinstance(params.get(p), str))
        estimate = size + (size // 4 + 1) * extras
    elif name == "format" and isinstance(value, str):
        arguments = params.get("args") or tuple((params.get("kwargs") or {}).values())
        _check_arguments("%", value, tuple(arguments), {})
    if estimate > MAX_OUTPUT:
        raise _BudgetExceeded(f"{name} would build more than {MAX_OUTPUT:,} characters")
    if name in _ITEM_BY_ITEM:
        return _bounded_items(name, value)
    return value


def _count(value: Any) -> float:
    """A count or width argument as a number (0 when it is none; jinja's filter says so)."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def _bounded_items(name: str, value: Any) -> Any:
    """`value` for a filter that goes item by item: a sized one checked now (at most
    MAX_ITEMS items, weighing at most MAX_OUTPUT), an iterator wrapped to stop past MAX_ITEMS."""
    if hasattr(value, "__len__"):
        if len(value) > MAX_ITEMS:
            raise _BudgetExceeded(f"{name} takes at most {MAX_ITEMS:,} items, not {len(value):,}")
        if weight(value) > MAX_OUTPUT:
            raise _BudgetExceeded(f"{name} takes values weighing at most {MAX_OUTPUT:,} characters")
        return value
    return _counted(name, value)


def _counted(name: str, iterable: Any) -> Iterator[Any]:
    for i, item in enumerate(iterable):
        if i == MAX_ITEMS:
            raise _BudgetExceeded(f"{name} takes at most {MAX_ITEMS:,} items")
        yield item


def _guarded_filter(name: str, function: Any) -> Any:
    """A filter that checks its arguments (`_check_filter`) before it runs, and its result's
    size after."""
    signature = _parameters(function) if name in _READS_ARGUMENTS else None
    makes_text = name in _TEXT_MAKERS

    @functools.wraps(function)  # keeps jinja's pass_context / pass_environment marks
    def guarded(*args: Any, **kwargs: Any) -> Any:
        _tick()
        first = next(
            (
                i
                for i, a in enumerate(args)
                if not isinstance(
                    a, (jinja2.runtime.Context, jinja2.nodes.EvalContext, jinja2.Environment)
                )
            ),
            None,
        )
        if signature is None:
            if makes_text and first is not None and not isinstance(args[first], str):
                _check_filter(name, {"value": args[first]})
        elif first is not None:
            try:
                bound = signature.bind(*args[first:], **kwargs)
            except TypeError:
                bound = None  # wrong arguments: the filter itself says so
            if bound is not None:
                bound.apply_defaults()
                value = _check_filter(name, bound.arguments)
                if value is not args[first]:
                    args = (*args[:first], value, *args[first + 1 :])
        return _check_size(function(*args, **kwargs))

    return guarded


@jinja2.pass_environment
def _sum(
    environment: jinja2.Environment, iterable: Any, attribute: Any = None, start: Any = 0
) -> Any:
    """jinja's `sum`, its size known before it is built: lists and tuples are counted as they
    are taken (so the items past the limit are never made) and summed in one pass. Python's
    `sum` of lists copies the running total at every step (quadratic): `[l] * 300` of a
    100,000-item `l` took minutes and gigabytes.

    >>> _sum(ChatEnvironment(), [[1], [2, 3]], start=[])
    [1, 2, 3]
    >>> _sum(ChatEnvironment(), [{"n": 2}, {"n": 3}], attribute="n")
    5
    """
    if attribute is not None:
        iterable = map(jinja2.filters.make_attrgetter(environment, attribute), iterable)
    kind = type(start)
    items: list[Any] = []
    size, same_kind = _size_of(start), kind in (list, tuple)
    for item in iterable:
        _tick()
        if len(items) == MAX_OUTPUT:
            raise _BudgetExceeded(f"sum was given more than {MAX_OUTPUT:,} items")
        size += _size_of(item)
        if size > MAX_OUTPUT:
            raise _BudgetExceeded(f"sum would build a value of more than {MAX_OUTPUT:,} items")
        same_kind = same_kind and type(item) is kind
        items.append(item)
    if same_kind:
        return kind(itertools.chain(start, *items))  # start + items[0] + items[1] + ...
    if isinstance(start, (str, bytes, bytearray)):
        return sum(items, start)  # Python's own TypeError
    total = start
    for item in items:  # numbers (or a TypeError, as sum's)
        _tick()
        total = total + item
    return total


@jinja2.pass_eval_context
def _join(
    eval_ctx: jinja2.nodes.EvalContext, value: Any, d: str = "", attribute: Any = None
) -> str:
    """jinja's `join`, its size known before it is built: the items taken (at most
    MAX_OUTPUT of them) and weighed first."""
    if attribute is not None:
        value = map(jinja2.filters.make_attrgetter(eval_ctx.environment, attribute), value)
    items = _take(value, "join")
    if _join_size(items, d) > MAX_OUTPUT:
        raise _BudgetExceeded(f"join would build more than {MAX_OUTPUT:,} characters")
    return _JINJA_JOIN(eval_ctx, items, d)


_JINJA_JOIN = jinja2.filters.sync_do_join


def _list(value: Any) -> list:
    """jinja's `list`, taking at most MAX_OUTPUT items (`{{ x | list }}` is weighed when it
    is printed)."""
    return _take(value, "list")


def _check_add(left: Any, right: Any) -> None:
    if _size_of(left) + _size_of(right) > MAX_OUTPUT:
        raise _BudgetExceeded(f"it built a value of more than {MAX_OUTPUT:,} items")


class _GenerationBlock(jinja2.ext.Extension):
    """`{% generation %}...{% endgeneration %}`: renders its body and records the body's
    character span in the output (transformers' AssistantTracker)."""

    tags = {"generation"}

    def parse(self, parser: Any) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(
            self.call_method("_render_generation"), [], [], body
        ).set_lineno(lineno)

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

    def __init__(*args: Any, **kwargs: Any) -> None:  # noqa: N805 (jinja's own signature trick)
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
                f"a chat template cannot store the underscore name {name!r} on a namespace"
            )
        _check_size(value)


def _lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:  # noqa: A002
    """jinja's `lipsum` (n paragraphs of min to max words), at most MAX_ITEMS words."""
    if _count(n) * _count(max) > MAX_ITEMS:
        raise _BudgetExceeded(
            f"lipsum was asked for up to {n * max:,} words (at most {MAX_ITEMS:,})"
        )
    return jinja2.utils.generate_lorem_ipsum(n=n, html=html, min=min, max=max)


class _Ticking:
    """An iterable that ticks the budget at every item; its length is its iterable's (so
    `loop.length` works as before)."""

    __slots__ = ("iterable",)

    def __init__(self, iterable: Any) -> None:
        self.iterable = iterable

    def __len__(self) -> int:
        return len(self.iterable)

    def __iter__(self) -> Iterator[Any]:
        for item in self.iterable:
            _tick()
            yield item


class _CodeGenerator(jinja2.compiler.CodeGenerator):
    """jinja's code generator, with `~` joined by the environment's checked `concat` (jinja
    writes `str_join`, which no environment can replace) and loops that tick."""

    def visit_Concat(self, node: jinja2.nodes.Concat, frame: Any) -> None:
        self.write("environment.concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")

    def visit_For(self, node: jinja2.nodes.For, frame: Any) -> None:
        """The loop's iterable wrapped in `environment.ticking(...)`, so that each step reads
        the clock (an empty loop inside a loop calls nothing else that would)."""
        ticking = jinja2.nodes.EnvironmentAttribute("ticking")
        if not (isinstance(node.iter, jinja2.nodes.Call) and node.iter.node == ticking):
            node.iter = jinja2.nodes.Call(
                ticking, [node.iter], [], None, None, lineno=node.iter.lineno
            )
        super().visit_For(node, frame)


class ChatEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox with transformers' settings, reading the clock and sizes as it goes."""

    intercepted_binops = frozenset({"*", "+", "**", "%"})
    code_generator_class = _CodeGenerator
    concat = staticmethod(_checked_concat)  # a macro's output, and `~`
    ticking = _Ticking

    def __init__(self) -> None:
        super().__init__(
            trim_blocks=True,
            lstrip_blocks=True,
            finalize=_checked_output,
            extensions=[_GenerationBlock, jinja2.ext.loopcontrols],
        )
        self.filters.update(sum=_sum, join=_join, list=_list)
        for name, function in list(self.filters.items()):
            self.filters[name] = _guarded_filter(name, function)
        self.filters["tojson"] = _tojson
        self.globals.update(
            raise_exception=_raise_exception,
            strftime_now=_strftime_now,
            dict=_TemplateDict(),
            namespace=_Namespace,
            lipsum=_lipsum,
        )

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        _tick()
        if operator == "*":
            _check_multiply(left, right)
        elif operator == "+":
            _check_add(left, right)
        elif operator == "%":
            if isinstance(left, str):
                arguments = right if isinstance(right, tuple) else (right,)
                _check_arguments("%", left, arguments, {})
                return _check_size(super().call_binop(context, operator, left, right))
        elif isinstance(right, int):  # **
            if abs(right) > MAX_EXPONENT:
                raise _BudgetExceeded(f"it raised a number to a power above {MAX_EXPONENT}")
            if isinstance(left, int) and left.bit_length() * right > MAX_INT_BITS:
                raise _BudgetExceeded(
                    f"it raised a number to a power of more than {MAX_INT_BITS:,} bits"
                )
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        _tick()
        target = getattr(__obj, "__self__", None)
        if isinstance(target, str):
            name = getattr(__obj, "__name__", "a string method")
            if name == "join" and args:  # take the items once, then weigh them
                args = (_take(args[0], "join"), *args[1:])
            _check_arguments(name, target, args, kwargs)
        return _check_size(super().call(__context, __obj, *args, **kwargs))

    def wrap_str_format(self, value: Any) -> Any:
        """`str.format` and `str.format_map`, which the sandbox wraps when they are read: the
        format string and the arguments checked first, the result's size after."""
        wrapper = super().wrap_str_format(value)
        if wrapper is None:
            return None

        def checked(*args: Any, **kwargs: Any) -> str:
            _check_arguments(value.__name__, value.__self__, args, kwargs)
            return _check_size(wrapper(*args, **kwargs))

        return checked

    def getattr(self, obj: Any, attribute: str) -> Any:
        _tick()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        _tick()
        return super().getitem(obj, argument)


def _check_multiply(left: Any, right: Any) -> None:
    """`a * n`: the weight of a string or sequence times n (`[l] * 300` of a 100,000-item
    `l` weighs 30 million), or the bits of a product of integers."""
    if isinstance(left, int) and isinstance(right, int):
        if left.bit_length() + right.bit_length() > MAX_INT_BITS:
            raise _BudgetExceeded(f"it multiplied numbers past {MAX_INT_BITS:,} bits")
        return
    n, item = (right, left) if isinstance(right, int) else (left, right)
    if not isinstance(n, int) or not isinstance(item, (str, list, tuple)) or n <= 0:
        return
    if weight(item, MAX_OUTPUT // n) * n > MAX_OUTPUT:
        raise _BudgetExceeded(f"it multiplied a value to more than {MAX_OUTPUT:,} items")


def _raise_exception(message: str) -> None:
    raise jinja2.exceptions.TemplateError(message)


def _tojson(
    x: Any,
    ensure_ascii: bool = False,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    """transformers' `tojson`: plain `json.dumps` (jinja's own escapes HTML characters); an
    indent over MAX_INDENT is refused, and a value whose text, indentation included, would
    weigh more than MAX_OUTPUT characters is refused before it is written.

    >>> _tojson({"a": [1, 2]}, indent=1)
    '{\\n "a": [\\n  1,\\n  2\\n ]\\n}'
    """
    _tick()
    width = len(indent) if isinstance(indent, str) else indent or 0
    if width > MAX_INDENT:
        raise _BudgetExceeded(f"tojson's indent is over {MAX_INDENT}")
    if weight(x, MAX_OUTPUT, indent=max(width, 0)) > MAX_OUTPUT:
        raise _BudgetExceeded(f"tojson would write more than {MAX_OUTPUT:,} characters")
    return _check_size(
        json.dumps(
            x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
        )
    )


def _strftime_now(format: str) -> str:
    if isinstance(format, str) and len(format) + 32 * format.count("%") > MAX_OUTPUT:
        raise _BudgetExceeded(f"strftime_now would build more than {MAX_OUTPUT:,} characters")
    return datetime.now().strftime(format)


_ENVIRONMENT = ChatEnvironment()


@lru_cache(maxsize=64)
def compile_template(source: str) -> jinja2.Template:
    """The compiled template (cached by its text); a syntax error is a `TemplateFailure`.

    >>> compile_template("{% if %}")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.sandbox.TemplateFailure: the chat template failed at line 1: Expected an
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
    `time_limit` is in seconds of the rendering thread's CPU time (see `_Budget`).

    >>> render("{% for m in messages %}{{ m.role }}{% endfor %}", {"messages": [{"role": "user"}]})
    ('user', [])
    >>> render("{% set l = range(100000) | list %}\\n{{ ([l] * 300) | sum(start=[]) }}",
    ...        {})  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.sandbox.TemplateFailure: the chat template failed at line 2: it was
    stopped: it multiplied a value to more than 1,000,000 items
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

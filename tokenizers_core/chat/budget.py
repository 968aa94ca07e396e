"""What a chat template's render may use, and what a value or a call would build, known before
it is built.

A chat template is untrusted code, so rendering runs under a budget, and each budget is checked
*before* the value it limits is built (a check after `sum` or `tojson` returns comes after the
gigabytes and the minutes):

- ranges: jinja's sandbox's own limit (`range(10**9)` is refused before it starts);
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
- time: the CPU time of the rendering thread is read (see `Budget`: it counts work, not
  waiting) at every call, attribute, item, operator and loop step, and rendering stops once
  `time_limit` seconds of it have been used.

This module holds the limits, the render under way (`Budget`, found by `tick` and `current`),
a value's `weight` and the size a string method or a format would build (`check_arguments`).
The guarded filters (`filters`) and the environment (`environment`) call them where a template
makes values; they raise `BudgetExceeded`, which `runner.render` turns into a `TemplateFailure`.

This is the first line of defence, and the only one a library user rendering in-process has; it
bounds what a template can build, not what the interpreter needs to run it (a server also renders
in a child process with hard limits).
"""

from __future__ import annotations

import itertools
import re
import string
import time
from collections.abc import ItemsView, KeysView, ValuesView
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator

import jinja2.utils

MAX_OUTPUT = 1_000_000  # characters a render may produce (and any one value it builds)
MAX_ITEMS = 100_000  # items (characters, words) one call of an item-by-item filter takes
MAX_EXPONENT = 1_000  # `a ** b` with a larger b is refused
MAX_INT_BITS = 100_000  # bits of an integer `*` or `**` may build (str() stops at 4,300 digits)
MAX_INDENT = 100  # tojson's indent (transformers has no limit; templates use 2 or 4)
TIME_LIMIT = 2.0  # seconds of CPU time a render may take


class BudgetExceeded(Exception):
    """Raised inside a render that went over its time or size budget (not a TemplateError, so
    no `{% if %}` or filter swallows it)."""


class Budget:
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
            raise BudgetExceeded(f"it ran for more than {self.time_limit:g} seconds (of CPU time)")


_BUDGET: ContextVar[Budget | None] = ContextVar("chat_template_budget", default=None)


def tick() -> None:
    """Look at the clock of the render under way, if there is one: every call, attribute, item,
    operator and loop step of a template calls this."""
    budget = _BUDGET.get()
    if budget is not None and time.monotonic() >= budget.next_reading:  # budget.tick(), inlined
        budget.read_clock()


def current() -> Budget | None:
    """The render under way in this context (None outside `runner.render`)."""
    return _BUDGET.get()


@contextmanager
def active(budget: Budget) -> Iterator[None]:
    """`budget` is the render under way inside the `with` (a context variable: each thread
    renders under its own)."""
    token = _BUDGET.set(budget)
    try:
        yield
    finally:
        _BUDGET.reset(token)


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


def refuse_heavy(what: str, value: Any, limit: int = MAX_OUTPUT, indent: int = 0) -> None:
    """Refuse to make text of `value` when it weighs more than `limit`."""
    if not isinstance(value, str) and weight(value, limit, indent=indent) > limit:
        raise BudgetExceeded(f"{what} would write a value of more than {limit:,} characters")


def checked_str(value: Any, limit: int = MAX_OUTPUT) -> str:
    """`str(value)`, refused before it is built when `value` weighs more than `limit`."""
    if isinstance(value, str):
        return value
    refuse_heavy("it", value, limit)
    return check_size(str(value))


def check_size(value: Any) -> Any:
    """`value`, refused when it is a string, list or tuple of more than MAX_OUTPUT items (the
    check after a result is built, for those whose size nothing said before)."""
    if isinstance(value, (str, list, tuple)) and len(value) > MAX_OUTPUT:
        raise BudgetExceeded(f"it built a value of more than {MAX_OUTPUT:,} items")
    return value


def size_of(value: Any) -> int:
    """The length of a string, list or tuple (what `+` adds up); 0 for anything else."""
    return len(value) if isinstance(value, (str, list, tuple)) else 0


def take(iterable: Any, what: str, limit: int = MAX_OUTPUT) -> list:
    """The items of `iterable` as a list, refused past `limit` items (without taking more).

    >>> take(range(3), "join")
    [0, 1, 2]
    """
    items = list(itertools.islice(iterable, limit + 1))
    if len(items) > limit:
        raise BudgetExceeded(f"{what} was given more than {limit:,} items")
    return items


def as_count(value: Any) -> float:
    """A count or width argument as a number (0 when it is none; jinja's filter says so)."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


# ---- string methods, `%` and formats ----------------------------------------------------------
_NUMBER = re.compile(r"\d+")
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\d*)(?:\.(\d*))?")
# string methods and filters whose numeric arguments are widths (the result that long)
# (a format's fields are sized by `_format_size`, widths taken from its arguments included)
_WIDTH_TAKERS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs", "indent"})
_FLOAT_FIELD = 330  # the longest text of a float in a field: '%f' % 1e308 is 316


def check_arguments(name: str, target: Any, args: tuple, kwargs: dict) -> None:
    """Refuse, before it runs, a string method `name` on `target` (or `%`, with `target` the
    format) that would build more than MAX_OUTPUT characters: a huge width or count, huge
    widths inside a format string, or a result (`replace`, `join`, `format`, `expandtabs`,
    `translate`, `indent`) whose size `_estimate` puts over the limit.

    >>> check_arguments("center", "a", (10**9,), {})  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.budget.BudgetExceeded: center was asked for more than
    1,000,000 characters
    >>> check_arguments("replace", "abc", ("", "x" * 400_000), {})
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.budget.BudgetExceeded: replace would build more than 1,000,000 characters
    >>> check_arguments("%", "%999999s" * 2, ("a", "b"), {})
    Traceback (most recent call last):
    ...
    tokenizers_core.chat.budget.BudgetExceeded: % would build more than 1,000,000 characters
    """
    values = [*args, *kwargs.values()]
    takes_widths = name in _WIDTH_TAKERS or (name == "%" and "*" in str(target))  # '%*d'
    if takes_widths and any(isinstance(v, int) and v > MAX_OUTPUT for v in values):
        raise BudgetExceeded(f"{name} was asked for more than {MAX_OUTPUT:,} characters")
    if (
        name in ("format", "format_map", "%")
        and isinstance(target, str)
        and max(_format_widths(target, percent=name == "%"), default=0) > MAX_OUTPUT
    ):
        raise BudgetExceeded(f"a format asked for a width over {MAX_OUTPUT:,} characters")
    if _estimate(name, target, args, kwargs) > MAX_OUTPUT:
        raise BudgetExceeded(f"{name} would build more than {MAX_OUTPUT:,} characters")


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
        return join_size(args[0], target)
    if name == "indent" and args:
        return indent_size(target, args[0])
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


def join_size(items: Any, separator: Any) -> int:
    """The length of `separator.join(map(str, items))`, near enough (the items' weight).

    >>> join_size(["ab", "c"], ", ")
    5
    """
    if not hasattr(items, "__len__"):
        return 0
    n = len(items)
    return weight(items, MAX_OUTPUT + n) - n + len(checked_str(separator)) * max(n - 1, 0)


def indent_size(text: str, width: Any) -> int:
    """An upper bound of `indent`'s result: every line prefixed by the indentation."""
    per_line = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
    return len(text) + (text.count("\n") + 2) * max(per_line, 0)

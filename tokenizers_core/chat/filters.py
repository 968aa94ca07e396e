"""jinja's filters, each guarded by the render's budget: its arguments checked before it runs,
its result's size after.

A filter that makes text of a value weighs the value first (`str()` of a list of a thousand
million-character strings is a gigabyte); one that goes item by item in Python takes at most
`MAX_ITEMS` items; `batch`, `slice`, `pprint`, `replace`, `indent`, `center`, `wordwrap`,
`urlize` and `format` work out their result's size from their arguments (see `budget`). `sum`,
`join` and `list` are replaced by versions that count as they take, and `tojson` by
transformers' (plain `json.dumps`); `environment.ChatEnvironment` installs them all.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import json
from typing import Any, Callable, Iterator

import jinja2
import jinja2.filters
import jinja2.nodes
import jinja2.runtime

from .budget import (
    MAX_INDENT,
    MAX_ITEMS,
    MAX_OUTPUT,
    BudgetExceeded,
    as_count,
    check_arguments,
    check_size,
    indent_size,
    join_size,
    refuse_heavy,
    size_of,
    take,
    tick,
    weight,
)

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
    tokenizers_core.chat.budget.BudgetExceeded: batch was asked for batches of 100,000,000
    items (at most 1,000,000)
    """
    value = next(iter(params.values()))
    size = 0
    if name in _TEXT_MAKERS:
        size = len(value) if isinstance(value, str) else weight(value)
        if size > MAX_OUTPUT:
            raise BudgetExceeded(
                f"{name} would write a value of more than {MAX_OUTPUT:,} characters"
            )
    if (
        name == "batch"
        and params.get("fill_with") is not None
        and as_count(params.get("linecount")) > MAX_OUTPUT
    ):
        raise BudgetExceeded(
            f"batch was asked for batches of {params['linecount']:,} items (at most {MAX_OUTPUT:,})"
        )
    if name == "slice" and as_count(params.get("slices")) > MAX_ITEMS:
        raise BudgetExceeded(
            f"slice was asked for {params['slices']:,} slices (at most {MAX_ITEMS:,})"
        )
    if name == "pprint":
        refuse_heavy("pprint", value, MAX_ITEMS, indent=1)
    if name in ("wordwrap", "urlize") and size > MAX_ITEMS:
        raise BudgetExceeded(f"{name} takes at most {MAX_ITEMS:,} characters, not {size:,}")
    estimate = 0
    if (
        name == "replace"
        and isinstance(params.get("old"), str)
        and isinstance(params.get("new"), str)
    ):
        estimate = size + (size // max(len(params["old"]), 1) + 1) * len(params["new"])
    elif name == "indent":
        if isinstance(params.get("width"), int) and params["width"] > MAX_OUTPUT:
            raise BudgetExceeded(f"indent was asked for more than {MAX_OUTPUT:,} characters")
        estimate = indent_size(value, params.get("width")) if isinstance(value, str) else 0
    elif name == "center" and as_count(params.get("width")) > MAX_OUTPUT:
        raise BudgetExceeded(f"center was asked for more than {MAX_OUTPUT:,} characters")
    elif name == "wordwrap":
        wrap = params.get("wrapstring")
        estimate = size + (size + 1) * (len(wrap) if isinstance(wrap, str) else 1)
    elif name == "urlize":
        extras = sum(len(params[p]) for p in ("target", "rel") if isinstance(params.get(p), str))
        estimate = size + (size // 4 + 1) * extras
    elif name == "format" and isinstance(value, str):
        arguments = params.get("args") or tuple((params.get("kwargs") or {}).values())
        check_arguments("%", value, tuple(arguments), {})
    if estimate > MAX_OUTPUT:
        raise BudgetExceeded(f"{name} would build more than {MAX_OUTPUT:,} characters")
    if name in _ITEM_BY_ITEM:
        return _bounded_items(name, value)
    return value


def _bounded_items(name: str, value: Any) -> Any:
    """`value` for a filter that goes item by item: a sized one checked now (at most
    MAX_ITEMS items, weighing at most MAX_OUTPUT), an iterator wrapped to stop past MAX_ITEMS."""
    if hasattr(value, "__len__"):
        if len(value) > MAX_ITEMS:
            raise BudgetExceeded(f"{name} takes at most {MAX_ITEMS:,} items, not {len(value):,}")
        if weight(value) > MAX_OUTPUT:
            raise BudgetExceeded(f"{name} takes values weighing at most {MAX_OUTPUT:,} characters")
        return value
    return _counted(name, value)


def _counted(name: str, iterable: Any) -> Iterator[Any]:
    for i, item in enumerate(iterable):
        if i == MAX_ITEMS:
            raise BudgetExceeded(f"{name} takes at most {MAX_ITEMS:,} items")
        yield item


def guarded_filter(name: str, function: Any) -> Any:
    """A filter that checks its arguments (`_check_filter`) before it runs, and its result's
    size after."""
    signature = _parameters(function) if name in _READS_ARGUMENTS else None
    makes_text = name in _TEXT_MAKERS

    @functools.wraps(function)  # keeps jinja's pass_context / pass_environment marks
    def guarded(*args: Any, **kwargs: Any) -> Any:
        tick()
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
        return check_size(function(*args, **kwargs))

    return guarded


@jinja2.pass_environment
def do_sum(
    environment: jinja2.Environment, iterable: Any, attribute: Any = None, start: Any = 0
) -> Any:
    """jinja's `sum`, its size known before it is built: lists and tuples are counted as they
    are taken (so the items past the limit are never made) and summed in one pass. Python's
    `sum` of lists copies the running total at every step (quadratic): `[l] * 300` of a
    100,000-item `l` took minutes and gigabytes.

    >>> do_sum(jinja2.Environment(), [[1], [2, 3]], start=[])
    [1, 2, 3]
    >>> do_sum(jinja2.Environment(), [{"n": 2}, {"n": 3}], attribute="n")
    5
    """
    if attribute is not None:
        iterable = map(jinja2.filters.make_attrgetter(environment, attribute), iterable)
    kind = type(start)
    items: list[Any] = []
    size, same_kind = size_of(start), kind in (list, tuple)
    for item in iterable:
        tick()
        if len(items) == MAX_OUTPUT:
            raise BudgetExceeded(f"sum was given more than {MAX_OUTPUT:,} items")
        size += size_of(item)
        if size > MAX_OUTPUT:
            raise BudgetExceeded(f"sum would build a value of more than {MAX_OUTPUT:,} items")
        same_kind = same_kind and type(item) is kind
        items.append(item)
    if same_kind:
        return kind(itertools.chain(start, *items))  # start + items[0] + items[1] + ...
    if isinstance(start, (str, bytes, bytearray)):
        return sum(items, start)  # Python's own TypeError
    total = start
    for item in items:  # numbers (or a TypeError, as sum's)
        tick()
        total = total + item
    return total


@jinja2.pass_eval_context
def do_join(
    eval_ctx: jinja2.nodes.EvalContext, value: Any, d: str = "", attribute: Any = None
) -> str:
    """jinja's `join`, its size known before it is built: the items taken (at most
    MAX_OUTPUT of them) and weighed first."""
    if attribute is not None:
        value = map(jinja2.filters.make_attrgetter(eval_ctx.environment, attribute), value)
    items = take(value, "join")
    if join_size(items, d) > MAX_OUTPUT:
        raise BudgetExceeded(f"join would build more than {MAX_OUTPUT:,} characters")
    return _JINJA_JOIN(eval_ctx, items, d)


_JINJA_JOIN = jinja2.filters.sync_do_join


def do_list(value: Any) -> list:
    """jinja's `list`, taking at most MAX_OUTPUT items (`{{ x | list }}` is weighed when it
    is printed)."""
    return take(value, "list")


def do_tojson(
    x: Any,
    ensure_ascii: bool = False,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    """transformers' `tojson`: plain `json.dumps` (jinja's own escapes HTML characters); an
    indent over MAX_INDENT is refused, and a value whose text, indentation included, would
    weigh more than MAX_OUTPUT characters is refused before it is written.

    >>> do_tojson({"a": [1, 2]}, indent=1)
    '{\\n "a": [\\n  1,\\n  2\\n ]\\n}'
    """
    tick()
    width = len(indent) if isinstance(indent, str) else indent or 0
    if width > MAX_INDENT:
        raise BudgetExceeded(f"tojson's indent is over {MAX_INDENT}")
    if weight(x, MAX_OUTPUT, indent=max(width, 0)) > MAX_OUTPUT:
        raise BudgetExceeded(f"tojson would write more than {MAX_OUTPUT:,} characters")
    return check_size(
        json.dumps(
            x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
        )
    )

"""A user's regex, run safely: compiled with the `regex` module or refused with a message that
says why (a syntax error, groups nested too deeply, counted repeats that would expand past a
limit when compiled), and searched with a time limit, so a pattern that backtracks
exponentially is stopped instead of hanging the server.

Every pattern a user or a file supplies (the custom regex rule, a tokenizer.json's `Split` and
`Replace`, a ranks file's pattern) is held as a `TimedPattern`: the compiled pattern, the text
it was written as, and a `timeout` (None: no limit, as Hugging Face and tiktoken run them). Its
searches pass the `regex` module's `timeout=`. Inside `shared_budget()` (one encode, one
decode) all the searches of every timed pattern share that limit: a text cut into a thousand
pieces, each just under the limit, is stopped too.

>>> slow = TimedPattern(regex.compile("(a|a)*$"), timeout=0.05)
>>> slow.findall("a" * 40 + "!")
Traceback (most recent call last):
...
ValueError: the pattern '(a|a)*$' took longer than 0.05 s on this text, so it was stopped; nested repetition such as (a|a)+ or (a+)+ makes a regex backtrack exponentially: simplify it
"""
from __future__ import annotations

import contextlib
import contextvars
import time
from typing import Any, Callable, Iterable, Iterator

import regex


def compile_pattern(pattern: str) -> "regex.Pattern[str]":
    """Compile a user-supplied pattern with the `regex` module, or explain why not.

    >>> compile_pattern("(ab")
    Traceback (most recent call last):
    ...
    ValueError: invalid regex: missing ) at position 3
    """
    if not isinstance(pattern, str):
        raise ValueError("the regex pattern must be a string")
    if not pattern:
        raise ValueError("the regex pattern is empty; type a pattern such as \\w+|[^\\w\\s]")
    # `regex` expands counted repeats when compiling, so (?:a{10000}){10000} would take minutes
    # and gigabytes before any timeout applies: refuse it up front.
    size = expanded_size(pattern)
    if size > MAX_EXPANDED_SIZE:
        raise ValueError(
            f"the pattern is too large: its counted repeats {{n}} expand to about {size:,} "
            f"items when compiled (the limit is {MAX_EXPANDED_SIZE:,}); use smaller counts, "
            "or + and *")
    try:
        return regex.compile(pattern)
    except regex.error as err:
        where = f" at position {err.pos}" if err.pos is not None else ""
        raise ValueError(f"invalid regex: {err.msg}{where}") from None
    except RecursionError:
        raise ValueError("invalid regex: groups are nested too deeply") from None
    except (OverflowError, MemoryError, ValueError) as err:
        raise ValueError(f"invalid regex: {err}") from None


MAX_EXPANDED_SIZE = 100_000
_COUNTED_REPEAT_RE = regex.compile(r"\{(\d*)(?:(,)(\d*))?\}")


def expanded_size(pattern: str) -> int:
    """A rough upper bound on the size of `pattern` once its counted repeats are expanded.

    Every atom counts 1; `{n}`, `{m,n}` (and `{m,}`) multiply the item before them by n (m), so
    nested counts multiply. `*`, `+`, `?` are not expanded by `regex` and count as atoms. This is
    an estimate for refusing huge patterns, not a parser: an invalid pattern gets some number.

    >>> expanded_size("(ab{10}){100}"), expanded_size("a{3}|b{1,4}")
    (1100, 8)
    """
    stack = [[0, 0]]          # for each open group: [size so far, size of its last item]
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "(":
            stack.append([0, 0])
            i += 1
            continue
        if c == "{" and (m := _COUNTED_REPEAT_RE.match(pattern, i)):
            low, comma, high = m.groups()
            count = int(high) if comma and high else int(low or 0)
            top = stack[-1]
            top[0] += top[1] * (max(count, 1) - 1)
            top[1] *= max(count, 1)
            if top[0] > 10 * MAX_EXPANDED_SIZE:
                return top[0]
            i = m.end()
            continue
        if c == ")":
            size = max(stack.pop()[0], 1) if len(stack) > 1 else 1
            i += 1
        elif c == "[":
            size, i = 1, _class_end(pattern, i)
        elif c == "\\":
            size, i = 1, _escape_end(pattern, i)
        else:
            size, i = 1, i + 1
        stack[-1][0] += size
        stack[-1][1] = size
    return sum(group[0] for group in stack)


def _class_end(pattern: str, i: int) -> int:
    """The index after the character class that starts at `pattern[i] == "["` (nesting allowed)."""
    depth, i = 0, i
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            depth += 1
            if pattern.startswith("]", i + 1) or pattern.startswith("^]", i + 1):
                i = pattern.index("]", i + 1) + 1       # a leading "]" is a literal
                continue
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def _escape_end(pattern: str, i: int) -> int:
    """The index after the escape at `pattern[i] == "\\"` (with `\\p{...}`-style braces)."""
    if pattern.startswith("{", i + 2) and pattern[i + 1:i + 2] in ("p", "P", "N", "x", "u", "U"):
        close = pattern.find("}", i + 2)
        return close + 1 if close >= 0 else len(pattern)
    return i + 2


def match_spans(compiled: "regex.Pattern[str] | TimedPattern", text: str,
                timeout: float | None = None) -> list[tuple[int, int]]:
    """`(start, end)` of every match, left to right, as `findall` finds them.

    Zero-width matches are included (the caller decides what they mean). A `TimedPattern`
    keeps its own limit; for a plain compiled pattern, `timeout` is the limit (None: none).

    >>> match_spans(regex.compile(r"\\d+"), "a1b22")
    [(1, 2), (3, 5)]
    """
    if timeout is not None and not isinstance(compiled, TimedPattern):
        compiled = TimedPattern(compiled, timeout=timeout)
    return [m.span() for m in compiled.finditer(text)]


# ---- the time limit -----------------------------------------------------------------------------
# seconds spent so far by timed searches in the current `shared_budget()`, or None outside one
_SPENT: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar("regex_spent",
                                                                           default=None)


@contextlib.contextmanager
def shared_budget() -> Iterator[None]:
    """Inside it, the searches of all timed patterns share one time limit (each pattern's own
    `timeout`, less what the searches before it took). Nested budgets are one budget."""
    if _SPENT.get() is not None:
        yield
        return
    token = _SPENT.set([0.0])
    try:
        yield
    finally:
        _SPENT.reset(token)


class TimedPattern:
    """A compiled pattern whose searches stop after `timeout` seconds (None: never) with a
    `ValueError` naming the pattern as the user wrote it (`source`). It offers what the engine
    calls on a pattern (`finditer`, `findall`, `search`, `sub`, `pattern`, `groups`);
    `finditer` gives a list, so the whole search happens under the limit.
    """

    def __init__(self, compiled: "regex.Pattern[str]", source: str | None = None,
                 timeout: float | None = None) -> None:
        self.compiled = compiled
        self.source = compiled.pattern if source is None else source
        self.timeout = timeout

    @property
    def pattern(self) -> str:
        return self.compiled.pattern

    @property
    def groups(self) -> int:
        return self.compiled.groups

    @property
    def flags(self) -> int:
        return self.compiled.flags

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> list[Any]:
        return self._timed(lambda limit: list(self.compiled.finditer(
            text, pos, len(text) if endpos is None else endpos, timeout=limit)))

    def findall(self, text: str, pos: int = 0, endpos: int | None = None) -> list[Any]:
        return self._timed(lambda limit: self.compiled.findall(
            text, pos, len(text) if endpos is None else endpos, timeout=limit))

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        return self._timed(lambda limit: self.compiled.search(
            text, pos, len(text) if endpos is None else endpos, timeout=limit))

    def sub(self, repl: Any, text: str, count: int = 0) -> str:
        return self._timed(lambda limit: self.compiled.sub(repl, text, count, timeout=limit))

    def _timed(self, search: Callable[[float | None], Any]) -> Any:
        if self.timeout is None:
            return search(None)
        spent = _SPENT.get()
        left = self.timeout - (spent[0] if spent else 0.0)
        start = time.perf_counter()
        try:
            if left <= 0:
                raise TimeoutError
            return search(left)
        except TimeoutError:
            raise ValueError(
                f"the pattern {self.source!r} took longer than {self.timeout:g} s on this "
                "text, so it was stopped; nested repetition such as (a|a)+ or (a+)+ makes a "
                "regex backtrack exponentially: simplify it") from None
        finally:
            if spent is not None:
                spent[0] += time.perf_counter() - start

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TimedPattern):
            other = other.compiled
        return self.compiled == other

    def __hash__(self) -> int:
        return hash(self.compiled)

    def __repr__(self) -> str:
        return f"TimedPattern({self.source!r}, timeout={self.timeout!r})"


def timed_patterns(components: Iterable[Any]) -> list[TimedPattern]:
    """The `TimedPattern`s held by pipeline components (and by the components inside them:
    a Sequence's members, a wrapper's inner pre-tokenizer), each once."""
    found: list[TimedPattern] = []
    seen: set[int] = set()
    stack = list(components)
    while stack:
        obj = stack.pop()
        if obj is None or isinstance(obj, (str, bytes, int, float, bool)) or id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, TimedPattern):
            found.append(obj)
        elif isinstance(obj, (list, tuple)) and len(obj) <= 10_000:   # longer ones are data
            stack.extend(obj)
        elif type(obj).__module__.startswith("tokenizers_core."):
            stack.extend(getattr(obj, "__dict__", {}).values())
    return found

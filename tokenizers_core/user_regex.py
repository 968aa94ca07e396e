"""A user's regex, run safely: compiled with the `regex` module or refused with a message that
says why (a syntax error, groups nested too deeply, counted repeats that would expand past a
limit when compiled), and searched with a limit of CPU time, so a pattern that backtracks
exponentially is stopped instead of hanging the server.

Every pattern a user or a file supplies (the custom regex rule, a tokenizer.json's `Split` and
`Replace`, a ranks file's pattern) is held as a `TimedPattern`: the compiled pattern, the text
it was written as, and a `timeout` in seconds of CPU time (None: no limit, as Hugging Face and
tiktoken run them). A server runs these searches in a sandboxed child process (`use_runner`);
a library user runs them in the calling thread.

Every search of the package's own patterns and of these keeps the interpreter while it runs
(`concurrent=False`, as the stdlib's `re` always does). By default the `regex` module lets go
of it during each match and takes it back after: beside one busy thread that costs up to a
switch interval (5 ms) a call, a thousand times a 2 KB text's own matching, and each taking
back costs CPU time of its own (beside 8 busy threads, five searches of 2 KB used 35 ms of
CPU instead of 0.6). Inside `shared_budget()` (one encode, one
decode) all the searches of every timed pattern share that limit: a text cut into a thousand
pieces, each just under the limit, is stopped too.

>>> slow = TimedPattern(regex.compile("(a|a)*$"), timeout=0.05)
>>> slow.findall("a" * 40 + "!")  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
tokenizers_core.errors.InvalidInput: the pattern '(a|a)*$' took longer than 0.05 s on this text, so
it was stopped; nested repetition such as (a|a)+ or (a+)+ makes a regex backtrack exponentially:
simplify it
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import time
from typing import Any, Callable, Iterable, Iterator

import regex

from .errors import InvalidInput


def compile_pattern(pattern: str) -> "regex.Pattern[str]":
    """Compile a user-supplied pattern with the `regex` module, or explain why not.

    >>> compile_pattern("(ab")
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: invalid regex: missing ) at position 3
    """
    if not isinstance(pattern, str):
        raise InvalidInput("the regex pattern must be a string")
    if not pattern:
        raise InvalidInput("the regex pattern is empty; type a pattern such as \\w+|[^\\w\\s]")
    # `regex` expands counted repeats when compiling, so (?:a{10000}){10000} would take minutes
    # and gigabytes before any timeout applies: refuse it up front.
    size = expanded_size(pattern)
    if size > MAX_EXPANDED_SIZE:
        raise InvalidInput(
            f"the pattern is too large: its counted repeats {{n}} expand to about {size:,} "
            f"items when compiled (the limit is {MAX_EXPANDED_SIZE:,}); use smaller counts, "
            "or + and *"
        )
    try:
        return regex.compile(pattern)
    except regex.error as err:
        # regex.error sets both attributes; the types-regex stubs declare neither
        msg, pos = err.msg, err.pos  # type: ignore[attr-defined]
        where = f" at position {pos}" if pos is not None else ""
        raise InvalidInput(f"invalid regex: {msg}{where}") from None
    except RecursionError:
        raise InvalidInput("invalid regex: groups are nested too deeply") from None
    except (OverflowError, MemoryError, ValueError) as err:
        raise InvalidInput(f"invalid regex: {err}") from None


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
    stack = [[0, 0]]  # for each open group: [size so far, size of its last item]
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
                i = pattern.index("]", i + 1) + 1  # a leading "]" is a literal
                continue
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def _escape_end(pattern: str, i: int) -> int:
    """The index after the escape at `pattern[i] == "\\"` (with `\\p{...}`-style braces)."""
    if pattern.startswith("{", i + 2) and pattern[i + 1 : i + 2] in ("p", "P", "N", "x", "u", "U"):
        close = pattern.find("}", i + 2)
        return close + 1 if close >= 0 else len(pattern)
    return i + 2


def match_spans(
    compiled: "regex.Pattern[str] | TimedPattern", text: str, timeout: float | None = None
) -> list[tuple[int, int]]:
    """`(start, end)` of every match, left to right, as `findall` finds them.

    Zero-width matches are included (the caller decides what they mean). A `TimedPattern`
    keeps its own limit; for a plain compiled pattern, `timeout` is the limit (None: none).

    >>> match_spans(regex.compile(r"\\d+"), "a1b22")
    [(1, 2), (3, 5)]
    """
    if timeout is not None and not isinstance(compiled, TimedPattern):
        compiled = TimedPattern(compiled, timeout=timeout)
    return [m.span() for m in compiled.finditer(text, **held(compiled))]


_HOLD = {"concurrent": False}


def held(compiled: Any) -> dict[str, Any]:
    """The keyword that keeps the interpreter through a search of `compiled`: `concurrent=False`
    for a `regex` pattern or a `TimedPattern`, none for another (the stdlib's `re` always keeps
    it, and takes no such keyword).

    >>> import re
    >>> held(regex.compile("a")), held(re.compile("a"))
    ({'concurrent': False}, {})
    """
    return _HOLD if isinstance(compiled, (regex.Pattern, TimedPattern)) else {}


# ---- the time limit -----------------------------------------------------------------------------
# The limit counts work, not waiting: the CPU time of the searching thread (`time.thread_time`),
# so a busy server (other threads, other processes on the cores) never turns a legitimate search
# into an error. The search holds the interpreter, so waiting for it adds nothing to that time.
# The `regex` module's own `timeout=` reads the process's CPU clock (C's `clock()`: all its
# threads); while the search holds the interpreter that is close to the search's own time. It
# is passed a multiple of the CPU time left (WALL_FACTOR, plus WALL_SLACK seconds) as the
# backstop that actually stops a runaway search, and the CPU time is checked after every
# search. A backstop that fires before the CPU time is used up (other threads of the process
# ran outside the interpreter) stopped a search that did not do its work: it runs again
# (`run_search`). A runaway search in a library user's thread holds the interpreter until the
# backstop; a server sends user searches to its sandbox's children, where no thread waits.
WALL_FACTOR, WALL_SLACK = 2.0, 0.25

# seconds of CPU spent so far by timed searches in the current `shared_budget()`, or None
_SPENT: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar(
    "regex_spent", default=None
)

# Where timed searches run: None here (this thread); a server installs a runner that sends them
# to a sandboxed child process (`use_runner`).
Runner = Callable[["TimedPattern", str, tuple, float], "tuple[Any, float] | None"]
_RUNNER: list[Runner | None] = [None]


def use_runner(runner: Runner | None) -> Runner | None:
    """Run every timed search through `runner(pattern, method, args, seconds_left)` from now on
    (None: in this thread again); returns the runner it replaces. The runner returns `(result,
    cpu_seconds_spent)` as the search here would give it, or None to let it run here; it raises
    TimeoutError when the search took too long. Searches of patterns without a limit (the
    trusted presets) always run here."""
    previous, _RUNNER[0] = _RUNNER[0], runner
    return previous


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


def run_search(
    compiled: "regex.Pattern[str]",
    method: str,
    args: tuple,
    seconds: float,
    wall_factor: float = WALL_FACTOR,
    wall_slack: float = WALL_SLACK,
) -> tuple[Any, float]:
    """One search `method` ("finditer", "findall", "search" or "sub") of `compiled` with `args`,
    stopped once it has used `seconds` of CPU time (TimeoutError): `(result, cpu_seconds)`.
    The search itself is stopped after `seconds * wall_factor + wall_slack` of wall clock;
    stopped so while its CPU time is still within `seconds` (it was waiting, not working), it
    runs again with what is left.
    `finditer` and `search` give `Match` values (plain data: they pickle, so a sandboxed child
    can send them back).

    >>> run_search(regex.compile(r"\\d+"), "finditer", ("a1b22", 0, None), 1.0)[0]
    [Match((1, 2)), Match((3, 5))]
    """
    spent = 0.0  # the CPU time of the searches themselves, each timed around its one C call
    for attempt in itertools.count():
        left = seconds - spent
        if left <= 0:
            raise TimeoutError
        wall = (left * wall_factor + wall_slack) * 2**attempt
        start = time.thread_time()
        try:
            found = _search_once(compiled, method, args, wall)
            spent += time.thread_time() - start
            break
        except TimeoutError:
            spent += time.thread_time() - start
            if spent >= seconds:
                raise
            # The backstop fired while this thread's own CPU time is within the budget (other
            # threads of the process ran outside the interpreter): search again with the CPU
            # time left, and a backstop twice as long each time, so that a cut-off try's CPU
            # stays small beside the budget.
    if spent > seconds:
        raise TimeoutError
    return _plain(method, found, args), spent


def _search_once(compiled: "regex.Pattern[str]", method: str, args: tuple, wall: float) -> Any:
    """One search stopped by the `regex` module after `wall` seconds of the process's CPU clock
    (TimeoutError): one C call that holds the interpreter throughout (`finditer` is drained by
    `list`), so the time around it is the search's own."""
    if method == "sub":
        repl, text, count = args
        return compiled.sub(repl, text, count, concurrent=False, timeout=wall)
    text, pos, endpos = args
    endpos = len(text) if endpos is None else endpos
    if method == "finditer":
        return list(compiled.finditer(text, pos, endpos, concurrent=False, timeout=wall))
    if method == "findall":
        return compiled.findall(text, pos, endpos, concurrent=False, timeout=wall)
    if method == "search":
        return compiled.search(text, pos, endpos, concurrent=False, timeout=wall)
    raise ValueError(f"unknown search method {method!r}")


def _plain(method: str, found: Any, args: tuple) -> Any:
    """A search's result with `regex`'s match objects made `Match` values."""
    if method == "finditer":
        return [Match(m.regs, args[0]) for m in found]
    if method == "search" and found is not None:
        return Match(found.regs, args[0])
    return found


class Match:
    """What callers read of a match: the spans of the whole match and of each group (`regs`,
    (-1, -1) for a group that did not take part) over the searched text."""

    __slots__ = ("regs", "string")

    def __init__(self, regs: tuple[tuple[int, int], ...], string: str) -> None:
        self.regs = tuple(regs)
        self.string = string

    def span(self, group: int = 0) -> tuple[int, int]:
        return self.regs[group]

    def start(self, group: int = 0) -> int:
        return self.regs[group][0]

    def end(self, group: int = 0) -> int:
        return self.regs[group][1]

    def group(self, *groups: int) -> Any:
        found = [self._text(g) for g in groups or (0,)]
        return found[0] if len(found) == 1 else tuple(found)

    def groups(self, default: Any = None) -> tuple[Any, ...]:
        return tuple(
            default if self.regs[g][0] < 0 else self._text(g) for g in range(1, len(self.regs))
        )

    def __getitem__(self, group: int) -> Any:
        return self._text(group)

    def _text(self, group: int) -> str | None:
        start, end = self.regs[group]
        return None if start < 0 else self.string[start:end]

    def __reduce__(self) -> Any:  # the text is the caller's: send only the spans
        return (Match, (self.regs, ""))

    def __repr__(self) -> str:
        return f"Match({self.regs[0]!r})"


class TimedPattern:
    """A compiled pattern whose searches stop after `timeout` seconds of CPU time (None: never)
    with a `ValueError` naming the pattern as the user wrote it (`source`). It offers what the
    engine calls on a pattern (`finditer`, `findall`, `search`, `sub`, `pattern`, `groups`);
    `finditer` gives a list, so the whole search happens under the limit. Each takes
    `concurrent` as a `regex` pattern does, so that callers can pass the same arguments to
    either; a timed search holds the interpreter whatever it says. A runner installed
    with `use_runner` decides where the searches run (a server: a sandboxed child process).
    """

    def __init__(
        self,
        compiled: "regex.Pattern[str]",
        source: str | None = None,
        timeout: float | None = None,
    ) -> None:
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

    def finditer(
        self, text: str, pos: int = 0, endpos: int | None = None, concurrent: bool | None = None
    ) -> list[Any]:
        return self._timed("finditer", (text, pos, endpos))

    def findall(
        self, text: str, pos: int = 0, endpos: int | None = None, concurrent: bool | None = None
    ) -> list[Any]:
        return self._timed("findall", (text, pos, endpos))

    def search(
        self, text: str, pos: int = 0, endpos: int | None = None, concurrent: bool | None = None
    ) -> Any:
        return self._timed("search", (text, pos, endpos))

    def sub(self, repl: Any, text: str, count: int = 0, concurrent: bool | None = None) -> str:
        return self._timed("sub", (repl, text, count))

    def _timed(self, method: str, args: tuple) -> Any:
        if self.timeout is None:
            return _untimed(self.compiled, method, args)
        spent = _SPENT.get()
        left = self.timeout - (spent[0] if spent else 0.0)
        used = 0.0
        try:
            if left <= 0:
                raise TimeoutError
            runner = _RUNNER[0] if method != "sub" or isinstance(args[0], str) else None
            ran = runner(self, method, args, left) if runner is not None else None
            result, used = ran if ran is not None else run_search(self.compiled, method, args, left)
        except TimeoutError:
            used = left
            raise InvalidInput(
                f"the pattern {self.source!r} took longer than {self.timeout:g} s on this "
                "text, so it was stopped; nested repetition such as (a|a)+ or (a+)+ makes a "
                "regex backtrack exponentially: simplify it"
            ) from None
        finally:
            if spent is not None:
                spent[0] += used
        if isinstance(result, Match):
            return Match(result.regs, args[0])
        if method == "finditer":
            return [Match(m.regs, args[0]) for m in result]
        return result

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
        elif isinstance(obj, (list, tuple)) and len(obj) <= 10_000:  # longer ones are data
            stack.extend(obj)
        elif type(obj).__module__.startswith("tokenizers_core."):
            stack.extend(getattr(obj, "__dict__", {}).values())
    return found


def _untimed(compiled: "regex.Pattern[str]", method: str, args: tuple) -> Any:
    """A search with no limit, as Hugging Face and tiktoken run them."""
    if method == "sub":
        repl, text, count = args
        return compiled.sub(repl, text, count, concurrent=False)
    text, pos, endpos = args
    endpos = len(text) if endpos is None else endpos
    found = getattr(compiled, method)(text, pos, endpos, concurrent=False)
    return list(found) if method == "finditer" else found

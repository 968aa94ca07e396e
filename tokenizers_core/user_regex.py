"""A user's regex, run safely: compiled with the `regex` module or refused with a message that
says why (a syntax error, groups nested too deeply, counted repeats that would expand past a
limit when compiled), and searched with a time limit (`match_spans`), so a pattern that
backtracks exponentially is stopped instead of hanging the server.
"""
from __future__ import annotations

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


def match_spans(compiled: "regex.Pattern[str]", text: str,
                timeout: float | None = None) -> list[tuple[int, int]]:
    """`(start, end)` of every match, left to right, as `findall` finds them.

    Zero-width matches are included (the caller decides what they mean). With `timeout`, the
    whole search may take at most that many seconds, else `ValueError`.

    >>> match_spans(regex.compile(r"\\d+"), "a1b22")
    [(1, 2), (3, 5)]
    """
    try:
        return [m.span() for m in compiled.finditer(text, timeout=timeout)]
    except TimeoutError:
        raise ValueError(
            f"the pattern took longer than {timeout:g} s on this text, so it was stopped; "
            "nested repetition such as (a|a)+ or (a+)+ makes a regex backtrack "
            "exponentially: simplify it") from None

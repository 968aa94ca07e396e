r"""Regular expressions as Hugging Face `tokenizers` runs them (Oniguruma), with the `regex` module.

Hugging Face compiles the `Regex` patterns of a `tokenizer.json` (in `Split`, `Replace`) with
Oniguruma's default (Ruby) syntax. The `regex` module reads the same patterns the same way for
what real tokenizers use (`\p{L}`, `\p{N}`, `\s`, `(?i:...)`, possessive `++`, look-ahead), with
two differences we bridge here:

- **Anchors.** In Ruby syntax `^` and `$` are line anchors (after / before any "\n"), so the
  pattern is compiled with `regex.MULTILINE`.
- **Character classes.** Oniguruma's `\w` leaves out the joiners U+200C and U+200D and takes
  in the Latin-1 superscripts and fractions (`²³¹¼½¾`) (inside a `[...]` class, not those);
  its `\h` is a hex digit. `translate` rewrites `\w`, `\W`, `\h` and `\H` to say so (all but
  `\W` and `\H` inside a class, which stay as `regex` reads them).
- **Options.** Ruby's `(?m)` is "dot matches newline", `regex`'s `(?s)`.
- **Counted repeats.** `X{1,3}+` repeats `X{1,3}` (Ruby syntax), where `regex` reads a
  possessive `X{1,3}`; `translate` writes `(?:X{1,3})+`.
- **Empty matches.** Oniguruma's iterator (the `onig` crate's `find_iter`) skips an empty match
  that touches the end of the previous match and moves on by one character; Python's allows it.
  `find_spans` walks the text as `onig` does.

>>> find_spans(compile_hf(r"\d*"), "a12b")
[(0, 0), (1, 3), (4, 4)]
>>> find_matches(compile_hf(r"\d+"), "a12b")
[((0, 1), False), ((1, 3), True), ((3, 4), False)]

Not bridged: other Oniguruma-only syntax (POSIX classes such as `[[:punct:]]`, which Oniguruma
makes wider; `\W` inside a class); such a pattern either fails to compile here
(a `ValueError` naming it) or means what it means to `regex`.
"""

from __future__ import annotations

from typing import Callable

import regex

from .errors import InvalidInput
from .user_regex import TimedPattern, held, shared_budget

__all__ = ["compile_hf", "find_matches", "find_spans", "char_matches"]


def compile_hf(pattern: str, *, literal: bool = False) -> "regex.Pattern[str] | TimedPattern":
    """Compile a Hugging Face pattern: a regex in Ruby syntax, or (`literal`) a plain string.

    A regex comes back as a `user_regex.TimedPattern` (no time limit until one is set, as
    Hugging Face runs it; `Tokenizer.limit_regex_time` sets one); a literal cannot backtrack.

    >>> compile_hf("a.b", literal=True).findall("a.b axb")
    ['a.b']
    >>> compile_hf("(")
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: invalid regex '(': missing ) at position 1
    """
    if not isinstance(pattern, str):
        raise InvalidInput(f"a pattern must be a string, not {type(pattern).__name__}")
    if literal:
        return regex.compile(regex.escape(pattern))
    try:
        return TimedPattern(regex.compile(translate(pattern), regex.MULTILINE), pattern)
    except regex.error as err:
        # regex.error sets both attributes; the types-regex stubs declare neither
        msg, pos = err.msg, err.pos  # type: ignore[attr-defined]
        where = f" at position {pos}" if pos is not None else ""
        raise InvalidInput(f"invalid regex {pattern!r}: {msg}{where}") from None
    except (RecursionError, OverflowError, MemoryError) as err:
        raise InvalidInput(f"invalid regex {pattern!r}: {err}") from None


# Oniguruma's \w: Unicode's word characters without the joiners (Join_Control), plus the
# Latin-1 superscripts and fractions its single-byte table counts as word characters.
_WORD = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\xb2\\xb3\\xb9\\xbc-\\xbe"
# Its \b and \B read the same word characters (so "¹x" has no boundary inside: both are).
_IS, _NOT = f"[{_WORD}]", f"[^{_WORD}]"
_EDGE = f"(?:(?<={_IS})(?!{_IS})|(?<!{_IS})(?={_IS}))"
_NO_EDGE = f"(?:(?<={_IS})(?={_IS})|(?<!{_IS})(?!{_IS}))"
_OUTSIDE = {
    "w": _IS,
    "W": _NOT,
    "b": _EDGE,
    "B": _NO_EDGE,
    "h": "[0-9A-Fa-f]",
    "H": "[^0-9A-Fa-f]",
}
_INSIDE = {"w": "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}", "h": "0-9A-Fa-f"}  # no Latin-1 extras


_COUNTED = regex.compile(r"\{\d+(?:,\d*)?\}")
_OPTIONS = regex.compile(r"\(\?[imx-]*m[imx-]*[:)]")  # (?m) / (?im: ... in Ruby syntax


def translate(pattern: str, *, to_oniguruma: bool = False) -> str:
    r"""Rewrite what Oniguruma (Ruby syntax) reads differently from the `regex` module: `\w`,
    `\W`, `\b`, `\B`, `\h`, `\H` (see above), and a counted repeat followed by "+": in Ruby
    syntax `X{1,3}+` is `(?:X{1,3})+`, a repeat of the repeat, not a possessive one.

    >>> translate(r"\h+|[\w-]")
    '[0-9A-Fa-f]+|[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}-]'
    >>> translate(r"\p{N}{1,3}+|(ab){2}+")
    '(?:\\p{N}{1,3})+|(?:(ab){2})+'

    `to_oniguruma` goes the other way, for writing a `regex` (tiktoken-style) pattern into a
    tokenizer.json: a possessive counted repeat becomes an atomic group, which both read alike.

    >>> translate(r"\p{N}{1,3}+", to_oniguruma=True)
    '(?>\\p{N}{1,3})'
    """
    if "\\" not in pattern and "}+" not in pattern and "(?" not in pattern:
        return pattern
    out: list[str] = []
    depth = 0  # nesting of [...] classes
    atom = 0  # where in `out` the last atom (outside classes) starts
    groups: list[int] = []  # where in `out` each open group starts
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        start = len(out)
        if c == "\\" and i + 1 < n:
            letter = pattern[i + 1]
            if letter in "pPxu" and pattern.startswith("{", i + 2) and "}" in pattern[i + 2 :]:
                end = pattern.index("}", i + 2) + 1  # \p{L}, \x{41}: one atom
                out.append(pattern[i:end])
                i = end
            else:
                table = {} if to_oniguruma else _INSIDE if depth else _OUTSIDE
                out.append(table.get(letter, pattern[i : i + 2]))
                i += 2
            if not depth:
                atom = start
            continue
        if c == "[":
            if depth and pattern.startswith("[:", i):  # a POSIX class [:alpha:]
                end = pattern.find(":]", i + 2)
                if end >= 0:
                    out.append(pattern[i : end + 2])
                    i = end + 2
                    continue
            if not depth:
                atom = start
            depth += 1
            out.append(c)
            i += 1
            for lead in ("^]", "]", "^"):  # a leading "]" is literal
                if pattern.startswith(lead, i):
                    out.append(lead)
                    i += len(lead)
                    break
            continue
        if depth:
            if c == "]":
                depth -= 1
            out.append(c)
            i += 1
            continue
        options = _OPTIONS.match(pattern, i) if c == "(" and not to_oniguruma else None
        if options:  # Ruby's "m" option is "dot matches newline": regex's "s"
            groups.append(start)
            out.append(options.group().replace("m", "s"))
            i = options.end()
            if out[-1].endswith(")"):  # (?m) alone: a flag, not a group
                groups.pop()
            continue
        counted = _COUNTED.match(pattern, i) if c == "{" else None
        if counted and pattern.startswith("+", counted.end()) and atom < len(out):
            repeated = "".join(out[atom:]) + counted.group()
            del out[atom:]
            out.append(f"(?>{repeated})" if to_oniguruma else f"(?:{repeated})+")
            i = counted.end() + 1
            continue
        if c == "(":
            groups.append(start)
        elif c == ")" and groups:
            atom = groups.pop()
            out.append(c)
            i += 1
            continue
        if c not in "*+?{|":
            atom = start
        out.append(c)
        i += 1
    return "".join(out)


def find_spans(compiled: "regex.Pattern[str] | TimedPattern", text: str) -> list[tuple[int, int]]:
    """The matches of `compiled` in `text`, left to right, as Oniguruma's iterator finds them.

    An empty match right where the previous match ended is skipped, and the search resumes one
    character further on (so `x*` finds no empty match just after "xx").

    >>> find_spans(regex.compile("x*"), "axxb")
    [(0, 0), (1, 3), (4, 4)]
    """
    with shared_budget():  # one time limit for all the searches below
        return _find_spans(compiled, text)


def _find_spans(compiled: "regex.Pattern[str] | TimedPattern", text: str) -> list[tuple[int, int]]:
    hold = held(compiled)
    spans = [m.span() for m in compiled.finditer(text, **hold)]
    if all(start < end for start, end in spans):
        return spans  # no empty match: the two iterators agree
    out: list[tuple[int, int]] = []
    pos, last_end = 0, -1
    n = len(text)
    while pos <= n:
        m = compiled.search(text, pos, **hold)
        if m is None:
            break
        start, end = m.span()
        if start == end and end == last_end:
            pos = end + 1  # onig: skip it, move one character on
            continue
        out.append((start, end))
        pos = last_end = end
    return out


def find_matches(
    compiled: "regex.Pattern[str] | TimedPattern", text: str, invert: bool = False
) -> list[tuple[tuple[int, int], bool]]:
    """Hugging Face's `Pattern::find_matches`: the text cut into `((start, end), is_match)`,
    covering it in order (empty matches included as zero-width pieces). `invert` flips the flags.
    Empty text gives `[((0, 0), False)]`.
    """
    if not text:
        return [((0, 0), invert)]
    out: list[tuple[tuple[int, int], bool]] = []
    prev = 0
    for start, end in find_spans(compiled, text):
        if prev != start:
            out.append(((prev, start), invert))
        out.append(((start, end), not invert))
        prev = end
    if prev != len(text):
        out.append(((prev, len(text)), invert))
    return out


def char_matches(
    is_match: Callable[[str], bool], text: str, invert: bool = False
) -> list[tuple[tuple[int, int], bool]]:
    """`find_matches` for a character predicate: every matching character is a match of its own.

    >>> char_matches(str.isdigit, "a12")
    [((0, 1), False), ((1, 2), True), ((2, 3), True)]
    """
    if not text:
        return [((0, 0), invert)]
    out: list[tuple[tuple[int, int], bool]] = []
    last = 0
    for i, c in enumerate(text):
        if is_match(c):
            if last < i:
                out.append(((last, i), invert))
            out.append(((i, i + 1), not invert))
            last = i + 1
    if last < len(text):
        out.append(((last, len(text)), invert))
    return out

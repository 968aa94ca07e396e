"""The textbook's pages stay what a student reads: every line a code panel lights is a whole line
of code, and every page is short enough to read at once.

A view's code panel lights the line of a textbook module's CODE whose comment ends with a marker
(`# ... <- merge`). A formatter that splits a long line moves the comment, and so the light, onto
a line holding a lone `]` or one argument of a call; these tests catch that. A marked line is whole
when it compiles by itself as a statement of a loop body (a compound statement's header, such as
`for x in pair:`, with an empty body under it).
"""

from __future__ import annotations

import importlib
import io
import pkgutil
import re
import tokenize
from pathlib import Path

import pytest

import tokenizers_core.textbook as textbook
from tokenizers_core.textbook import line_marks

ROOT = Path(__file__).resolve().parents[3]
PAGE_LINES = 160  # a page a student reads at once
MODULES = sorted(info.name for info in pkgutil.iter_modules(textbook.__path__))
CLOSING = (")", "]", "}")


def code_part(line: str) -> str | None:
    """The code of one source line, its comment cut off (None when the line does not tokenise
    by itself: it opens a bracket it does not close).

    >>> code_part("    x = f(a)  # the call <- call"), code_part("    yield Step(  # <- record")
    ('x = f(a)', None)
    """
    text = line.strip()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    comment = next((t for t in tokens if t.type == tokenize.COMMENT), None)
    return text[: comment.start[1]].rstrip() if comment else text


def is_whole(line: str) -> bool:
    """Does `line` (a marked line) hold one whole statement, or a compound statement's header?

    >>> is_whole("    return  # done <- stop"), is_whole("        for x in pair:  # <- ios")
    (True, True)
    >>> is_whole("    ]  # merge it everywhere <- merge"), is_whole("    ids[new],  # <- record")
    (False, False)
    """
    code = code_part(line)
    if not code or code.startswith(CLOSING) or code.endswith(","):  # (a tuple: an argument)
        return False
    if code.startswith(("elif ", "else:", "except", "finally:")):
        code = "if x:\n            pass\n        " + code
    body = code + ("\n            pass" if code.endswith(":") else "")
    try:
        compile(f"def page():\n    while True:\n        {body}\n", "<marked line>", "exec")
    except SyntaxError:
        return False
    return True


def pages() -> list:
    """The textbook modules that own a code panel (a CODE and its `line_of`)."""
    out = []
    for name in MODULES:
        module = importlib.import_module(f"tokenizers_core.textbook.{name}")
        if hasattr(module, "CODE") and hasattr(module, "line_of"):
            out.append(module)
    return out


@pytest.mark.parametrize("module", pages(), ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_every_marked_line_is_a_whole_line_of_code(module):
    marks = line_marks(module.CODE)
    assert {"start", "stop"} <= set(marks) or "seed" in marks  # (unigram_em starts at its seed)
    broken = {
        mark: module.CODE[number - 1]
        for mark, number in marks.items()
        if not is_whole(module.CODE[number - 1])
    }
    assert not broken, f"{module.__name__}: marked lines that are not whole statements: {broken}"
    opening = [
        module.CODE[n - 1]
        for n in marks.values()
        if module.CODE[n - 1].lstrip().startswith(CLOSING)
    ]
    assert not opening, f"{module.__name__}: a marked line starts with a closing bracket"


@pytest.mark.parametrize("name", MODULES)
def test_every_page_is_read_at_once(name):
    path = Path(textbook.__file__).with_name(f"{name}.py")
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= PAGE_LINES, (
        f"textbook/{name}.py has {lines} lines (a page is at most {PAGE_LINES}): "
        "move what several loops share to textbook/common.py"
    )


@pytest.mark.parametrize("name", MODULES)
def test_the_tests_a_page_cites_exist(name):
    """A page says which test proves it equal to its fast engine: that file exists."""
    text = Path(textbook.__file__).with_name(f"{name}.py").read_text(encoding="utf-8")
    cited = set(re.findall(r"tests/[\w/]+\.py", text))
    missing = sorted(p for p in cited if not (ROOT / p).is_file())
    assert not missing, f"textbook/{name}.py cites test files that do not exist: {missing}"


def test_the_rules_catch_what_they_are_for():
    """The split lines ruff format made of the pages (a lone bracket, an argument, an opened
    call) fail; whole statements and headers pass."""
    split = [
        "    ]  # each word as its symbols <- start",
        "    ):  # the word is a token: done <- whole_word",
        "            ids[new],  # record the merge <- record",
        "        yield ParityMergeStep(  # record the merge <- record",
        "        )  # <- merge",
    ]
    whole = [
        "    table = word_table(words)  # each word as its symbols <- start",
        "            return  # full, or no pair left to merge <- stop",
        "                break  # no pair left: on to the next stage <- stop",
        "        if replaced:  # unknown characters were replaced <- fallback",
        "        for lang in languages:  # merge it in every language <- merge",
        '        s = "a # b"  # a string holding a hash <- hash',
    ]
    assert not any(is_whole(line) for line in split)
    assert all(is_whole(line) for line in whole)

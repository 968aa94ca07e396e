"""The textbook layer: every algorithm written once more, to be read.

One short module per algorithm, each a generator whose loop reads as the pseudocode (after
karpathy/minbpe's `basic.py`: one comment a line), yielding the same step values as the fast
engine in `models/`:

    bpe_train        count -> pick -> merge -> record, recounting every pair each merge
    bpe_encode       merge the lowest-ranked pair of a word until none applies
    wordpiece_train  merge the pair with the best count(ab) / (count(a) * count(b))
    wordpiece_encode greedy longest match first, the window shrinking probe by probe
    unigram_viterbi  best score ending at each position, then the back-pointers
    unigram_em       E-step (forward-backward), M-step, prune

They are slow on purpose (each step recounts or rescans everything): for small corpora and
the checker's replays, which cap them. tests/core/models/test_textbook.py proves each equal to its
fast engine step by step. The classic mistakes of `checker` are keyword switches on them.

Each module owns the code a view shows: `CODE` (the source lines of its generator) and
`line_of(step)` (the line of CODE a step stands for), found by the marker comments that end
some lines (`# ... <- merge`), never by a line number written down.

>>> def demo():
...     x = 1      # the first line <- first
...     return x
>>> code = code_of(demo)
>>> code[marked_line(code, "first") - 1].strip()
'x = 1      # the first line <- first'
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Callable

from ..errors import NotFound

MARK = "<- "


def code_of(fn: Callable) -> tuple[str, ...]:
    """The source lines of `fn`, dedented: what a view's code panel shows."""
    return tuple(textwrap.dedent(inspect.getsource(fn)).splitlines())


def marked_line(code: tuple[str, ...], mark: str) -> int:
    """The 1-based line of `code` whose comment ends with the marker `<- mark`.

    >>> marked_line(("a = 1  # one <- one", "b = 2"), "one")
    1
    >>> marked_line(("a = 1",), "two")
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.NotFound: no line of the code is marked '<- two'
    """
    tag = MARK + mark
    for number, line in enumerate(code, 1):
        if line.rstrip().endswith(tag):
            return number
    raise NotFound(f"no line of the code is marked {tag!r}")


def line_marks(code: tuple[str, ...]) -> dict[str, int]:
    """Every marker of `code` and its 1-based line.

    >>> line_marks(("a = 1  # one <- one", "b = 2", "c = 3  # <- three"))
    {'one': 1, 'three': 3}
    """
    out = {}
    for number, line in enumerate(code, 1):
        head, sep, mark = line.rstrip().rpartition(MARK)
        if sep and "#" in head and mark.isidentifier():
            out[mark] = number
    return out

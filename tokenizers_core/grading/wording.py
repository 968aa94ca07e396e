"""How the checks word what they found, and how they score it (`SCORES`: a test's points)."""

from __future__ import annotations

from typing import Sequence

from .report import GradeTest
from .runner import ChildRun, ItemResult

SCORES = {"train: merges": 3.0}
SHOWN = 6  # differing items a failure lists


def failure(res: ItemResult, run: ChildRun, what: str) -> str:
    """Why an item failed: the student's exception with its traceback, or the process's fate;
    and what the student's code printed."""
    text = f"{what} raised {res.error}" if res.traceback else f"{what}: {res.error}"
    if res.traceback:
        text += "\n" + res.traceback.rstrip()
    if run.stdout.strip():
        text += "\nstdout:\n" + run.stdout.strip()[-1500:]
    return text


def first_difference(ours: Sequence, theirs: Sequence) -> int | None:
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            return i + 1
    return None if len(ours) == len(theirs) else min(len(ours), len(theirs)) + 1


def pair_text(pair: tuple[bytes, bytes]) -> str:
    return f"{pair[0]!r} + {pair[1]!r}"


def times(n: int) -> str:
    return "1 occurrence" if n == 1 else f"{n:,} occurrences"


def ids_text(ids: list[int]) -> str:
    shown = ", ".join(map(str, ids[:SHOWN]))
    return shown + (f" (and {len(ids) - SHOWN} more)" if len(ids) > SHOWN else "")


def tokens_text(tokens: list[bytes]) -> str:
    shown = ", ".join(repr(t) for t in tokens[:SHOWN])
    return shown + (f" (and {len(tokens) - SHOWN} more)" if len(tokens) > SHOWN else "")


def spell(ids: list[int], vocab: dict[int, bytes]) -> str:
    return " ".join(f"{i}:{vocab.get(i, b'?')!r}" for i in ids)


def short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def passed(name: str, output: str) -> GradeTest:
    m = SCORES.get(name, 1.0)
    return GradeTest(name, m, m, "passed", output)


def failed(name: str, output: str) -> GradeTest:
    return GradeTest(name, 0.0, SCORES.get(name, 1.0), "failed", output)

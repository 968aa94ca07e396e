"""Grade a student's BPE tokenizer by running their code: `tc.grade` (and `tokvis grade`).

`grade(shape, target, corpus=..., vocab_size=...)` trains the reference (`reference.py`, as the
course defines it: `shapes.py`), runs the student's code in child processes with CPU-time,
wall-clock and memory limits, no network and their output captured (`runner.py`, `child.py`),
and compares what it gave, as the course's own tests compare (`checks.py`, `use_checks.py`); the
report (`report.py`) renders as text, JSON, JUnit XML or Gradescope's results.json.

    >>> report = grade("cs336", "tests/grading_students/cs336_good/adapters.py",  # doctest: +SKIP
    ...                corpus="botchan", vocab_size=500, special_tokens=["<|endoftext|>"])
    >>> report.ok, report.score, report.max_score                          # doctest: +SKIP
    (True, 12.0, 12.0)

An infinite loop, a crash, a SyntaxError, a MemoryError or `sys.exit` in their code is the
test it happened in failing, with the traceback or the process's fate; never a hang here.
The child is not a security sandbox against a hostile submission (it runs as the grader's
user): the limits stop mistakes; Gradescope's container isolates the rest.
"""

from __future__ import annotations

import ast
import time
from pathlib import Path
from typing import Iterable

from ..corpora import corpus_names, load_corpus
from ..errors import InvalidInput
from . import checks, use_checks
from .reference import TIES
from .report import FORMATS, GradeReport, GradeTest
from .runner import run_child
from .shapes import SHAPES, Shape

__all__ = ["FORMATS", "SHAPES", "TIES", "GradeReport", "GradeTest", "grade", "parse_target"]

MAX_VOCAB_SIZE = 100_000


def parse_target(shape: str, target: str) -> tuple[Path, str]:
    """`PATH.py:Class` (minbpe) or `PATH.py` (CS336's adapters) -> (path, class name).

    >>> parse_target("minbpe", "minbpe/regex.py:RegexTokenizer")
    (PosixPath('minbpe/regex.py'), 'RegexTokenizer')
    """
    path, _, cls = str(target).rpartition(":") if ":" in str(target) else (str(target), "", "")
    if shape == "minbpe":
        if not cls or not cls.isidentifier():
            raise InvalidInput(
                f"--minbpe takes PATH.py:Class (e.g. minbpe/regex.py:"
                f"RegexTokenizer), not {target!r}"
            )
    elif cls:
        raise InvalidInput(f"--adapters takes the path of adapters.py, not {target!r}")
    if not path.endswith(".py"):
        raise InvalidInput(f"{path!r} is not a Python file (.py)")
    return Path(path), cls


def _defines(path: Path, name: str) -> bool:
    """Whether the file defines `name` at its top level (a class, an assignment, an import). A
    file that does not parse is the student's to fail in the checks, with its SyntaxError.
    """
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return True
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".")[0]) == name for a in node.names):
                return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
                return True
    return False


def read_corpus(corpus: str | Path | Iterable[str]) -> tuple[str, str]:
    """A bundled corpus's name, a file's path, or lines -> (its label, its text)."""
    if isinstance(corpus, (str, Path)):
        name = str(corpus)
        if name in corpus_names():
            return name, load_corpus(name)
        path = Path(name)
        if not path.is_file():
            raise InvalidInput(
                f"corpus {name!r} is neither a bundled corpus ({', '.join(corpus_names()[:2])}, "
                "udhr/<code>, ...) nor a file"
            )
        return path.name, path.read_text(encoding="utf-8")
    lines = list(corpus)
    return f"{len(lines)} lines", "\n".join(lines)


def grade(
    shape: str,
    target: str | Path,
    *,
    corpus: str | Path | Iterable[str],
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    ties: str | None = None,
    time_limit: float = 60.0,
    timeout: float = 120.0,
    memory_mb: int = 2048,
    iterable_memory_mb: float = 1.0,
    iterable_chars: int = 2_000_000,
) -> GradeReport:
    """Grade the student's code at `target` (minbpe: `PATH.py:Class`; cs336: the path of
    adapters.py) trained on `corpus` at `vocab_size` (see the module docstring and
    `checks.py` for the tests and their scores).

    `ties` overrides the shape's own tie rule ("minbpe", "cs336", "hf"); `time_limit` is the
    training's allowed seconds (a scored test); `timeout` the wall-clock seconds after which a
    child is killed (training gets at least twice `time_limit`); `memory_mb` its address
    space. Raises ValueError (InvalidInput) for bad arguments: unknown shape or tie rule, a
    missing file, a vocab_size too small for the bytes and special tokens.
    """
    started = time.monotonic()
    if shape not in SHAPES:
        raise InvalidInput(f"unknown shape {shape!r}; choose one of: {', '.join(SHAPES)}")
    ties = ties or ("minbpe" if shape == "minbpe" else "cs336")
    if ties not in TIES:
        raise InvalidInput(f"unknown tie rule {ties!r}; choose one of: {', '.join(TIES)}")
    path, cls = parse_target(shape, str(target))
    if not path.is_file():
        raise InvalidInput(f"{path}: no such file")
    if cls and not _defines(path, cls):
        raise InvalidInput(f"{path} defines no {cls!r} (a class, or a name imported there)")
    specials = tuple(dict.fromkeys(special_tokens))
    if any(not isinstance(s, str) or not s for s in specials):
        raise InvalidInput("special tokens must be non-empty strings")
    label, text = read_corpus(corpus)
    if not text:
        raise InvalidInput("the corpus is empty")
    words = "gpt2" if shape == "cs336" else ("basic" if "basic" in cls.lower() else "gpt4")
    sh = Shape(shape, words, specials if shape == "cs336" else ())
    floor = 256 + (len(specials) if shape == "cs336" else 0)
    if not isinstance(vocab_size, int) or not floor <= vocab_size <= MAX_VOCAB_SIZE:
        raise InvalidInput(
            f"vocab_size must be a whole number from {floor} (the 256 bytes"
            + (" and the special tokens" if floor > 256 else "")
            + f") to {MAX_VOCAB_SIZE:,}"
        )
    if time_limit <= 0 or timeout <= 0 or memory_mb < 64:
        raise InvalidInput("the limits must be positive (memory_mb at least 64)")

    _trainer, model = sh.train(text, vocab_size, ties)
    ctx = checks.Context(sh, cls, text, vocab_size, ties, model, time_limit, specials)
    job = {
        "shape": shape,
        "path": str(path.resolve()),
        "class": cls,
        "corpus": "{dir}/corpus.txt",
        "vocab_size": vocab_size,
        "specials": list(specials),
    }
    train_run = run_child(
        job,
        [{"name": "train", "kind": "train"}],
        timeout=max(timeout, 2 * time_limit),
        files={"corpus.txt": text},
        memory_mb=memory_mb,
    )
    tests: list[GradeTest] = checks.train_tests(ctx, train_run)

    cases = use_checks.encode_cases(ctx)
    encode_run = run_child(
        job, use_checks.encode_items(ctx, cases), timeout=timeout, memory_mb=memory_mb
    )
    tests += use_checks.encode_tests(ctx, cases, encode_run)
    decode_run = run_child(
        job, use_checks.decode_items(ctx, cases), timeout=timeout, memory_mb=memory_mb
    )
    tests += use_checks.decode_tests(ctx, cases, decode_run)
    if shape == "cs336":
        stream = use_checks.iterable_text(ctx, iterable_chars)
        iterable_run = run_child(
            job,
            [use_checks.iterable_item(ctx)],
            timeout=timeout,
            files={"stream.txt": stream},
            memory_mb=memory_mb,
        )
        tests.append(use_checks.iterable_test(ctx, stream, iterable_run, iterable_memory_mb))
    settings = {
        "corpus": label,
        "vocab_size": vocab_size,
        "special_tokens": list(specials),
        "ties": ties,
        "time_limit": time_limit,
        "timeout": timeout,
        "memory_mb": memory_mb,
    }
    return GradeReport(
        shape, str(target), tests, settings=settings, seconds=time.monotonic() - started
    )

"""Tasks the sandbox tests run in a sandboxed child (`Pool.run("sandbox_tasks:spin", ...)`):
work that no check inside the core would stop, to show what the child's limits do."""

from __future__ import annotations

import os
import time


def spin() -> None:
    """CPU work inside one C call: no Python-level check could interrupt it."""
    sum(range(10**12))


def sleep(seconds: float) -> str:
    """No CPU at all: only the wall-clock kill stops it."""
    time.sleep(seconds)
    return "woke"


def hog(megabytes: int) -> int:
    """Ask for `megabytes` of memory at once."""
    return len(bytearray(megabytes * 2**20))


def pid() -> int:
    return os.getpid()


def echo(value):
    return value


def refuse(message: str) -> None:
    raise ValueError(message)


def read_server_secret(name: str):
    """What a template would try: read a value of the server's environment or memory."""
    return os.environ.get(name)


def sleep_marked(path: str, seconds: float) -> str:
    """`sleep`, once it has written `path` (so a test knows the child is busy)."""
    with open(path, "w") as f:
        f.write("started")
    return sleep(seconds)


_KEPT: list[bytearray] = []


def grow(megabytes: int) -> int:
    """Keep `megabytes` alive in the child: it is then large, and ends after answering."""
    _KEPT.append(bytearray(megabytes * 2**20))
    return os.getpid()

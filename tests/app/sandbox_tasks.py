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


def burn_until(marker: str, stop: str) -> str:
    """CPU work (long work, to the pool) from the moment `marker` is written until `stop` exists."""
    with open(marker, "w") as f:
        f.write("started")
    while not os.path.exists(stop):
        sum(range(10_000))
    return "stopped"


def burn(cpu_seconds: float) -> float:
    """`cpu_seconds` of CPU work, then its CPU seconds."""
    start = time.process_time()
    while time.process_time() - start < cpu_seconds:
        sum(range(10_000))
    return time.process_time() - start


def busy_for(cpu: int, seconds: float) -> tuple[float, float]:
    """CPU work on the core `cpu` only, for `seconds` of wall-clock time: (CPU seconds, wall
    seconds). Beside CPU hogs on that core it gets a share of it: its CPU comes slowly."""
    os.sched_setaffinity(0, {cpu})
    start, cpu_start = time.monotonic(), time.process_time()
    while time.monotonic() - start < seconds:
        sum(range(10_000))
    return time.process_time() - cpu_start, time.monotonic() - start


def wait_for(marker: str, stop: str) -> str:
    """No CPU: waits (asleep) from the moment `marker` is written until `stop` exists."""
    with open(marker, "w") as f:
        f.write("started")
    while not os.path.exists(stop):
        time.sleep(0.01)  # sleep: a task that waits without CPU is the point
    return "released"


def note(path: str, text: str) -> str:
    """Append `text` as a line of `path` (the order of the lines is the order of the tasks)."""
    with open(path, "a") as f:
        f.write(text + "\n")
    return text


def die_by(signal_number: int) -> None:
    """The child ends by `signal_number` (what an operator's kill or the kernel's OOM killer do)."""
    import signal

    os.kill(os.getpid(), signal.Signals(signal_number))
    time.sleep(10)  # sleep: the signal ends it first (this line is never reached in time)

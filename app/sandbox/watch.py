"""What the pool reads about the work it waits on, and about whose work it is.

`Progress`: one task's progress in a child, read from outside, from the kernel's own accounting
of the child's main thread (`/proc/<pid>/schedstat`: nanoseconds on a CPU, nanoseconds waiting
for one). From it the pool knows
- the task's CPU seconds so far (`cpu`): past the pool's `small_cpu` the work is long, and takes
  one of the pool's places for long work (`Pool`);
- how long it has been stalled (`stalled`): wall-clock time in which the child neither ran nor
  waited for a CPU. A busy machine makes a child wait for a core, which is not a stall: the kill
  that stops a child that waits on nothing must not stop one that is only getting its CPU late
  (issue 38, item 11: a 12 MB upload refused at load 13-17). Without that accounting (no
  `/proc`), all the wall time counts, as it did before.

`Usage`: each client's recent CPU seconds in the sandbox, decaying by half every `HALF_LIFE`
seconds; the pool serves the waiting request whose client has used least first, so that a client
looping heavy work waits behind everyone else. A client is the request's remote address
(`client_of`), as uvicorn gives it (its `--proxy-headers` trust the forwarding header only from
`--forwarded-allow-ips`); `current_client` carries it from the request to the pool.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

current_client: ContextVar[str] = ContextVar("sandbox_client", default="")


def client_of(scope: Mapping[str, Any]) -> str:
    """The client an ASGI request comes from: its remote address ("" when unknown).

    >>> client_of({"client": ("203.0.113.7", 51234)}), client_of({})
    ('203.0.113.7', '')
    """
    client = scope.get("client")
    return str(client[0]) if client else ""


def schedstat(pid: int) -> tuple[float, float] | None:
    """(seconds on a CPU, seconds waiting on a run queue) of `pid`'s main thread, or None when the
    kernel does not say (no /proc, or the process is gone)."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            on_cpu, waiting, _slices = f.read().split()
        return int(on_cpu) / 1e9, int(waiting) / 1e9
    except (OSError, ValueError):
        return None


class Progress:
    """One task in the child `pid`, from the moment it is built (before the request is sent).

    `read()` brings `wall`, `cpu` and `stalled` up to date: `stalled` is the wall time in which
    the child was neither on a CPU nor waiting for one (asleep, blocked, stopped). The kernel adds
    a wait for a CPU to its count when the wait ends, so a child waiting right now looks stalled
    for that one wait (milliseconds); the allowance for a stall is seconds."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.started = time.monotonic()
        first = schedstat(pid)
        self.exact = first is not None
        self._cpu0, self._wait0 = first or (0.0, 0.0)
        self.wall = self.cpu = self.stalled = 0.0

    def read(self) -> "Progress":
        self.wall = time.monotonic() - self.started
        now = schedstat(self.pid) if self.exact else None
        if now is None:  # no accounting (or the child just ended): all the wall time counts
            self.stalled = self.wall
            return self
        self.cpu = now[0] - self._cpu0
        self.stalled = max(0.0, self.wall - self.cpu - (now[1] - self._wait0))
        return self


class Usage:
    """Each client's recent CPU seconds in the sandbox: `charge` adds, `of` reads, and every
    client's figure halves every `HALF_LIFE` seconds; at most `clients` are remembered (the
    least recently charged go first, as if they had used nothing).

    >>> usage = Usage()
    >>> usage.charge("a", 3.0); usage.charge("b", 0.5)
    >>> sorted(["a", "b", "c"], key=usage.of)
    ['c', 'b', 'a']
    """

    HALF_LIFE = 30.0

    def __init__(self, clients: int = 4096) -> None:
        self._clients: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._limit = clients
        self._lock = threading.Lock()

    def charge(self, client: str, cpu_seconds: float) -> None:
        if cpu_seconds <= 0:
            return
        with self._lock:
            now = time.monotonic()
            self._clients[client] = (self._decayed(client, now) + cpu_seconds, now)
            self._clients.move_to_end(client)
            while len(self._clients) > self._limit:
                self._clients.popitem(last=False)

    def of(self, client: str) -> float:
        with self._lock:
            return self._decayed(client, time.monotonic())

    def _decayed(self, client: str, now: float) -> float:
        used, when = self._clients.get(client, (0.0, now))
        return used * 0.5 ** ((now - when) / self.HALF_LIFE)

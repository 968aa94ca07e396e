"""A small warm pool of sandboxed child processes, and the server's side of each call.

    pool = Pool("work", workers=2, server_pid=os.getpid())
    text = pool.run("chat", inputs, 2.0, budget=Budget(4, 256, 5), what="the chat template")

`run` takes an idle child (waiting at most the budget's wall time for one: SandboxBusy, a 503,
when every child stays busy that long), sends it the work and its budget, and waits on the
pipe, not on the child: the waiting thread holds no lock, so the server goes on serving. Past
the wall-clock deadline the child is killed (SIGKILL) and replaced, and the caller gets a
`SandboxFailure` (an InvalidInput: answered 422) saying what was stopped and why; the same when
the child died of its CPU limit (SIGXCPU) or ran out of memory. Children come from the
supervisor's fork server and are started again whenever one is gone.

`workers=0` runs the same tasks in the calling thread with no limits (no sandbox: what
`TOKVIS_SANDBOX_WORKERS=0` asks for, to compare).
"""

from __future__ import annotations

import os
import queue
import threading
from dataclasses import dataclass
from typing import Any

from tokenizers_core.chat.sandbox import TemplateFailure
from tokenizers_core.errors import InvalidInput

from . import supervisor, worker


class SandboxFailure(InvalidInput):
    """Untrusted work that was stopped (over its CPU, memory or time budget) or failed."""


class SandboxBusy(RuntimeError):
    """Every sandboxed child stayed busy for as long as the work could wait."""


@dataclass(frozen=True)
class Budget:
    """What one piece of work may use: CPU seconds and address space (the child's own limits),
    and the wall-clock seconds after which the server kills it whatever it is doing."""

    cpu_seconds: float
    memory_mb: int
    wall_seconds: float
    cpu_setting: str = "TOKVIS_SANDBOX_CPU_SECONDS"
    memory_setting: str = "TOKVIS_SANDBOX_MEMORY_MB"


class _Child:
    def __init__(self, server_pid: int) -> None:
        ctx = supervisor.context()
        self.conn, theirs = ctx.Pipe()
        self.process = ctx.Process(
            target=worker.serve, args=(theirs, server_pid), daemon=True, name="tokvis-sandbox"
        )
        self.process.start()
        theirs.close()

    def alive(self) -> bool:
        return self.process.is_alive()

    def kill(self) -> int | None:
        """Kill it (if it still runs) and its exit code."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()
        return self.process.exitcode


class Pool:
    def __init__(self, name: str, workers: int = 2, server_pid: int | None = None) -> None:
        self.name = name
        self.workers = workers
        self.server_pid = server_pid or os.getpid()
        self._idle: queue.LifoQueue[_Child] = queue.LifoQueue()
        self._all: set[_Child] = set()
        self._lock = threading.Lock()
        self._stopped = False
        supervisor.preload(worker.__name__)

    # ---- life ----------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the children (in the background: the first start also starts the fork server,
        which imports the engine once)."""
        self._stopped = False
        if self.workers:
            threading.Thread(target=self._top_up, daemon=True, name=f"sandbox-{self.name}").start()

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            children, self._all = list(self._all), set()
        for child in children:
            child.kill()

    # ---- work ----------------------------------------------------------------------------------
    def run(self, task: str, *args: Any, budget: Budget, what: str) -> Any:
        """Run `task` (one of `worker.TASKS`) with `args` in a child, within `budget`; its value.
        Raises SandboxFailure when it was stopped, ValueError / TemplateFailure / TimeoutError
        as the task raised them, SandboxBusy when no child came free in time."""
        if not self.workers:
            return _answer(worker._run(task, args), what, budget)
        for _attempt in range(2):
            child = self._checkout(budget.wall_seconds)
            answer = self._ask(
                child, (task, args, budget.cpu_seconds, budget.memory_mb * 2**20), budget, what
            )
            if answer is not _RETIRED:
                return _answer(answer, what, budget)
        raise SandboxFailure(f"{what} could not start: the sandbox's processes kept ending")

    def _ask(self, child: _Child, request: tuple, budget: Budget, what: str) -> Any:
        """`child`'s answer to `request` (the child goes back to the pool), or _RETIRED when it
        had ended by itself before it read the request (it makes way for a fresh one after
        large work: the request may go to another)."""
        try:
            child.conn.send(request)
            if not child.conn.poll(budget.wall_seconds):
                self._retire(child)
                raise SandboxFailure(
                    f"{what} took longer than {budget.wall_seconds:g} s of "
                    "wall-clock time, so it was stopped (a server this busy "
                    "may not give it its CPU time: try again)"
                )
            answer = child.conn.recv()
        except (EOFError, OSError):
            code = self._retire(child)
            if code == 0:
                return _RETIRED
            raise SandboxFailure(
                supervisor.exit_reason(
                    code,
                    what,
                    budget.cpu_seconds,
                    budget.cpu_setting,
                    budget.memory_mb,
                    budget.memory_setting,
                )
            ) from None
        self._checkin(child)
        return answer

    def _checkout(self, wait: float) -> _Child:
        self._top_up()
        while True:
            try:
                child = self._idle.get(timeout=wait)
            except queue.Empty:
                raise SandboxBusy(
                    f"the sandbox's {self.workers} processes stayed busy for "
                    f"{wait:g} s; try again in a moment"
                ) from None
            if child.alive():
                return child
            self._retire(child)  # it retired itself (it had grown large): replace it

    def _checkin(self, child: _Child) -> None:
        if child.alive() and not self._stopped:
            self._idle.put(child)
        else:
            self._retire(child)

    def _retire(self, child: _Child) -> int | None:
        """Kill `child`, start another in its place, and give the old one's exit code."""
        code = child.kill()
        with self._lock:
            self._all.discard(child)
        self._top_up()
        return code

    def _top_up(self) -> None:
        """Start children until there are `workers` of them (those gone are replaced)."""
        while True:
            with self._lock:
                if self._stopped or len(self._all) >= self.workers:
                    return
                child = _Child(self.server_pid)
                self._all.add(child)
            self._idle.put(child)


_RETIRED = object()  # a child that had ended by itself before it read a request


def _answer(answer: tuple | None, what: str, budget: Budget) -> Any:
    """The value of a child's answer, or the exception it stands for."""
    if answer is None:
        raise SandboxFailure(
            supervisor.exit_reason(
                supervisor.MEMORY_EXIT,
                what,
                budget.cpu_seconds,
                budget.cpu_setting,
                budget.memory_mb,
                budget.memory_setting,
            )
        )
    if answer[0] == "ok":
        return answer[1]
    _, kind, message, line = answer
    if kind == "template":
        raise TemplateFailure(message, line)
    if kind == "timeout":
        raise TimeoutError
    if kind == "value":
        raise InvalidInput(message)
    raise SandboxFailure(f"{what} failed: {message}")

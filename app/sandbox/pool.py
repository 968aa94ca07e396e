"""A small warm pool of sandboxed child processes, and the server's side of each call.

    pool = Pool("work", workers=2, reserve=2)
    text = pool.run("chat", inputs, 2.0, budget=Budget(4, 256, 8.25), what="the chat template")

`run` takes an idle child, sends it the work and its budget, and waits on the pipe, not on the
child: the waiting thread holds no lock, so the server goes on serving. While it waits it reads
the child's progress from the kernel (`watch.Progress`), every `TICK` seconds:
- the child's own CPU limit (SIGXCPU) ends work that uses up its CPU seconds, and its address
  space limit work that asks for too much memory: the caller gets a `SandboxFailure` (an
  InvalidInput: answered 422) that says which;
- a child that is *stalled* (neither running nor waiting for a CPU: asleep, blocked) for the
  budget's `wall_seconds` is killed; one that is only getting its CPU slowly, on a busy
  machine, is not (issue 38, item 11), unless the wall clock passes `CEILING_FACTOR` times that;
- places for long work (issue 38, item 13): the pool has `workers + reserve` children, and at
  most `workers` of them may run long work, work past `small_cpu` seconds of CPU. A task that
  turns long while those places are taken is stopped (SandboxBusy: a 503 with Retry-After, and
  its client is charged its whole CPU budget), so `reserve` children always come free within a
  small task's time for the next small task, whatever loops of heavy work other clients send.
  A client that had used far less (`_outweighs`) than the holder of a place for long work takes
  that place, and the holder's task is stopped (SandboxBusy);
- fairness: a request that waits for a child is served before those whose clients have used
  more of the sandbox recently (`watch.Usage`: CPU seconds, halving every 30 s), and when no
  child is idle it takes the child of a small task whose client had used far more (that task
  is stopped: SandboxBusy). A request that waits longer than its budget's `wall_seconds` for a
  child gets SandboxBusy.
Children come from the supervisor's fork server and are started again whenever one is gone.

`workers=0` runs the same tasks in the calling thread with no limits (no sandbox: what
`TOKVIS_SANDBOX_WORKERS=0` asks for, to compare).
"""

from __future__ import annotations

import itertools
import math
import os
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any

from tokenizers_core.chat import TemplateFailure
from tokenizers_core.errors import InvalidInput

from . import supervisor, worker
from .watch import Progress, Usage, current_client

TICK = 0.05  # seconds between two looks at a child at work
STARTUP = 60.0  # seconds a request waits for the pool's first child to start
SMALL_CPU = 0.25  # CPU seconds after which a task is long work
USAGE_QUANTUM = 0.05  # clients whose recent use differs by less are served in order of arrival
CEILING_FACTOR = 8  # a child that runs, slowly, is killed after this many times wall_seconds
PREEMPT_RATIO, PREEMPT_MARGIN = 2.0, 2.0  # a long task gives way to a client who used less by far


class SandboxFailure(InvalidInput):
    """Untrusted work that was stopped (over its CPU, memory or time budget) or failed."""


class SandboxBusy(RuntimeError):
    """Every sandboxed child stayed busy for as long as the work could wait, or the places for
    long work were taken (a 503: try again)."""


@dataclass(frozen=True)
class Budget:
    """What one piece of work may use: CPU seconds and address space (the child's own limits),
    and `wall_seconds`, the wall-clock time after which the server kills a child that is stalled
    (neither running nor waiting for a CPU), which is also how long the work waits for a child
    to come free. A child that runs, however slowly, is killed at `ceiling_seconds`."""

    cpu_seconds: float
    memory_mb: int
    wall_seconds: float
    cpu_setting: str = "TOKVIS_SANDBOX_CPU_SECONDS"
    memory_setting: str = "TOKVIS_SANDBOX_MEMORY_MB"

    @property
    def ceiling_seconds(self) -> float:
        return self.wall_seconds * CEILING_FACTOR


class _Child:
    def __init__(self, server_pid: int) -> None:
        ctx = supervisor.context()
        self.conn, theirs = ctx.Pipe()
        self.process = ctx.Process(
            target=worker.serve, args=(theirs, server_pid), daemon=True, name="tokvis-sandbox"
        )
        self.process.start()
        theirs.close()
        self.client = ""  # whose task it runs
        self.history = 0.0  # that client's usage when the task began
        self.preempted = False  # stopped to give its place for long work to another client
        self._closing = threading.Lock()  # a request past its budget and stop() may both kill it

    @property
    def pid(self) -> int:
        return self.process.pid or 0

    def alive(self) -> bool:
        return self.process.is_alive()

    def kill(self) -> int | None:
        """Kill it (if it still runs) and its exit code. Once: a second close of the pipe would
        close whatever file took its descriptor number meanwhile."""
        with self._closing:
            if self.process.is_alive():
                self.process.kill()
            self.process.join(timeout=5)
            if not self.conn.closed:
                self.conn.close()
        return self.process.exitcode


class Pool:
    def __init__(
        self,
        name: str,
        workers: int = 2,
        server_pid: int | None = None,
        reserve: int = 0,
        small_cpu: float = SMALL_CPU,
    ) -> None:
        self.name = name
        self.workers = workers  # children that may run long work
        self.size = workers + reserve if workers else 0  # and those kept for small work
        # a pool with children kept for small work stops a heavy client's small task for a
        # waiting request (without, as for the visualiser's searches, requests only queue)
        self.reserved = reserve > 0
        self.small_cpu = small_cpu
        self.server_pid = server_pid or os.getpid()
        self.usage = Usage()
        self._cond = threading.Condition()
        self._idle: list[_Child] = []  # the most recently used last
        self._all: set[_Child] = set()
        self._long: set[_Child] = set()  # children running long work
        self._waiting: list[tuple[int, str]] = []  # (arrival, client) of requests for a child
        self._arrivals = itertools.count()
        self._starter = False  # a thread is starting children
        self._start_failure: SandboxFailure | None = None  # why the last start failed
        self._stopped = False
        supervisor.preload(worker.__name__)

    # ---- life ----------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the children (in the background: the first start also starts the fork server,
        which imports the engine once)."""
        self._stopped = False
        if self.workers:
            self._top_up()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            children, self._all, self._idle = list(self._all), set(), []
            self._cond.notify_all()
        for child in children:
            child.kill()

    @property
    def long_work(self) -> int:
        """How many children run long work now."""
        with self._cond:
            return len(self._long)

    @property
    def waiting(self) -> int:
        """How many requests wait for a child now."""
        with self._cond:
            return len(self._waiting)

    # ---- work ----------------------------------------------------------------------------------
    def run(self, task: str, *args: Any, budget: Budget, what: str) -> Any:
        """Run `task` (one of `worker.TASKS`) with `args` in a child, within `budget`; its value.
        Raises SandboxFailure when it was stopped, ValueError / TemplateFailure / TimeoutError
        as the task raised them, SandboxBusy when no child came free in time or no place for
        long work was free."""
        if not self.workers:
            return _answer(worker._run(task, args), what, budget)
        client = current_client.get()
        for _attempt in range(2):
            child = self._checkout(budget.wall_seconds, client)
            request = (task, args, budget.cpu_seconds, budget.memory_mb * 2**20)
            answer = self._ask(child, request, budget, what, client)
            if answer is not _RETIRED:
                return _answer(answer, what, budget)
        raise SandboxFailure(f"{what} could not start: the sandbox's processes kept ending")

    def _ask(self, child: _Child, request: tuple, budget: Budget, what: str, client: str) -> Any:
        """`child`'s answer to `request` (the child goes back to the pool), or _RETIRED when it
        had ended by itself before it read the request (it makes way for a fresh one after
        large work: the request may go to another)."""
        progress = Progress(child.pid)
        charged = 0.0
        try:
            child.conn.send(request)
            while not child.conn.poll(TICK):
                progress.read()
                self.usage.charge(client, progress.cpu - charged)
                charged = progress.cpu
                self._watch(child, progress, budget, what)
            answer = child.conn.recv()
        except (EOFError, OSError):
            code = self._retire(child)
            if child.preempted:
                raise _made_way(what, progress) from None
            if code == 0:
                return _RETIRED
            raise SandboxFailure(_exit_reason(code, what, budget)) from None
        finally:
            self.usage.charge(client, progress.read().cpu - charged)
            with self._cond:
                self._long.discard(child)
        if answer and answer[0] == "error" and answer[1] == "sandbox":  # it could not go on
            self._retire(child)
        else:
            self._checkin(child)
        return answer

    def _watch(self, child: _Child, progress: Progress, budget: Budget, what: str) -> None:
        """Stop the task in `child` if it is stalled, past the ceiling, or long work without a
        place (raises); else let it go on."""
        if child.preempted:  # (it is being killed)
            self._retire(child)
            raise _made_way(what, progress)
        if progress.stalled > budget.wall_seconds:
            self._retire(child)
            if not progress.exact:  # no accounting of the child's CPU: all waiting counted
                raise SandboxFailure(
                    f"{what} took longer than {budget.wall_seconds:g} s of wall-clock time, so "
                    "it was stopped (a server this busy may not give it its CPU time: try again)"
                )
            raise SandboxFailure(
                f"{what} stalled: for {budget.wall_seconds:g} s it neither ran nor waited for "
                "a processor, so it was stopped"
            )
        if progress.wall > budget.ceiling_seconds:
            self._retire(child)
            raise SandboxFailure(
                f"{what} took longer than {budget.ceiling_seconds:g} s of wall-clock time and "
                f"had had {progress.cpu:.2g} s of its {budget.cpu_seconds:g} s of CPU time: a "
                "server this busy cannot give it its CPU time, so it was stopped (try again)"
            )
        if progress.cpu > self.small_cpu and child not in self._long:
            if not self._take_long_place(child):
                # what it asked for counts as used: a client whose loops are refused so ranks
                # behind those with small work (a hog costs its budget, not a small task's)
                self.usage.charge(child.client, budget.cpu_seconds)
                self._retire(child)
                raise SandboxBusy(
                    f"{what} needs more than {self.small_cpu:g} s of CPU time, and the "
                    f"sandbox's {self.workers} places for long work are taken; try again in "
                    "a moment"
                )

    def _take_long_place(self, child: _Child) -> bool:
        """Give `child`'s task one of the places for long work: a free one, else that of the
        task whose client had used by far the most (that task is stopped). False: none."""
        with self._cond:
            if len(self._long) < self.workers:
                self._long.add(child)
                return True
            others = [c for c in self._long if c.client != child.client]
            if not others:
                return False
            victim = max(others, key=lambda c: c.history)
            if not _outweighs(victim.history, child.history):
                return False
            victim.preempted = True
            self._long.discard(victim)
            self._long.add(child)
        try:
            os.kill(victim.pid, signal.SIGKILL)  # its own waiting thread retires it
        except (ProcessLookupError, PermissionError):
            pass
        return True

    # ---- children ------------------------------------------------------------------------------
    def _checkout(self, wait: float, client: str) -> _Child:
        """An idle, live child for `client`'s request, once no waiting request of a client who
        used less is ahead of it; SandboxBusy after `wait` seconds."""
        self._top_up()
        self._until_started()
        deadline = time.monotonic() + wait
        me = (next(self._arrivals), client)
        with self._cond:
            self._waiting.append(me)
        try:
            while True:
                child = self._take_turn(me, deadline, wait)
                if child.alive():
                    return child
                self._retire(child)  # it retired itself (it had grown large): replace it
        finally:
            with self._cond:
                self._waiting.remove(me)
                self._cond.notify_all()

    def _until_started(self) -> None:
        """Wait while the pool has no child yet and is starting its first (the first start
        also starts the fork server, which imports the engine: seconds on a busy machine, which
        do not count against a request's wait for a child), at most STARTUP seconds."""
        end = time.monotonic() + STARTUP
        with self._cond:
            while not self._all and self._starter and not self._stopped:
                left = end - time.monotonic()
                if left <= 0:
                    return
                self._cond.wait(left)

    def _take_turn(self, me: tuple[int, str], deadline: float, wait: float) -> _Child:
        """The child for the waiting request `me` once it is its turn (a child is idle and no
        waiting request of a client who used less is ahead): marked as `me`'s client's."""
        claimed = False
        with self._cond:
            while not (self._idle and self._next_waiter() == me):
                if self.reserved and not claimed and not self._idle and self._next_waiter() == me:
                    claimed = self._make_way(me[1])
                if self._start_failure and not self._all and not self._starter:
                    raise self._start_failure
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SandboxBusy(
                        f"the sandbox's {self.size} processes stayed busy for "
                        f"{wait:g} s; try again in a moment"
                    )
                self._cond.wait(min(left, 1.0))
            child = self._idle.pop()
            child.client, child.history, child.preempted = me[1], self.usage.of(me[1]), False
            return child

    def _make_way(self, client: str) -> bool:
        """Stop the small task (not yet long) of a client who had used far more than `client`
        (`_outweighs`), so that `client`'s request gets the child that takes its place; False when
        there is none.
        (Called with the lock held; the stopped task's own thread retires its child.)"""
        mine = self.usage.of(client)
        small = [c for c in self._all if c not in self._idle and c not in self._long]
        victims = [
            c
            for c in small
            if not c.preempted
            and c.client != client
            and _outweighs(c.history, mine, margin=self.small_cpu)
        ]
        if not victims:
            return False
        victim = max(victims, key=lambda c: c.history)
        victim.preempted = True
        self._long.discard(victim)
        try:
            os.kill(victim.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        return True

    def _next_waiter(self) -> tuple[int, str]:
        """The request served next: its client used least (counted in USAGE_QUANTUM seconds,
        so that clients with next to no use are served in the order they came), then the first."""
        return min(
            self._waiting,
            key=lambda w: (math.floor(self.usage.of(w[1]) / USAGE_QUANTUM), w[0]),
        )

    def _checkin(self, child: _Child) -> None:
        with self._cond:
            if child.alive() and not self._stopped and not child.preempted:
                self._idle.append(child)
                self._cond.notify_all()
                return
        self._retire(child)

    def _retire(self, child: _Child) -> int | None:
        """Kill `child`, start another in its place, and give the old one's exit code."""
        code = child.kill()
        with self._cond:
            self._all.discard(child)
            self._long.discard(child)
        self._top_up()
        return code

    def _top_up(self) -> None:
        """Have the starter thread start children until there are `size` of them (those gone
        are replaced); nobody waits on it but a request that finds no idle child."""
        with self._cond:
            if self._stopped or self._starter or len(self._all) >= self.size:
                return
            self._starter = True
        threading.Thread(target=self._start_children, daemon=True, name="sandbox-start").start()

    def _start_children(self) -> None:
        while True:
            with self._cond:
                if self._stopped or len(self._all) >= self.size:
                    self._starter = False
                    return
            try:
                child = _Child(self.server_pid)
            except OSError as exc:
                with self._cond:
                    self._start_failure = SandboxFailure(
                        f"the sandbox could not start a process: {exc}"
                    )
                    self._starter = False
                    self._cond.notify_all()
                return
            with self._cond:
                if not self._stopped:
                    self._all.add(child)
                    self._idle.append(child)
                    self._start_failure = None
                    self._cond.notify_all()
                    continue
                self._starter = False
            child.kill()
            return


_RETIRED = object()  # a child that had ended by itself before it read a request


def _made_way(what: str, progress: Progress) -> SandboxBusy:
    return SandboxBusy(
        f"{what} was stopped after {progress.cpu:.2g} s of CPU time to make way for other "
        "clients' work; try again in a moment"
    )


def _outweighs(theirs: float, mine: float, margin: float = PREEMPT_MARGIN) -> bool:
    """Has a client who had used `theirs` CPU seconds (before its task began) used so much more
    than one who used `mine` that its task should give way? (A place for long work is taken
    with the default margin; a small task gives way with a margin of a small task's CPU.)

    >>> _outweighs(30.0, 0.1), _outweighs(3.0, 2.0), _outweighs(1.5, 0.0)
    (True, False, False)
    >>> _outweighs(0.6, 0.01, margin=SMALL_CPU)
    True
    """
    return theirs > PREEMPT_RATIO * mine + margin


def _exit_reason(code: int | None, what: str, budget: Budget) -> str:
    # the CPU limit ends a task with SIGXCPU (the hard limit is the child's lifetime's): a
    # SIGKILL came from elsewhere (the out-of-memory killer, a container's memory limit)
    return supervisor.exit_reason(
        code,
        what,
        budget.cpu_seconds,
        budget.cpu_setting,
        budget.memory_mb,
        budget.memory_setting,
        out_of_cpu=code == -signal.SIGXCPU,
    )


def _answer(answer: tuple | None, what: str, budget: Budget) -> Any:
    """The value of a child's answer, or the exception it stands for."""
    if answer is None:
        raise SandboxFailure(_exit_reason(supervisor.MEMORY_EXIT, what, budget))
    if answer[0] == "ok":
        return answer[1]
    _, kind, message, line = answer
    if kind == "template":
        raise TemplateFailure(message, line)
    if kind == "timeout":
        raise TimeoutError
    if kind == "value":
        raise InvalidInput(message)
    if kind == "sandbox":
        raise SandboxFailure(f"{what} could not run: {message}")
    raise SandboxFailure(f"{what} failed: {message}")

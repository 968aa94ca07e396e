"""The one supervisor of the server's child processes: the job engine's trainings
(`app.jobs.engine`) and the sandbox's warm pool (`app.sandbox.pool`) start their children here,
limit them the same way, and say the same thing when one dies.

- `context()`: children come from a fork server that has imported their code once, so a child
  starts in milliseconds, and none is forked from a server full of threads and secrets (a
  sandboxed template cannot read the server's memory: it was never in the child's).
- `limit_resources(cpu_seconds, memory_bytes)`: CPU seconds (SIGXCPU past the soft limit,
  SIGKILL at the hard one) and address space (allocations past it raise MemoryError); no core
  files. Only soft limits are raised, never past the hard limits the process was started with:
  a container's `ulimit -v` is a ceiling to stay under, not a setting to undo (asking for an
  unlimited hard limit there fails, and every training used to end with code 1).
- `exit_reason(code, ...)`: a child's exit code as a sentence a user can act on.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import signal
import threading
import time

_PRELOAD: list[str] = []  # the modules the fork server imports once, for every child
_CONTEXT = None
_CONTEXT_LOCK = threading.Lock()


def preload(module: str) -> None:
    """Have the fork server import `module` (the code of a kind of child) before it forks any
    child; whoever starts children says so when it is built, before the fork server starts."""
    with _CONTEXT_LOCK:
        if module not in _PRELOAD:
            _PRELOAD.append(module)
        if _CONTEXT is not None:
            _CONTEXT.set_forkserver_preload(list(_PRELOAD))  # if it has not started yet


def context() -> multiprocessing.context.BaseContext:
    """The fork server every child of the server comes from (started on first use)."""
    global _CONTEXT
    with _CONTEXT_LOCK:
        if _CONTEXT is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(list(_PRELOAD))
            _CONTEXT = ctx
        return _CONTEXT


def set_soft_limit(which: int, value: int) -> None:
    """Set the soft limit `which` to `value`, clipped to the hard limit (which stays);
    `resource.RLIM_INFINITY` asks for as much as the hard limit allows. (RLIM_INFINITY is -1 to
    Python: `min(value, hard)` kept it, and under `ulimit -v` every sandboxed child asked for more
    than its hard limit after its first task and died "with code 1".)

    >>> import subprocess, sys
    >>> code = ("import resource; from app.sandbox.supervisor import set_soft_limit; "
    ...         "resource.setrlimit(resource.RLIMIT_AS, (2**33, 2**33)); "
    ...         "set_soft_limit(resource.RLIMIT_AS, 2**32); "
    ...         "set_soft_limit(resource.RLIMIT_AS, resource.RLIM_INFINITY); "
    ...         "print(resource.getrlimit(resource.RLIMIT_AS))")
    >>> subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    '(8589934592, 8589934592)\\n'
    """
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY and (value == resource.RLIM_INFINITY or value > hard):
        value = hard
    resource.setrlimit(which, (value, hard))


def limit_resources(cpu_seconds: int, memory_bytes: int, grace: int = 5) -> None:
    """At most `cpu_seconds` more seconds of CPU from now (SIGXCPU, then SIGKILL `grace` seconds
    later) and `memory_bytes` of address space for this process; no core files. Hard limits are
    lowered (CPU) or kept, never raised.

    >>> import subprocess, sys
    >>> code = ("import resource; from app.sandbox.supervisor import limit_resources; "
    ...         "resource.setrlimit(resource.RLIMIT_AS, (2**33, 2**33)); "
    ...         "limit_resources(60, 2**40); print(resource.getrlimit(resource.RLIMIT_AS))")
    >>> subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    '(8589934592, 8589934592)\\n'
    """
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    used = cpu_used()
    soft = int(used) + 1 + cpu_seconds
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    want = soft + grace
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, want))
    set_soft_limit(resource.RLIMIT_AS, memory_bytes)


def cpu_used() -> float:
    """This process's CPU seconds so far (user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def address_space() -> int:
    """This process's address space now, in bytes (VmSize)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def die_with(server_pid: int) -> None:
    """End this process soon after the server that started it is gone (killed with -9, say),
    so that no child goes on unwatched. (The fork server stays up while its children do, so
    its death cannot be the signal.)"""

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if _gone(server_pid):
                os._exit(3)

    threading.Thread(target=watch, daemon=True, name="die-with-server").start()


def _gone(pid: int) -> bool:
    """The process has ended: it no longer exists, or it is a zombie its parent has not
    reaped yet (a server killed with -9 whose parent is slow to notice)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def exit_reason(
    code: int | None,
    what: str,
    cpu_seconds: float,
    cpu_setting: str,
    memory_mb: int,
    memory_setting: str,
    out_of_cpu: bool | None = None,
) -> str:
    """Why a child running `what` ended with exit `code` (a negative code is the signal).
    `out_of_cpu`: whether a SIGKILL can have been the CPU limit's (the hard one); by default
    any SIGXCPU or SIGKILL counts as the CPU budget.

    >>> exit_reason(-signal.SIGXCPU, "the template", 4, "TOKVIS_SANDBOX_CPU_SECONDS", 256, "X")
    'the template used up its CPU budget of 4 s (TOKVIS_SANDBOX_CPU_SECONDS), so it was stopped'
    """
    if out_of_cpu is None:
        out_of_cpu = code in (-signal.SIGXCPU, -signal.SIGKILL)
    if code == -signal.SIGXCPU or code == -signal.SIGKILL and out_of_cpu:
        return (
            f"{what} used up its CPU budget of {cpu_seconds:g} s ({cpu_setting}), so it was stopped"
        )
    if code == MEMORY_EXIT:
        return (
            f"{what} went over its memory budget of {memory_mb:,} MB ({memory_setting}), "
            f"so it was stopped"
        )
    if code == START_FAILED_EXIT:
        return f"the sandbox could not start a process for {what} (see the server's log)"
    if code is not None and code < 0:
        name = _signal_name(-code)
        if code == -signal.SIGKILL:
            return (
                f"the process running {what} was killed ({name}) before it used its CPU "
                f"budget: the system may be out of memory (a container's memory limit, the "
                f"out-of-memory killer)"
            )
        return f"the process running {what} was killed by the signal {name}"
    return f"the process running {what} ended with code {code}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"number {number}"


MEMORY_EXIT = 75  # what a child exits with when it ran out of its address space
START_FAILED_EXIT = 76  # what a child exits with when it could not set itself up (it says why)

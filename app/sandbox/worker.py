"""The sandbox's child process: it waits for one piece of untrusted work at a time, runs it
under that work's budget, and answers.

A request is `(task, args, cpu_seconds, memory_bytes)`; before running it the child moves its
soft limits to "what I have used so far + the budget" (`supervisor.set_soft_limit`), so one
long-lived child serves many requests, each with its own budget:
- past its CPU seconds the kernel sends SIGXCPU, whose default action ends the child (the
  pool reads the exit code and starts another): this stops work stuck inside one C call too,
  which no Python-level check could;
- past its address space an allocation fails (MemoryError): the child answers so and exits,
  handing its memory back to the system.
A child exits after work that left it large (RECYCLE_BYTES), and when the server is gone.

The answers: `("ok", value)`, or `("error", kind, message, line)` with kind "value" (bad input:
a 422 with the message), "template" (a chat template's failure and its line), "internal", or
"sandbox" (the child could not set itself up or its limits: it says why, and exits).
"""

from __future__ import annotations

import gc
import importlib
import os
import pickle
import resource
from functools import lru_cache
from typing import Any, Callable, NoReturn

import regex

from tokenizers_core import formats, user_regex
from tokenizers_core.chat import TemplateFailure
from tokenizers_core.chat import render as chat_render

from .. import uploads
from ..lru import LRU
from . import supervisor

# (imported here, so the fork server has them loaded before any child starts: a child's own
# imports would count against its first task's budget; `formats` loads its readers on first use)
for _reader in formats.FORMATS.values():
    importlib.import_module(_reader)

RECYCLE_BYTES = 512 * 2**20  # a child this large after its work makes way for a fresh one
LIFETIME_CPU = 3600  # the hard CPU limit of a child: it retires at half of it


def serve(conn: Any, server_pid: int) -> None:
    """The child's main loop (the pool starts it in a fresh process from the fork server).
    A child that cannot set itself up or its limits says why and exits (`_give_up`), so the
    422 the user gets names the cause, not an exit code."""
    try:
        _set_up(server_pid)
        base = supervisor.address_space()
    except (OSError, ValueError) as exc:
        _give_up(conn, f"the sandbox could not start: {type(exc).__name__}: {exc}")
    while True:
        try:
            task, args, cpu_seconds, memory_bytes = conn.recv()
        except (EOFError, OSError):
            return
        try:
            _limit(cpu_seconds, memory_bytes)
        except (OSError, ValueError) as exc:
            _give_up(conn, f"the sandbox could not set its limits: {type(exc).__name__}: {exc}")
        answer = _run(task, args)
        supervisor.set_soft_limit(resource.RLIMIT_AS, resource.RLIM_INFINITY)  # the hard one
        if answer is None:  # out of memory
            gc.collect()
            os._exit(supervisor.MEMORY_EXIT)
        try:
            conn.send(answer)
        except (OSError, pickle.PicklingError, MemoryError):
            return
        if (
            supervisor.address_space() > base + RECYCLE_BYTES
            or supervisor.cpu_used() > LIFETIME_CPU / 2
        ):
            return


def _set_up(server_pid: int) -> None:
    """No core files, a lifetime's CPU limit, and an end when the server is gone."""
    supervisor.die_with(server_pid)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard == resource.RLIM_INFINITY or hard > LIFETIME_CPU:
        resource.setrlimit(resource.RLIMIT_CPU, (LIFETIME_CPU, LIFETIME_CPU))


def _limit(cpu_seconds: float, memory_bytes: int) -> None:
    """The soft limits for one task: its CPU seconds and address space on top of what this
    child has used, within the hard limits the server was started with (`ulimit -v`)."""
    supervisor.set_soft_limit(
        resource.RLIMIT_CPU, int(supervisor.cpu_used()) + 1 + int(cpu_seconds)
    )
    supervisor.set_soft_limit(resource.RLIMIT_AS, supervisor.address_space() + memory_bytes)


def _give_up(conn: Any, message: str) -> NoReturn:
    """Tell the server why this child cannot work (the answer to the request it sends, or has
    sent), and exit."""
    try:
        conn.send(("error", "sandbox", message, None))
    finally:
        os._exit(supervisor.START_FAILED_EXIT)


def _run(task: str, args: tuple) -> tuple | None:
    """The answer to one request; None when it ran out of memory."""
    try:
        return ("ok", _task(task)(*args))
    except MemoryError:
        return None
    except TemplateFailure as exc:
        return ("error", "template", exc.reason, exc.line)
    except TimeoutError:
        return ("error", "timeout", "", None)
    except (ValueError, LookupError) as exc:
        return ("error", "value", str(exc), None)
    except RecursionError:
        return ("error", "value", "the input is nested too deeply to read", None)
    except Exception as exc:  # noqa: BLE001 - a child never dies silently
        return ("error", "internal", f"{type(exc).__name__}: {exc}", None)


def _task(name: str) -> Callable[..., Any]:
    """A task by name: one of TASKS, or "module:function" (the server's own code, e.g. a test's
    task; a name never comes from a request)."""
    if ":" not in name:
        return TASKS[name]
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


# ---- the tasks ---------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def _compiled(pattern: str, flags: int) -> "regex.Pattern[str]":
    return regex.compile(pattern, flags)


def search(pattern: str, flags: int, method: str, args: tuple, seconds: float) -> tuple[Any, float]:
    """One search of a user's pattern (`user_regex.run_search`): its result and CPU seconds."""
    return user_regex.run_search(_compiled(pattern, flags), method, args, seconds)


KEEP_NORMALIZERS = 32
_NORMALIZERS: LRU[str, Any] = LRU(KEEP_NORMALIZERS)  # digest -> an uploaded normaliser


def normalize(digest: str, blob: bytes | None, ns: Any) -> Any:
    """`ns` through an uploaded tokeniser's normaliser, kept here by the digest of its pickle
    (sent once: `blob`). None when this child does not have it and no `blob` came: the server
    sends it again with the blob."""
    normalizer = _NORMALIZERS.get(digest)
    if normalizer is None:
        if blob is None:
            return None
        normalizer = _NORMALIZERS.put(digest, pickle.loads(blob))
    return normalizer.normalize(ns)


def render_chat_template(inputs: Any, time_limit: float) -> Any:
    """All a chat template's own work (`chat.render_template`): text, spans, literals."""
    return chat_render.render_template(inputs, time_limit=time_limit)


def parse_tokenizer(data: bytes, fmt: str, options: dict[str, Any]) -> bytes:
    """An uploaded tokenizer file read (`app.uploads.parse`), pickled for the server."""
    return pickle.dumps(uploads.parse(data, fmt, options), protocol=pickle.HIGHEST_PROTOCOL)


TASKS: dict[str, Callable[..., Any]] = {
    "search": search,
    "normalize": normalize,
    "chat": render_chat_template,
    "parse": parse_tokenizer,
}

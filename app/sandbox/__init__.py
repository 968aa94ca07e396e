"""Untrusted work runs here: in child processes with hard limits, never in the serving process.

What a user sends that is code, or that our code must take apart, is untrusted:
- a chat template (jinja2: loops, filters, string building);
- an uploaded tokenizer file's parse (JSON, protobuf, zip, GGUF of any size and shape);
- an uploaded pipeline's own parts: its regexes (a tokenizer.json's Split and Replace, a ranks
  file's pattern, the custom regex rule, a trainer's pattern), searched on every encode, and
  its normaliser chain (`Sandbox.normalizer_runner`, which an uploaded file's tokeniser
  carries).

`Sandbox` runs each in a warm pool of sandboxed children (`pool.Pool`, started by the
supervisor that also starts the job engine's children), with a budget of CPU seconds, address
space and a kill for a stalled child (`pool.Budget`). Two pools, so that a hostile template or a
huge file (the "work" pool) never stands in the way of the live visualiser's searches and
normalisers (the "search" pool); the work pool keeps as many children again for small work, and
serves the clients who used it least first, so that loops of heavy templates cannot keep a
small chat waiting. The core still checks its own budgets first (a template's sizes before it
builds a value, a normaliser's growth, a search's CPU seconds); the sandbox is the guarantee
when one step is huge, and what keeps the server's memory out of a template's reach.

    sandbox = Sandbox(settings); sandbox.start()
    done = sandbox.render_chat_template(inputs, 2.0)     # chat.TemplateRender
    tok = sandbox.parse(data, "hf_json", {})             # the Tokenizer, parsed in a child
    ... encodes: `user_regex.use_runner` sends every timed search to the search pool

With `TOKVIS_SANDBOX_WORKERS=0` all of it runs in the serving process (to compare).
"""

from __future__ import annotations

import gc
import hashlib
import math
import pickle
import threading
from typing import Any

from tokenizers_core import user_regex

from ..lru import LRU
from .pool import Budget, Pool, SandboxBusy, SandboxFailure
from .watch import client_of, current_client

__all__ = [
    "Budget",
    "Pool",
    "Sandbox",
    "SandboxBusy",
    "SandboxFailure",
    "client_of",
    "current_client",
]

SEARCH_MEMORY_MB = 256  # a regex search: the text, its matches and the engine's stacks
# a normaliser: a text of at most 20 times the input (or 100,000 characters), with its alignments
NORMALIZE_BUDGET = Budget(2, 512, 4, "its fixed normaliser budget", "its fixed normaliser budget")

_ACTIVE: list["Sandbox"] = []  # started sandboxes, the latest runs the searches
_ACTIVE_LOCK = threading.Lock()


def backstop_wall(cpu_seconds: float) -> float:
    """The wall-clock seconds for which a child with `cpu_seconds` of CPU may be stalled (neither
    running nor waiting for a CPU) before it is killed, and how long its work waits for a child:
    the CPU budget scaled as the searches' backstop is (`user_regex.WALL_FACTOR`,
    `WALL_SLACK`). A child that runs, however slowly, is killed only at `CEILING_FACTOR`
    times that (`pool.Budget.ceiling_seconds`).

    >>> backstop_wall(4) > 4
    True
    """
    return cpu_seconds * user_regex.WALL_FACTOR + user_regex.WALL_SLACK


class Sandbox:
    def __init__(
        self,
        workers: int = 2,
        cpu_seconds: float = 4,
        memory_mb: int = 256,
        wall_seconds: float | None = None,
        parse_seconds: float = 8,
        parse_memory_mb: int = 400,
    ) -> None:
        self.search_pool = Pool("search", workers)
        # as many again for small work: however many loops of heavy templates clients send,
        # a small chat finds a child within a small task's time (`pool.Pool`, issue 38 item 13)
        self.work_pool = Pool("work", workers, reserve=workers)
        # the CPU limit ends runaway work; the kill for a stalled child is the backstop for one
        # that does not run at all: a busy machine, which gives the child a share of a core, only
        # makes it wait for a CPU, which is not a stall (issue 38, item 11)
        wall = wall_seconds if wall_seconds is not None else backstop_wall(cpu_seconds)
        self.chat_budget = Budget(cpu_seconds, memory_mb, wall)
        self._normalizers: LRU[int, tuple[Any, str, bytes]] = LRU(64)
        self._lock = threading.Lock()
        self.parse_budget = Budget(
            parse_seconds,
            parse_memory_mb,
            backstop_wall(parse_seconds),
            "TOKVIS_SANDBOX_PARSE_SECONDS",
            "TOKVIS_SANDBOX_PARSE_MEMORY_MB",
        )

    @property
    def enabled(self) -> bool:
        return bool(self.work_pool.workers)

    def start(self) -> None:
        self.search_pool.start()
        self.work_pool.start()
        with _ACTIVE_LOCK:
            _ACTIVE.append(self)
            if self.enabled:
                user_regex.use_runner(_search_in_sandbox)

    def stop(self) -> None:
        with _ACTIVE_LOCK:
            if self in _ACTIVE:
                _ACTIVE.remove(self)
            if not any(s.enabled for s in _ACTIVE):
                user_regex.use_runner(None)
        self.search_pool.stop()
        self.work_pool.stop()

    # ---- the kinds of work ---------------------------------------------------------------------
    def render_chat_template(self, inputs: Any, time_limit: float) -> Any:
        """`chat.render_template(inputs)` in a child: the `renderer` of `chat.render_chat`."""
        return self.work_pool.run(
            "chat", inputs, time_limit, budget=self.chat_budget, what="the chat template"
        )

    def parse(self, data: bytes, fmt: str, options: dict[str, Any]) -> Any:
        """An uploaded file read in a child (`app.uploads.parse`); the Tokenizer it gives."""
        blob = self.work_pool.run(
            "parse", data, fmt, options, budget=self.parse_budget, what="reading this file"
        )
        return unpickle_quietly(blob)

    def search(
        self, pattern: user_regex.TimedPattern, method: str, args: tuple, seconds: float
    ) -> tuple[Any, float]:
        """One timed search in the search pool: `(result, cpu_seconds)` (`user_regex.Runner`)."""
        # the search stops itself (user_regex.run_search's backstop); the child's own CPU limit
        # and the kill for a stalled child are only there for what it cannot stop
        backstop = backstop_wall(seconds)
        budget = Budget(
            math.ceil(backstop) + 1,
            SEARCH_MEMORY_MB,
            3 * backstop + 5,
            "TOKVIS_REGEX_TIMEOUT",
            "its fixed search budget",
        )
        compiled = pattern.compiled
        return self.search_pool.run(
            "search",
            compiled.pattern,
            compiled.flags,
            method,
            args,
            seconds,
            budget=budget,
            what=f"the pattern {pattern.source!r}",
        )

    @property
    def normalizer_runner(self) -> "InSandbox":
        """The `Tokenizer.normalizer_runner` an uploaded file's tokeniser carries."""
        return InSandbox(self)

    def normalize(self, normalizer: Any, ns: Any) -> Any:
        """`normalizer.normalize(ns)` in the pipeline pool (`pipeline.NormalizerRunner`): an
        uploaded tokeniser's normaliser chain, its growth bounded by the core and its work by
        the child's limits."""
        digest, blob = self._pickled(normalizer)
        answer = self.search_pool.run(
            "normalize",
            digest,
            None,
            ns,
            budget=NORMALIZE_BUDGET,
            what=f"the normalizer {_described(normalizer)}",
        )
        if answer is None:  # that child has not seen it yet
            answer = self.search_pool.run(
                "normalize",
                digest,
                blob,
                ns,
                budget=NORMALIZE_BUDGET,
                what=f"the normalizer {_described(normalizer)}",
            )
        return answer

    def _pickled(self, normalizer: Any) -> tuple[str, bytes]:
        """(digest, pickle) of a normaliser, worked out once per object."""
        known = self._normalizers.get(id(normalizer))
        if known is not None and known[0] is normalizer:
            return known[1], known[2]
        blob = pickle.dumps(normalizer, protocol=pickle.HIGHEST_PROTOCOL)
        digest = hashlib.sha256(blob).hexdigest()
        self._normalizers.put(id(normalizer), (normalizer, digest, blob))
        return digest, blob


def _described(normalizer: Any) -> str:
    describe = getattr(normalizer, "describe", None)
    text = describe() if callable(describe) else type(normalizer).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def _search_in_sandbox(
    pattern: user_regex.TimedPattern, method: str, args: tuple, seconds: float
) -> tuple[Any, float] | None:
    with _ACTIVE_LOCK:
        sandbox = next((s for s in reversed(_ACTIVE) if s.enabled), None)
    return None if sandbox is None else sandbox.search(pattern, method, args, seconds)


class InSandbox:
    """A `Tokenizer.normalizer_runner`: the chain runs in `sandbox` while it is started and has
    workers, here otherwise. A tokeniser pickled with it (sent to a job's child process, which
    has limits of its own) arrives without it: there the chain runs in that child."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    def __call__(self, normalizer: Any, ns: Any) -> Any:
        with _ACTIVE_LOCK:
            running = self.sandbox.enabled and self.sandbox in _ACTIVE
        return self.sandbox.normalize(normalizer, ns) if running else normalizer.normalize(ns)

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return type(None), ()  # unpickled: None, the chain runs where the tokeniser is


def unpickle_quietly(blob: bytes) -> Any:
    """`pickle.loads` with the garbage collector paused: a big vocabulary is millions of
    objects, and a full collection in the middle of building them would stall every request."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(blob)
    finally:
        if enabled:
            gc.enable()

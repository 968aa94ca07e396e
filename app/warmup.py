"""What the pages' first visits need, made as the server starts (TOKVIS_WARM_UP, on by default).

A bundled tokenizer's vocabulary takes 0.4-0.6 s to load and the default vocabulary diff
(cl100k_base against o200k_base) 1.5 s more: done on a first visit, they are what a visitor
waits for. One thread makes them after start-up, in the order of the pages people open
first; a request that needs one before the thread has made it makes it itself, as it would
have without the warm-up. Nothing here is stored: it is the per-process caches' usual
content, made early.
The trainings and audits that take longer are jobs, whose results the store keeps across
restarts, and whose pages show their progress at once.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from typing import Callable

from tokenizers_core import load

from . import heap, vocab
from .services import analytics, vocab_diff

log = logging.getLogger("tokvis.warmup")

# the bundled tokenizers the pages open with: the visualiser, vocab, audit and compare (cl100k),
# vocab diff and tokenizations (o200k), the mix estimate (r50k), compare's BERT column
TOKENIZERS = ("cl100k_base", "o200k_base", "r50k_base", "bert-base-uncased")


def _steps() -> list[tuple[str, Callable[[], object]]]:
    steps: list[tuple[str, Callable[[], object]]] = [
        (name, functools.partial(load, name)) for name in TOKENIZERS
    ]
    steps += [
        ("the compare and tax pages' templates", _compile_templates),
        ("the tax page's language facts", analytics.language_facts),
        ("vocabulary entries of cl100k_base", lambda: vocab.entries_of(load("cl100k_base"))),
        ("the default vocabulary diff", vocab_diff.warm_default),
        ("settle the heap", heap.settle),
    ]
    return steps


# the pages whose first visit compiled their templates (about 1 s each on a busy machine)
TEMPLATES = ("visualiser.html", "compare.html", "tax.html")


def _compile_templates() -> None:
    from .render import env

    for name in TEMPLATES:
        env.get_template(name)


class WarmUp:
    """The thread, and what it has done (`done`, `seconds`: for tests and the log)."""

    def __init__(self) -> None:
        self.done: list[str] = []
        self.seconds = 0.0
        self.finished = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tokvis-warm-up", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        start = time.perf_counter()
        try:
            for name, step in _steps():
                step()
                self.done.append(name)
        except Exception:  # a warm-up that fails leaves the first visit to do it: not fatal
            log.exception("warm-up stopped")
        finally:
            self.seconds = time.perf_counter() - start
            log.info("warm-up: %s in %.1f s", ", ".join(self.done), self.seconds)
            self.finished.set()

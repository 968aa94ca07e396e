"""The paths of `GET /api/tokenizations`, worked out in child processes (issue 38, item 14).

A 2,000-byte text with k=100 and samples=1,000 is a thousand sequences of ~1,000 ids each to
unrank, a hundred to rank, and a ~5 MB answer: 0.5-2 s of CPU in pure Python. Run in the
serving process it holds the GIL that long, and every other request waits behind it (16 at
once put a plain encode's p50 at 1.4 s). So the serving process does only what is cheap and
needs the tokenizer -- the text checked and spelled in units, its canonical path (an encode) --
and a pool of its own warm children (`app.sandbox.pool.Pool`, as the sandbox's) does the rest:
the lattice, the count, the shortest sequences, the samples and the JSON text of the answer,
which the server sends as it comes. Each request has a budget of CPU seconds and memory
(`BUDGET`): past it the child is stopped and the answer is a 422 saying so; when every child
stays busy longer than a request can wait, a 503 with Retry-After (`SandboxBusy`).

A child keeps the vocabulary index (`Space`) of the last few tokenizers it served, by a key
the server gives each index; the server sends the index (pickled, 2.5 MB for cl100k_base)
only when the child answers that it has not got it. It also keeps the lattices (with their
counts) of the last few texts, so another seed for the same text -- "more samples" -- draws at
once instead of finding the edges again.

With `TOKVIS_SANDBOX_WORKERS=0` the same work runs in the serving process (to compare).
"""

from __future__ import annotations

import dataclasses
import json
import pickle
import threading
import uuid
import weakref

from tokenizers_core.tokenizations import Tokenizations
from tokenizers_core.tokenizations.space import Space

from ..lru import LRU
from ..sandbox import Budget, Pool, supervisor

# a text of 2,000 spaces under cl100k_base, the densest bundled case (168,281 edges), takes
# 1-2 s of CPU; a crafted vocabulary at the lattice's bound (500,000 edges) about three times that
BUDGET = Budget(10, 1024, 40, "its fixed budget", "its fixed budget")
KEEP_SPACES = 4  # vocabulary indexes a child keeps (o200k_base's: ~60 MB)
KEEP_LATTICES = 4  # texts' lattices a child keeps (2,000 spaces under cl100k_base: ~45 MB)
WHAT = "the space of tokenisations of this text"

_SPACES: LRU[str, Space] = LRU(KEEP_SPACES)  # in a child: key -> index
# in a child: (index key, units, canonical path) -> the text's lattice, its counts worked out
_LATTICES: LRU[tuple[str, str, tuple[tuple[int, int, int], ...]], Tokenizations] = LRU(
    KEEP_LATTICES
)


def answer(
    key: str,
    blob: bytes | None,
    name: str,
    units: str,
    path: tuple[tuple[int, int, int], ...],
    k: int,
    samples: int,
    seed: int | None,
) -> bytes | None:
    """The JSON text of `GET /api/tokenizations`'s answer (the child's task); None when this
    child has not got the index `key` and no `blob` (its pickle) came with the request."""
    space = _SPACES.get(key)
    if space is None:
        if blob is None:
            return None
        space = _SPACES.put(key, pickle.loads(blob))
    t = _LATTICES.get_or_make(
        (key, units, path), lambda: Tokenizations(None, space, "", units, path)
    )
    return body(t, name, k, samples, seed)


def body(t: Tokenizations, name: str, k: int, samples: int, seed: int | None) -> bytes:
    """The answer's JSON text: the count as a decimal string, its log10, the canonical ids,
    the k shortest sequences and `samples` uniform samples (by `seed`), as Starlette's
    JSONResponse writes it. The samples (a million ids) are written with each id's digits made
    once (2.5 times json.dumps' speed), after the rest."""
    head = {
        "tokenizer": name,
        "unit": t.space.unit,
        "count": str(t.count()),
        "log10": t.log10(),
        "canonical": t.canonical(),
        "shortest": t.shortest(k) if k else [],
    }
    drawn = t.sample(samples, seed=seed) if samples else []
    text = json.dumps(head, ensure_ascii=False, separators=(",", ":"))
    return (text[:-1] + ',"samples":' + _id_lists(t, drawn) + "}").encode("utf-8")


def _id_lists(t: Tokenizations, lists: list[list[int]]) -> str:
    """`json.dumps(lists)` (compact) for lists of the lattice's ids.

    >>> from tokenizers_core.models.bpe.model import BPE
    >>> from tokenizers_core.pipeline import Tokenizer
    >>> from tokenizers_core.tokenizations import tokenizations
    >>> t = tokenizations(Tokenizer(BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")])), "abab")
    >>> _id_lists(t, [[2, 2], [0, 1, 2], []])
    '[[2,2],[0,1,2],[]]'
    """
    digits = {id_: str(id_) for here in t.out for _end, id_ in here}.__getitem__
    return "[" + ",".join(["[" + ",".join(map(digits, ids)) + "]" for ids in lists]) + "]"


class SpacePool:
    """The server's side: `answer(t, name, k, samples, seed)`, the JSON text of the answer for a
    `Tokenizations` whose text is spelled (its edges not found yet), from a child of the pool
    (`workers`: 0 works it out in this process)."""

    TASK = f"{__name__}:answer"

    def __init__(self, workers: int = 2) -> None:
        supervisor.preload(__name__)
        self.pool = Pool("tokenizations", workers)
        self._keys: weakref.WeakKeyDictionary[Space, tuple[str, bytes]] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def start(self) -> None:
        self.pool.start()

    def stop(self) -> None:
        self.pool.stop()

    def answer(self, t: Tokenizations, name: str, k: int, samples: int, seed: int | None) -> bytes:
        if not self.pool.workers:
            return body(t, name, k, samples, seed)
        key, blob = self._key(t.space)
        args = (name, t.units, t.path, k, samples, seed)
        text = self.pool.run(self.TASK, key, None, *args, budget=BUDGET, what=WHAT)
        if text is None:  # that child has not got this index yet
            text = self.pool.run(self.TASK, key, blob, *args, budget=BUDGET, what=WHAT)
        return text

    def _key(self, space: Space) -> tuple[str, bytes]:
        """The key and the pickle of an index, made once per index (its cached sorted
        surfaces left out)."""
        with self._lock:
            known = self._keys.get(space)
            if known is None:
                blob = pickle.dumps(dataclasses.replace(space), protocol=pickle.HIGHEST_PROTOCOL)
                known = self._keys[space] = (uuid.uuid4().hex, blob)
            return known

"""The one cache of the views' runs, per server process.

The core's sessions are plain, resumable runs (`BpeSession`, `WordPieceSession`, Unigram's
rounds); keeping them between requests is serving, and lives here: an LRU per view bounded by
count and by the pickled size of what it holds, a lock per key so that requests arriving
together load (or train) a run once while the others wait, and the garbage collector kept off
a run that stays (`heap.settle`). A run is cached only once it is finished and its view tables
are built: it is read-only from then on, so requests share it without a lock.

    run = BPE.get(key) or BPE.keep(key, finished_session, nbytes, settle=True)

Parsed tokenizer files (`app.uploads`) are kept in a `RunCache` bounded by bytes alone
(TOKVIS_TOKENIZER_CACHE_MB), each weighed by `tokenizer_bytes`.
"""

from __future__ import annotations

import threading
from typing import Any, Hashable

from .. import heap
from ..lru import LRU

CACHE_BYTES = 256 * 10**6  # pickled runs one view's cache holds in a server process


class RunCache(LRU[Hashable, Any]):
    """The finished runs of the step views (per server process): an `LRU` bounded by count
    (None: no bound) and by the bytes of the runs it holds (the newest always stays)."""

    def __init__(self, size: int | None, max_bytes: int = CACHE_BYTES) -> None:
        super().__init__(size, max_bytes)
        self._loading: dict[Hashable, threading.Lock] = {}

    def keep(self, key: Hashable, run: Any, nbytes: int = 0, settle: bool = False) -> Any:
        """`put`, first moving a run that will stay out of the collector's scans (`settle`):
        a full collection over a large run adds ~70 ms to an occasional step request."""
        if settle:
            heap.settle()
        return self.put(key, run, nbytes)

    def loading(self, key: Hashable) -> threading.Lock:
        """A lock per key, so that one request loads a finished run and the others find it."""
        with self._lock:
            if len(self._loading) > 256:  # forget idle ones (at worst, a load twice)
                self._loading = {k: v for k, v in self._loading.items() if v.locked()}
            return self._loading.setdefault(key, threading.Lock())


# What a loaded tokeniser keeps, measured with tracemalloc on real files (Llama 3's tokenizer.json:
# 128,000 entries, 280,147 merges, 95 MB; Llama 4's: 200,000, 439,802, 160 MB; BERT's: 30,522
# entries, 9 MB; 100,000 added tokens: 41 MB), to within 10%.
BYTES_PER_ENTRY, BYTES_PER_MERGE, BYTES_PER_ADDED, BYTES_BASE = 300, 200, 410, 10**6


def tokenizer_bytes(tok: Any) -> int:
    """A cheap estimate of the memory a loaded tokeniser holds, from its counts: vocabulary
    entries, merges (BPE) and added tokens.

    >>> import tokenizers_core as tc
    >>> tokenizer_bytes(tc.load("bert-base-uncased")) // 10 ** 6
    10
    """
    model = tok.model
    return (
        BYTES_BASE
        + BYTES_PER_ENTRY * model.get_vocab_size()
        + BYTES_PER_MERGE * len(getattr(model, "merges", ()))
        + BYTES_PER_ADDED * len(getattr(tok, "added_tokens", ()))
    )


# One cache per view (read as `cache.BPE` at call time, so a test may swap in a fresh one).
BPE = RunCache(6)  # finished BPE `BpeSession`s, trained in the request or pooled
WORDPIECE = RunCache(6)  # finished `WordPieceSession`s
UNIGRAM = RunCache(16)  # Unigram runs: rounds, corpus figures, final pieces
FAMILY = RunCache(6)  # the new BPE family's finished runs (`FamilyRun`: every step)

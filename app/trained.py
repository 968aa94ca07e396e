"""Trained tokenisers, named by a handle that any server worker can rebuild.

A trained tokeniser is a pure function of its spec: algorithm, corpus (a bundled name or the
sha256 of a stored corpus), vocab size and options. The handle is readable and derived from the
spec (`bpe-1000-3f2a9c1b2d4e`); the spec is kept in the SQLite store, the trained object in a
small LRU cache. A worker that misses the cache retrains from the spec.

With a job engine (the app always has one), training runs as a job in a worker process with
CPU and memory limits (`app.jobs`); the job's row keeps the pickled tokeniser, so another server
worker loads it instead of training again, and a client that leaves cancels its training.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import threading
from typing import Any

import tokenizers_core as tc
from tokenizers_core.corpora import corpus_names, load_corpus
from tokenizers_core.errors import InvalidInput, NotFound

from . import heap
from .jobs import counting
from .lru import LRU
from .store import CorpusStore, is_sha256


def corpus_text(store: CorpusStore, ref: str) -> str:
    """The text of a corpus reference: a bundled corpus name or a stored sha256."""
    if ref in corpus_names():
        return load_corpus(ref)
    if is_sha256(ref):
        text = store.get(ref)
        if text is not None:
            return text
        raise NotFound(f"no stored corpus has sha256 {ref}")
    raise NotFound(
        f"unknown corpus {ref!r}: give a bundled name (botchan, udhr/eng, ...) "
        "or the sha256 of a stored corpus"
    )


def make_spec(
    algorithm: str, corpus: str, vocab_size: int, options: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any]]:
    """The handle and spec of a training run (nothing is trained here)."""
    spec = {
        "algorithm": algorithm,
        "corpus": corpus,
        "vocab_size": int(vocab_size),
        "options": dict(sorted((options or {}).items())),
    }
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:12]
    return f"{algorithm}-{int(vocab_size)}-{digest}", spec


class TrainedTokenizers:
    """Trains on demand and caches the most recently used tokenisers."""

    def __init__(self, store: CorpusStore, maxsize: int = 16, engine: Any = None) -> None:
        self.store = store
        self.engine = engine
        self.maxsize = maxsize
        self._cache: LRU[str, tc.Tokenizer] = LRU(maxsize)
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}  # one training per handle at a time

    def train(
        self, algorithm: str, corpus: str, vocab_size: int, options: dict[str, Any] | None = None
    ) -> tuple[str, tc.Tokenizer]:
        """Train (or fetch from the cache) and remember the spec. Raises ValueError for bad
        options, NotFound for an unknown corpus."""
        handle, spec = make_spec(algorithm, corpus, vocab_size, options)
        cached = self._cached(handle)
        if cached is not None:
            return handle, cached
        tok = self._build(handle, spec)
        self.store.put_spec(handle, spec)
        return handle, tok

    def get(self, handle: str) -> tc.Tokenizer | None:
        """The tokeniser behind a handle, retrained from its stored spec if need be."""
        cached = self._cached(handle)
        if cached is not None:
            return cached
        spec = self.store.get_spec(handle)
        if spec is None:
            return None
        return self._build(handle, spec)

    def cached(self, handle: str) -> tc.Tokenizer | None:
        """The tokeniser if it is in the cache (never trains)."""
        return self._cached(handle)

    def _cached(self, handle: str) -> tc.Tokenizer | None:
        return self._cache.get(handle)

    def _build(self, handle: str, spec: dict[str, Any]) -> tc.Tokenizer:
        with self._lock:
            building = self._building.setdefault(handle, threading.Lock())
        with building:  # a second request for the same handle waits for the first
            cached = self._cached(handle)
            if cached is not None:
                return cached
            return self._train(handle, spec)

    def _train(self, handle: str, spec: dict[str, Any]) -> tc.Tokenizer:
        if "train_job" in spec:  # a training on shards: its final job's tokeniser
            tok = self._trained_on_shards(handle, spec)
        elif self.engine is not None:
            tok = self._train_as_job(handle, spec)
        else:
            text = corpus_text(self.store, spec["corpus"])
            try:
                tok = tc.train(
                    spec["algorithm"], text.splitlines(), spec["vocab_size"], **spec["options"]
                )
            except TypeError as exc:  # an option the trainer does not take
                raise InvalidInput(f"bad option for {spec['algorithm']}: {exc}") from None
        tok.name = handle
        heap.settle()  # the model stays in the cache: keep the collector off it
        self._cache.put(handle, tok)
        with self._lock:
            self._building.pop(handle, None)
        return tok

    def _trained_on_shards(self, handle: str, spec: dict[str, Any]) -> tc.Tokenizer:
        tok = counting.trained(self.engine.store, spec) if self.engine is not None else None
        if tok is None:
            raise InvalidInput(
                f"{handle} is still training on its shards: GET /api/train/sharded/{handle}"
            )
        return tok

    def _train_as_job(self, handle: str, spec: dict[str, Any]) -> tc.Tokenizer:
        """Train in the job engine's pool (or load the result another worker stored)."""
        corpus_text(self.store, spec["corpus"])  # an unknown corpus: NotFound now
        for _attempt in range(3):
            job, created = self.engine.submit("train", f"train-{handle}", spec, total=1)
            job = self.engine.wait(job.id, created)
            blob = self.engine.store.blob(job.id) if job and job.status == "done" else None
            if blob is not None:
                try:
                    return pickle.loads(blob)
                except Exception:  # pickled by other code: forget it, train it again
                    self.engine.store.delete(job.id)
                    continue
            if job and job.status == "error":
                if job.error_kind == "lookup":
                    raise NotFound(job.error)
                raise InvalidInput(job.error)
            # cancelled or interrupted by someone else, or pruned a moment ago: queue it again
        raise InvalidInput(f"the training of {handle} was cancelled; try again")

"""Corpora stored as several shards, and the trainings on them (`app.jobs.counting` runs them).

A corpus of shards is a list: each shard an uploaded file (stored as a corpus, by sha256) or a
file on the server, in a folder the deployment allows (TOKVIS_CORPUS_DIRS). The list is kept
with the trained-tokeniser specs under its own name, `shards-<hash>`, which a training names as
its corpus:

    corpus = put_shards(state, [{"name": "a.txt", "sha256": ...}, ...])   # "shards-3f2a..."
    found = start_training(state, "byte_bpe", corpus, 1000, {})         # queued, per shard
    training_progress(state, found["id"])                              # any server answers
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from fastapi import UploadFile

from tokenizers_core.errors import InvalidInput, NotFound

from ..config import corpus_dirs_from_env, inside
from ..jobs import counting
from ..state import AppState
from .corpora import read_corpus_upload, store_corpus

MAX_SHARDS = 64  # shards in one corpus (each is a job; the queue's limit counts them too)
PREFIX = "shards-"


def put_shards(state: AppState, shards: list[dict[str, Any]]) -> str:
    """Keep the list of shards; its name (`shards-<hash>`, the same for the same list)."""
    if not shards:
        raise InvalidInput("give at least one shard")
    if len(shards) > MAX_SHARDS:
        raise InvalidInput(f"{len(shards)} shards are more than one corpus holds ({MAX_SHARDS})")
    listed = {"shards": shards}
    name = PREFIX + hashlib.sha256(json.dumps(listed, sort_keys=True).encode()).hexdigest()[:24]
    state.store.put_spec(name, listed)
    return name


async def uploaded_shards(state: AppState, files: list[UploadFile]) -> list[dict[str, Any]]:
    """Each uploaded file stored as a corpus (the upload and corpus limits apply to each)."""
    shards = []
    for n, upload in enumerate(files):
        text = await read_corpus_upload(state, upload)
        name = (upload.filename or f"shard {n + 1}").rsplit("/", 1)[-1][:200]
        digest = store_corpus(state, text, name=name)
        shards.append({"name": name, "sha256": digest, "bytes": len(text.encode("utf-8"))})
    return shards


def path_shards(paths: list[str]) -> list[dict[str, Any]]:
    """The server-side files `paths` name, each in a folder TOKVIS_CORPUS_DIRS allows
    (PermissionError, 403, for any other; nothing outside them is looked at), with their size
    and time, so a worker can tell the file changed."""
    folders = corpus_dirs_from_env()
    if not folders:
        raise PermissionError(
            "this server reads no files of its own: TOKVIS_CORPUS_DIRS names no folder"
        )
    shards = []
    for given in paths:
        path = inside(given, folders)
        if path is None:
            raise PermissionError(
                f"{given} is not in a folder this server reads corpora from (TOKVIS_CORPUS_DIRS)"
            )
        if not path.is_file():
            raise NotFound(f"{given}: no such file in the corpus folders")
        stat = path.stat()
        shards.append(
            {
                "name": path.name,
                "path": str(path),
                "bytes": stat.st_size,
                "mtime_ns": stat.st_mtime_ns,
            }
        )
    return shards


def listed_shards(state: AppState, corpus: str) -> list[dict[str, Any]]:
    """The shards a corpus of shards lists (NotFound if there is none by that name)."""
    listed = state.store.get_spec(corpus) if corpus.startswith(PREFIX) else None
    if listed is None or "shards" not in listed:
        raise NotFound(
            f"no corpus of shards is named {corpus!r}: make one with POST /api/corpora/shards "
            "(uploads) or POST /api/corpora/shards/paths (files on the server)"
        )
    return listed["shards"]


def start_training(
    state: AppState, algorithm: str, corpus: str, vocab_size: int, options: dict[str, Any]
) -> dict[str, Any]:
    """Queue a training on a corpus of shards (a job per shard; asked again, it goes on where
    it stopped) and return its progress. InvalidInput for a trainer of anything but word
    counts, QueueFull (429) past the queue's limit."""
    shards = listed_shards(state, corpus)
    training_id, spec = counting.training_spec(algorithm, corpus, shards, vocab_size, options)
    state.store.put_spec(training_id, spec)
    counting.start(state.jobs, spec)
    return counting.progress(state.jobs.store, spec)


def training_spec(state: AppState, training_id: str) -> dict[str, Any]:
    spec = state.store.get_spec(training_id) if training_id.startswith("sharded-") else None
    if spec is None or "train_job" not in spec:
        raise NotFound(f"no training on shards is named {training_id!r}")
    return spec


def training_progress(state: AppState, training_id: str) -> dict[str, Any]:
    """Each shard's name, state and pre-tokens counted, and the training's state."""
    return counting.progress(state.jobs.store, training_spec(state, training_id))

"""Handing a tokeniser to a job's worker process, which cannot reach the server's caches: a
bundled one goes by name and is loaded there; any other (uploaded, trained) is pickled once into
the store, signed (`app.signing`), as hex text (`signed:<sha256>`), and the spec names that
file. A job that is already queued, running or done needs nothing handed over again, so a page
that polls its job does not pickle the tokeniser on every poll."""

from __future__ import annotations

import pickle
from typing import Any

from tokenizers_core import pretrained

from ..jobs.store import Job
from ..signing import sign
from ..state import AppState

ALIVE = ("queued", "running", "done")


def tokenizer_spec(state: AppState, name: str, tok: Any, existing: Job | None) -> dict[str, Any]:
    """The job spec's part that finds the tokeniser: {"tokenizer": name} and, for one that is
    not bundled and whose job is not alive yet, "pickled": the stored file."""
    if pretrained.is_bundled(name):
        return {"tokenizer": pretrained.canonical_name(name)}
    if existing is not None and existing.status in ALIVE:
        return {"tokenizer": name}
    signed = sign(state.jobs.store.key, pickle.dumps(tok, protocol=pickle.HIGHEST_PROTOCOL))
    return {
        "tokenizer": name,
        "pickled": "signed:" + state.store.put_file(signed.hex().encode("ascii")),
    }

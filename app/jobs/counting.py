"""A training on a corpus of several shards, counted on whichever workers take the shards.

A word-count trainer (bpe, byte_bpe, sentencepiece_bpe, wordpiece) needs only the pre-token
counts of its corpus. So a sharded training is one job per shard and one job at the end:

- `start` writes the final "counts_train" job's row, `waiting`, and queues a "count_shard" job
  per shard. Whichever worker takes one counts its shard (`tc.count`, block by block, the
  blocks' counts summed with `tc.merge_counts`), stores the counts file's bytes as the job's
  result, and adds its counts to the running sum in the waiting row (`summing.add`): the
  counts are reduced as the shards finish;
- the shard that completes the sum queues the final job. No job ever waits on another while
  it holds a worker, so one worker runs the whole training, one job after the other;
- the final job trains from the sum (`tc.train(..., counts=...)`): the same merges as training
  on the shards' text joined (if its sum was lost, it adds up the shards' own counts);
- a worker killed mid-shard leaves that shard's job `interrupted` (its heartbeat stops); every
  server's and worker's sweeper queues such a job again (`requeue_interrupted`, at most
  ATTEMPTS times), so only that shard is counted again.

The training's id names its spec (kept with the trained-tokeniser specs); the shards' and the
final job's ids are derived from it, so any server answers `progress(...)` for it.

    training, spec = start(state, "byte_bpe", "shards-1a2b...", 1000, {})
    progress(state.jobs.store, spec)   # {"status": "counting", "shards": [...], ...}
"""

from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path
from typing import Any, Callable, Iterator

from sqlalchemy import Connection

import tokenizers_core as tc
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.counting import COUNTED_ALGORITHMS, Counts, counted_under
from tokenizers_core.implementations.counting.from_counts import COUNTING_OPTIONS

from ..config import corpus_dirs_from_env, inside
from . import summing
from .deferral import enqueuer
from .queue import JobQueue
from .store import FINAL, Job, JobStore

SHARD, TRAIN = "count_shard", "counts_train"
ATTEMPTS = 3  # times a shard (or the final training) is run before it is given up
LINES = 20_000  # lines counted at once (each block's counts join the shard's sum)
BLOCK = 1 << 20  # characters read at once from a server-side file

Enqueue = Callable[[Connection, str], None]


# ---- the ids and the spec ------------------------------------------------------------------
def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def training_spec(
    algorithm: str, corpus: str, shards: list[dict[str, Any]], vocab_size: int, options: dict
) -> tuple[str, dict[str, Any]]:
    """The id and spec of a training on `shards` (nothing is queued here). InvalidInput for an
    algorithm that does not train on word counts.

    >>> tid, spec = training_spec("bpe", "shards-ab", [{"name": "a", "sha256": "0" * 64}], 300, {})
    >>> tid.startswith("sharded-bpe-300-"), spec["shards"][0]["job"].startswith("count_shard-")
    (True, True)
    """
    if algorithm not in COUNTED_ALGORITHMS:
        raise InvalidInput(
            f"{algorithm} does not train on word counts, so it cannot train on shards "
            f"(shards train {', '.join(COUNTED_ALGORITHMS)})"
        )
    counting = {k: v for k, v in sorted(options.items()) if k in COUNTING_OPTIONS[algorithm]}
    counted_under(algorithm, **counting)  # a bad pattern: refused now, not in every shard
    ident = {"algorithm": algorithm, "corpus": corpus, "vocab_size": vocab_size, "options": options}
    training_id = f"sharded-{algorithm}-{vocab_size}-{_digest(ident)[:16]}"
    spec = {
        **ident,
        "id": training_id,
        "counting": counting,
        "shards": [
            {**shard, "job": f"{SHARD}-{_digest([training_id, n, shard])[:24]}"}
            for n, shard in enumerate(shards)
        ],
        "train_job": f"{TRAIN}-{_digest(training_id)[:24]}",
    }
    return training_id, spec


def shard_job_spec(spec: dict[str, Any], n: int, attempt: int = 1) -> dict[str, Any]:
    """What shard `n`'s job needs: the shard, the rules to count it under, and its training."""
    return {
        "training": spec["id"],
        "shard": {k: v for k, v in spec["shards"][n].items() if k != "job"},
        "algorithm": spec["algorithm"],
        "counting": spec["counting"],
        "index": n,
        "attempt": attempt,
    }


def train_job_spec(spec: dict[str, Any], attempt: int = 1) -> dict[str, Any]:
    return {
        "training": spec["id"],
        "job": spec["train_job"],
        "algorithm": spec["algorithm"],
        "vocab_size": spec["vocab_size"],
        "options": spec["options"],
        "shards": [shard["job"] for shard in spec["shards"]],
        "attempt": attempt,
    }


# ---- queuing ---------------------------------------------------------------------------------
def start(queue: JobQueue, spec: dict[str, Any]) -> list[Job]:
    """Queue the shards' jobs not queued, running or done yet (so asking again after a 429 goes
    on where it stopped), and the final training if every shard is counted. QueueFull past the
    queue's limit."""
    summing.open_sum(
        queue.store, spec["train_job"], TRAIN, train_job_spec(spec), len(spec["shards"])
    )
    found = []
    for n, shard in enumerate(spec["shards"]):
        job, _created = queue.submit(SHARD, shard["job"], shard_job_spec(spec, n))
        found.append(job)
    if all(job.status == "done" for job in found):
        queue.submit(TRAIN, spec["train_job"], train_job_spec(spec))
    return found


def after_shard(jobs: JobStore, spec: dict[str, Any], training: dict[str, Any] | None) -> None:
    """A shard job has ended done. The shard that completed the sum queued the final training
    (`summing.add`); if every shard is counted and it is still not queued (its row was lost,
    or a shard could not add itself in), queue it now: it then adds up the shards' counts."""
    if training is None:
        return
    statuses = [_status(jobs, shard["job"]) for shard in training["shards"]]
    if not all(s == "done" for s in statuses):
        return
    final = _status(jobs, training["train_job"])
    if final == summing.WAITING:
        summing.release(jobs, training["train_job"], enqueuer(jobs.url))
    elif final == "missing":
        jobs.submit(
            training["train_job"],
            TRAIN,
            train_job_spec(training),
            total=len(training["shards"]),
            queue_limit=10**9,  # the shards were within the limit; their training always goes
            enqueue=enqueuer(jobs.url),
        )


def requeue_interrupted(jobs: JobStore, enqueue: Enqueue | None) -> int:
    """Queue again the shard and final jobs whose worker died (interrupted), each at most
    ATTEMPTS times in all; how many were queued."""
    again = 0
    for job_id in jobs.interrupted((SHARD, TRAIN)):
        job = jobs.get(job_id)
        if job is None or job.status != "interrupted" or job.spec.get("attempt", 1) >= ATTEMPTS:
            continue
        spec = {**job.spec, "attempt": job.spec.get("attempt", 1) + 1}
        _job, created = jobs.submit(
            job_id,
            job.kind,
            spec,
            job.total,
            10**9,
            keep=("queued", "running", "done"),
            enqueue=enqueue,
        )
        again += created
    return again


def _status(jobs: JobStore, job_id: str) -> str:
    job = jobs.get(job_id)
    return job.status if job is not None else "missing"


# ---- what a training shows -----------------------------------------------------------------
def progress(jobs: JobStore, spec: dict[str, Any]) -> dict[str, Any]:
    """The training's state: each shard's name, state and pre-tokens counted so far, then the
    final training's; `status` is counting, training, done or error."""
    shards = []
    for shard in spec["shards"]:
        job = jobs.get(shard["job"])
        results = job.results if job is not None and isinstance(job.results, dict) else {}
        shards.append(
            {
                "name": shard["name"],
                "state": job.status if job is not None else "missing",
                "pre_tokens": results.get("pre_tokens", 0),
                "distinct": results.get("distinct"),
                "attempt": job.spec.get("attempt", 1) if job is not None else 0,
                "error": job.error if job is not None else None,
            }
        )
    final = jobs.get(spec["train_job"])
    out: dict[str, Any] = {
        "id": spec["id"],
        "algorithm": spec["algorithm"],
        "vocab_size": spec["vocab_size"],
        "corpus": spec["corpus"],
        "shards": shards,
        "pre_tokens": sum(s["pre_tokens"] for s in shards),
        "training": final.status if final is not None else "missing",
        "summed": final.done if final is not None and final.status == summing.WAITING else None,
        "status": _overall(shards, final),
        "error": next((s["error"] for s in shards if s["state"] == "error"), None),
    }
    if final is not None and final.status == "error":
        out["error"] = final.error
    if final is not None and final.status == "done":
        out.update(tokenizer=spec["id"], **final.results)
    return out


def _overall(shards: list[dict[str, Any]], final: Job | None) -> str:
    """counting, training, done or error (a shard or the training failed, or was given up).

    >>> _overall([{"state": "done"}, {"state": "running"}], None)
    'counting'
    >>> _overall([{"state": "done"}], Job("t", "counts_train", {}, "running"))
    'training'
    """
    if final is not None and final.status in ("done", "error"):
        return final.status
    if final is not None and final.status == summing.WAITING:
        final = None  # its shards are still being summed into it
    if any(s["state"] == "error" for s in shards):
        return "error"
    given_up = [s for s in shards if s["state"] in ("interrupted", "cancelled")]
    if any(s["state"] == "cancelled" or s["attempt"] >= ATTEMPTS for s in given_up):
        return "error"
    if final is not None and final.status in FINAL and final.spec.get("attempt", 1) >= ATTEMPTS:
        return "error"
    return "training" if final is not None else "counting"


def trained(jobs: JobStore, spec: dict[str, Any]) -> Any:
    """The trained tokeniser, once the final job is done; None before."""
    final = jobs.get(spec["train_job"])
    blob = jobs.blob(spec["train_job"]) if final is not None and final.status == "done" else None
    return pickle.loads(blob) if blob is not None else None


# ---- the jobs, in a worker's child ---------------------------------------------------------
def count_shard(
    spec: dict[str, Any],
    read: Callable[[str], str],
    report: Callable[..., None],
    jobs: JobStore,
    training: dict[str, Any] | None,
) -> tuple[dict[str, Any], bytes]:
    """Count one shard, block by block (the pre-tokens counted so far in the job's results),
    and add its counts to the training's running sum; the result is the counts file's
    bytes."""
    shard = spec["shard"]
    under = counted_under(spec["algorithm"], **spec["counting"])
    parts = [Counts.from_words({}, under)]
    pre_tokens = 0
    report(0, f"counting {shard['name']}", {"pre_tokens": 0}, force=True)
    for block in _blocks(shard, read):
        if any(line and not line.isspace() for line in block):
            parts.append(tc.count(block, spec["algorithm"], **spec["counting"]))
            pre_tokens += parts[-1].total
            report(0, f"counting {shard['name']}", {"pre_tokens": pre_tokens})
    counts = tc.merge_counts(parts)
    results = {"pre_tokens": counts.total, "distinct": len(counts)}
    report(1, f"adding {shard['name']} to the sum", results, force=True)
    if training is not None:
        summing.add(jobs, training["train_job"], spec["index"], counts, enqueuer(jobs.url))
    return results, counts.to_bytes()


def _blocks(shard: dict[str, Any], read: Callable[[str], str]) -> Iterator[list[str]]:
    """The shard's lines, LINES at a time: a stored corpus's (by sha256), or a server-side
    file's, read as a stream and checked against the allowed folders and what it was."""
    if "sha256" in shard:
        lines = read(shard["sha256"]).splitlines()
        for i in range(0, len(lines), LINES):
            yield lines[i : i + LINES]
        return
    yield from _file_blocks(shard)


def _file_blocks(shard: dict[str, Any]) -> Iterator[list[str]]:
    path = Path(shard["path"])
    if inside(path, corpus_dirs_from_env()) is None:
        raise InvalidInput(
            f"this worker does not allow {path} (it is not in its TOKVIS_CORPUS_DIRS)"
        )
    stat = path.stat()
    if (stat.st_size, stat.st_mtime_ns) != (shard["bytes"], shard["mtime_ns"]):
        raise InvalidInput(f"{path} changed since the corpus was made; make it again")
    rest, block = "", []
    with open(path, encoding="utf-8", newline="") as fh:
        while chunk := fh.read(BLOCK):
            text, cut = rest + chunk, (rest + chunk).rfind("\n") + 1
            rest = text[cut:]
            block += text[:cut].splitlines()  # cut after a \n: a \r\n is never split
            if len(block) >= LINES:
                yield block
                block = []
    yield block + rest.splitlines()


def counts_train(
    spec: dict[str, Any], jobs: JobStore, report: Callable[..., None]
) -> tuple[dict[str, Any], bytes]:
    """Train from the sum of the shards' counts (result: the pickled tokeniser): the sum the
    shards made in this job's row as they finished, or, if that is not whole, the shards'
    own counts added up here."""
    counts = summing.whole_sum(jobs, spec["job"], len(spec["shards"]))  # before any report
    reduced = "as the shards finished"
    if counts is None:
        counts, reduced = _sum_of_shards(spec, jobs, report), "at the end"
    report(len(spec["shards"]), f"training to {spec['vocab_size']:,}", {}, force=True)
    try:
        tok = tc.train(
            spec["algorithm"], counts=counts, vocab_size=spec["vocab_size"], **spec["options"]
        )
    except TypeError as exc:  # an option the trainer does not take
        raise InvalidInput(f"bad option for {spec['algorithm']}: {exc}") from None
    merges = [list(m) for m in getattr(tok.model, "merges", [])]
    results = {
        "vocab_size": tok.vocab_size,
        "merges": merges,
        "pre_tokens": counts.total,
        "reduced": reduced,
    }
    return results, pickle.dumps(tok, protocol=pickle.HIGHEST_PROTOCOL)


def _sum_of_shards(spec: dict[str, Any], jobs: JobStore, report: Callable[..., None]) -> Counts:
    """The shards' own counts (each shard job's result), added up."""
    parts = []
    for n, job_id in enumerate(spec["shards"]):
        report(n, f"reading the counts of shard {n + 1} of {len(spec['shards'])}", {})
        data = jobs.blob(job_id)
        if data is None:
            raise InvalidInput(f"the counts of shard {n + 1} are gone; start the training again")
        parts.append(Counts.from_bytes(data, f"shard {n + 1}'s counts"))
    report(len(parts), "adding the counts up", {}, force=True)
    return tc.merge_counts(parts)

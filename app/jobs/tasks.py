"""What a job runs, in its own worker process (started by `app.jobs.engine.Engine`).

`run_job` first lowers the process's own limits (`supervisor.limit_resources`: CPU seconds and
address space, the same supervisor as the sandbox's), so a runaway training is stopped by the kernel (SIGXCPU) or fails with MemoryError,
and the server only reads the verdict. Progress and results go straight to the job's row in
the store, so any server worker can report them.

Tasks:
- "sweep": train each algorithm at each size, measure a held-out text (results: one row each);
- "train": train one tokeniser from a handle's spec (result: the pickled tokeniser);
- the step-through views' runs (`app.jobs.runs`), each handed over pickled:
  "bpe_steps" (the finished `BpeSession`), "bpe_family_steps" (a SuperBPE, Picky BPE or
  parity-aware BPE run: `FamilyRun`), "wordpiece_steps" (the finished
  `WordPieceSession`), "unigram_rounds" (the rounds, stored after each one so the view can show them
  while the rest run, then the final pieces);
- "check": `tc.check` on a corpus too large to train within the request (result: the report);
- a training on a corpus of shards (`app.jobs.counting`): "count_shard" (one shard's counts
  file) and "counts_train" (the shards' counts added up, then trained from; the tokeniser).
"""

from __future__ import annotations

import gc
import json
import os
import pickle
import resource
import time
from typing import Any, Callable

import tokenizers_core as tc
from tokenizers_core import metrics
from tokenizers_core.audit.efficiency import count_histogram, unigram_counts
from tokenizers_core.errors import InvalidInput, NotFound
from tokenizers_core.implementations.bert import count_words
from tokenizers_core.implementations.bpe_runs import family_run
from tokenizers_core.models.bpe.model import gc_paused
from tokenizers_core.models.bpe.session import BpeSession
from tokenizers_core.models.unigram.trainer import UnigramTrainer
from tokenizers_core.models.wordpiece.session import WordPieceSession

from ..sandbox.supervisor import die_with, limit_resources, set_soft_limit
from ..signing import verify
from ..store import CorpusStore, sha256_text
from ..trained import corpus_text
from . import counting
from .store import JobStore


def run_job(
    db_path: str,
    job_id: str,
    kind: str,
    spec: dict[str, Any],
    cpu_seconds: int,
    memory_bytes: int,
    server_pid: int,
    corpus_dirs: str = "",
) -> None:
    """The worker process's main function. `corpus_dirs`: the TOKVIS_CORPUS_DIRS of the
    process that started it (a training on shards reads files only there)."""
    os.environ["TOKVIS_CORPUS_DIRS"] = corpus_dirs
    limit_resources(cpu_seconds, memory_bytes)
    die_with(server_pid)
    jobs = JobStore(db_path)
    corpora = CorpusStore(db_path)
    key = jobs.key
    out_of_memory = False
    results: Any
    blob: bytes | None
    try:
        report = _reporter(jobs, job_id)
        if kind == counting.TRAIN:  # it reads the shards' counts from their jobs
            results, blob = counting.counts_train(spec, jobs, report)
        elif kind == counting.SHARD:  # it adds its counts to its training's sum
            training = corpora.get_spec(spec["training"])
            read = _reader(corpora, key)
            results, blob = counting.count_shard(spec, read, report, jobs, training)
        else:
            results, blob = TASKS[kind](spec, _reader(corpora, key), report)
    except MemoryError:
        out_of_memory = True  # reported below, once the training's memory is freed
    except NotFound as exc:  # a KeyError from a bug is "internal", not "no such corpus"
        jobs.finish(job_id, "error", error=str(exc).strip("'\""), error_kind="lookup")
    except ValueError as exc:
        jobs.finish(job_id, "error", error=str(exc), error_kind="value")
    except Exception as exc:  # a job never dies silently: the page shows what went wrong
        jobs.finish(job_id, "error", error=f"{type(exc).__name__}: {exc}", error_kind="internal")
    else:
        ended = jobs.finish(job_id, "done", results=results, blob=blob)
        if ended and kind == counting.SHARD:  # the last shard queues the training
            counting.after_shard(jobs, spec, corpora.get_spec(spec["training"]))
    if out_of_memory:
        gc.collect()
        set_soft_limit(resource.RLIMIT_AS, memory_bytes + 2**27)  # room to say so
        jobs.finish(
            job_id,
            "error",
            error_kind="budget",
            error=f"the training went over its memory budget "
            f"({memory_bytes // 2**20:,} MB; TOKVIS_JOB_MEMORY_MB)",
        )


def _reader(corpora: CorpusStore, key: bytes) -> Callable[[str], str]:
    """Texts a task reads: a corpus by name or sha256, a stored file ("file:<sha256>"), or a
    value the server signed and stored as hex ("signed:<sha256>", `app.services.handover`),
    given back as the hex of the value once its signature holds."""

    def read(ref: str) -> str:
        kind, _, digest = ref.partition(":")
        if kind in ("file", "signed"):
            data = corpora.get_file(digest)
            if data is None:
                raise NotFound(f"no stored file has sha256 {digest}")
            return (
                verify(key, bytes.fromhex(data.decode("ascii"))).hex()
                if kind == "signed"
                else data.decode("utf-8")
            )
        return corpus_text(corpora, ref)

    return read


def _reporter(jobs: JobStore, job_id: str) -> Callable[..., None]:
    last = [0.0]

    def report(
        done: int, current: str, results: Any, force: bool = False, blob: bytes | None = None
    ) -> None:
        now = time.monotonic()
        if force or now - last[0] > 0.3:  # at most a few writes a second
            last[0] = now
            jobs.progress(job_id, done, current, results, blob)

    return report


def sweep(
    spec: dict[str, Any], read: Callable[[str], str], report: Callable[..., None]
) -> tuple[list[dict[str, Any]], None]:
    """Train each algorithm at each size on the corpus; measure on the held-out text."""
    lines = read(spec["corpus"]).splitlines()
    held = read(spec["heldout"])
    rows: list[dict[str, Any]] = []
    for algorithm in spec["algorithms"]:
        for size in spec["sizes"]:
            report(len(rows), f"{algorithm} at {size}", rows, force=True)
            t0 = time.perf_counter()
            row: dict[str, Any] = {"algorithm": algorithm, "size": size}
            try:
                tok = tc.train(algorithm, lines, size)
                enc = tok.encode(held)
                m = metrics.encoding_metrics(held, enc, metrics.unk_ids(tok.model))
                ordinary = [i for i, s in zip(enc.ids, enc.special_tokens_mask) if not s]
                row.update(
                    vocab_size=tok.vocab_size,
                    tokens_per_word=m.tokens_per_word,
                    chars_per_token=m.chars_per_token,
                    bytes_per_token=m.bytes_per_token,
                    tokens=m.tokens,
                    unk=m.unk,
                    # what Renyi efficiency needs, at any alpha (the page's slider)
                    count_histogram=count_histogram(unigram_counts(ordinary).values()),
                )
            except ValueError as exc:
                row["error"] = str(exc)
            row["seconds"] = round(time.perf_counter() - t0, 3)
            rows.append(row)
    report(len(rows), "", rows, force=True)
    return rows, None


def train(
    spec: dict[str, Any], read: Callable[[str], str], report: Callable[..., None]
) -> tuple[dict[str, Any], bytes]:
    """Train the tokeniser a handle names; the result is the pickled tokeniser."""
    text = read(spec["corpus"])
    report(0, f"{spec['algorithm']} at {spec['vocab_size']}", {}, force=True)
    try:
        tok = tc.train(spec["algorithm"], text.splitlines(), spec["vocab_size"], **spec["options"])
    except TypeError as exc:  # an option the trainer does not take
        raise InvalidInput(f"bad option for {spec['algorithm']}: {exc}") from None
    return {"vocab_size": tok.vocab_size}, pickle.dumps(tok, protocol=pickle.HIGHEST_PROTOCOL)


# ---- the step-through views' runs -----------------------------------------------------------------
def _step_corpus(spec: dict[str, Any], read: Callable[[str], str]) -> str:
    text = read(spec["corpus"])
    if sha256_text(text) != spec["sha"]:
        raise InvalidInput(
            f"the corpus {spec['corpus']!r} changed since this training was asked "
            "for; reload the page"
        )
    return text


def _pickled(value: Any) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def bpe_steps(
    spec: dict[str, Any], read: Callable[[str], str], report: Callable[..., None]
) -> tuple[dict[str, Any], bytes]:
    """A BPE training view's whole run (result: the pickled, finished `BpeSession`)."""
    text = _step_corpus(spec, read)
    report(0, "counting words", {}, force=True)
    session = BpeSession(text, spec["variant"], spec["vocab_size"], spec["options"])
    with gc_paused:
        while not session.run_for(0.25):
            report(session.progress, f"{session.progress:,} merges", {})
    return {"merges": session.progress}, _pickled(session)


def bpe_family_steps(
    spec: dict[str, Any], read: Callable[[str], str], report: Callable[..., None]
) -> tuple[dict[str, Any], bytes]:
    """A SuperBPE, Picky BPE or parity-aware BPE view's whole run (result: the pickled
    `FamilyRun`)."""
    text = _step_corpus(spec, read)
    report(0, "counting words", {}, force=True)
    run = family_run(
        spec["variant"],
        text.splitlines(),
        spec["vocab_size"],
        corpus=spec["corpus"],
        progress=lambda done: report(done, f"{done:,} merges", {}),
        **spec["options"],
    )
    return {"merges": run.total}, _pickled(run)


def wordpiece_steps(
    spec: dict[str, Any], read: Callable[[str], str], report: Callable[..., None]
) -> tuple[dict[str, Any], bytes]:
    """A WordPiece training view's whole run (result: the pickled, finished
    `WordPieceSession`)."""
    text = _step_corpus(spec, read)
    report(0, "counting words", {}, force=True)
    session = WordPieceSession(count_words(text), **spec["options"])
    session.run(lambda done: report(done, f"{done:,} merges", {}))
    return {"merges": session.total}, _pickled(session)


def unigram_rounds(
    spec: dict[str, Any], read: Callable[[str], str], report: Callable[..., None]
) -> tuple[dict[str, Any], bytes]:
    """A Unigram training view's run. After each round the rounds so far are stored (the view
    steps through them while the rest run); the result adds the final pieces."""
    text = _step_corpus(spec, read)
    report(0, "counting words and seeding the vocabulary", {}, force=True)
    trainer = UnigramTrainer(text.splitlines(), spec["vocab_size"], sample_words=spec["words"])
    run: dict[str, Any] = {"rounds": [], "pieces": None, "total_freq": 0, "distinct": 0}
    while (step := trainer.step()) is not None:
        run["rounds"].append(step)
        run.update(total_freq=trainer.total_freq, distinct=len(trainer.words))
        if not step.final:
            report(len(run["rounds"]), f"round {step.round}", {}, force=True, blob=_pickled(run))
    run["pieces"] = trainer.model().pieces
    return {"rounds": len(run["rounds"])}, _pickled(run)


def check(
    spec: dict[str, Any], read: Callable[[str], str], report: Callable[..., None]
) -> tuple[dict[str, Any], bytes]:
    """`tc.check` of a student's output on a large corpus (result: the pickled report)."""
    text = _step_corpus(spec, read)
    theirs = json.loads(read(spec["theirs"]))  # stored, as it may be megabytes
    report(0, "training the reference", {}, force=True)
    found = tc.check(spec["algorithm"], text.splitlines(), theirs, **spec["options"])
    return {"first_divergence": found.first_divergence}, _pickled(found)


def _handed_over(spec: dict[str, Any], read: Callable[[str], str]) -> Any:
    """The tokeniser `app/services/handover.py` handed over: pickled into the store (signed),
    or bundled."""
    pickled = spec.get("pickled")
    return pickle.loads(bytes.fromhex(read(pickled))) if pickled else tc.load(spec["tokenizer"])


def audit(
    spec: dict[str, Any], read: Callable[[str], str], report: Callable[..., None]
) -> tuple[dict[str, Any], bytes]:
    """`tc.audit` of a bundled tokeniser (by name) or of the one the server pickled into the
    store (`app.services.audit`); the result is the pickled report."""
    tok = _handed_over(spec, read)
    total = tok.model.get_vocab_size()
    found = tc.audit(
        tok,
        progress=lambda done, of, phase: report(
            round(done / max(of, 1) * total) if phase.startswith("classifying") else total,
            f"{phase}: {done:,} of {of:,}",
            {},
        ),
    )
    return found.summary(), _pickled(found)


def audit_mix(
    spec: dict[str, Any], read: Callable[[str], str], report: Callable[..., None]
) -> tuple[dict[str, Any], None]:
    """Training-mix inference on a tokenizer: a bundled one by name, any other handed over
    pickled (`app.services.audit_mix`); the result is the estimate as JSON."""
    from tokenizers_core.audit.mix import estimate_mix  # lazy: scipy loads only in this job

    tok = _handed_over(spec, read)
    estimate = estimate_mix(
        tok, merges=spec["merges"], progress=lambda done, total, message: report(done, message, {})
    )
    return {**estimate.to_dict(), "tokenizer": spec["tokenizer"]}, None


TASKS = {
    "sweep": sweep,
    "train": train,
    "bpe_steps": bpe_steps,
    "bpe_family_steps": bpe_family_steps,
    "wordpiece_steps": wordpiece_steps,
    "unigram_rounds": unigram_rounds,
    "check": check,
    "audit": audit,
    "audit_mix": audit_mix,
}

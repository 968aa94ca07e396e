"""The step-through views' trainings (BPE, WordPiece, Unigram), and the reference training of
`/check`, as jobs of `app.jobs.engine`: bounded by the one pool every server worker shares,
cancellable at once, and each run in a worker process with CPU and memory budgets, so a
runaway one is killed and reported, not the server.

A view reads a finished run at any step: BPE's `BpeSession`, WordPiece's
`WordPieceSession`, Unigram's rounds and final pieces. So:
- a corpus of at most IN_REQUEST_CHARS characters trains within the request (well under a
  second: its time and memory are bounded by its size; `bpe_session_here`,
  `wordpiece_run_here`, `unigram_run_here`, which the worksheets and lessons call too, so they
  read the runs the pages read);
- a larger one trains in a job (`tasks.bpe_steps`, `wordpiece_steps`, `unigram_rounds`),
  whose worker process hands the run back pickled in the job's row; each server process loads
  it once into the view's cache, and stepping through it is then as fast as for a small run;
- a page waits a moment (`wait`), then shows progress and polls. A job nobody polls (or waits
  for) any more is abandoned: cancelled after ABANDON seconds, so a reader who left stops it;
- an API request waits to the end (`wait=None`), and cancels the job it queued if its client
  leaves (`JobQueue.wait`).

    session = bpe_session(state, ref, text, "bpe", 1000, {}, wait=0.5)
    if isinstance(session, Job): ...          # still training: show job.done, job.place
"""

from __future__ import annotations

import hashlib
import json
import pickle
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

import tokenizers_core as tc
from tokenizers_core.errors import InvalidInput, NotFound
from tokenizers_core.implementations.bert import count_words
from tokenizers_core.implementations.bpe_runs import FamilyRun, family_run
from tokenizers_core.models.bpe.session import BpeSession
from tokenizers_core.models.unigram.trainer import UnigramTrainer
from tokenizers_core.models.wordpiece.session import WordPieceSession

from ..state import AppState
from ..store import sha256_text
from . import cache
from .cache import RunCache
from .queue import JobQueue
from .store import Job

IN_REQUEST_CHARS = 20_000  # a corpus this small trains within the request
ABANDON = 8.0  # seconds without a poll before a view's job is cancelled
KEEP = ("queued", "running", "done", "error")  # statuses a request takes as they are ...
FINAL_ERRORS = ("value", "budget")  # ... for errors, those that would only happen again
RESULT_FORMAT = 1  # raise when a pickled run's classes change shape


def run_job(
    state: AppState,
    kind: str,
    spec: dict[str, Any],
    wait: float | None,
    runs: RunCache | None = None,
    key: Hashable = None,
    finish: Callable[[Any], Any] = lambda made: made,
) -> tuple[Job, Any]:
    """Queue the job for `spec` (or find it: the id is a hash of kind and spec, so every
    worker and every poll finds the same one) and wait up to `wait` seconds (None: to the
    end). Returns the job and what it has made: once it is done, `finish(result)` (kept in
    `runs` under `key`, loaded by one request while the others wait for it); while it runs,
    what it stored so far (None if nothing). Raises InvalidInput (NotFound for a corpus that
    is gone) if the training failed, QueueFull if the queue is full."""
    engine = state.jobs
    # the budgets are part of the id (a run over its budget is tried again under a larger
    # one), and so is the result's format (a run pickled by older code is not read)
    ident = [kind, spec, engine.cpu_seconds, engine.memory_bytes, RESULT_FORMAT]
    job_id = f"{kind}-{hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:24]}"
    for _attempt in range(3):
        job, created = engine.submit(kind, job_id, spec, abandon=ABANDON, keep=KEEP)
        if job.status == "error" and job.error_kind not in FINAL_ERRORS and not created:
            job, created = engine.submit(kind, job_id, spec, abandon=ABANDON)  # try again
        job = engine.wait(job.id, created, timeout=wait)
        if job is None:
            continue  # its row was pruned a moment ago: queue it again
        if job.status == "error":
            raise (NotFound if job.error_kind == "lookup" else InvalidInput)(job.error)
        if job.status in ("cancelled", "interrupted"):
            continue  # cancelled (abandoned before this request looked): again
        if job.status != "done":
            return job, _made(engine, job)[0]
        if runs is None:
            made = _made(engine, job)[0]
            if made is not None:
                return job, finish(made)
            continue  # unreadable, or pruned a moment ago: train it again
        with runs.loading(key):
            found = runs.get(key)
            if found is not None:
                return job, found  # another request loaded it while this one waited
            made, nbytes = _made(engine, job)
            if made is not None:
                return job, runs.keep(key, finish(made), nbytes, settle=True)
    raise InvalidInput("the training was cancelled; try again")


def _made(engine: JobQueue, job: Job) -> tuple[Any, int]:
    """The job's pickled result (or progress) and its size; None if there is none or it cannot
    be read (a result pickled by other code: the row goes, so the run is trained again)."""
    raw = engine.store.blob(job.id)
    if raw is None:
        return None, 0
    try:
        return pickle.loads(raw), len(raw)
    except Exception:  # AttributeError, ImportError, UnpicklingError, ...
        if job.status == "done":
            engine.store.delete(job.id)
        return None, 0


def _spec(ref: str, text: str, **fields: Any) -> dict[str, Any]:
    return {"corpus": ref, "sha": sha256_text(text), **fields}


# ---- BPE -------------------------------------------------------------------------------------------
def bpe_session(
    state: AppState,
    ref: str,
    text: str,
    variant: str,
    vocab_size: int,
    options: dict[str, Any],
    wait: float | None,
) -> BpeSession | Job:
    """The finished training run the BPE view reads (trained here, or in a job and loaded),
    or the job still making it."""
    key = _bpe_key(text, variant, vocab_size, options)
    session = cache.BPE.get(key)
    if session is not None:
        return session
    if len(text) <= IN_REQUEST_CHARS:
        return bpe_session_here(text, variant, vocab_size, options)
    job, session = run_job(
        state,
        "bpe_steps",
        _spec(ref, text, variant=variant, vocab_size=vocab_size, options=options),
        wait,
        runs=cache.BPE,
        key=key,
        finish=_ready_for_views,
    )
    return session if job.status == "done" else job


def bpe_session_here(
    text: str, variant: str, vocab_size: int, options: dict[str, Any]
) -> BpeSession:
    """The finished run, trained within the request (a small corpus: a page's, a worksheet's,
    a lesson's) and kept in the view's cache, where the pages find it too."""
    key = _bpe_key(text, variant, vocab_size, options)
    session = cache.BPE.get(key)
    if session is None:
        session = BpeSession(text, variant, vocab_size, options)
        session.total_steps()
        session = cache.BPE.keep(key, _ready_for_views(session), settle=True)
    return session


def _bpe_key(text: str, variant: str, vocab_size: int, options: dict[str, Any]) -> Hashable:
    return (sha256_text(text), variant, vocab_size, tuple(sorted(options.items())))


def _ready_for_views(session: BpeSession) -> BpeSession:
    session.prepare_views()  # once, on loading, not in a view request
    return session


# ---- the new BPE family (SuperBPE, Picky BPE, parity-aware BPE) -----------------------------
def family_steps(
    state: AppState,
    ref: str,
    text: str,
    variant: str,
    vocab_size: int,
    options: dict[str, Any],
    wait: float | None,
) -> FamilyRun | Job:
    """The finished run the family's view reads (trained here, or in a job and loaded), or the
    job still making it."""
    key = _family_key(text, ref, variant, vocab_size, options)
    run = cache.FAMILY.get(key)
    if run is not None:
        return run
    if len(text) <= IN_REQUEST_CHARS:
        return family_steps_here(text, ref, variant, vocab_size, options)
    job, run = run_job(
        state,
        "bpe_family_steps",
        _spec(ref, text, variant=variant, vocab_size=vocab_size, options=options),
        wait,
        runs=cache.FAMILY,
        key=key,
    )
    return run if job.status == "done" else job


def family_steps_here(
    text: str, ref: str, variant: str, vocab_size: int, options: dict[str, Any]
) -> FamilyRun:
    """The finished run, trained within the request and kept in the view's cache."""
    key = _family_key(text, ref, variant, vocab_size, options)
    run = cache.FAMILY.get(key)
    if run is None:
        made = family_run(variant, text.splitlines(), vocab_size, corpus=ref, **options)
        run = cache.FAMILY.keep(key, made, settle=True)
    return run


def _family_key(
    text: str, ref: str, variant: str, vocab_size: int, options: dict[str, Any]
) -> Hashable:
    # the corpus's name too: parity-aware BPE reads udhr/all by its languages
    return (sha256_text(text), ref, variant, vocab_size, tuple(sorted(options.items())))


# ---- WordPiece -------------------------------------------------------------------------------------
def wordpiece_run(
    state: AppState, ref: str, text: str, options: dict[str, Any], wait: float | None
) -> WordPieceSession | Job:
    """The finished run the WordPiece view reads, or the job still making it."""
    key = (sha256_text(text), tuple(sorted(options.items())))
    session = cache.WORDPIECE.get(key)
    if session is not None:
        return session
    if len(text) <= IN_REQUEST_CHARS:
        return wordpiece_run_here(text, options)
    job, session = run_job(
        state,
        "wordpiece_steps",
        _spec(ref, text, options=options),
        wait,
        runs=cache.WORDPIECE,
        key=key,
    )
    return session if job.status == "done" else job


def wordpiece_run_here(text: str, options: dict[str, Any]) -> WordPieceSession:
    """The finished run, trained within the request and kept in the view's cache."""
    key = (sha256_text(text), tuple(sorted(options.items())))
    session = cache.WORDPIECE.get(key)
    if session is None:
        session = cache.WORDPIECE.keep(key, WordPieceSession(count_words(text), **options).run())
    return session


# ---- Unigram ---------------------------------------------------------------------------------------
@dataclass
class UnigramRun:
    """A Unigram training's rounds so far (all of them once `finished`), with the corpus
    figures the view shows and, when finished, the trained pieces."""

    rounds: list = field(default_factory=list)
    total_freq: int = 0
    distinct: int = 0
    pieces: list | None = None
    job: Job | None = None  # the job still training, if any

    @property
    def finished(self) -> bool:
        return self.pieces is not None


def unigram_run(
    state: AppState,
    ref: str,
    text: str,
    vocab_size: int,
    words: tuple[str, ...],
    wait: float | None,
) -> UnigramRun:
    """The Unigram view's run: finished, or the rounds done so far and the job doing the rest."""
    key = (sha256_text(text), vocab_size, words)
    run = cache.UNIGRAM.get(key)
    if run is not None:
        return run
    if len(text) <= IN_REQUEST_CHARS:
        return unigram_run_here(text, vocab_size, words)
    job, made = run_job(
        state,
        "unigram_rounds",
        _spec(ref, text, vocab_size=vocab_size, words=list(words)),
        wait,
        runs=cache.UNIGRAM,
        key=key,
        finish=_unigram,
    )
    return made if job.status == "done" else _unigram(made or {}, job)


def unigram_run_here(text: str, vocab_size: int, words: tuple[str, ...] = ()) -> UnigramRun:
    """The finished run, trained within the request and kept in the view's cache."""
    key = (sha256_text(text), vocab_size, words)
    run = cache.UNIGRAM.get(key)
    if run is None:
        trainer = UnigramTrainer(text.splitlines(), vocab_size, sample_words=words)
        rounds = trainer.run().steps
        run = cache.UNIGRAM.keep(
            key, UnigramRun(rounds, trainer.total_freq, len(trainer.words), trainer.model().pieces)
        )
    return run


def _unigram(made: dict[str, Any], job: Job | None = None) -> UnigramRun:
    """A UnigramRun from what the job stored (its rounds so far, or all of them and the
    pieces)."""
    return UnigramRun(
        made.get("rounds", []),
        made.get("total_freq", 0),
        made.get("distinct", 0),
        made.get("pieces"),
        job,
    )


# ---- /check ----------------------------------------------------------------------------------------
def check_report(
    state: AppState, ref: str, corpus: str, algorithm: str, theirs: Any, **options: Any
) -> Any:
    """`tc.check(algorithm, corpus lines, theirs, **options)`: within the request for a small
    corpus, else in the job pool (waiting to the end; the job is cancelled if the client
    leaves)."""
    if len(corpus) <= IN_REQUEST_CHARS:
        return tc.check(algorithm, corpus.splitlines(), theirs, **options)
    # what they gave may be megabytes: stored, and named in the job by its hash (StoreFull:
    # 507 when the store is full)
    stored = state.store.put_file(json.dumps(theirs).encode("utf-8"))
    _job, report = run_job(
        state,
        "check",
        _spec(ref, corpus, algorithm=algorithm, theirs=f"file:{stored}", options=options),
        wait=None,
    )
    return report

"""A class's checkpoints: a teacher makes an assignment, students predict the training's steps.

    made, key = create(state, ClassSpec("BPE week 2", "bpe", "botchan", 500, (1, 5, 20)))
    cls = get(state, made.code)                       # NotFound for an unknown code
    q = checkpoint(state, cls, 1)                     # what the student sees before answering
    right, why = answer(state, cls, "ana", 1, ["e", "</w>"], client="203.0.113.7")
    table = class_results.results(state, cls, key)  # the teacher's (`class_results.py`)
    delete(state, cls, key)                           # the class and every answer

The reference is the step view's own training (`app.jobs.runs`: `bpe_session`,
`wordpiece_run`, `unigram_run`, and their caches), so checkpoint k is what `/bpe/train`,
`/wordpiece/train` or `/unigram/train` show at step k on the same corpus and vocab_size; a
large corpus trains in the job pool, and until it is done the class answers NotReady (409) and
its page shows progress. Checkpoint k asks for step k, 1-based: BPE's and WordPiece's merge k
(two tokens as the step view spells them), Unigram's round k (the best segmentation of the
class's word after that round). The grading and its explanation are the views' (`grade` in
`app.views.bpe_train`, `wordpiece_train`, `unigram_train`), from the steps' own values.

Classes and answers are rows of the store (`classes`, `class_answers`): kept across restarts
and shared by every server of a shared deployment. Every answer is kept; the results show the
first answer of each student at each checkpoint (the prediction, made before the page showed
the real step), with how many times they answered. The teacher key is kept as its sha256 and
compared in constant time. A client may send CLASS_ANSWERS_PER_MINUTE answers a minute (a sliding
window in each server process's memory: on a shared deployment, per server).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from sqlalchemy import delete as sql_delete
from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from tokenizers_core.corpora import corpus_names
from tokenizers_core.errors import InvalidInput, NotFound

from ..db.schema import class_answers, classes
from ..errors import NotReady, TooManyRequests
from ..jobs import Job
from ..jobs.runs import bpe_session, unigram_run, wordpiece_run
from ..rate import SlidingWindow
from ..render import url_with
from ..state import AppState
from ..store import is_sha256, sha256_text
from ..trained import corpus_text
from ..views import bpe_train, unigram_train, wordpiece_train
from .corpora import store_corpus
from .training import sample_words

ALGORITHMS = ("bpe", "wordpiece", "unigram")
VIEWS = {"bpe": "/bpe/train", "wordpiece": "/wordpiece/train", "unigram": "/unigram/train"}
MAX_TITLE = 200
MAX_STUDENT = 80
MAX_CHECKPOINTS = 50
MAX_PIECES = 64  # pieces a Unigram answer may give
WAIT_SECONDS = 0.5  # a request waits this long for a training in the job pool
WORD_ROWS = 20  # words the student page lists
CHOICES = 24  # pairs a question offers
CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read aloud, typed in
CODE_LENGTH = 8


@dataclass(frozen=True)
class ClassSpec:
    """What a teacher asks for. `corpus`: a bundled corpus's name or a stored sha256 (or
    `corpus_text`, the text itself, stored); `word`: Unigram's word to segment (default: the
    corpus's most frequent long word)."""

    title: str
    algorithm: str
    corpus: str
    vocab_size: int
    checkpoints: tuple[int, ...]
    corpus_text: str | None = None
    word: str | None = None


@dataclass(frozen=True)
class ClassInfo:
    """A class as stored (the teacher key's hash stays in the store)."""

    code: str
    title: str
    algorithm: str
    corpus: str
    corpus_name: str
    vocab_size: int
    checkpoints: tuple[int, ...]
    word: str | None
    created: float
    words: tuple[str, ...] = ()  # Unigram: the sample words the run segments (`word` among them)

    @property
    def student_url(self) -> str:
        return f"/class/{self.code}"

    def teacher_url(self, key: str) -> str:
        return url_with(f"/class/{self.code}/results", {"key": key})

    def view_url(self, step: int) -> str:
        """The step view of the class's training at `step`."""
        params: dict[str, Any] = {"corpus": self.corpus, "vocab_size": self.vocab_size}
        if self.algorithm == "unigram":
            params["words"] = " ".join(self.words)
        return url_with(VIEWS[self.algorithm], params, step=step)


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


# ---- making a class ------------------------------------------------------------------------------
def check_spec(spec: ClassSpec) -> None:
    """InvalidInput (422) for a title, algorithm, vocab_size or checkpoints out of bounds."""
    if not spec.title.strip():
        raise InvalidInput("title: give the class a title (what students see at the top)")
    if len(spec.title) > MAX_TITLE:
        raise InvalidInput(f"title: at most {MAX_TITLE} characters, got {len(spec.title)}")
    if spec.algorithm not in ALGORITHMS:
        raise InvalidInput(f"algorithm: {spec.algorithm!r} is not one of {', '.join(ALGORITHMS)}")
    if spec.algorithm == "bpe":
        bpe_train.options("bpe", spec.vocab_size, "gpt2", 0)
    elif spec.algorithm == "wordpiece":
        wordpiece_train.options(spec.vocab_size, 0)
    else:
        unigram_train.check_vocab_size(spec.vocab_size, where=" for a class")
    if not spec.checkpoints:
        raise InvalidInput("checkpoints: give at least one step to ask about, e.g. [1, 5, 20]")
    if len(spec.checkpoints) > MAX_CHECKPOINTS:
        raise InvalidInput(f"checkpoints: at most {MAX_CHECKPOINTS}, got {len(spec.checkpoints)}")
    if min(spec.checkpoints) < 1:
        raise InvalidInput("checkpoints: steps are numbered from 1 (the training's first step)")
    limit = spec.vocab_size if spec.algorithm != "unigram" else 1000
    if max(spec.checkpoints) > limit:
        raise InvalidInput(
            f"checkpoints: step {max(spec.checkpoints)} is past the training: "
            f"a vocab_size of {spec.vocab_size} makes fewer steps than that"
        )
    if spec.word is not None and (len(spec.word.split()) != 1 or len(spec.word) > 50):
        raise InvalidInput("word: one word (no spaces) of 1 to 50 characters")


def create(state: AppState, spec: ClassSpec) -> tuple[ClassInfo, str]:
    """Store a new class and start its reference training; the class and its teacher key.
    Checkpoints past the training are refused when the training is done within the request
    (a small corpus, or one trained before); a large one's are checked as students answer."""
    check_spec(spec)
    if spec.corpus_text is not None:
        ref = store_corpus(state, spec.corpus_text)
    else:
        ref = spec.corpus.strip()
    if not ref:
        raise InvalidInput("corpus: name a bundled corpus (botchan, udhr/eng, ...) or give a text")
    text = corpus_text(state.store, ref)  # NotFound for an unknown name or hash
    name = ref if ref in corpus_names() else _stored_name(state, ref)
    word = spec.word.strip() if spec.word else None
    words: tuple[str, ...] = ()
    if spec.algorithm == "unigram":
        words = (word,) if word else sample_words(text)  # as /unigram/train's default
        if not words:
            raise InvalidInput("word: this corpus has no word of 7 letters or more; name one")
    info = ClassInfo(
        code=_new_code(),
        title=spec.title.strip(),
        algorithm=spec.algorithm,
        corpus=ref,
        corpus_name=name,
        vocab_size=spec.vocab_size,
        checkpoints=tuple(sorted(set(spec.checkpoints))),
        word=word or (words[0] if words else None),
        created=time.time(),
        words=words,
    )
    run = reference(state, info, text)
    if not isinstance(run, Job) and info.algorithm == "unigram" and not word:
        info = replace(info, word=_changing_word(run, words))
    if not isinstance(run, Job):
        total = steps_of(info, run)
        past = [k for k in info.checkpoints if k > total]
        if past:
            raise InvalidInput(
                f"checkpoints: {', '.join(map(str, past))} "
                f"{'is' if len(past) == 1 else 'are'} past the training: it makes {total} "
                f"{'merges' if info.algorithm != 'unigram' else 'rounds'}"
            )
    key = secrets.token_urlsafe(24)
    for attempt in range(3):  # a code already taken (one in 10^11): another
        try:
            with state.store.transaction() as conn:
                conn.execute(insert(classes).values(**_row(info, text, key)))
            break
        except IntegrityError:
            if attempt == 2:
                raise
            info = replace(info, code=_new_code())
    return info, key


def _row(info: ClassInfo, text: str, key: str) -> dict[str, Any]:
    """The class's row in `classes` (the key as its hash)."""
    return {
        "code": info.code,
        "title": info.title,
        "algorithm": info.algorithm,
        "corpus": info.corpus,
        "corpus_sha256": sha256_text(text),
        "corpus_name": info.corpus_name,
        "vocab_size": info.vocab_size,
        "checkpoints": json.dumps(list(info.checkpoints)),
        "options": json.dumps({"word": info.word, "words": list(info.words)} if info.words else {}),
        "teacher_key": key_hash(key),
        "created": info.created,
    }


def _changing_word(run: Any, words: tuple[str, ...]) -> str:
    """Of the sample words, the one whose segmentation changes in the most rounds (the first
    on a tie): the one worth asking about."""

    def changes(word: str) -> int:
        splits = [dict(r.samples)[word] for r in run.rounds]
        return sum(a != b for a, b in zip(splits, splits[1:]))

    return max(words, key=lambda w: (changes(w), -words.index(w)))


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _stored_name(state: AppState, ref: str) -> str:
    if not is_sha256(ref):
        return ref
    found = [c["name"] for c in state.store.list(limit=1000) if c["sha256"] == ref]
    return found[0] if found and found[0] else f"stored {ref[:12]}…"


def get(state: AppState, code: str) -> ClassInfo:
    """The class `code` names; NotFound (404) if there is none."""
    with state.store.transaction() as conn:
        row = conn.execute(select(classes).where(classes.c.code == code)).mappings().first()
    if row is None:
        raise NotFound(f"no class has the code {code!r}: check the link your teacher gave")
    options = json.loads(row["options"])
    return ClassInfo(
        code=row["code"],
        title=row["title"],
        algorithm=row["algorithm"],
        corpus=row["corpus"],
        corpus_name=row["corpus_name"],
        vocab_size=row["vocab_size"],
        checkpoints=tuple(json.loads(row["checkpoints"])),
        word=options.get("word"),
        created=row["created"],
        words=tuple(options.get("words", ())),
    )


def check_key(state: AppState, code: str, key: str | None) -> None:
    """PermissionError (403) unless `key` is the class's teacher key (compared in constant
    time, as hashes)."""
    with state.store.transaction() as conn:
        stored = conn.execute(select(classes.c.teacher_key).where(classes.c.code == code)).scalar()
    if stored is None:
        raise NotFound(f"no class has the code {code!r}")
    if not key or not hmac.compare_digest(key_hash(key), stored):
        raise PermissionError(
            "this page is the teacher's: open it with the teacher link (its ?key=) given when "
            "the class was made"
        )


def delete(state: AppState, code: str, key: str | None) -> int:
    """Delete the class and every answer (the teacher's key required); how many answers went."""
    check_key(state, code, key)
    with state.store.transaction() as conn:
        gone = conn.execute(
            sql_delete(class_answers).where(class_answers.c.class_code == code)
        ).rowcount
        conn.execute(sql_delete(classes).where(classes.c.code == code))
    return gone


# ---- the reference training --------------------------------------------------------------------
def reference(state: AppState, info: ClassInfo, text: str | None = None) -> Any:
    """The class's training run as its step view reads it, or the Job still making it."""
    if text is None:
        text = corpus_text(state.store, info.corpus)
    if info.algorithm == "bpe":
        return bpe_session(state, info.corpus, text, "bpe", info.vocab_size, {}, WAIT_SECONDS)
    if info.algorithm == "wordpiece":
        options = {"vocab_size": info.vocab_size, "min_frequency": 0}
        return wordpiece_run(state, info.corpus, text, options, WAIT_SECONDS)
    words = info.words or sample_words(text, info.word or "")
    run = unigram_run(state, info.corpus, text, info.vocab_size, words, WAIT_SECONDS)
    if run.finished:
        return run
    if run.job is None:  # (a run is either finished or has its job)
        raise NotReady("the class's reference training is still running; try again")
    return run.job


def steps_of(info: ClassInfo, run: Any) -> int:
    """How many steps the finished run makes (merges; Unigram: rounds after the seed)."""
    if info.algorithm == "bpe":
        return run.total_steps()
    if info.algorithm == "wordpiece":
        return len(run.steps)
    return len(run.rounds) - 1


def ready_run(state: AppState, info: ClassInfo) -> Any:
    """The finished run, or NotReady (409) while it trains."""
    run = reference(state, info)
    if isinstance(run, Job):
        raise NotReady(
            "the class's reference training is still running (a large corpus); "
            "try again in a few seconds"
        )
    return run


def check_checkpoint(info: ClassInfo, run: Any, k: int) -> None:
    """NotFound (404) unless `k` is one of the class's checkpoints within the training."""
    if k not in info.checkpoints:
        raise NotFound(
            f"checkpoint {k} is not one of this class's: {', '.join(map(str, info.checkpoints))}"
        )
    total = steps_of(info, run)
    if k > total:
        raise InvalidInput(
            f"checkpoint {k} is past the training: it makes {total} "
            f"{'rounds' if info.algorithm == 'unigram' else 'merges'}"
        )


# ---- a checkpoint's question --------------------------------------------------------------------
@dataclass
class Question:
    """What the student page shows at checkpoint k, before and after the answer."""

    k: int
    kind: str  # "pair" (BPE, WordPiece) or "split" (Unigram)
    prompt: str
    rows: list[tuple[str, int, list[str]]] = field(default_factory=list)  # word, count, symbols
    merges: list[tuple[int, str, str, str]] = field(default_factory=list)  # the last ones
    choices: list[tuple[str, str]] = field(default_factory=list)  # ("a\tb", "a b")
    word: str = ""  # Unigram: the word as the model reads it (▁ before it)
    before: str = ""  # Unigram: its split after the round before
    pieces: list[tuple[str, float]] = field(default_factory=list)  # Unigram: strongest pieces
    step: str = ""  # the real step, in words (shown once answered)
    view_url: str = ""  # the step view at step k (shown once answered)


def question(state: AppState, info: ClassInfo, run: Any, k: int) -> Question:
    """Checkpoint k: the state after step k - 1, and what to predict."""
    check_checkpoint(info, run, k)
    if info.algorithm == "bpe":
        s = bpe_train.state(run, k - 1, page_size=WORD_ROWS, changed=0)
        table = bpe_train.pair_counts(s)
        return Question(
            k,
            "pair",
            f"Which pair merges next (merge {k})? Count the adjacent pairs in the word table, "
            "each times its word's count.",
            rows=[(r.word, r.count, [s.show(x) for x in r.segments]) for r in s.rows],
            merges=[(i, s.show(m[0]), s.show(m[1]), s.show(m[2])) for i, m in s.merges[:8]],
            choices=_choices(table, s.show),
            step=bpe_train.sentence(run, k),
            view_url=info.view_url(k),
        )
    if info.algorithm == "wordpiece":
        w = wordpiece_train.state(run, k - 1, page_size=WORD_ROWS)
        table = {r.pair: r.count for r in run.pairs(k - 1)}
        return Question(
            k,
            "pair",
            f"Which pair merges next (merge {k})? WordPiece merges the pair with the best score "
            "count(ab) / (count(a) × count(b)), counting every symbol and pair times its word's "
            "count.",
            rows=[(r.word, r.freq, list(r.symbols)) for r in w.rows],
            merges=[(i, m.pair[0], m.pair[1], m.new_symbol) for i, m in w.merges[:8]],
            choices=_choices(table, str),
            step=wordpiece_train.sentence(run, k),
            view_url=info.view_url(k),
        )
    word = info.word or ""
    after = unigram_train.split_after(run, k, word)
    before = unigram_train.split_after(run, k - 1, word)
    rnd = run.rounds[k]
    return Question(
        k,
        "split",
        f"Round {k} re-estimates every piece and prunes the weakest. How does the model after "
        f"round {k} split “{word}”? Give its pieces in order, separated by spaces.",
        word="".join(after),
        before=" ".join(before),
        pieces=[(p, s) for p, s in rnd.survivors],
        step=unigram_train.sentence(rnd) + f" It splits “{word}” as {' '.join(after)}.",
        view_url=info.view_url(k),
    )


def _choices(table: dict[tuple[str, str], Any], show: Any) -> list[tuple[str, str]]:
    """The pairs offered, in alphabetical order (never by count: that is the question)."""
    top = sorted(table, key=lambda p: table[p], reverse=True)[:CHOICES]
    return sorted(((f"{show(a)}\t{show(b)}", f"{show(a)} {show(b)}") for a, b in top), key=str)


# ---- answers -------------------------------------------------------------------------------------
def check_student(student: str) -> str:
    name = student.strip()
    if not name:
        raise InvalidInput("student: give your name (as your teacher will see it)")
    if len(name) > MAX_STUDENT:
        raise InvalidInput(f"student: a name of at most {MAX_STUDENT} characters, got {len(name)}")
    return name


def parse_answer(info: ClassInfo, answer: Any) -> tuple[str, ...]:
    """The answer as a tuple of tokens: a list of strings, or a string split at a tab, else at
    whitespace ("t h", "t\\th", "▁ca ts")."""
    if isinstance(answer, str):
        parts = answer.split("\t") if "\t" in answer else answer.split()
    elif isinstance(answer, (list, tuple)) and all(isinstance(a, str) for a in answer):
        parts = list(answer)
    else:
        raise InvalidInput('answer: a list of tokens, e.g. ["t", "h"]')
    parts = [p.strip() for p in parts]
    if info.algorithm != "unigram" and len(parts) != 2:
        raise InvalidInput('answer: the next merge as two tokens, e.g. ["t", "h"]')
    if not parts or len(parts) > MAX_PIECES or not all(parts) or sum(map(len, parts)) > 400:
        raise InvalidInput(f"answer: 1 to {MAX_PIECES} pieces, none empty")
    return tuple(parts)


def grade(info: ClassInfo, run: Any, k: int, given: tuple[str, ...]) -> tuple[bool, str]:
    """(right, why): the views' own grading of step k."""
    if info.algorithm == "bpe":
        s = bpe_train.state(run, k - 1, page_size=1, changed=0)
        raw = {s.show(x): x for pair in bpe_train.pair_counts(s) for x in pair}
        a, b = given
        return bpe_train.grade(s, (raw.get(a, a), raw.get(b, b)))
    if info.algorithm == "wordpiece":
        return wordpiece_train.grade(run, k, (given[0], given[1]))
    return unigram_train.grade(run, k, info.word or "", given)


def answer(
    state: AppState,
    info: ClassInfo,
    student: str,
    k: int,
    given: Any,
    client: str,
) -> tuple[bool, str, Question]:
    """Grade and store one answer; (right, why, the checkpoint's question with its step).
    TooManyRequests (429) past the client's window, NotReady (409) while the reference trains."""
    name = check_student(student)
    window: SlidingWindow = state.class_answers
    if not window.allow(client):
        raise TooManyRequests(
            f"too many answers from one place: at most {window.limit} a minute; "
            "wait a minute and answer again"
        )
    run = ready_run(state, info)
    q = question(state, info, run, k)
    pieces = parse_answer(info, given)
    right, why = grade(info, run, k, pieces)
    with state.store.transaction() as conn:
        conn.execute(
            insert(class_answers).values(
                class_code=info.code,
                student=name,
                checkpoint=k,
                answer=json.dumps(list(pieces), ensure_ascii=False),
                correct=right,
                created=time.time(),
            )
        )
    return right, why, q


def answered(state: AppState, code: str, student: str) -> dict[int, dict[str, Any]]:
    """A student's first answer at each checkpoint: {k: {"correct", "answer", "created"}}."""
    with state.store.transaction() as conn:
        rows = conn.execute(
            select(
                class_answers.c.checkpoint,
                class_answers.c.correct,
                class_answers.c.answer,
                class_answers.c.created,
            )
            .where(class_answers.c.class_code == code, class_answers.c.student == student)
            .order_by(class_answers.c.created, class_answers.c.id)
        ).all()
    out: dict[int, dict[str, Any]] = {}
    for k, correct, given, created in rows:
        out.setdefault(
            k, {"correct": bool(correct), "answer": json.loads(given), "created": created}
        )
    return out


def checkpoints_of(values: Sequence[Any]) -> tuple[int, ...]:
    """Checkpoints from the form's text ("1, 5 20") or the API's list; InvalidInput otherwise."""
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise InvalidInput("checkpoints: whole step numbers, e.g. [1, 5, 20]")
        try:
            out.append(int(v))
        except ValueError:
            raise InvalidInput(f"checkpoints: {v!r} is not a step number") from None
    return tuple(out)

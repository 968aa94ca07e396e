"""The BPE training view's state at step k (`/bpe/train`, its lesson, practice and worksheet).

`state(session, k)` reads a finished `BpeSession` once: the word table (the words merge k
changed first), the pair table that decides the next merge, the merges so far and the sentence
that says what merge k did. The page (`page`), the lesson (`app.lessons`), the practice question
and the worksheet are all drawn from it, and `merge_phrase` is the one place a merge is put in
words. The code panel is `tokenizers_core/textbook/bpe_train.py`, the line of merge k lit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from tokenizers_core.corpora import SENNRICH, corpus_names
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.bpe_runs import FAMILY
from tokenizers_core.models.bpe.session import RULES, VARIANTS
from tokenizers_core.textbook import bpe_train as textbook

from ..jobs import Job
from ..practice import PracticeState, Question, finished, question, toggle
from ..render import count_of
from ..services.training import MAX_VOCAB
from .common import CodePanel, shower, textbook_panel

PATH = "/bpe/train"
DEFAULT_VOCAB = {"bpe": 24, "byte_bpe": 270, "sentencepiece_bpe": 30}
PATTERNS = ("gpt2", "cl100k", "o200k")
MAX_VIEW_VOCAB = MAX_VOCAB["bpe"]
WORD_PAGE = 20
CHANGED_ROWS = 8  # words changed by the current merge, listed before the frequent ones
SHEET_WORDS = 40  # distinct words a worksheet (filled in by hand) takes at most
SHEET_PAIRS = 8  # rows of a worksheet's pair table

# sentencepiece_bpe's run is not the textbook loop: the code panel says how it differs
SENTENCEPIECE_NOTE = (
    "sentencepiece_bpe runs this loop with sentencepiece's own rules "
    "(tokenizers_core/models/bpe/sentencepiece_trainer.py): words are cut before "
    "each ▁, a tie goes to the shorter, then the alphabetically first piece, and "
    "a piece may not pass 16 characters or mix scripts."
)


def options(
    variant: str, vocab_size: int | None, pattern: str, min_frequency: int, corpus: str = ""
) -> tuple[int, dict[str, Any]]:
    """The view's inputs checked: the vocabulary size (a default by variant for the textbook
    corpus, else 1000) and the trainer's options."""
    if variant not in VARIANTS:
        raise InvalidInput(f"unknown BPE variant {variant!r}; choose one of: {', '.join(VARIANTS)}")
    if vocab_size is None:
        vocab_size = DEFAULT_VOCAB[variant] if not corpus else 1000
    if not 1 <= vocab_size <= MAX_VIEW_VOCAB:
        raise InvalidInput(
            f"vocab_size must be between 1 and {MAX_VIEW_VOCAB:,} in this view, got {vocab_size}"
        )
    if min_frequency < 0:
        raise InvalidInput(f"min_frequency must be 0 or more, got {min_frequency}")
    out: dict[str, Any] = {}
    if variant in ("bpe", "byte_bpe") and min_frequency:
        out["min_frequency"] = min_frequency
    if variant == "byte_bpe":
        if pattern not in PATTERNS:
            raise InvalidInput(f"unknown pattern {pattern!r}; choose one of: {', '.join(PATTERNS)}")
        out["pattern"] = pattern
    return vocab_size, out


@dataclass(frozen=True)
class BpeTrainState:
    """What every rendering of "the run after k merges" shows."""

    variant: str
    step: int  # k: merges done
    total: int
    finished: bool  # the run stopped by itself (not cut short)
    rows: list  # WordRow: the words merge k changed, then a page of the table
    n_changed: int
    page: int
    pages: int
    last: Any  # BpeMergeStep k, or None at 0
    upcoming: Any  # BpeMergeStep k + 1, or None at the end
    pairs: tuple  # (left, right, count): the table that decides merge k + 1
    tied: set
    merges: list  # (i, (left, right, new)), newest first, at most 40
    sentence: str
    rule: str
    vocab_now: int
    stop_reason: str | None
    words: int  # distinct words
    show: Callable[[str], str]


def state(
    session: Any, k: int, page: int = 0, page_size: int = WORD_PAGE, changed: int = CHANGED_ROWS
) -> BpeTrainState:
    """The run after k merges (k clamped to 0..total); the first page of the word table lists
    the words merge k changed first (late merges change rare words)."""
    total = session.total_steps()
    k = min(max(k, 0), total)
    rows, pages = session.word_rows(k, page, page_size)
    first = session.changed_rows(k, changed) if k > 0 and page <= 0 and changed else []
    rows = first + [r for r in rows if r.word not in {c.word for c in first}]
    upcoming = session.step(k + 1)
    return BpeTrainState(
        variant=session.variant,
        step=k,
        total=total,
        finished=session.finished,
        rows=rows,
        n_changed=len(first),
        page=min(max(page, 0), pages - 1),
        pages=pages,
        last=session.step(k),
        upcoming=upcoming,
        pairs=session.pair_table(k + 1),
        tied=set(upcoming.tied) if upcoming else set(),
        merges=list(enumerate(session.merges(k), 1))[-40:][::-1],
        sentence=sentence(session, k),
        rule=RULES[session.variant],
        vocab_now=vocab_now(session, k),
        stop_reason=session.trainer.stop_reason,
        words=len(session.order),
        show=shower(session.byte_level),
    )


def merge_phrase(step: Any, show: Callable[[str], str], variant: str) -> str:
    """A merge in words: `e + s → es, 9 occurrences`, and the tie it won, if any."""
    what = (
        f"{show(step.pair[0])} + {show(step.pair[1])} → {show(step.new_symbol)}, "
        f"{count_of(step.count, 'occurrence')}"
    )
    if step.n_tied:
        more = "+" if step.ties_more else ""
        why = (
            "the shorter, then alphabetically first piece won"
            if variant == "sentencepiece_bpe"
            else "the pair of earlier-created symbols won"
        )
        what += (
            f"; {step.n_tied}{more} other pair{'s' if step.n_tied + bool(more) > 1 else ''} "
            f"tied at {step.count:,}, {why}"
        )
    return what


def sentence(session: Any, k: int) -> str:
    """One sentence saying what step k did."""
    step = session.step(k)
    if step is None:
        if k == 0:
            return "Nothing merged yet: every word is split into its starting symbols."
        return f"Training stopped: {session.trainer.stop_reason or 'no more merges'}."
    n = step.n_changed_words
    return (
        f"Merged {merge_phrase(step, session.show, session.variant)} "
        f"({count_of(n, 'word')} changed)."
    )


def vocab_now(session: Any, k: int) -> int:
    """The vocabulary's size after k merges."""
    trainer = session.trainer
    if session.variant == "sentencepiece_bpe":
        return 3 + len(trainer.chars) + k
    created = {s.new_symbol for s in session.steps[:k]}
    return trainer.alphabet_size + len(created - set(trainer.symbols[: trainer.alphabet_size]))


def code_panel(s: BpeTrainState) -> CodePanel:
    """The textbook loop, on the line state `s` is on: the word table (before any merge), merge
    k, or the stop (after the last merge)."""
    return textbook_panel(
        textbook,
        s.last,
        finished=s.upcoming is None,
        note=SENTENCEPIECE_NOTE if s.variant == "sentencepiece_bpe" else "",
    )


# ---- the page ------------------------------------------------------------------------------------
def form(
    corpus: str,
    variant: str,
    vocab_size: str,
    pattern: str,
    min_frequency: int,
    page: int,
    play: bool,
    counts: str = "",
) -> dict[str, Any]:
    """What the training form shows, and the page's query parameters (`counts`: a stored
    counts file's sha256, trained on in place of the corpus)."""
    vocab_size = vocab_size.strip() or None
    params = {
        "counts": counts or None,
        "corpus": None if counts else corpus or None,
        "variant": variant,
        "vocab_size": vocab_size,
        "pattern": pattern if variant == "byte_bpe" else None,
        "min_frequency": min_frequency or None,
        "page": page or None,
    }
    return {
        "corpus": corpus,
        "variant": variant,
        "vocab_size": vocab_size,
        "pattern": pattern,
        "min_frequency": min_frequency,
        "params": params,
        "error": None,
        "play": play,
        "bundled": corpus_names(),
        "corpus_text": SENNRICH if not (corpus or counts) else "",
        "counts": counts,
        "counts_info": None,
        "size": None,
        "variants": [*VARIANTS, *FAMILY],  # the new family has its own view, at the same path
        "patterns": PATTERNS,
        "page": page,
    }


def page(
    run: Any, k: int, table_page: int, answer: PracticeState, params: dict[str, Any]
) -> dict[str, Any]:
    """The page at step k of a finished run (the state, its code panel, the practice question),
    or the progress of a run still training in the job pool (`run` is its Job)."""
    if isinstance(run, Job):
        return {"training": True, "job": run, "step": k}
    s = state(run, k, table_page)
    return {
        **vars(s),
        "code": code_panel(s),
        "practice": practice(s, answer, PATH, params) if answer.on else None,
        "practice_link": toggle(PATH, params, s.step),
        "sheet_words": SHEET_WORDS,  # a worksheet is offered for a corpus this small
    }


# ---- practice: which pair merges next? ----------------------------------------------------------
def practice(
    s: BpeTrainState, answer: PracticeState, path: str, params: dict[str, Any]
) -> Question:
    """Which pair merges next? (after k merges; the choices are the top of the pair table)"""
    k, upcoming, show = s.step, s.upcoming, s.show
    if upcoming is None or (answer.until is not None and k >= answer.until):
        return finished(answer, "No merge left to predict here.", path, params, k)
    table = pair_counts(s)
    choices = sorted(((f"{a}\t{b}", f"{show(a)} {show(b)}") for a, b in table), key=lambda c: c[1])

    def check(given: str) -> tuple[bool, str]:
        pair = given.split("\t", 1)
        return grade(s, (pair[0], pair[-1]) if len(pair) == 2 else ("", ""))

    return question(
        answer,
        path,
        params,
        k,
        f"Which pair merges next (merge {k + 1})? Count "
        "the adjacent pairs in the word table, each times its word's count.",
        choices,
        check,
        k + 1,
        s.total,
    )


def pair_counts(s: BpeTrainState) -> dict[tuple[str, str], int]:
    """The pairs the question offers, with their counts: the top of the pair table that decides
    merge k + 1 (and that merge's own pair, always)."""
    table = {(a, b): c for a, b, c in s.pairs}
    if s.upcoming is not None:
        table.setdefault(s.upcoming.pair, s.upcoming.count)
    return table


def grade(s: BpeTrainState, pair: tuple[str, str]) -> tuple[bool, str]:
    """Whether `pair` (two symbols as the trainer spells them) is merge k + 1, and why: its
    count against the winner's, or the tie-break that decided. (Practice mode and a class's
    checkpoints say the same.) `s.upcoming` must not be None."""
    upcoming, show = s.upcoming, s.show
    rule = s.rule.split(", where")[0].split("; ", 1)[-1]  # the tie-break, in short
    table = pair_counts(s)
    a, b = upcoming.pair
    win = f"{show(a)} + {show(b)}"
    if pair == upcoming.pair:
        why = f"Right: {win} occurs {upcoming.count:,} times, more than any other pair"
        if upcoming.n_tied:
            why = (
                f"Right: {win} occurs {upcoming.count:,} times, and wins the tie with "
                f"{upcoming.n_tied} other pair(s): {rule}"
            )
        return True, why + "."
    if pair not in table:
        return False, f"That is not one of the pairs here. The merge is {win}."
    got = f"{show(pair[0])} + {show(pair[1])}"
    if table[pair] == upcoming.count:
        return False, (
            f"Close: {got} also occurs {table[pair]:,} times, a tie with {win}; "
            f"the tie-break decides ({rule}) and picks {win}."
        )
    return False, (
        f"Not this one: {got} occurs {table[pair]:,} times, but {win} occurs "
        f"{upcoming.count:,} times (counted in every word, times the word's "
        "frequency)."
    )


# ---- the worksheet: merges start..end as tables to fill in -------------------------------------
def worksheet(session: Any, start: int, end: int) -> dict[str, Any]:
    """The sheet for merges start..end (1-based, inclusive): the word table before `start`, and
    per merge the pair table, the merge and the word table after it. ValueError for a corpus
    too large to do by hand or a range outside the run."""
    n_words = len(session.order)
    if n_words > SHEET_WORDS:
        raise InvalidInput(
            f"this corpus has {n_words:,} distinct words; a worksheet to fill in by "
            f"hand takes at most {SHEET_WORDS} (paste a smaller corpus)"
        )
    total = session.total_steps()
    if start < 1 or end > total:
        raise InvalidInput(f"this run makes {total} merges: choose a range within 1–{total}")
    show = session.show

    def table(k: int) -> list[dict[str, Any]]:
        s = state(session, k, page_size=SHEET_WORDS, changed=0)
        return [
            {
                "word": r.word,
                "count": r.count,
                "symbols": [show(x) for x in r.segments],
                "changed": r.changed,
            }
            for r in s.rows
        ]

    steps = []
    for k in range(start, end + 1):
        merge = session.step(k)
        steps.append(
            {
                "k": k,
                "pairs": [[f"{show(a)} {show(b)}", c] for a, b, c in session.pair_table(k)][
                    :SHEET_PAIRS
                ],
                "winner": f"{show(merge.pair[0])} {show(merge.pair[1])}",
                "pair": [show(p) for p in merge.pair],
                "new": show(merge.new_symbol),
                "count": merge.count,
                "tied": [[show(a), show(b)] for a, b in merge.tied or ()],
                "words": table(k),
            }
        )
    return {
        "given": table(start - 1),
        "steps": steps,
        "total": total,
        "rule": session.rule,
        "n_words": n_words,
        "cols": ["pair", "count"],
        "what": "count",
        "how": "Count every adjacent pair of symbols, adding the word's frequency each time; "
        "merge the most frequent pair everywhere.",
    }

"""The WordPiece training view's state at step k (`/wordpiece/train` and its worksheet).

`state(session, k)` reads a finished `WordPieceSession` at any step off the trainer's own
records: a page of the word table, the pairs by score (the next merge first, BPE's choice
marked), the merges so far and the sentence that says why merge k won. The code panel is
`tokenizers_core/textbook/wordpiece_train.py`, the line of merge k lit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tokenizers_core.corpora import corpus_names
from tokenizers_core.errors import InvalidInput
from tokenizers_core.textbook import wordpiece_train as textbook

from ..jobs import Job
from ..services.training import MAX_VOCAB
from .common import CodePanel, textbook_panel

DEFAULT_VOCAB_SIZE = 40
MAX_TRAIN_VOCAB = MAX_VOCAB["wordpiece"]  # as BPE's view: a large run trains in the job pool
WORD_PAGE = 25
SHEET_WORDS = 40  # distinct words a worksheet (filled in by hand) takes at most
SHEET_PAIRS = 8


def options(vocab_size: int, min_frequency: int) -> dict[str, int]:
    """The trainer's options, checked."""
    if not 1 <= vocab_size <= MAX_TRAIN_VOCAB:
        raise InvalidInput(
            f"vocab_size must be between 1 and {MAX_TRAIN_VOCAB:,} in this view, got {vocab_size}"
        )
    if min_frequency < 0:
        raise InvalidInput(f"min_frequency must be 0 or more, got {min_frequency}")
    return {"vocab_size": vocab_size, "min_frequency": min_frequency}


@dataclass(frozen=True)
class WordPieceTrainState:
    step: int
    total: int
    rows: list  # WordRow: word, freq, symbols after k merges
    n_words: int
    page: int
    pages: int
    pairs: tuple  # PairRow: the pairs by score after k merges, the next merge first
    next_step: Any  # merge k + 1, or None at the end
    last: Any  # merge k, or None at 0
    merges: list  # (i, WordPieceMergeStep), newest first, at most 40
    sentence: str
    vocab_now: int
    initial: int


def state(session: Any, k: int, page: int = 0, page_size: int = WORD_PAGE) -> WordPieceTrainState:
    """The run after k merges (k clamped to 0..total), page `page` of its word table."""
    steps = session.steps
    k = min(max(k, 0), len(steps))
    page = max(page, 0)
    rows, n_words = session.word_rows(k, page * page_size, page_size)
    return WordPieceTrainState(
        step=k,
        total=len(steps),
        rows=rows,
        n_words=n_words,
        page=page,
        pages=max(1, -(-n_words // page_size)),
        pairs=session.pairs(k),
        next_step=steps[k] if k < len(steps) else None,
        last=steps[k - 1] if k else None,
        merges=list(enumerate(steps[:k], 1))[-40:][::-1],
        sentence=sentence(session, k),
        vocab_now=session.vocab_now(k),
        initial=session.initial_size,
    )


def sentence(session: Any, k: int) -> str:
    """What merge k did and why its score won (and what BPE would have merged instead)."""
    if k == 0:
        return (
            "Every word is split into characters (continuations marked ##). The table on "
            "the right scores every adjacent pair; the top row is merged next."
        )
    steps = session.steps
    s = steps[k - 1]
    bpe = (
        "BPE would have merged the same pair"
        if s.bpe_pair == s.pair
        else f"BPE would have merged “{s.bpe_pair[0]} {s.bpe_pair[1]}” instead "
        f"(the most frequent pair, {s.bpe_count:,} times)"
    )
    text = (
        f"Merged “{s.pair[0]}” + “{s.pair[1]}” into “{s.new_symbol}”: "
        f"{s.count:,} / ({s.freq_left:,} × {s.freq_right:,}) = {s.score:.4g} was the best "
        f"score; {bpe}."
    )
    if k == len(steps):
        text += " Training stops here: " + (
            "the vocabulary is full."
            if session.vocab_size <= session.vocab_now(k)
            else "no pair is left."
        )
    return text


def code_panel(s: WordPieceTrainState) -> CodePanel:
    """The textbook loop, on the words spelled (before any merge), merge k, or the stop (after
    the last merge)."""
    return textbook_panel(textbook, s.last, finished=s.step == s.total)


def grade(session: Any, k: int, pair: tuple[str, str]) -> tuple[bool, str]:
    """Whether `pair` is merge k (1-based) of the run, and why: its score against the winner's
    (count(ab) / (count(a) × count(b)), compared exactly), or the tie-break that decided. (A
    class's checkpoints ask it; the words are this page's sentence's.)"""
    merge = session.steps[k - 1]
    table = {r.pair: r for r in session.pairs(k - 1)}
    a, b = merge.pair
    win = f"“{a}” + “{b}”"
    score = f"{merge.count:,} / ({merge.freq_left:,} × {merge.freq_right:,}) = {merge.score:.4g}"
    if pair == merge.pair:
        why = f"Right: {win} scores {score}, the best score"
        if merge.ties:
            why += (
                f", tied with {len(merge.ties)} other pair(s); the higher pair count, then the "
                "pair of earlier-made symbols wins"
            )
        return True, why + "."
    row = table.get(pair)
    if row is None:
        return False, (
            f"That pair is not among the best-scoring pairs after {k - 1} merges. "
            f"The merge is {win}: {score}."
        )
    got = f"“{row.pair[0]}” + “{row.pair[1]}”"
    theirs = f"{row.count:,} / ({row.freq_left:,} × {row.freq_right:,}) = {row.score:.4g}"
    if (
        row.count * merge.freq_left * merge.freq_right
        == merge.count * row.freq_left * row.freq_right
    ):
        return False, (
            f"Close: {got} scores {theirs}, a tie with {win}; the tie goes to the higher pair "
            f"count, then the pair of earlier-made symbols: {win}."
        )
    bpe = (
        " It is the most frequent pair (BPE's choice), but WordPiece divides by how often "
        "each part occurs, so a pair of rarer parts that nearly always occur together wins."
        if pair == merge.bpe_pair
        else ""
    )
    return False, f"Not this one: {got} scores {theirs}, but {win} scores {score}.{bpe}"


# ---- the page ------------------------------------------------------------------------------------
def form(
    corpus: str,
    vocab_size: int,
    min_frequency: int,
    table_page: int = 0,
    play: bool = False,
    counts: str = "",
) -> dict[str, Any]:
    """What the training form shows, and the page's query parameters (`counts`: a stored
    wordpiece counts file's sha256, trained on in place of the corpus)."""
    params = {
        "counts": counts or None,
        "corpus": None if counts else corpus or None,
        "vocab_size": vocab_size,
        "min_frequency": min_frequency or None,
        "page": table_page or None,
    }
    return {
        "corpus": corpus,
        "vocab_size": vocab_size,
        "min_frequency": min_frequency,
        "params": params,
        "error": None,
        "play": play,
        "bundled": corpus_names(),
        "corpus_text": "",
        "counts": counts,
        "counts_info": None,
    }


def page(run: Any, k: int, table_page: int) -> dict[str, Any]:
    """The page at merge k of a finished run (the state and its code panel), or the progress
    of a run still training in the job pool (`run` is its Job)."""
    if isinstance(run, Job):
        return {"training": True, "job": run, "step": k}
    s = state(run, k, table_page)
    return {**vars(s), "session": run, "code": code_panel(s), "sheet_words": SHEET_WORDS}


# ---- the worksheet -------------------------------------------------------------------------------
def worksheet(session: Any, start: int, end: int) -> dict[str, Any]:
    """The sheet for merges start..end: pairs with count(ab), count(a), count(b) and the score
    count(ab) / (count(a) × count(b)), the merge, the word table after it."""
    if session.n_words > SHEET_WORDS:
        raise InvalidInput(
            f"this corpus has {session.n_words:,} distinct words; a worksheet to "
            f"fill in by hand takes at most {SHEET_WORDS} (paste a smaller corpus)"
        )
    if end > session.total:
        raise InvalidInput(
            f"this run makes {session.total} merges: choose a range within 1–{session.total}"
        )

    def table(k: int) -> list[dict[str, Any]]:
        rows = state(session, k, page_size=SHEET_WORDS).rows
        return [{"word": r.word, "count": r.freq, "symbols": list(r.symbols)} for r in rows]

    steps = []
    for k in range(start, end + 1):
        rows = session.pairs(k - 1)[:SHEET_PAIRS]
        merge = session.steps[k - 1]
        steps.append(
            {
                "k": k,
                "winner": f"{merge.pair[0]} {merge.pair[1]}",
                "pairs": [
                    [
                        f"{r.pair[0]} {r.pair[1]}",
                        r.count,
                        r.freq_left,
                        r.freq_right,
                        f"{r.count}/{r.freq_left * r.freq_right}",
                    ]
                    for r in rows
                ],
                "pair": list(merge.pair),
                "new": merge.new_symbol,
                "count": merge.count,
                "score": f"{merge.count}/{merge.freq_left * merge.freq_right}",
                "tied": [list(t) for t in merge.ties],
                "words": table(k),
            }
        )
    return {
        "given": table(start - 1),
        "steps": steps,
        "n_words": session.n_words,
        "what": "score",
        "cols": ["pair", "count(ab)", "count(a)", "count(b)", "score"],
        "rule": "the highest score, then the higher count, then the smaller ids",
        "how": "Each word starts as its first character and ##-continuations. Count every "
        "pair and every symbol (times the word's frequency), score each pair "
        "count(ab) / (count(a) × count(b)), merge the best pair everywhere.",
    }

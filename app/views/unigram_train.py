"""The Unigram training view's state at round k (`/unigram/train` and its worksheet).

A run (`app.jobs.runs.UnigramRun`) holds the rounds trained so far: the seed vocabulary, one EM +
pruning round per step, the final cut to size. `state(run, k)` reads round k, the likelihood
curve up to it and the sentence that says what the round did. The code panel is
`tokenizers_core/textbook/unigram_em.py`, the line of round k lit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tokenizers_core.corpora import corpus_names
from tokenizers_core.errors import InvalidInput
from tokenizers_core.textbook import unigram_em as textbook

from ..charts import line_chart
from ..display import visible
from ..services.training import DEFAULT_CORPORA, MAX_VOCAB, UNIGRAM_DEFAULT_VOCAB
from .common import CodePanel, textbook_panel

DEFAULT_CORPUS = DEFAULT_CORPORA["unigram"]
DEFAULT_VOCAB = UNIGRAM_DEFAULT_VOCAB
MAX_TRAIN_VOCAB = MAX_VOCAB["unigram"]
SHEET_ROUNDS = 4  # rounds on one worksheet
SHEET_CHARS = 5000  # a worksheet's corpus (trained within the request)


def check_vocab_size(
    vocab_size: int, limit: int = MAX_TRAIN_VOCAB, where: str = " in this view"
) -> None:
    if not 4 <= vocab_size <= limit:
        raise InvalidInput(f"vocab_size must be between 4 and {limit:,}{where}")


@dataclass(frozen=True)
class UnigramTrainState:
    step: int
    total: int
    steps: list  # the rounds so far (UnigramRoundStep), the seed first
    current: Any
    chart: Any
    sentence: str
    n_words: int
    distinct: int


def state(run: Any, k: int) -> UnigramTrainState:
    """Round k of the rounds trained so far (k clamped)."""
    steps = list(run.rounds)
    total = len(steps) - 1
    k = min(max(k, 0), total)
    n_words = max(1, run.total_freq)
    chart = line_chart(
        {"nats per word": [(s.vocab_size, -s.log_likelihood / n_words) for s in steps[: k + 1]]},
        x_label="vocabulary size (log scale; rounds run right to left)",
        y_label="− log-likelihood per word (nats)",
        height=300,
    )
    return UnigramTrainState(
        step=k,
        total=total,
        steps=steps,
        current=steps[k],
        chart=chart,
        sentence=sentence(steps[k]),
        n_words=run.total_freq,
        distinct=run.distinct,
    )


def sentence(s: Any) -> str:
    """What a round did: the seed, an EM + pruning round, or the final cut."""
    if s.round == 0 and not s.final:
        return (
            f"The seed vocabulary: every character and the most frequent substrings, "
            f"{s.vocab_size:,} pieces; log-likelihood {s.log_likelihood:,.0f}."
        )
    if s.final:
        return (
            f"Done: the vocabulary is within 1.1 × the target, so the final {s.vocab_size:,} "
            f"pieces are every character plus the best-scoring pieces (log-likelihood "
            f"{s.log_likelihood:,.0f} after the last EM round)."
        )
    return (
        f"Round {s.round}: EM re-estimated every piece, then pruning removed "
        f"{s.num_pruned:,} pieces whose loss was smallest; {s.vocab_size:,} remain "
        f"(log-likelihood {s.log_likelihood:,.0f})."
    )


def code_panel(s: UnigramTrainState) -> CodePanel:
    """The textbook EM, on the seed, a round's pruning, or the final cut."""
    return textbook_panel(textbook, s.current)


def split_after(run: Any, k: int, word: str) -> tuple[str, ...]:
    """How the model after round k segments `word` (one of the run's sample words)."""
    return dict(run.rounds[k].samples)[word]


def grade(run: Any, k: int, word: str, pieces: tuple[str, ...]) -> tuple[bool, str]:
    """Whether `pieces` is the best segmentation of `word` under the model after round k, and
    why. A first piece given without the word's leading ▁ counts as with it."""
    best = split_after(run, k, word)
    if pieces and best and best[0].startswith("▁") and not pieces[0].startswith("▁"):
        pieces = ("▁" + pieces[0], *pieces[1:])
    shown = " ".join(visible(p) for p in best)
    what = (
        f"after round {k} the model splits “{word}” as {shown} ({len(best)} "
        f"piece{'' if len(best) == 1 else 's'}): Viterbi's best path, the split whose pieces' "
        "log-probabilities add up to the most"
    )
    if pieces == best:
        return True, f"Right: {what}."
    if "".join(pieces) != "".join(best):
        return False, (
            f"Those pieces spell “{''.join(pieces)}”, not the word as the model reads it "
            f"(“{''.join(best)}”, ▁ for the space before it). The answer: {what}."
        )
    return False, f"Not this split: {what}. {sentence(run.rounds[k])}"


# ---- the page ------------------------------------------------------------------------------------
def form(corpus: str, vocab_size: int, words: str, play: bool = False) -> dict[str, Any]:
    """What the training form shows, and the page's query parameters."""
    return {
        "corpus": corpus,
        "vocab_size": vocab_size,
        "words": words,
        "params": {"corpus": corpus, "vocab_size": vocab_size, "words": words or None},
        "error": None,
        "play": play,
        "bundled": corpus_names(),
        "corpus_text": "",
    }


def page(run: Any, k: int, sample_words: tuple[str, ...]) -> dict[str, Any]:
    """The page at round k of the rounds trained so far (the state and its code panel), or,
    before the job has made the seed, its progress."""
    if not run.rounds:
        return {"running": True, "job": run.job, "steps": [], "total": 0, "step": 0}
    s = state(run, k)
    return {
        **vars(s),
        "code": code_panel(s),
        "sample_words": " ".join(sample_words),
        "running": not run.finished,
        "job": run.job,
    }


# ---- the worksheet -------------------------------------------------------------------------------
def worksheet(run: Any, start: int, end: int) -> dict[str, Any]:
    """The sheet for rounds start..end of a finished run (`app.jobs.runs.UnigramRun`): per
    round the piece count before and after, how many pieces EM dropped (expected count under
    0.5) and pruning removed, the log-likelihood after the round's EM, and the pruned pieces
    with their loss."""
    steps = run.rounds
    total = len(steps) - 1
    if end > total:
        raise InvalidInput(
            f"this run has {total} round{'' if total == 1 else 's'}: choose a range "
            f"within 1–{total}"
        )
    rounds = []
    for k in range(start, end + 1):
        s, before = steps[k], steps[k - 1].vocab_size
        rounds.append(
            {
                "k": k,
                "before": before,
                "after": s.vocab_size,
                "final": s.final,
                "dropped": before - s.vocab_size - s.num_pruned,
                "num_pruned": s.num_pruned,
                "loglik": f"{s.log_likelihood:.2f}",
                "pruned": [[visible(p), f"{loss:.4f}"] for p, loss in s.pruned],
            }
        )
    return {
        "rounds": rounds,
        "total": total,
        "seed": steps[0].vocab_size,
        "seed_loglik": f"{steps[0].log_likelihood:.2f}",
        "words": run.total_freq,
        "distinct": run.distinct,
    }


def check_sheet_range(start: int, end: int, text: str) -> None:
    if end < start:
        raise InvalidInput(f"the range {start}–{end} is empty: 'end' must be at least 'start'")
    if end - start + 1 > SHEET_ROUNDS:
        raise InvalidInput(
            f"a worksheet holds at most {SHEET_ROUNDS} rounds; {start}–{end} is {end - start + 1}"
        )
    if start < 1:
        raise InvalidInput("rounds are numbered from 1 (round 0 is the seed vocabulary)")
    if len(text) > SHEET_CHARS:
        raise InvalidInput(
            f"this corpus has {len(text):,} characters; a Unigram training worksheet "
            f"takes at most {SHEET_CHARS:,} (paste a smaller corpus)"
        )

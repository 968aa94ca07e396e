"""The WordPiece part of `check`: a merge list or a vocabulary against the likelihood trainer."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..errors import InvalidInput
from ..implementations.bert import count_words
from ..models.wordpiece.trainer import WordPieceTrainer
from . import replay
from .report import (
    MAX_REPLAY_MERGES,
    MISTAKES,
    REPLAY_BUDGET,
    TOP_PAIRS,
    CheckReport,
    Mistake,
    first_difference,
    pair_text,
    replay_mistakes,
)


def _trainer(words: dict[str, int], vocab_size: int, options: dict[str, Any]):
    kw = {
        k: options[k]
        for k in ("min_frequency", "special_tokens", "continuing_subword_prefix")
        if k in options
    }
    return WordPieceTrainer(words, vocab_size=vocab_size, **kw)


def check_wordpiece(
    lines: list[str], theirs: list, kind: str, vocab_size: int, options: dict[str, Any]
) -> CheckReport:
    lowercase = options.get("lowercase", True)
    if not isinstance(lowercase, bool):
        raise InvalidInput("lowercase must be true or false")
    words = count_words(lines, lowercase=lowercase)
    if not words:
        raise InvalidInput("the corpus has no words to learn from")
    trainer = _trainer(words, vocab_size, options).run()
    steps = trainer.steps
    ours = [s.pair for s in steps]
    common: dict[str, Any]  # CheckReport's fields shared by every outcome
    common = dict(
        algorithm="wordpiece", kind=kind, unit="merge", compared=len(theirs), reference=len(steps)
    )
    notes: list[str] = []
    if kind == "merges":
        k = first_difference(ours, theirs)
        got = theirs[k - 1] if k is not None and k <= len(theirs) else None
    else:
        k, got, notes = _vocab_divergence(trainer, theirs)
    if k is None:
        what = "merges" if kind == "merges" else "merged symbols"
        return CheckReport(
            first_divergence=None,
            explanation=(f"All {len(steps)} {what} equal the reference's."),
            **common,
        )
    prefix = trainer.prefix
    seqs = [((w[0], *[prefix + c for c in w[1:]]), f) for w, f in words.items()]
    join = lambda a, b: a + b[len(prefix) :]  # noqa: E731
    state, text = _state(lines, words, vocab_size, options, k, steps, got, kind)
    mistakes: tuple[Mistake, ...] = ()
    if kind == "merges" and k <= len(theirs):
        mistakes, replayed = replay_mistakes(
            {"raw_count_score": (seqs, {"score": "count"})}, theirs, k, join=join
        )
        notes += replayed
    elif kind == "vocab" and k <= len(steps):
        mistakes = _vocab_mistake(seqs, join, set(theirs), k)
    return CheckReport(
        first_divergence=k,
        explanation=text,
        expected=(steps[k - 1].pair if k <= len(steps) else None),
        got=got,
        state=state,
        mistakes=mistakes,
        notes=tuple(notes),
        **common,
    )


def _vocab_divergence(trainer, theirs: list[str]) -> tuple[int | None, Any, list[str]]:
    """The first merge whose new symbol their vocabulary lacks (1-based), the symbol of theirs
    that is not ours (if any), and notes on the starting symbols."""
    have = set(theirs)
    ours_all = set(trainer.symbols)
    notes = []
    initial = [
        s for s in trainer.symbols[: trainer.initial_size] if s not in trainer.special_tokens
    ]
    lacking = [s for s in initial if s not in have]
    if lacking:
        notes.append(
            f"Your vocabulary lacks {len(lacking)} starting symbols, e.g. "
            f"{', '.join(lacking[:6])} (the first character of a word as is, the "
            f"others with the continuation prefix {trainer.prefix!r})."
        )
    extra = [t for t in theirs if t not in ours_all]
    got = extra[0] if extra else None
    for i, step in enumerate(trainer.steps):
        if step.new_symbol not in have:
            return i + 1, got, notes
    if extra:
        return len(trainer.steps) + 1, got, notes
    return (1, got, notes) if lacking else (None, None, notes)


def _state(lines, words, vocab_size, options, k, steps, got, kind) -> tuple[dict[str, Any], str]:
    before = _trainer(words, vocab_size, options).run(until=k - 1)
    rows = before.top_pairs(TOP_PAIRS)
    state: dict[str, Any] = {
        "pairs": [[*r.pair, r.count, r.freq_left, r.freq_right] for r in rows],
        "rule": (
            "the highest score count(ab) / (count(a) × count(b)), compared exactly; then "
            "the higher count; then the smaller (id(left), id(right))"
        ),
        "step_before": k - 1,
    }
    if k > len(steps):
        return state, (
            f"The reference stops after {len(steps)} merges (the vocabulary is full "
            f"or no pair is left); yours has more" + (f", e.g. {got!r}." if got else ".")
        )
    step = steps[k - 1]
    state.update(
        winner=list(step.pair),
        count=step.count,
        freq_left=step.freq_left,
        freq_right=step.freq_right,
        tied=[list(t) for t in step.ties],
        bpe_pair=list(step.bpe_pair),
        bpe_count=step.bpe_count,
    )
    score = _fraction(step.count, step.freq_left * step.freq_right)
    win = (
        f"{pair_text(step.pair)} → {step.new_symbol}: score {step.count} / "
        f"({step.freq_left} × {step.freq_right}) = {score}"
    )
    if kind == "vocab":
        text = (
            f"Merge {k} makes {step.new_symbol!r}, which your vocabulary lacks. The reference "
            f"merges {win}."
        )
        if step.bpe_pair != step.pair:
            text += (
                f" (Plain BPE would merge {pair_text(step.bpe_pair)} here: it occurs "
                f"{step.bpe_count} times, more often, but scores lower.)"
            )
        return state, text
    if got is None:
        return state, f"You stopped after {k - 1} merges; merge {k} should be {win}."
    sym = before.symbol_id
    text = f"Merge {k}: you merged {pair_text(got)}, the reference merges {win}. "
    if got[0] in sym and got[1] in sym:
        row = before.pair_row((sym[got[0]] << 32) | sym[got[1]])
        state["their_row"] = [row.count, row.freq_left, row.freq_right]
        if row.count:
            text += (
                f"Yours scores {row.count} / ({row.freq_left} × {row.freq_right}) = "
                f"{_fraction(row.count, row.freq_left * row.freq_right)}, lower"
                + (" though it occurs more often." if row.count > step.count else ".")
            )
            if (
                row.count * step.freq_left * step.freq_right
                == step.count * row.freq_left * row.freq_right
            ):
                text = text.replace(", lower", ", the same score: the tie-break decides")
            return state, text
    return state, text + f"After {k - 1} merges, {pair_text(got)} does not occur in the corpus."


def _fraction(n: int, d: int) -> str:
    f = Fraction(n, d)
    return (
        f"{f.numerator}/{f.denominator} ≈ {n / d:.4g}" if f.denominator != 1 else str(f.numerator)
    )


def _vocab_mistake(seqs, join, have: set[str], k: int) -> tuple[Mistake, ...]:
    if k > MAX_REPLAY_MERGES or sum(len(s) for s, _ in seqs) * k > REPLAY_BUDGET:
        return ()
    merges = replay.textbook_merges(seqs, k, score="count", join=join)
    agree = 0
    for a, b in merges:
        if join(a, b) not in have:
            break
        agree += 1
    if agree < k:
        return ()
    reach = "merge" if agree == 1 else f"{agree} merges"
    return (
        Mistake(
            "raw_count_score",
            MISTAKES["raw_count_score"],
            f"Replaying WordPiece with the highest count winning (not the highest score) "
            f"makes exactly the symbols of your first {reach}.",
            agree,
        ),
    )

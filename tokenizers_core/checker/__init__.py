"""Check a student's own implementation against the reference: where does theirs first differ?

`check(algorithm, lines, theirs, vocab_size=..., **options)` trains the reference on the same
lines and compares what the student's code produced:

- ``merges`` (bpe, byte_bpe, sentencepiece_bpe, wordpiece): the merge list in learned order;
  the report's `first_divergence` is the 1-based merge number where theirs first differs, with
  the state just before it (the top pair counts, the pair that wins and why: its count, or the
  tie-break rule and the tied pairs);
- ``vocab`` (wordpiece): a vocabulary; the divergence is the first merge whose symbol it lacks;
- ``pieces`` (unigram): pieces with scores; the divergence is the first of ours it lacks;
- ``tokens`` (any, with `text=`): their tokens for a text; the divergence is the first word
  tokenised differently, with both segmentations and the steps that explain ours
  (`tokens.py`).

Merges may be minbpe's (a `.model` file, "32 116" lines, JSON integer pairs: `parse.py`), checked
as byte_bpe; a minbpe file's split pattern is the reference's unless `pattern=` is given.

`ties` names the conventions the reference follows (`TIE_BREAKS`, `READS`): "hf" (Hugging Face's
BpeTrainer: the corpus read line by line, so no piece holds a line end, and on a tie the pair
of earlier-made symbols wins; the default) or "minbpe" (karpathy/minbpe's `train(text)`: the
whole text as one sequence, so a piece may hold a line end (a full stop and the newline
after it are one piece of GPT-4's pattern), and on a tie the pair seen first in the text
wins, `max(stats, key=stats.get)`), for a merges check of bpe or byte_bpe. Every merges
report names the convention it used (`state["reads"]`), and a divergence that a line end
explains says so.

A classic mistake is named only when replaying it reproduces what they gave through the point
of divergence (`replay.py`: the modules of `tokenizers_core/textbook/` with one mistake switched
on): counting pairs without weighting by word frequency, forgetting `</w>`, merging across
words, breaking ties by dict order, WordPiece scoring by raw count, encoding in count order
instead of rank order, Viterbi without the unknown-piece penalty.

>>> lines = ["low low low low low", "lower lower", "newest newest newest newest newest newest",
...          "widest widest widest"]
>>> check("bpe", lines, "e s\\nt </w>\\nes t</w>\\nl o", vocab_size=16).first_divergence is None
True
>>> r = check("bpe", lines, "e s\\nes t\\nl o\\nlo w", vocab_size=16)
>>> r.first_divergence, r.expected, r.got, r.state["their_count"]
(2, ('t', '</w>'), ('es', 't'), 9)
>>> [m.name for m in r.mistakes]       # without </w>, (es, t) has no (t, </w>) to tie with
['no_end_of_word']
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable

import regex

from ..byte_level import bytes_to_unicode, str_to_byte_level
from ..errors import InvalidInput
from ..implementations.training import train
from ..models.bpe.model import END_OF_WORD, UNK
from ..models.bpe.session import training_session
from ..models.bpe.trainer import bpe_word_table, byte_bpe_word_table
from ..models.unigram.model import Unigram
from ..pre_tokenizers import WHITESPACE_PATTERN
from . import replay
from .first_seen import FirstSeenBpe
from .parse import parse_merges, parse_minbpe_model, parse_pieces, parse_tokens, parse_vocab
from .report import (
    ALGORITHMS,
    KINDS,
    MISTAKES,
    TOP_PAIRS,
    CheckReport,
    Mistake,
    first_difference,
    pair_text,
    replay_mistakes,
)
from .tokens import check_tokens
from .wordpiece import check_wordpiece

# app/services/check.py imports the replays as `textbook`; remove once it imports `replay`
textbook = replay

__all__ = [
    "ALGORITHMS",
    "KINDS",
    "MISTAKES",
    "READS",
    "TIE_BREAKS",
    "WORDS",
    "CheckReport",
    "Mistake",
    "check",
]

# How the reference reads the corpus, by tie-break convention (see the module docstring).
READS = {
    "hf": "The reference reads the corpus line by line, as Hugging Face's trainers do: each "
    "line is pre-tokenised on its own, so no piece holds a line end",
    "minbpe": "The reference reads the corpus as one text, as minbpe's train(text) does: its "
    "lines joined by line ends and pre-tokenised as a whole, so a piece may hold a line end",
}

# What the reference calls a word, for "bpe" (shown with every bpe report and on the form).
WORDS = {
    "bpe": f"A word, for bpe, is each match of {WHITESPACE_PATTERN} (a run of letters, digits "
    "and _, or a run of other non-space characters, so don't is don ' t), and each word ends "
    f"with {END_OF_WORD}; no pair crosses two words",
}

TIE_BREAKS = {
    "hf": "Hugging Face's rule: on a tie, the pair of earlier-made symbols wins (the smallest "
    "(id(left), id(right)))",
    "minbpe": "minbpe's rule: on a tie, the pair seen first in the text wins (Python's max over "
    "the pair counts, which keep the order in which pairs first occur)",
}


def check(
    algorithm: str,
    lines: Iterable[str],
    theirs: Any,
    *,
    vocab_size: int,
    kind: str | None = None,
    text: str | None = None,
    pieces: Any = None,
    ties: str = "hf",
    **options: Any,
) -> CheckReport:
    """Compare `theirs` with the reference trained on `lines` (see the module docstring).

    `kind` is sniffed when not given: "tokens" when `text` is given, "pieces" for unigram,
    "vocab" for wordpiece when no line holds a space, else "merges". For a unigram tokens check,
    `pieces` may give their own model (`piece<TAB>score` lines): then their Viterbi is checked
    against ours on their pieces. Raises ValueError for bad input.
    """
    if algorithm not in ALGORITHMS:
        raise InvalidInput(
            f"unknown algorithm {algorithm!r}; choose one of: {', '.join(ALGORITHMS)}"
        )
    if isinstance(lines, str):
        lines = lines.splitlines()
    lines = list(lines)
    kind = kind or _sniff(algorithm, theirs, text)
    if kind not in KINDS[algorithm]:
        raise InvalidInput(f"{algorithm} checks {' or '.join(KINDS[algorithm])}, not {kind!r}")
    if ties not in TIE_BREAKS:
        raise InvalidInput(f"unknown tie-break {ties!r}; choose one of: {', '.join(TIE_BREAKS)}")
    if ties == "minbpe" and (kind != "merges" or algorithm not in ("bpe", "byte_bpe")):
        raise InvalidInput("the minbpe tie-break applies to a merges check of bpe or byte_bpe")
    model = parse_minbpe_model(theirs) if isinstance(theirs, str) else None
    if model is not None and model.pattern and algorithm == "byte_bpe":
        options.setdefault("pattern", model.pattern)  # the file's own split pattern
    if kind == "tokens":
        if text is None or not str(text).strip():
            raise InvalidInput("a tokens check needs the text your tokens are for (text=...)")
        return check_tokens(
            algorithm,
            lines,
            parse_tokens(theirs),
            text,
            vocab_size,
            options,
            parse_pieces(pieces) if pieces else None,
        )
    if kind == "pieces":
        return check_pieces(lines, parse_pieces(theirs), vocab_size, options)
    if algorithm == "wordpiece":
        their = parse_vocab(theirs) if kind == "vocab" else parse_merges(theirs)
        return check_wordpiece(lines, their, kind, vocab_size, options)
    merges = parse_merges(theirs, byte_ids=algorithm == "byte_bpe")
    if ties == "minbpe":
        report = _check_bpe_first_seen(algorithm, lines, merges, vocab_size, options)
    else:
        report = _line_end_note(
            _check_bpe_merges(algorithm, lines, merges, vocab_size, options), merges
        )
    report = _unk_note(report, algorithm, lines, vocab_size)
    return _with_words(replace(report, state={**report.state, "reads": READS[ties]}))


def _with_words(report: CheckReport) -> CheckReport:
    """The report with what the reference calls a word (`WORDS`), where the algorithm has one."""
    if report.algorithm not in WORDS:
        return report
    return replace(report, state={**report.state, "words": WORDS[report.algorithm]})


def _unk_note(report: CheckReport, variant: str, lines: list[str], vocab_size: int) -> CheckReport:
    """Where the reference stops before their merges do, for bpe: say that vocab_size counts
    <unk> (one slot), the initial symbols and the merges, so that a vocabulary without <unk>
    makes one merge more ("you made 143, the reference stops after 142").

    >>> r = check("bpe", ["low low lower"], ["l o", "lo w", "low </w>"], vocab_size=9)
    >>> print(r.explanation.split(". ", 2)[2])  # doctest: +NORMALIZE_WHITESPACE
    vocab_size 9 counts the reference's <unk> (one slot), its 6 initial symbols (</w> among
    them) and its 2 merges: 1 + 6 + 2 = 9; a vocabulary without <unk> has room for one more.
    """
    if variant != "bpe" or report.ok or report.compared <= report.reference:
        return report
    initial = len({s for word in bpe_word_table(lines) for s in word})
    merges = report.reference
    if 1 + initial + merges != vocab_size:  # not stopped by a full vocabulary
        return report
    note = (
        f"vocab_size {vocab_size} counts the reference's {UNK} (one slot), its {initial} "
        f"initial symbols ({END_OF_WORD} among them) and its {merges} merges: 1 + {initial} + "
        f"{merges} = {vocab_size}; a vocabulary without {UNK} has room for one more."
    )
    return replace(report, explanation=f"{report.explanation} {note}")


# the symbols a line end becomes: byte-level (Ċ is "\n", č is "\r") and plain text
_LINE_ENDS = ("Ċ", "č", "\n", "\r")


def _line_end_note(report: CheckReport, theirs: list[tuple[str, str]]) -> CheckReport:
    """Where their merges part from the reference (the first divergence, or where the best
    replayed mistake stops agreeing) on a merge holding a line end, which the line-by-line
    reference never sees: say that their corpus was read whole, as minbpe's is, and how to
    check that. Otherwise the report as it is."""
    if report.ok:
        return report
    at = [k for k in (report.first_divergence, *(m.agrees + 1 for m in report.mistakes)) if k]
    k = next(
        (
            k
            for k in sorted(set(at))
            if k <= len(theirs) and any(e in "".join(theirs[k - 1]) for e in _LINE_ENDS)
        ),
        None,
    )
    if k is None:
        return report
    note = (
        f"{READS['hf']}. Your merge {k}, {pair_text(theirs[k - 1])}, holds a line end (Ċ is a "
        "newline in the byte-level alphabet): your trainer read the whole text as one "
        "sequence, as minbpe's train(text) does. Check with minbpe's conventions "
        "(ties=minbpe), which read the corpus that way."
    )
    return replace(report, explanation=f"{report.explanation} {note}")


def _sniff(algorithm: str, theirs: Any, text: str | None) -> str:
    if text is not None:
        return "tokens"
    if algorithm == "unigram":
        return "pieces"
    if algorithm == "wordpiece":
        items = theirs.splitlines() if isinstance(theirs, str) else list(theirs)
        if isinstance(theirs, str) and theirs.lstrip()[:1] in ("[", "{"):
            return "merges" if theirs.lstrip().startswith("[[") else "vocab"
        if not any(
            (" " in i) if isinstance(i, str) else isinstance(i, (list, tuple)) for i in items
        ):
            return "vocab"
    return "merges"


# ---- BPE merges ------------------------------------------------------------------------------
def _check_bpe_merges(
    variant: str,
    lines: list[str],
    theirs: list[tuple[str, str]],
    vocab_size: int,
    options: dict[str, Any],
) -> CheckReport:
    session = training_session("\n".join(lines), variant, vocab_size, **options)
    session.total_steps()
    ours = [s.pair for s in session.steps]
    k = first_difference(ours, theirs)
    common: dict[str, Any]  # CheckReport's fields shared by every outcome
    common = dict(
        algorithm=variant, kind="merges", unit="merge", compared=len(theirs), reference=len(ours)
    )
    if k is None:
        return CheckReport(
            first_divergence=None,
            explanation=(f"All {len(ours)} merges equal the reference's, in the same order."),
            **common,
        )
    state, sentence = _bpe_state(session, k, theirs)
    mistakes, notes = (
        _bpe_mistakes(variant, lines, theirs, k, options) if k <= len(theirs) else ((), ())
    )
    expected = ours[k - 1] if k <= len(ours) else None
    got = theirs[k - 1] if k <= len(theirs) else None
    return CheckReport(
        first_divergence=k,
        explanation=sentence,
        expected=expected,
        got=got,
        state=state,
        mistakes=mistakes,
        notes=notes,
        **common,
    )


def _bpe_state(session, k: int, theirs: list[tuple[str, str]]) -> tuple[dict[str, Any], str]:
    """The reference's state just before merge k, and a sentence on why it merges what it does."""
    step = session.step(k)
    state: dict[str, Any] = {
        "pairs": [list(p) for p in session.pair_table(k)][:TOP_PAIRS],
        "rule": session.rule,
        "step_before": k - 1,
    }
    if step is None:
        reason = session.trainer.stop_reason or "no pair is left"
        return state, (
            f"The reference stops after {len(session.steps)} merges ({reason}); you "
            f"made {len(theirs)}. Merge {k} and later are extra."
        )
    state.update(
        winner=list(step.pair),
        count=step.count,
        tied=[list(t) for t in step.tied or ()],
        n_tied=step.n_tied,
    )
    win = pair_text(step.pair)
    if k > len(theirs):
        return state, (
            f"You stopped after {len(theirs)} merges; the reference goes on to "
            f"{len(session.steps)}. Merge {k} should be {win} ({step.count:,} "
            f"occurrences)."
        )
    got = theirs[k - 1]
    counts = _pair_counts_at(session, k - 1)
    their_count = counts.get(got)
    state["their_count"] = their_count
    text = f"Merge {k}: you merged {pair_text(got)}, the reference merges {win}. "
    if their_count is None:
        before = (
            "Before any merge" if k == 1 else f"After the first {k - 1} merge{'s' if k > 2 else ''}"
        )
        text += (
            f"{before}, {pair_text(got)} does not occur in the "
            f"corpus at all (as the reference splits it into symbols); {win} occurs "
            f"{step.count:,} times."
        )
    elif their_count < step.count:
        text += (
            f"Counted over every word and weighted by how often the word occurs, {win} "
            f"occurs {step.count:,} times and {pair_text(got)} only {their_count:,}."
        )
    else:
        text += (
            f"Both occur {step.count:,} times: a tie, and the tie-break decides. The rule: "
            f"{session.rule}."
        )
    return state, text


def _pair_counts_at(session, k: int) -> dict[tuple[str, str], int]:
    """Every pair's count after k merges, recounted from the word table (weighted)."""
    counts: dict[tuple[str, str], int] = {}
    freq = session.trainer.counts
    for i in range(len(freq)):
        parts = session.segmentation(i, k)
        for pair in zip(parts, parts[1:]):
            counts[pair] = counts.get(pair, 0) + freq[i]
    return counts


def _bpe_sequences(variant: str, lines: list[str], options: dict[str, Any]):
    """The reference's word table as (symbols, frequency) in first-seen order, and the same
    corpus the ways the classic mistakes see it."""
    if variant == "bpe":
        right = list(bpe_word_table(lines).items())
        compiled = regex.compile(WHITESPACE_PATTERN)
        joined: dict[tuple[str, ...], int] = {}
        raw: dict[tuple[str, ...], int] = {}
        for line in lines:
            seq = tuple(
                s for w in compiled.findall(line, concurrent=False) for s in (*w, END_OF_WORD)
            )
            if seq:
                joined[seq] = joined.get(seq, 0) + 1
            if line.strip():
                raw[tuple(line.strip())] = raw.get(tuple(line.strip()), 0) + 1
        variants = {
            "unweighted_counts": (right, {"weighted": False}),
            "no_end_of_word": ([(w[:-1], c) for w, c in right], {}),
            "across_words": (list(joined.items()), {}),
            "across_words_raw": (list(raw.items()), {}),
            "dict_order_ties": (right, {"ties": "dict"}),
        }
        return right, variants
    right = list(byte_bpe_word_table(lines, options.get("pattern", "gpt2")).items())
    raw = {}
    for line in lines:
        if line:
            seq = tuple(str_to_byte_level(line))
            raw[seq] = raw.get(seq, 0) + 1
    variants = {
        "unweighted_counts": (right, {"weighted": False}),
        "across_words": (list(raw.items()), {}),
        "dict_order_ties": (right, {"ties": "dict"}),
    }
    return right, variants


def _bpe_mistakes(
    variant: str, lines: list[str], theirs: list, k: int, options: dict[str, Any]
) -> tuple[tuple[Mistake, ...], tuple[str, ...]]:
    if variant not in ("bpe", "byte_bpe"):
        return (), ()
    _right, variants = _bpe_sequences(variant, lines, options)
    return replay_mistakes(variants, theirs, k)


def _check_bpe_first_seen(
    variant: str,
    lines: list[str],
    theirs: list[tuple[str, str]],
    vocab_size: int,
    options: dict[str, Any],
) -> CheckReport:
    """Merges against the textbook trainer with minbpe's tie-break (the pair seen first wins),
    run incrementally (`first_seen.FirstSeenBpe`, the same merges as `textbook.bpe_train`
    with `ties="dict"`) on the same word table."""
    table = _whole_text_table(variant, lines, options)
    alphabet = list(bytes_to_unicode().values()) if variant == "byte_bpe" else []
    trainer = FirstSeenBpe(
        table,
        vocab_size,
        alphabet=alphabet,
        special_tokens=["<unk>"] if variant == "bpe" else [],
        min_frequency=options.get("min_frequency", 0),
    )
    steps: list[tuple[tuple[str, str], int]] = []
    counts: dict[tuple[str, str], int] | None = None  # every pair's count where theirs differ
    while (step := trainer.next_merge()) is not None:
        n = len(steps)
        if counts is None and (n >= len(theirs) or step[0] != theirs[n]):
            counts = trainer.stats()  # the state just before the first divergence
        trainer.apply(step[0])
        steps.append(step)
    ours = [pair for pair, _count in steps]
    k = first_difference(ours, theirs)
    common: dict[str, Any]  # CheckReport's fields shared by every outcome
    common = dict(
        algorithm=variant, kind="merges", unit="merge", compared=len(theirs), reference=len(ours)
    )
    state: dict[str, Any] = {"rule": TIE_BREAKS["minbpe"], "step_before": (k or 1) - 1}
    if k is None:
        return CheckReport(
            first_divergence=None,
            state=state,
            explanation=(
                f"All {len(ours)} merges equal the reference's, in the same order (minbpe's "
                "conventions: the whole text as one sequence, the pair seen first wins a tie)."
            ),
            **common,
        )
    if k > len(ours):
        return CheckReport(
            first_divergence=k,
            state=state,
            got=theirs[k - 1],
            explanation=(
                f"The reference stops after {len(ours)} merges; you made {len(theirs)}. Merge {k} "
                "and later are extra."
            ),
            **common,
        )
    pair, count = steps[k - 1]
    counts = counts or {}
    state.update(
        winner=list(pair),
        count=count,
        pairs=[
            [a, b, n] for (a, b), n in sorted(counts.items(), key=lambda kv: -kv[1])[:TOP_PAIRS]
        ],
    )
    win = pair_text(pair)
    if k > len(theirs):
        text = (
            f"You stopped after {len(theirs)} merges; the reference goes on to {len(ours)}. "
            f"Merge {k} should be {win} ({count:,} occurrences)."
        )
        return CheckReport(
            first_divergence=k, explanation=text, expected=pair, state=state, **common
        )
    got = theirs[k - 1]
    their_count = counts.get(got)
    state["their_count"] = their_count
    text = f"Merge {k}: you merged {pair_text(got)}, the reference merges {win}. "
    if their_count is None:
        text += f"{pair_text(got)} does not occur at that point; {win} occurs {count:,} times."
    elif their_count < count:
        text += f"{win} occurs {count:,} times and {pair_text(got)} only {their_count:,}."
    else:
        seen = list(counts)
        text += (
            f"Both occur {count:,} times: a tie. With minbpe's rule the pair seen "
            f"first wins: {win} first occurs before {pair_text(got)} (pair "
            f"{seen.index(pair) + 1} and {seen.index(got) + 1} in the order pairs "
            "first occur)."
        )
    return CheckReport(
        first_divergence=k, explanation=text, expected=pair, got=got, state=state, **common
    )


def _whole_text_table(variant: str, lines: list[str], options: dict[str, Any]) -> list:
    """minbpe's word table: the whole text (its lines joined by line ends) pre-tokenised as one,
    each piece with its count, in the order pieces first occur (so the pair counts keep the
    order in which pairs first occur, as minbpe's do). For bpe (Whitespace words), the same as
    reading line by line: a line end is whitespace, never inside a word.

    >>> _whole_text_table("byte_bpe", ["Hi.", "Hi."], {"pattern": "cl100k"})[:2]
    [(('H', 'i'), 2), (('.', 'Ċ'), 1)]
    """
    if variant != "byte_bpe":
        return _bpe_sequences(variant, lines, options)[0]
    return list(byte_bpe_word_table(["\n".join(lines)], options.get("pattern", "gpt2")).items())


# ---- Unigram pieces --------------------------------------------------------------------------
def check_pieces(
    lines: list[str], theirs: list[tuple[str, float]], vocab_size: int, options: dict[str, Any]
) -> CheckReport:
    model = train("unigram", lines, vocab_size, **options).model
    assert isinstance(model, Unigram)  # for the type checker: train's is a Model
    ours = model.pieces
    their_scores = dict(theirs)
    our_scores = dict(ours)
    common: dict[str, Any]  # CheckReport's fields shared by every outcome
    common = dict(
        algorithm="unigram", kind="pieces", unit="piece", compared=len(theirs), reference=len(ours)
    )
    missing = [(i + 1, p, s) for i, (p, s) in enumerate(ours) if p not in their_scores]
    extra = [p for p, _s in theirs if p not in our_scores]
    worst = max(
        ((abs(s - their_scores[p]), p) for p, s in ours if p in their_scores), default=(0.0, None)
    )
    state = {
        "missing": [p for _i, p, _s in missing[:20]],
        "extra": extra[:20],
        "largest_score_gap": worst[0],
        "largest_gap_piece": worst[1],
    }
    if not missing and not extra:
        return CheckReport(
            first_divergence=None,
            state=state,
            explanation=(
                f"The same {len(ours)} pieces as the reference; the largest score difference is "
                f"{worst[0]:.4f}" + (f" (on {worst[1]})." if worst[1] else ".")
            ),
            **common,
        )
    k = missing[0][0] if missing else len(ours) + 1
    text = (
        f"Piece {k} of the reference ({missing[0][1]!r}, score {missing[0][2]:.4f}) is not "
        f"among yours."
        if missing
        else "You have every piece of the reference and more."
    )
    text += f" {len(missing)} of ours are missing from yours; {len(extra)} of yours are not ours."
    return CheckReport(
        first_divergence=k,
        explanation=text,
        state=state,
        expected=missing[0][1] if missing else None,
        got=extra[0] if extra else None,
        **common,
    )

"""What every check shares: the report, the named mistakes, and how a divergence is found and a
mistake confirmed by replaying it (`replay_mistakes`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from . import replay

ALGORITHMS = ("bpe", "byte_bpe", "sentencepiece_bpe", "wordpiece", "unigram")


KINDS = {
    "bpe": ("merges", "tokens"),
    "byte_bpe": ("merges", "tokens"),
    "sentencepiece_bpe": ("merges", "tokens"),
    "wordpiece": ("merges", "vocab", "tokens"),
    "unigram": ("pieces", "tokens"),
}


TOP_PAIRS = 8


REPLAY_BUDGET = 30_000_000  # symbols x merges the slow textbook replays may touch


MAX_REPLAY_MERGES = 400


MISTAKES = {
    "unweighted_counts": "counting pairs without weighting by word frequency",
    "no_end_of_word": "forgetting the end-of-word symbol </w>",
    "across_words": "merging across words",
    "dict_order_ties": "breaking ties by first occurrence (minbpe's rule)",
    "raw_count_score": "WordPiece scoring by raw count",
    "count_order_encoding": "applying merges in count order instead of rank order",
    "no_unk_penalty": "Viterbi without the unknown-piece penalty",
}


@dataclass(frozen=True)
class Mistake:
    """A classic mistake whose replay reproduces theirs: `agrees` of their items in a row."""

    name: str
    title: str
    explanation: str
    agrees: int


@dataclass(frozen=True)
class CheckReport:
    """What `check` found. `first_divergence` is 1-based (a merge number for merges and
    vocabularies, a piece number for pieces, a word number for tokens), None when theirs equals
    the reference. `expected` / `got` are ours and theirs there; `state` the reference's state
    at that point (for merges: `pairs` [(left, right, count)], `winner`, `count`, `tied`,
    `rule`, `their_count`); `mistakes` the classic mistakes that explain it."""

    algorithm: str
    kind: str
    unit: str
    first_divergence: int | None
    compared: int
    reference: int
    explanation: str
    expected: Any = None
    got: Any = None
    state: dict[str, Any] = field(default_factory=dict)
    mistakes: tuple[Mistake, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.first_divergence is None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["ok"] = self.ok
        return out


def first_difference(ours: list, theirs: list) -> int | None:
    """The 1-based position where two lists first differ (None if equal).

    >>> first_difference([1, 2, 3], [1, 2]), first_difference([1], [1])
    (3, None)
    """
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            return i + 1
    return None if len(ours) == len(theirs) else min(len(ours), len(theirs)) + 1


def prefix_agreement(a: list, b: list) -> int:
    """How many items two lists share from the start."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def pair_text(pair: tuple[str, str]) -> str:
    return f"{pair[0]} + {pair[1]}"


def replay_mistakes(
    variants: dict[str, tuple[list, dict]], theirs: list, k: int, join=None, explain=None
) -> tuple[tuple[Mistake, ...], tuple[str, ...]]:
    """Replay each mistaken trainer far enough to compare with their merges; name those that
    reproduce theirs through merge k. A replay goes as far as their merges do (within the
    budget), so a mistake that explains all of them says "all N", as a check under that
    convention does (minbpe's tie-break: "identical, all N"), not merely the first k + 20."""
    found: dict[str, Mistake] = {}
    notes = []
    for name, (seqs, kw) in variants.items():
        size = sum(len(s) for s, _ in seqs)
        if size * min(len(theirs), k + 20) > REPLAY_BUDGET or k > MAX_REPLAY_MERGES:
            notes.append(
                f"The classic mistakes were not replayed: merge {k} on this corpus is "
                "too far for the slow textbook replays (they recount everything at "
                f"every merge; at most {MAX_REPLAY_MERGES} merges on a small corpus)."
            )
            break
        n = min(len(theirs), MAX_REPLAY_MERGES, max(k + 20, REPLAY_BUDGET // max(size, 1)))
        agree = replay.agreement(seqs, theirs, n, join=join, **kw)
        key = "across_words" if name.startswith("across_words") else name
        if agree >= k and (key not in found or found[key].agrees < agree):
            found[key] = Mistake(
                key, MISTAKES[key], (explain or _explain)(key, agree, len(theirs)), agree
            )
    best = max((m.agrees for m in found.values()), default=0)
    return tuple(m for m in found.values() if m.agrees == best), tuple(notes)


def _explain(name: str, agree: int, total: int) -> str:
    how = {
        "unweighted_counts": "each distinct word adds 1 to its pairs instead of its frequency",
        "no_end_of_word": "words are split into characters with no </w> at the end",
        "across_words": "each line is one long sequence, so pairs span the gap between words",
        "dict_order_ties": (
            "a tie goes to the pair seen first in the text (max(counts, "
            "key=counts.get), as minbpe does), not to the pair of earlier-made "
            "symbols; if you follow minbpe on purpose, check with its tie-break "
            "(ties=minbpe)"
        ),
        "raw_count_score": "the pair with the highest count wins, not the highest score",
    }[name]
    reach = (
        f"all {total} of your merges"
        if agree >= total
        else "your first merge"
        if agree == 1
        else f"your first {agree} merges"
    )
    return f"Replaying BPE with this mistake ({how}) gives exactly {reach}."

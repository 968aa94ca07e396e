"""Picky BPE (Chizhov et al., EMNLP 2024, "BPE Gets Picky", arXiv 2409.04599): BPE that removes
intermediate tokens as it trains. The fast trainer, its step, and the model that encodes with it.

After each merge (x1, x2) -> x1x2, each of x1 and x2 is checked by its Intersection over Self,
the share of its occurrences that the merge just used up:

    IoS(x | x1x2) = f(x1x2 made now) / f(x before the merge)

A token whose IoS is above the threshold tau (and that is not a single symbol of the alphabet)
is removed: wherever it is left, it is split back into the parts it was made of (through any of
them already removed), and its id is freed, so the vocabulary has room for one more merge.
A removed token can come back: a later merge that makes the same string restores it, with its old
id. Training stops when `vocab_size` tokens are present. With tau >= 1 nothing is ever removed
(IoS is at most 1) and this is the plain trainer.

We follow the authors' code (pchizhov/picky_bpe, commit 038fcb9, `bpe_trainer.py`) where the
paper leaves details open, and the golden files of tests/core/models/golden/picky_bpe/ hold its
outputs: the test "IoS > tau" is strict; x1 is checked (and maybe removed) before x2; when x1 =
x2 the token is checked once, its frequency after the merge being f - 2m, so its IoS is
m / (f - m). The authors' trainer breaks ties by dict order (`Counter.most_common`); ours by the
house rule (the smallest (id(left), id(right))), and the tests replay their choices. Their trainer
also counts a merge that makes a token already present as one more token; ours counts tokens.

**Encoding** replays the training's events, merges and removals, in their order (the authors'
`picky_tokenize.py`): in each word, take the earliest event after the last one applied that
applies (a merge of an adjacent pair, or the removal of a token in the word), apply it
everywhere in the word, and repeat. `PickyBpe` does that.

The loop a student reads is `textbook/picky_bpe_train.py`; `PickyBpeTrainer` here extends the
fast `BpeTrainer` (incremental counts, a heap) and is proved equal to it step by step by
tests/core/models/test_picky_bpe.py.

"abc" x5 and "abd" x1 at tau = 0.8: (a, b) merges 6 times; (ab, c) 5 times, which uses up 5/6 of
"ab" (IoS 0.83 > 0.8), so "ab" is removed and "abd" is spelled a b d again; the freed id leaves
room for one more merge, (a, b) once more, which restores "ab" with its id.

>>> t = PickyBpeTrainer({"abc": 5, "abd": 1}, 6, threshold=0.8).run()
>>> [(s.new_symbol, s.new_id, [r[0] for r in s.removed], s.restored) for s in t.steps]
[('ab', 4, [], False), ('abc', 5, ['ab'], False), ('ab', 4, [], True)]
"""

from __future__ import annotations

import dataclasses
import heapq
from bisect import bisect_right
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Iterator, Mapping

from ...byte_level import BYTE_TO_CHAR
from ...errors import InvalidInput
from ...steps import register_step, step_from_dict  # noqa: F401  (step_from_dict: doctests)
from .model import BPE, BpeEncodeStep, BpeMergeStep
from .pair_heap import heap_entry  # (the heap's entry encoding, for the removals)
from .trainer import BpeTrainer, check_specials
from .words import byte_bpe_words, check_alphabet, check_min_frequency, check_vocab_size

Removal = tuple[str, float, int, tuple[str, ...]]


@register_step
@dataclass(frozen=True)
class PickyBpeMergeStep(BpeMergeStep):
    """One Picky BPE merge: a `BpeMergeStep` and what is new. `merged` is how many occurrences
    the merge made (weighted; `count` counts overlapping pairs too); `ios` the Intersection over
    Self of the left and right tokens (one value when they are the same token); `removed` each
    token removed after the merge as (token, its IoS, the id freed, the tokens it splits into);
    `restored` says the merge made again a token removed before; `vocab_after` counts the
    tokens present after the step.

    >>> s = PickyBpeMergeStep(1, ("ab", "c"), 5, "abc", 5, (), 0, False, ("abc",), 1, 5,
    ...                       (1.0, 1.0), (("ab", 1.0, 4, ("a", "b")),), False, 5)
    >>> step_from_dict(s.to_dict()) == s
    True
    """

    kind: ClassVar[str] = "picky_bpe_merge"
    merged: int
    ios: tuple[float, ...]
    removed: tuple[Removal, ...]
    restored: bool
    vocab_after: int


def check_threshold(threshold: Any) -> float:
    """The IoS threshold tau: a number above 0 (above 1 removes nothing).

    >>> check_threshold(0.9)
    0.9
    >>> check_threshold(0)
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: threshold must be a number above 0 (tau; 0.9 in the \
paper's best runs, above 1 for plain BPE), not 0
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not threshold > 0:
        raise InvalidInput(
            "threshold must be a number above 0 (tau; 0.9 in the paper's best runs, above 1 "
            f"for plain BPE), not {threshold!r}"
        )
    return float(threshold)


def picky_word_table(lines: Iterable[str], prefix: str = "▁") -> dict[str, int]:
    """The authors' word table: each line split on whitespace, each word with `prefix` in front
    (their `WHITESPACE`), one symbol per character.

    >>> picky_word_table(["the cat", "the"])
    {'▁the': 2, '▁cat': 1}
    """
    counts: Counter[str] = Counter()
    for line in lines:
        counts.update(prefix + word for word in line.split())
    return dict(counts)


def ios_of(merged: int, rest: int) -> float:
    """IoS = what the merge used / (what is left + what the merge used), as the authors write it.

    >>> ios_of(3, 1)
    0.75
    """
    return merged / (rest + merged)


class PickyBpeTrainer(BpeTrainer):
    """The fast trainer with Picky BPE's removals: `step()` gives one `PickyBpeMergeStep` per
    merge (None at the end). Takes `BpeTrainer`'s word table and options, and `threshold` (tau).

    The incremental bookkeeping of a removal (`_remove`): the words holding the token are
    re-spelled, their pairs counted out and in again, and each pair that gained gets a heap
    entry. A removal (or a merge restoring a removed token) can give a pair occurrences after
    its first entry was made, so a pair may have several entries, each listing some of its
    words: the entries are kept by pair (`_seqs`), a merge visits the words of all of them, and
    a merged pair's count drops to zero (its other entries then sink)."""

    def __init__(self, words: dict, vocab_size: int, *, threshold: float, **options: Any) -> None:
        super().__init__(words, vocab_size, **options)
        self.target = vocab_size
        self.threshold = check_threshold(threshold)
        self.removed: set[int] = set()
        self.parts: dict[int, tuple[int, int]] = {}  # a merged token's parts, when first made
        self.freq: list[int] = [0] * len(self.symbols)  # each token's occurrences now
        for word, count in zip(self.words, self.counts):
            for c, n in Counter(word).items():
                self.freq[ord(c)] += n * count
        self._seqs: defaultdict[str, list[int]] = defaultdict(list)  # pair -> its heap entries
        self._registered = 0
        self._register()
        self._merged = 0
        self.events: list[tuple[str, Any]] = []  # ("merge", (a, b)) / ("remove", (x, split))

    # -- the loop: count -> pick -> merge -> record, then check both parts ----------------------
    def step(self) -> PickyBpeMergeStep | None:
        size = len(self.symbols)
        step = super().step()  # pick the most frequent pair, merge it, record the merge
        if step is None:
            return None  # training is over
        a, b = self.merges[-1]
        new, m = step.new_id, self._merged
        restored = new in self.removed
        self._count_merge(a, b, new, size, m)  # the new token's occurrences, its parts' fewer
        ios, removed = [], []
        for x in (a,) if a == b else (a, b):  # IoS of each part, the left one first
            value = ios_of(m, self.freq[x])
            ios.append(value)
            if value > self.threshold and x >= self.alphabet_size:  # used up: remove it
                removed.append(self._remove(x, value))
        self.vocab_size = self.target + len(self.removed)  # a freed id makes room
        fields = {f.name: getattr(step, f.name) for f in dataclasses.fields(BpeMergeStep)}
        out = PickyBpeMergeStep(
            **fields, merged=m, ios=tuple(ios), removed=tuple(removed), restored=restored,
            vocab_after=len(self.symbols) - len(self.removed),
        )  # fmt: skip
        self.steps[-1] = out
        return out

    # -- bookkeeping helpers ---------------------------------------------------------------------
    def _count_merge(self, a: int, b: int, new: int, size: int, m: int) -> None:
        """Frequencies after merging (a, b) m times; a new token remembers its parts."""
        if new == size:
            self.freq.append(0)
            self.parts[new] = (a, b)
        self.removed.discard(new)
        self.freq[a] -= m
        self.freq[b] -= m
        self.freq[new] += m
        self.events.append(("merge", (a, b)))

    def _register(self) -> None:
        """File the heap entries made since the last call under their pairs."""
        entries, seqs = self._entries, self._seqs
        for seq in range(self._registered, len(entries)):
            entry = entries[seq]
            if entry is not None:
                seqs[entry[0]].append(seq)
        self._registered = len(entries)

    def _pop_best(self) -> tuple[str, int, Any] | None:
        """The best pair, with the words of all its entries (one entry but after a removal)."""
        best = super()._pop_best()
        if best is None:
            return None
        key, count, pos = best
        others = [self._entries[s] for s in self._seqs.pop(key, ())]
        if not any(others):
            return best
        return key, count, sorted({*pos, *(i for e in others if e is not None for i in e[1])})

    def _apply_merge(
        self, key: str, new: str, positions: Iterable[int], fresh: bool = False
    ) -> list[int]:
        words, counts = self.words, self.counts
        before = {i: len(words[i]) for i in positions}
        changed = super()._apply_merge(key, new, before, fresh)
        self._merged = sum((before[i] - len(words[i])) * counts[i] for i in changed)
        self.pair_counts[key] = 0  # all merged: any other entry of this pair is stale
        self._register()
        return changed

    def split_of(self, x: int) -> list[int]:
        """What removed token x stands for: its parts, each split again if removed too (the
        authors' `Token.walk`)."""
        if x < self.alphabet_size or x not in self.removed:
            return [x]
        a, b = self.parts[x]
        return self.split_of(a) + self.split_of(b)

    def _remove(self, x: int, ios: float) -> Removal:
        """Remove token x: split it in every word that holds it, move its occurrences to its
        parts, and recount the pairs of those words (gains get heap entries)."""
        self.removed.add(x)
        split = self.split_of(x)
        rest, self.freq[x] = self.freq[x], 0
        for t in split:
            self.freq[t] += rest
        code, spelled = chr(x), "".join(map(chr, split))
        words, counts, pc = self.words, self.counts, self.pair_counts
        gained: defaultdict[str, list[int]] = defaultdict(list)
        for i, word in enumerate(words):
            if code not in word:
                continue
            w = counts[i]
            for k in map(str.__add__, word, word[1:]):
                pc[k] -= w
            word = words[i] = word.replace(code, spelled)
            for k in map(str.__add__, word, word[1:]):
                gained[k].append(i)
        weight = counts.__getitem__
        for k, where in gained.items():
            pc[k] = c = pc[k] + sum(map(weight, where))
            if c > 0:
                heapq.heappush(self._heap, heap_entry(c, k, len(self._entries)))
                self._entries.append((k, where))
        self._register()
        self.events.append(("remove", (x, tuple(split))))
        sym = self.symbols
        return (sym[x], ios, x, tuple(sym[t] for t in split))

    # -- results ---------------------------------------------------------------------------------
    def vocab(self) -> dict[str, int]:
        """The tokens present, with ids renumbered in training order (freed ids closed up, as
        the authors' `id2int`)."""
        present = [s for i, s in enumerate(self.symbols) if i not in self.removed]
        return {s: i for i, s in enumerate(present)}

    def event_strings(self) -> list[tuple[str, tuple[str, ...]]]:
        """The training's events as strings, in order: ("merge", (left, right)) and
        ("remove", (token, *its split))."""
        sym = self.symbols
        out: list[tuple[str, tuple[str, ...]]] = []
        for kind, data in self.events:
            if kind == "merge":
                out.append((kind, (sym[data[0]], sym[data[1]])))
            else:
                out.append((kind, (sym[data[0]], *(sym[t] for t in data[1]))))
        return out


def picky_bpe_trainer(
    lines: Iterable[str] | None,
    vocab_size: int,
    *,
    threshold: float = 0.9,
    pattern: str = "gpt2",
    min_frequency: int = 0,
    special_tokens: Iterable[str] = (),
    annotate: bool = True,
    words: Mapping[str, int] | None = None,
) -> PickyBpeTrainer:
    """A stepper for "picky_bpe": "byte_bpe"'s words (the `pattern` pieces in byte-level
    spelling, the 256 bytes as the alphabet) and Picky BPE's removals at `threshold`. `words`,
    when given, is that word table already counted (a byte_bpe counts file's), in place of
    `lines`.

    >>> t = picky_bpe_trainer(["abc abc abc abd"], 260, threshold=0.6).run()
    >>> [s.new_symbol for s in t.steps]
    ['ab', 'Ġab', 'Ġabc', 'ab', 'Ġab', 'abc', 'Ġabd']
    >>> [(s.index, r[0], s.restored) for s in t.steps for r in s.removed]
    [(1, 'ab', False), (2, 'Ġab', False), (5, 'ab', False), (6, 'Ġab', False)]
    """
    threshold = check_threshold(threshold)
    vocab_size = check_vocab_size(vocab_size)
    specials = check_specials(special_tokens)
    check_alphabet(
        vocab_size, len({*specials, *BYTE_TO_CHAR.values()}), "the special tokens and 256 bytes"
    )
    return PickyBpeTrainer(
        byte_bpe_words(lines or (), pattern) if words is None else dict(words), vocab_size,
        threshold=threshold,
        min_frequency=check_min_frequency(min_frequency), special_tokens=specials,
        initial_alphabet=BYTE_TO_CHAR.values(), annotate=annotate,
    )  # fmt: skip


# ---- the model: replaying the events ------------------------------------------------------------
def _after(events: list[int] | None, last: int) -> int | None:
    """The first event index in `events` (sorted) after `last`, or None."""
    if not events:
        return None
    k = bisect_right(events, last)
    return events[k] if k < len(events) else None


def _merge_all(parts: list[str], pair: tuple[str, str]) -> list[str]:
    """Merge every occurrence of `pair`, left to right, without overlap."""
    out: list[str] = []
    i = 0
    while i < len(parts):
        if i + 1 < len(parts) and parts[i] == pair[0] and parts[i + 1] == pair[1]:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(parts[i])
            i += 1
    return out


class PickyBpe(BPE):
    """A Picky BPE model: the vocabulary (the tokens present) and the training's `events` in
    order, ("merge", (left, right)) and ("remove", (token, *its split)). A piece is encoded by
    replaying the events (the module docstring): the earliest event after the last applied that
    applies to the piece goes next, everywhere in the piece.

    >>> m = PickyBpe({"a": 0, "b": 1, "c": 2, "d": 3, "ab": 4, "abc": 5},
    ...              [("merge", ("a", "b")), ("merge", ("ab", "c")), ("remove", ("ab", "a", "b")),
    ...               ("merge", ("a", "b"))])
    >>> m.merge_parts(list("abcabd"))
    ['abc', 'ab', 'd']
    """

    def __init__(
        self, vocab: dict[str, int], events: list[tuple[str, tuple[str, ...]]], **options: Any
    ) -> None:
        self.events = [(kind, tuple(data)) for kind, data in events]
        super().__init__(vocab, [d for k, d in self.events if k == "merge"], **options)  # type: ignore[misc]
        self._merge_at: defaultdict[tuple[str, ...], list[int]] = defaultdict(list)
        self._remove_at: defaultdict[str, list[int]] = defaultdict(list)
        for r, (kind, data) in enumerate(self.events):
            if kind == "merge":
                self._merge_at[data].append(r)
            elif kind == "remove":
                self._remove_at[data[0]].append(r)
            else:
                raise InvalidInput(f"a Picky BPE event is a merge or a remove, not {kind!r}")

    def describe(self) -> str:
        removed = sum(1 for k, _d in self.events if k == "remove")
        return f"Picky BPE, {len(self.vocab):,} tokens, {removed:,} removals replayed in order"

    def to_hf_config(self) -> dict:
        raise InvalidInput(
            "Picky BPE encodes by replaying merges and removals in order; Hugging Face's BPE "
            "(tokenizer.json) has no removals, so this model has no exact tokenizer.json form"
        )

    def merge_parts(self, parts: list[str], limit: int | None = None) -> list[str]:
        """Replay the events on `parts` (with `limit`: only events before it)."""
        for _before, _r, _where, parts in self._replay(list(parts), limit):
            pass
        return parts

    def encode_steps(self, piece: str, limit: int | None = None) -> Iterator[BpeEncodeStep]:
        """One step per event applied: a merge ("merge", `rank` its event index, `chosen` the
        first place it applies) or a removal ("remove", `replaced` each place the token was
        split, with what stands for it)."""
        for index, (before, r, where, _after_parts) in enumerate(
            self._replay(self.initial_parts(piece), limit)
        ):
            kind, data = self.events[r]
            if kind == "merge":
                yield BpeEncodeStep(index, before, ((where, r),), where, r, data[0] + data[1])
            else:
                spots = tuple((i, p, data[1:]) for i, p in enumerate(before) if p == data[0])
                yield BpeEncodeStep(index, before, (), -1, r, "", "remove", spots)

    def _replay(self, parts: list[str], limit: int | None):
        """Yield (parts before, event index, first place, parts after) per event applied."""
        last = -1
        while True:
            best, where = None, -1
            for i in range(len(parts) - 1):
                r = _after(self._merge_at.get((parts[i], parts[i + 1])), last)
                if r is not None and (best is None or r < best):
                    best, where = r, i
            for token in set(parts):
                r = _after(self._remove_at.get(token), last)
                if r is not None and (best is None or r < best):
                    best, where = r, -1
            if best is None or (limit is not None and best >= limit):
                return
            kind, data = self.events[best]
            if kind == "merge":
                after = _merge_all(parts, (data[0], data[1]))
            else:
                after = [q for p in parts for q in (data[1:] if p == data[0] else (p,))]
            yield tuple(parts), best, where, after
            parts, last = after, best

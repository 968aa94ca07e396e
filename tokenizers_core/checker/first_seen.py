"""BPE with minbpe's tie-break, incrementally: the same merges as the textbook trainer run with
`ties="dict"` (`textbook.bpe_train`, which recounts every pair at every merge), without the
recount.

minbpe's loop is `stats = get_stats(ids); pair = max(stats, key=stats.get)`: the highest count
wins, and on a tie the pair *seen first* in the text as it stands after the merges so far,
because a fresh dict keeps its keys in the order they first occur. Here each pair carries its
count and where it first occurs, (word, position): the word is the first word of the table
holding the pair (the table keeps words in the order they first occur in the text, so that is
where the text first holds it) and the position its first place in that word. A heap ordered by
(-count, word, position) gives minbpe's pick; entries go stale when a merge changes a pair and
are dropped when they surface (lazy deletion). A merge rescans only the words holding the pair.

>>> words = [(("l", "o", "w", "</w>"), 5), (("l", "o", "w", "e", "r", "</w>"), 2)]
>>> trainer = FirstSeenBpe(words, vocab_size=8)
>>> [trainer.merge_next() for _ in range(3)]
[(('l', 'o'), 7), (('lo', 'w'), 7), None]

Not handled: counting each distinct word once (`weighted=False`), which the replays of
`replay.py` cover.
"""

from __future__ import annotations

import heapq
from typing import Iterable, Sequence

from ..textbook.common import Pair, get_stats, merge

Where = tuple[int, int]  # (word number, position in that word) of a pair's first occurrence


class FirstSeenBpe:
    """The textbook trainer's merges under minbpe's tie-break, one `merge_next()` at a time.

    `words` is the word table, (symbols, frequency), in the order the words first occur;
    `vocab_size` counts the special tokens, the alphabet and the initial symbols (the ids the
    textbook trainer gives) and every new symbol string, as `textbook.bpe_train` does.
    """

    def __init__(
        self,
        words: Sequence[tuple[tuple[str, ...], int]],
        vocab_size: int,
        *,
        alphabet: Iterable[str] = (),
        special_tokens: Iterable[str] = (),
        min_frequency: int = 0,
    ) -> None:
        self.words = [tuple(w) for w, _f in words]
        self.freqs = [f for _w, f in words]
        symbols = {*alphabet, *(s for w in self.words for s in w)}
        self.vocab = {*special_tokens, *symbols}  # the ids the textbook trainer hands out
        self.vocab_size = vocab_size
        self.min_frequency = min_frequency
        self.counts: dict[Pair, int] = {}  # pair -> weighted count
        self.holders: dict[Pair, set[int]] = {}  # pair -> the words holding it
        self.first_holder: dict[Pair, list[int]] = {}  # pair -> heap of words (lazy)
        self.first: dict[Pair, Where] = {}  # pair -> its first occurrence
        self.heap: list[tuple[int, int, int, Pair]] = []  # (-count, word, position, pair)
        for w, word in enumerate(self.words):
            for pair, n in _pair_counts(word).items():
                self._add(pair, w, n * self.freqs[w], holds=True)
        for pair in self.counts:
            self._locate(pair)

    def merge_next(self) -> tuple[Pair, int] | None:
        """Pick the pair minbpe picks and merge it everywhere: (pair, count), or None when the
        vocabulary is full or no pair is left (or the best is below `min_frequency`)."""
        best = self.next_merge()  # the most frequent pair, the first seen on a tie <- pick
        if best is None:
            return None  # full, or no pair left to merge <- stop
        self.apply(best[0])  # merge it in every word that holds it <- merge
        return best  # record

    def next_merge(self) -> tuple[Pair, int] | None:
        """The merge `merge_next` would make, without making it (None: training stops)."""
        best = self.pick()
        if best is None or len(self.vocab) >= self.vocab_size or best[1] < self.min_frequency:
            return None
        return best

    def pick(self) -> tuple[Pair, int] | None:
        """The pair `max(get_stats(table), key=...)` would give now, with its count."""
        while self.heap:
            neg, w, i, pair = self.heap[0]
            if self.counts.get(pair) == -neg and self.first.get(pair) == (w, i):
                return pair, -neg
            heapq.heappop(self.heap)  # stale: the pair changed since it was pushed
        return None

    def apply(self, pair: Pair) -> None:
        """Merge `pair` in every word holding it, updating the counts and first occurrences of
        every pair in those words."""
        new = pair[0] + pair[1]
        moved: set[Pair] = set()  # pairs whose counts or first occurrences may have changed
        for w in sorted(self.holders[pair]):
            before = _pair_counts(self.words[w])
            self.words[w] = merge(self.words[w], pair, new)
            for p, n in _pair_counts(self.words[w]).items():
                was = before.pop(p, 0)
                if n != was:
                    self._add(p, w, (n - was) * self.freqs[w], holds=True)
                    moved.add(p)
                elif self.first[p][0] == w:  # held as before, but its position may shift
                    moved.add(p)
            for p, was in before.items():  # no longer in this word
                self._add(p, w, -was * self.freqs[w], holds=False)
                moved.add(p)
        self.vocab.add(new)
        for p in moved:
            self._locate(p)

    def table(self) -> list[tuple[tuple[str, ...], int]]:
        """The word table as it stands (after the merges so far)."""
        return list(zip(self.words, self.freqs))

    def stats(self) -> dict[Pair, int]:
        """The pair counts as minbpe's `get_stats` gives them now (first-seen order)."""
        return get_stats(self.table())

    # ---- bookkeeping ---------------------------------------------------------------------
    def _add(self, pair: Pair, w: int, delta: int, *, holds: bool) -> None:
        """Add `delta` to `pair`'s count from word w (which `holds` it now or not), keeping
        which words hold it."""
        count = self.counts.get(pair, 0) + delta
        holders = self.holders.setdefault(pair, set())
        if holds:
            if w not in holders:
                holders.add(w)
                heapq.heappush(self.first_holder.setdefault(pair, []), w)
        else:
            holders.discard(w)
        if count > 0:
            self.counts[pair] = count
        else:  # gone from the text, as from a fresh get_stats
            self.counts.pop(pair, None)
            self.holders.pop(pair, None)
            self.first_holder.pop(pair, None)
            self.first.pop(pair, None)

    def _locate(self, pair: Pair) -> None:
        """Find where `pair` first occurs now, and push it with its count."""
        if pair not in self.counts:
            return
        holders, heap = self.holders[pair], self.first_holder[pair]
        while heap[0] not in holders:
            heapq.heappop(heap)  # a word that no longer holds it
        w = heap[0]
        word = self.words[w]
        i = next(i for i in range(len(word) - 1) if (word[i], word[i + 1]) == pair)
        self.first[pair] = (w, i)
        heapq.heappush(self.heap, (-self.counts[pair], w, i, pair))


def _pair_counts(word: tuple[str, ...]) -> dict[Pair, int]:
    """How often each pair of neighbours occurs in a word (a plain dict: words are short, and
    a Counter's set-up cost more than the counting)."""
    counts: dict[Pair, int] = {}
    for pair in zip(word, word[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts

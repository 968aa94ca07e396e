"""The bookkeeping of `BpeTrainer` (`trainer.py`): the pair counts, the pair -> words index and the
heap that gives the best pair, kept up to date merge by merge instead of recounted.

`PairHeap` is the base class of the trainer: its methods work on the trainer's state (the word
table `words` and `counts`, the `symbols`, the `pair_counts`, `_heap` and `_entries`), so that the
trainer's loop reads count -> pick -> merge -> record, each step one call here:

- `_count_all_pairs`: count every adjacent pair once and index the words holding it;
- `_pop_best`: the best pair off the heap, stale entries refreshed as they surface (lazy
  deletion, as Hugging Face's trainer), or None with the reason training stops;
- `_apply_merge`: merge a pair in the words that hold it and update the neighbouring counts;
- `_settle`, `_ties`, `_walk`: the pairs that tied with the best (for the views).

Inside the trainer a symbol is the one character chr(id), a word is a str of such characters and
a pair is a 2-character str: merging a pair in a word is `str.replace`, and comparing two pairs
as strings compares (id(left), id(right)), the tie-break order.

>>> heap_entry(5, chr(1) + chr(2), 0) < heap_entry(5, chr(1) + chr(3), 0) < heap_entry(4, "ab", 0)
True
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from typing import Iterable

TIES_SHOWN = 6  # the tied pairs a step lists

# A heap entry is one int, so that the heap compares ints, not tuples:
#     (-count << _COUNT_SHIFT) + (id(left) << 52) + (id(right) << 32) + seq
# Smallest first means: the highest count, then the smaller (id(left), id(right)), then the older
# entry. `seq` indexes `BpeTrainer._entries`, which holds the entry's pair and its words to visit.
_COUNT_SHIFT = 72
_LOW = (1 << _COUNT_SHIFT) - 1  # everything below the count: the pair and seq
_SEQ = (1 << 32) - 1
_WRAP = 1 << 64  # a negative count read as Rust's u64


def heap_entry(count: int, key: str, seq: int) -> int:
    """The heap entry of a pair (`key`, two symbol characters) with `count`, its words at `seq`."""
    return (-count << _COUNT_SHIFT) + (ord(key[0]) << 52) + (ord(key[1]) << 32) + seq


class PairHeap:
    """The pair counts, the pair -> words index and the heap of a `BpeTrainer` (see the module
    docstring): what the trainer's loop calls to pick and to merge."""

    # the trainer's state these methods keep (set by `BpeTrainer.__init__`)
    words: list[str]
    counts: list[int]
    symbols: list[str]
    lengths: list[int]
    vocab_size: int
    min_frequency: int
    max_token_length: int | None
    stop_reason: str
    pair_counts: defaultdict[str, int]
    _heap: list[int]
    _entries: list[tuple[str, list[int]] | None]
    _occ: dict[int, list[int]] | None

    def _count_all_pairs(self) -> None:
        """Count every adjacent pair once, weighted by word frequency; index where each occurs.

        The index lists a word once per occurrence of the pair in it, so a pair's count is the
        sum of those words' frequencies (a C-level `sum`); visiting a word twice when merging is
        harmless (the second visit finds nothing left to merge)."""
        where: dict[str, list[int]] = {}
        get = where.get
        for i, word in enumerate(self.words):
            for key in map(str.__add__, word, word[1:]):
                pos = get(key)
                if pos is None:
                    where[key] = [i]
                else:
                    pos.append(i)
        weight = self.counts.__getitem__
        counts = self.pair_counts
        for key, pos in where.items():
            counts[key] = sum(map(weight, pos))
        self._entries = list(where.items())
        self._heap = [heap_entry(counts[key], key, seq) for seq, key in enumerate(where)]
        heapq.heapify(self._heap)

    def _pop_best(self) -> tuple[str, int, list[int]] | None:
        """The best pair (key, count, words to visit), or None when training must stop.

        Heap entries go stale as counts change; a stale entry that surfaces is re-queued with the
        pair's current count (lazy deletion), exactly like Hugging Face's trainer.
        """
        heap, entries, counts = self._heap, self._entries, self.pair_counts
        while True:
            if len(self.symbols) >= self.vocab_size:
                self.stop_reason = f"the vocabulary reached {self.vocab_size} symbols"
                return None
            if not heap:
                self.stop_reason = "no pair is left to merge"
                return None
            top = heap[0]
            entry = entries[top & _SEQ]
            assert entry is not None  # an entry is forgotten only when it leaves the heap
            key, pos = entry
            current = counts[key]
            if current < 0:  # counted in one place, too long to count in another (see
                current += _WRAP  # `_places`): Hugging Face reads it as u64, so it wraps and wins
            if top >> _COUNT_SHIFT != -current:  # stale: re-queue with the current count
                heapq.heapreplace(heap, (-current << _COUNT_SHIFT) + (top & _LOW))
                continue
            if current < 1 or self.min_frequency > current:
                self.stop_reason = (
                    f"the best pair occurs {current} times, below "
                    f"min_frequency {self.min_frequency}"
                    if current >= 1
                    else "no pair is left to merge"
                )
                return None
            heapq.heappop(heap)
            entries[top & _SEQ] = None
            return key, current, pos

    def _apply_merge(
        self, key: str, new: str, positions: Iterable[int], fresh: bool = False
    ) -> list[int]:
        """Merge the pair `key` -> `new` in the given words (left to right, as `str.replace`
        does) and update the neighbouring pair counts in place: each merge turns `x a` into
        `x new` and `b y` into `new y` (between two merges, `b a` becomes `new new`). The merged
        pair's own count is left alone, as in Hugging Face. Returns the changed words.

        Each pair that gained occurrences gets a heap entry listing the words where it gained
        (a word once per occurrence): its gain is the sum of those words' frequencies, summed
        in C at the end rather than added occurrence by occurrence. `fresh` says `new` is a
        symbol made just now (nearly always), so no word holds it yet."""
        words, counts, pc = self.words, self.counts, self.pair_counts
        a, b = key[0], key[1]
        ba = b + a
        made: defaultdict[str, list[int]] = defaultdict(list)  # pair -> words where it gained
        occ = self._occ  # (None without max_token_length)
        measured = made if occ is None else defaultdict(list)  # gains checked place by place
        changed = []
        for i in positions:
            head, found, tail = words[i].partition(key)
            if not found:
                continue  # a stale position: nothing to do
            changed.append(i)
            w = counts[i]
            if occ is not None and (not fresh or i in occ):  # lengths tracked place by place
                self._apply_merge_slow(i, key, new, measured)
            elif not fresh and new in words[i]:  # `new` already here (the same string
                self._apply_merge_slow(i, key, new, made)  # made twice): the general way
            elif key in tail:  # two or more occurrences
                word = words[i] = words[i].replace(key, new)
                last = len(word) - 1
                j = word.find(new)
                while j >= 0:
                    if j > 0:
                        p = word[j - 1]
                        pc[ba if p == new else p + a] -= w
                        made[p + new].append(i)
                    if j < last:
                        q = word[j + 1]
                        if q != new:  # (new, new) is counted from its right end
                            pc[b + q] -= w
                            made[new + q].append(i)
                    j = word.find(new, j + 1)
            else:  # one occurrence: x a b y -> x new y
                words[i] = head + new + tail
                if head:
                    p = head[-1]
                    pc[p + a] -= w
                    made[p + new].append(i)
                if tail:
                    q = tail[0]
                    pc[b + q] -= w
                    made[new + q].append(i)
        heap, entries, push = self._heap, self._entries, heapq.heappush
        weight = counts.__getitem__
        if occ is not None:
            self._drop_long(made)
            for k, where in measured.items():
                made[k].extend(where)
        for k, where in made.items():
            pc[k] = c = pc[k] + sum(map(weight, where))
            if c > 0:
                push(heap, heap_entry(c, k, len(entries)))
                entries.append((k, where))
        return changed

    def _drop_long(self, made: dict[str, list[int]]) -> None:
        """Forget the gains of pairs too long to merge: as Hugging Face's `Word::merge`, a new
        neighbour pair counts only while it spans fewer than `max_token_length` initial symbols
        (so merged tokens stay shorter than that, the first merges of two symbols aside)."""
        lengths, limit = self.lengths, self.max_token_length
        if limit is None:  # (only called with a limit)
            return
        for k in [k for k in made if lengths[ord(k[0])] + lengths[ord(k[1])] >= limit]:
            del made[k]

    def _places(self, i: int, word: list[str]) -> list[int] | None:
        """How many initial symbols each place of word i spans (None without max_token_length).
        Hugging Face measures a merged place as the sum of its two parts, so a symbol made
        again from other parts ("a" + "bc" after a suffix form "abc") may span more there."""
        if self._occ is None:
            return None
        return self._occ.get(i) or [self.lengths[ord(c)] for c in word]

    def _apply_merge_slow(self, i: int, key: str, new: str, made: dict[str, list[int]]) -> None:
        """Hugging Face's `Word::merge` literally, one occurrence at a time (used only when the
        merged symbol already occurs in the word). Gains go to `made`, as in `_apply_merge`."""
        a, b = key[0], key[1]
        word = list(self.words[i])
        w = self.counts[i]
        pc = self.pair_counts
        places = self._places(i, word)
        limit = self.max_token_length

        def change(k: str, delta: int, span: int = 0) -> None:
            if delta < 0:
                pc[k] -= w
            elif limit is None or span < limit:  # as `Word::merge`: a pair too long
                made[k].append(i)  # to merge is not counted

        j = 0
        while j < len(word) - 1:
            if word[j] == a and word[j + 1] == b:
                span = places[j] + places[j + 1] if places else 0
                if j > 0:
                    change(word[j - 1] + a, -1)
                    change(word[j - 1] + new, 1, span + (places[j - 1] if places else 0))
                word[j : j + 2] = [new]
                if places:
                    places[j : j + 2] = [span]
                if j < len(word) - 1:
                    change(b + word[j + 1], -1)
                    change(new + word[j + 1], 1, span + (places[j + 1] if places else 0))
            j += 1
        self.words[i] = "".join(word)
        if places and self._occ is not None:  # (places are measured only with `_occ`)
            self._occ[i] = places

    def _settle(self, count: int) -> None:
        """Refresh the stale entries on top of the heap that claim at least `count` (the best
        pair's), as the next `_pop_best` would, so that `_ties` mostly finds a valid top.

        Only called before a merge that makes a new symbol: such a merge lowers the counts of
        the pairs that have entries (and gives fresh pairs their first), so refreshing an entry
        now rather than after the merge changes nothing in what the heap gives next."""
        heap, entries, pc = self._heap, self._entries, self.pair_counts
        replace = heapq.heapreplace
        while heap and -(heap[0] >> _COUNT_SHIFT) >= count:
            top = heap[0]
            entry = entries[top & _SEQ]
            assert entry is not None  # an entry is forgotten only when it leaves the heap
            current = pc[entry[0]]
            if top >> _COUNT_SHIFT == -current:
                return
            replace(heap, (-current << _COUNT_SHIFT) + (top & _LOW))

    def _ties(self, count: int, best_key: str) -> tuple[list[str], bool]:
        """Other pairs whose current count is also `count` (they lost the tie-break), in
        tie-break order: a best-first walk down the heap, at most a few dozen entries."""
        found, more = self._walk(TIES_SHOWN, count, best_key, max_visits=16)
        return [k for k, _ in found], more

    def _walk(
        self, limit: int, min_count: int, skip_key: str, max_visits: int
    ) -> tuple[list[tuple[str, int]], bool]:
        """Best-first walk of the heap giving valid (pair, count) in (count desc, pair asc) order.

        A stale entry is re-queued in the walk with its current count, so the order is exact.
        Returns (pairs, more) where `more` says the walk stopped early."""
        heap, entries, pc = self._heap, self._entries, self.pair_counts
        if not heap or -(heap[0] >> _COUNT_SHIFT) < min_count:
            return [], False
        floor = max(min_count, 1)
        size = len(heap)
        frontier = [(heap[0], 0)]  # (entry, its index in the heap, or -1)
        seen = {skip_key}
        out: list[tuple[str, int]] = []
        visits = 0
        while frontier:
            top, idx = heapq.heappop(frontier)
            stored = -(top >> _COUNT_SHIFT)
            if stored < min_count:
                return out, False
            if idx >= 0:
                for c in (2 * idx + 1, 2 * idx + 2):
                    if c < size and -(heap[c] >> _COUNT_SHIFT) >= min_count:
                        heapq.heappush(frontier, (heap[c], c))
            entry = entries[top & _SEQ]
            assert entry is not None  # an entry is forgotten only when it leaves the heap
            key = entry[0]
            if key in seen:
                continue
            visits += 1
            actual = pc.get(key, 0)
            if actual == stored:
                seen.add(key)
                out.append((key, actual))
                if len(out) >= limit:
                    return out, bool(frontier) and -(frontier[0][0] >> _COUNT_SHIFT) >= floor
            elif floor <= actual < stored:
                heapq.heappush(frontier, ((-actual << _COUNT_SHIFT) + (top & _LOW), -1))
            if visits >= max_visits:
                return out, True
        return out, False

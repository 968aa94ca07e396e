"""The reference a student's code is graded against: byte-level BPE as each course defines it,
trained and applied here, exactly.

Training is minbpe's and CS336's loop over token ids (count -> pick -> merge -> record), run
incrementally on a table of pre-tokenised words (a merge touches only the words holding its
pair). What differs between the courses is said by three switches:

- the words (`words`): minbpe's BasicTokenizer reads the whole text as one sequence ("basic"),
  its RegexTokenizer splits it with GPT-4's pattern ("gpt4"); CS336 splits the text on its special
  tokens first (so no merge crosses one) and each part with GPT-2's pattern ("gpt2");
- the ids: minbpe's bytes are ids 0-255 and merge i makes id 256 + i; CS336's vocabulary is the
  special tokens, the 256 bytes, then the merges;
- the tie rule (`TIES`), when several pairs share the highest count: "minbpe" (the pair seen
  first in the text as it stands: `max(stats, key=stats.get)` over a dict that keeps the order
  pairs first occur), "cs336" (the lexicographically greater pair of byte strings), "hf"
  (Hugging Face's BpeTrainer: the pair of earlier-made symbols, the 256 bytes ranked as their
  GPT-2 byte-to-unicode characters sort). "smaller" and "greater_ids" are mistakes students
  make, kept for replaying them (`checks.py`).

>>> t = train_reference([(tuple(b"abab"), 1), (tuple(b"ba"), 1)], 2, ties="cs336")
>>> [(t.vocab[a] + t.vocab[b], n) for (a, b), n in t.steps]    # ab 2, ba 2: "ba" > "ab"
[(b'ba', 2), (b'bab', 1)]

Not handled: a merge whose bytes equal an earlier token's (minbpe and CS336 mint a new id;
Hugging Face's string-keyed vocabulary would reuse it, so "hf" ties then part from it).
"""

from __future__ import annotations

import heapq
from typing import Iterable, Sequence

import regex

# The split patterns, as the courses write them (minbpe/regex.py; CS336's assignment handout).
GPT2_SPLIT_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
GPT4_SPLIT_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s+"""
)
PATTERNS = {"gpt2": GPT2_SPLIT_PATTERN, "gpt4": GPT4_SPLIT_PATTERN}

TIES = {
    "minbpe": "minbpe's rule: on a tie, the pair seen first in the text wins (Python's max over "
    "the pair counts, which keep the order in which pairs first occur)",
    "cs336": "CS336's rule: on a tie, the lexicographically greater pair of byte strings wins "
    "(max over (bytes_a, bytes_b))",
    "hf": "Hugging Face's rule: on a tie, the pair of earlier-made symbols wins (the smallest "
    "(id(left), id(right)), the bytes ranked as their GPT-2 characters sort)",
}
MISTAKEN_TIES = {
    "smaller": "on a tie, the lexicographically smaller pair of byte strings wins (min instead "
    "of max)",
    "greater_ids": "on a tie, the pair of greater token ids wins (ids compared, not bytes)",
}

Pair = tuple[int, int]
Word = tuple[int, ...]


def _gpt2_byte_ranks() -> list[int]:
    """Where each byte's GPT-2 character sorts among the 256 (Hugging Face's byte-level ids)."""
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    chars, n = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = b
        else:
            chars[b] = 256 + n
            n += 1
    order = sorted(range(256), key=lambda b: chars[b])
    ranks = [0] * 256
    for rank, b in enumerate(order):
        ranks[b] = rank
    return ranks


_HF_BYTE_RANKS = _gpt2_byte_ranks()


def split_specials(text: str, specials: Sequence[str], *, longest_first: bool = True) -> list:
    """The text cut at its special tokens: [(part, is_special), ...]. CS336 matches the longest
    special first (so "<|endoftext|><|endoftext|>" is one token when both are special); minbpe
    tries them in the order they were registered (`longest_first=False`).

    >>> split_specials("a<|e|><|e|>b", ["<|e|>", "<|e|><|e|>"])
    [('a', False), ('<|e|><|e|>', True), ('b', False)]
    >>> split_specials("a<|e|><|e|>b", ["<|e|>", "<|e|><|e|>"], longest_first=False)[1:3]
    [('<|e|>', True), ('<|e|>', True)]
    """
    if not specials:
        return [(text, False)] if text else []
    order = sorted(specials, key=len, reverse=True) if longest_first else list(specials)
    pattern = "(" + "|".join(regex.escape(s) for s in order) + ")"
    out = []
    for i, part in enumerate(regex.split(pattern, text, concurrent=False)):
        if part:
            out.append((part, i % 2 == 1))
    return out


def pretokenize(text: str, words: str, specials: Sequence[str] = ()) -> list[bytes]:
    """The pieces training counts: `words` is "basic" (the whole text, one piece), "gpt2"
    (CS336: cut at the special tokens, which are dropped, then GPT-2's pattern), "gpt4"
    (minbpe's RegexTokenizer: GPT-4's pattern over the whole text, special tokens and all) or
    "gpt2_across" (GPT-2's pattern without cutting at the special tokens: a mistake).

    >>> pretokenize("hi there<|endoftext|>you", "gpt2", ["<|endoftext|>"])
    [b'hi', b' there', b'you']
    """
    if words == "basic":
        return [text.encode("utf-8")] if text else []
    if words == "gpt2":
        parts = [p for p, special in split_specials(text, specials) if not special]
        pattern = regex.compile(GPT2_SPLIT_PATTERN)
        return [m.encode("utf-8") for p in parts for m in pattern.findall(p, concurrent=False)]
    key = {"gpt4": "gpt4", "gpt2_across": "gpt2"}.get(words)
    if key is None:
        raise ValueError(f"unknown pre-tokenisation {words!r}")
    found = regex.compile(PATTERNS[key]).findall(text, concurrent=False)
    return [m.encode("utf-8") for m in found]


def word_table(pieces: Iterable[bytes]) -> list[tuple[Word, int]]:
    """Each distinct piece as its byte values, with its count, in the order pieces first occur
    (so the first word holding a pair is where the text first holds it: minbpe's tie order).

    >>> word_table([b"ab", b"c", b"ab"])
    [((97, 98), 2), ((99,), 1)]
    """
    counts: dict[bytes, int] = {}
    for p in pieces:
        counts[p] = counts.get(p, 0) + 1
    return [(tuple(p), n) for p, n in counts.items()]


class ReferenceBpe:
    """Byte-level BPE over token ids, one merge at a time (`step`), with a stated tie rule.

    `words` is the word table ((byte ids), count) in first-occurrence order; bytes are ids
    0-255, merge i makes id `first_id + i` (CS336's vocabulary puts its special tokens first,
    so its byte b is id len(specials) + b: `vocab_ids` maps ours to the course's). `steps`
    records ((left, right), count) per merge; `counts` is every pair's count as it stands.
    """

    def __init__(self, words: Sequence[tuple[Word, int]], ties: str = "cs336") -> None:
        if ties not in TIES and ties not in MISTAKEN_TIES:
            raise ValueError(f"unknown tie rule {ties!r}; choose one of: {', '.join(TIES)}")
        self.ties = ties
        self.words = [list(w) for w, _n in words]
        self.freqs = [n for _w, n in words]
        self.vocab: dict[int, bytes] = {b: bytes([b]) for b in range(256)}
        self.counts: dict[Pair, int] = {}
        self.holders: dict[Pair, set[int]] = {}
        self.heap: list[tuple[int, Pair]] = []
        self.steps: list[tuple[Pair, int]] = []
        for w, word in enumerate(self.words):
            for pair, n in _pair_counts(word).items():
                self._add(pair, w, n * self.freqs[w])
        for pair, n in self.counts.items():
            self.heap.append((-n, pair))
        heapq.heapify(self.heap)

    def step(self) -> tuple[Pair, int] | None:
        """Make the next merge: (pair, count), or None when no pair is left."""
        best = self.pick()  # the most frequent pair, the tie rule deciding <- pick
        if best is None:
            return None  # nothing left to merge <- stop
        self.apply(best[0])  # merge it in every word holding it <- merge
        self.steps.append(best)  # <- record
        return best

    def pick(self) -> tuple[Pair, int] | None:
        """The pair the next merge takes, and its count (the state is left as it is)."""
        tied = self.tied()
        if not tied:
            return None
        count = self.counts[tied[0]]
        return self.winner(tied), count

    def tied(self) -> list[Pair]:
        """Every pair with the highest count now (stale heap entries dropped on the way)."""
        heap, out, seen = self.heap, [], set()
        while heap and self.counts.get(heap[0][1]) != -heap[0][0]:
            heapq.heappop(heap)  # stale: the pair's count changed since it was pushed
        if not heap:
            return []
        top = heap[0][0]
        while heap and heap[0][0] == top:
            neg, pair = heapq.heappop(heap)
            if self.counts.get(pair) == -neg and pair not in seen:
                seen.add(pair)
                out.append(pair)
        for pair in out:  # put them back: only one of them is merged now
            heapq.heappush(heap, (top, pair))
        return out

    def winner(self, tied: list[Pair]) -> Pair:
        """The tie rule applied to pairs of equal count."""
        if len(tied) == 1:
            return tied[0]
        v = self.vocab
        if self.ties == "cs336":
            return max(tied, key=lambda p: (v[p[0]], v[p[1]]))
        if self.ties == "smaller":
            return min(tied, key=lambda p: (v[p[0]], v[p[1]]))
        if self.ties == "greater_ids":
            return max(tied)
        if self.ties == "hf":
            return min(tied, key=lambda p: (self._hf_rank(p[0]), self._hf_rank(p[1])))
        return min(tied, key=self.first_occurrence)  # minbpe

    def first_occurrence(self, pair: Pair) -> tuple[int, int]:
        """(word, position) where the text, as it stands, first holds `pair`."""
        w = min(self.holders[pair])
        word = self.words[w]
        return w, next(i for i in range(len(word) - 1) if (word[i], word[i + 1]) == pair)

    def apply(self, pair: Pair) -> None:
        """Merge `pair` into a new id in every word holding it, updating the pair counts."""
        new = 256 + len(self.steps)
        self.vocab[new] = self.vocab[pair[0]] + self.vocab[pair[1]]
        for w in sorted(self.holders[pair]):
            before = _pair_counts(self.words[w])
            self.words[w] = merged = _merge(self.words[w], pair, new)
            after = _pair_counts(merged)
            f = self.freqs[w]
            for p, n in after.items():
                delta = n - before.pop(p, 0)
                if delta:
                    self._add(p, w, delta * f)
                    heapq.heappush(self.heap, (-self.counts[p], p))
            for p, n in before.items():  # gone from this word
                self._add(p, w, -n * f, holds=False)
                if p in self.counts:
                    heapq.heappush(self.heap, (-self.counts[p], p))

    def _add(self, pair: Pair, w: int, delta: int, *, holds: bool = True) -> None:
        count = self.counts.get(pair, 0) + delta
        if holds:
            self.holders.setdefault(pair, set()).add(w)
        else:
            self.holders[pair].discard(w)
        if count > 0:
            self.counts[pair] = count
        else:
            self.counts.pop(pair, None)
            self.holders.pop(pair, None)

    def _hf_rank(self, token: int) -> int:
        return _HF_BYTE_RANKS[token] if token < 256 else token

    @property
    def merges(self) -> list[Pair]:
        return [p for p, _n in self.steps]


def train_reference(
    words: Sequence[tuple[Word, int]], n_merges: int, *, ties: str = "cs336"
) -> ReferenceBpe:
    """A `ReferenceBpe` run for `n_merges` merges (fewer when no pair is left)."""
    trainer = ReferenceBpe(words, ties)
    while len(trainer.steps) < n_merges and trainer.step() is not None:
        pass
    return trainer


def encode_bytes(data: bytes, ranks: dict[tuple[bytes, bytes], int]) -> list[bytes]:
    """A piece's tokens under merges ranked in learned order: repeatedly merge the adjacent pair
    of lowest rank (everywhere it occurs, left to right), as minbpe's `_encode_chunk` and
    CS336's tokenizer do.

    >>> encode_bytes(b"aaab", {(b"a", b"a"): 0, (b"a", b"b"): 1})
    [b'aa', b'ab']
    """
    parts = [data[i : i + 1] for i in range(len(data))]
    while len(parts) > 1:
        best = min(
            ((ranks[p], p) for p in zip(parts, parts[1:]) if p in ranks),
            default=None,
        )
        if best is None:
            break
        pair = best[1]
        out, i = [], 0
        while i < len(parts):
            if i + 1 < len(parts) and (parts[i], parts[i + 1]) == pair:
                out.append(parts[i] + parts[i + 1])
                i += 2
            else:
                out.append(parts[i])
                i += 1
        parts = out
    return parts


def _pair_counts(word: Sequence[int]) -> dict[Pair, int]:
    counts: dict[Pair, int] = {}
    for pair in zip(word, word[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def _merge(word: list[int], pair: Pair, new: int) -> list[int]:
    """minbpe's `merge`: every occurrence of `pair`, left to right, replaced by `new`.

    >>> _merge([1, 1, 1], (1, 1), 9)
    [9, 1]
    """
    out, i, n = [], 0, len(word)
    a, b = pair
    while i < n:
        if i + 1 < n and word[i] == a and word[i + 1] == b:
            out.append(new)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out


def encode_ids(ids: Sequence[int], merges: dict[Pair, int]) -> list[int]:
    """minbpe's `_encode_chunk`: merge the adjacent pair of lowest new id while one is in
    `merges` ((a, b) -> id), every occurrence left to right.

    >>> encode_ids(list(b"aaab"), {(97, 97): 256, (97, 98): 257})
    [256, 257]
    """
    ids = list(ids)
    while len(ids) > 1:
        best = min(((merges[p], p) for p in zip(ids, ids[1:]) if p in merges), default=None)
        if best is None:
            break
        ids = _merge(ids, best[1], best[0])
    return ids

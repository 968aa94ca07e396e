"""WordPiece training by likelihood, one merge per step (seeds 000, 001, 003).

Each word starts as its characters: the first as is, the others with the continuation prefix
(`token` -> `t ##o ##k ##e ##n`). Every step merges the adjacent pair with the best score

    score(a, b) = freq(ab) / (freq(a) * freq(b))

where freq(ab) counts the pair and freq(a), freq(b) count the symbols, all weighted by word
frequency. Merging `a` + `##b` gives `ab`, `##a` + `##b` gives `##ab`. Training stops when the
vocabulary (special tokens + initial symbols + new symbols) reaches `vocab_size` or no pair is left.

Tie-break (docs/ARCHITECTURE.md), applied exactly: the best score (compared as fractions, by
cross-multiplying, never as rounded floats), then the higher pair count, then the smallest
`(id(left), id(right))`; ids go to the special tokens, then to the initial symbols in code-point
(Python `str`) order, then to new symbols in creation order.

LeetLLM's example (its tokenization article): with freq(t)=1000, freq(h)=800, freq(th)=500 and
freq(x)=10, freq(z)=8, freq(xz)=7, BPE merges "th" (500 > 7) but WordPiece merges "xz"
(7/80 > 500/800000).

>>> trainer = WordPieceTrainer({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, vocab_size=30)
>>> step = trainer.step()
>>> step.pair, step.new_symbol, (step.count, step.freq_left, step.freq_right)
(('##g', '##s'), '##gs', (5, 20, 5))
>>> step.bpe_pair, step.bpe_count
(('##u', '##g'), 20)

The loop is incremental, as the textbook loop made fast: pair counts and symbol counts are kept
up to date, a pair -> words index finds the words a merge changes, and a heap with lazy deletion
finds the best pair. Unlike BPE, a merge also changes the score of every pair that touches the
merged symbols (their counts fell, so those scores rose). Pairs whose own count changed are pushed
again at once; the pairs of a symbol are re-pushed together once its count has fallen by 5% since
they were last scored, so a heap entry understates a score by a known bounded factor, and the best
pair is found exactly by popping every entry that could still reach the best true score
(`_pick_best`). The heap is rebuilt when stale entries outnumber live ones, which keeps memory
bounded. Tests check the merges against a recount-everything textbook loop.
"""

from __future__ import annotations

import collections
import functools
import heapq
from array import array
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Iterator, Mapping

from ...errors import InvalidInput
from ...steps import Step, register_step
from ..bpe.alphabet import check_options, kept_characters
from .model import DEFAULT_SPECIAL_TOKENS, WordPiece

_SHIFT = 32  # pair key = (left id << 32) | right id: orders like the tuple
_MASK = (1 << _SHIFT) - 1
_FLOAT_SLACK = 1e-9  # floats only pre-select; exact fractions decide
_DRIFT = 0.95  # re-push a symbol's pairs when its count falls below 95% ...
_BOUND = 1 / (_DRIFT * _DRIFT)  # ... so a heap entry understates a score by at most this factor


@register_step
@dataclass(frozen=True)
class WordPieceMergeStep(Step):
    """One WordPiece merge: the pair, the new symbol, and why it won.

    score = count / (freq_left * freq_right) (the counts before the merge). `bpe_pair` is the pair
    plain BPE would have merged at this step (the highest raw count, same id tie-break) with its
    count; `ties` are the other pairs with exactly the same score (at most five).
    """

    kind: ClassVar[str] = "wordpiece_merge"
    index: int
    pair: tuple[str, str]
    new_symbol: str
    count: int
    freq_left: int
    freq_right: int
    score: float
    bpe_pair: tuple[str, str]
    bpe_count: int
    ties: tuple[tuple[str, str], ...]
    words_changed: int
    vocab_size: int


@dataclass(frozen=True)
class PairRow:
    """A row of the pair table: a candidate pair with its counts and score."""

    pair: tuple[str, str]
    count: int
    freq_left: int
    freq_right: int
    score: float


@dataclass(frozen=True)
class WordRow:
    """A row of the word table: a word, its frequency, its current segmentation."""

    word: str
    freq: int
    symbols: tuple[str, ...]


def _better(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    """Is candidate `a` better than `b`? Each is (count, freq_left, freq_right, pair key).

    Exact score comparison by cross-multiplying count/(fl*fr), then the higher count, then the
    smaller pair key (the smaller (id(left), id(right))).

    >>> _better((7, 10, 8, 5), (500, 1000, 800, 1))    # LeetLLM's example: xz beats th
    True
    """
    lhs = a[0] * b[1] * b[2]
    rhs = b[0] * a[1] * a[2]
    if lhs != rhs:
        return lhs > rhs
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[3] < b[3]


def _compare(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    """`_better` as a sort comparison: the better candidate first."""
    return -1 if _better(a, b) else (1 if _better(b, a) else 0)


def _ranked(rows: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Rows (count, freq_left, freq_right, key) best first, as `_better` orders them.

    Sorted by the float score first (a correctly rounded division: equal fractions give equal
    floats, and a larger fraction never a smaller float), then count and key; only when two
    neighbours share a float but not a fraction does the exact comparison sort them.

    >>> [r[3] for r in _ranked([(1, 3, 1, 7), (2, 2, 1, 5), (1, 1, 1, 9)])]   # 5, 9 tie: count
    [5, 9, 7]
    """
    out = sorted(rows, key=lambda r: (-(r[0] / (r[1] * r[2])), -r[0], r[3]))
    for a, b in zip(out, out[1:]):
        same_float = a[0] / (a[1] * a[2]) == b[0] / (b[1] * b[2])
        if same_float and a[0] * b[1] * b[2] != b[0] * a[1] * a[2]:
            return sorted(rows, key=functools.cmp_to_key(_compare))
    return out


def _pairs_of(word: list[int]) -> list[int]:
    """The adjacent pair keys of a word, with repeats: [1, 2, 1, 2] -> keys of (1,2), (2,1),
    (1,2)."""
    return [(word[i] << _SHIFT) | word[i + 1] for i in range(len(word) - 1)]


def merge_word(word: list[int], left: int, right: int, new: int) -> tuple[list[int], int]:
    """Replace each `left right` by `new`, left to right without overlap; return (word, times).

    >>> merge_word([1, 1, 1], 1, 1, 9)
    ([9, 1], 1)
    """
    out: list[int] = []
    times = 0
    i, n = 0, len(word)
    while i < n:
        if i + 1 < n and word[i] == left and word[i + 1] == right:
            out.append(new)
            times += 1
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out, times


class WordPieceTrainer:
    """The resumable training stepper: `step()` performs one merge and returns its step value.

    Build it from word counts (word -> frequency, words already normalised and pre-tokenised).
    `run()` and `model()` run it to the end. The state after any step can be inspected with
    `top_pairs`, `word_table`, `merges`, `vocab`; `copy()` snapshots it (for checkpoints).
    """

    def __init__(
        self,
        word_counts: Mapping[str, int] | Iterable[tuple[str, int]],
        *,
        vocab_size: int,
        min_frequency: int = 0,
        special_tokens: Iterable[str] | None = None,
        continuing_subword_prefix: str = "##",
        limit_alphabet: int | None = None,
        initial_alphabet: Iterable[str] = (),
        record_top: int = 0,
        record_history: bool = False,
    ) -> None:
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
            raise InvalidInput(f"vocab_size must be a positive integer, got {vocab_size!r}")
        if (
            isinstance(min_frequency, bool)
            or not isinstance(min_frequency, int)
            or min_frequency < 0
        ):
            raise InvalidInput(
                f"min_frequency must be a non-negative integer, got {min_frequency!r}"
            )
        if not isinstance(continuing_subword_prefix, str):
            raise InvalidInput("continuing_subword_prefix must be a string")
        specials = list(DEFAULT_SPECIAL_TOKENS if special_tokens is None else special_tokens)
        if any(not isinstance(t, str) or not t for t in specials):
            raise InvalidInput("special tokens must be non-empty strings")
        if len(set(specials)) != len(specials):
            raise InvalidInput("special tokens must not repeat")
        alphabet = check_options(
            {"limit_alphabet": limit_alphabet, "initial_alphabet": initial_alphabet}
        )
        self.limit_alphabet = alphabet.get("limit_alphabet")
        self.initial_alphabet = tuple(alphabet.get("initial_alphabet", ()))
        self.vocab_size = vocab_size
        self.min_frequency = min_frequency
        self.prefix = continuing_subword_prefix
        self.special_tokens = tuple(specials)
        self.record_top = record_top  # keep the top pairs of every state (the views)
        self.record_history = record_history  # keep the merges that changed each word
        items = word_counts.items() if isinstance(word_counts, Mapping) else word_counts
        counts: dict[str, int] = {}
        for word, freq in items:
            if not isinstance(word, str) or isinstance(freq, bool) or not isinstance(freq, int):
                raise InvalidInput("word counts must map words (str) to frequencies (int)")
            if word and freq > 0:
                counts[word] = counts.get(word, 0) + freq
        self._init_state(counts)

    # ---- state ----------------------------------------------------------------------------
    def _init_state(self, counts: dict[str, int]) -> None:
        prefix = self.prefix
        counts, forced = self._limit_alphabet(counts)
        # Words, most frequent first (ties by the word): the word table's order.
        self.words_text: list[str] = sorted(counts, key=lambda w: (-counts[w], w))
        self.word_freq: list[int] = [counts[w] for w in self.words_text]
        # The initial symbols: first characters as is, the others with the prefix.
        firsts = {w[0] for w in self.words_text}
        others = set("".join(w[1:] for w in self.words_text))
        # Ids: special tokens, then the initial symbols in code-point order.
        self.symbols: list[str] = []
        self.symbol_id: dict[str, int] = {}
        for t in self.special_tokens:
            self._add_symbol(t)
        for s in sorted(firsts | {prefix + c for c in others} | forced):
            self._add_symbol(s)
        self.initial_size = len(self.symbols)
        first_id = {c: self.symbol_id[c] for c in firsts}
        other_id = {c: self.symbol_id[prefix + c] for c in others}
        self.words: list[list[int]] = [
            [first_id[w[0]], *[other_id[c] for c in w[1:]]] for w in self.words_text
        ]
        # Symbol counts, pair counts and the pair -> words index, weighted by word frequency.
        symbol_freq = [0] * len(self.symbols)
        pair_count: dict[int, int] = {}
        pair_words: dict[int, set[int]] = collections.defaultdict(set)
        for wi, word in enumerate(self.words):
            f = self.word_freq[wi]
            for sym in word:
                symbol_freq[sym] += f
            for i in range(len(word) - 1):
                key = (word[i] << _SHIFT) | word[i + 1]
                pair_count[key] = pair_count.get(key, 0) + f
                pair_words[key].add(wi)
        self.symbol_freq: list[int] = symbol_freq
        self.pair_count: dict[int, int] = pair_count
        self.pair_words: dict[int, set[int]] = dict(pair_words)
        self.symbol_pairs: dict[int, set[int]] = {}
        for key in pair_count:
            self.symbol_pairs.setdefault(key >> _SHIFT, set()).add(key)
            self.symbol_pairs.setdefault(key & _MASK, set()).add(key)
        self.merges: list[tuple[str, str]] = []
        self.steps: list[WordPieceMergeStep] = []
        self.tables: list[tuple] = []  # with record_top: the best pairs after k merges (rows)
        self.history: list[array] | None = (  # with record_history: word -> merge numbers
            [array("I") for _ in self.words] if self.record_history else None
        )
        self.done = False
        self._rebuild_heaps()

    def _limit_alphabet(self, counts: dict[str, int]) -> tuple[dict[str, int], set[str]]:
        """The word counts less the characters `limit_alphabet` leaves out (the rarest, as in
        `models/bpe/alphabet.py`; a word left empty goes), and the symbols the initial alphabet
        forces in: each character alone and with the continuation prefix, so a word of them
        always encodes."""
        forced = {s for c in self.initial_alphabet for s in (c, self.prefix + c)}
        if self.limit_alphabet is None:
            return counts, forced
        kept = set(kept_characters(counts, self.limit_alphabet, self.initial_alphabet))
        forced = {s for c in self.initial_alphabet if c in kept for s in (c, self.prefix + c)}
        out: dict[str, int] = {}
        for word, freq in counts.items():
            word = "".join(c for c in word if c in kept)
            if word:
                out[word] = out.get(word, 0) + freq
        return out, forced

    def _add_symbol(self, s: str) -> int:
        if s not in self.symbol_id:
            self.symbol_id[s] = len(self.symbols)
            self.symbols.append(s)
        return self.symbol_id[s]

    def _pair_born(self, key: int) -> None:
        self.pair_count[key] = 0
        self.pair_words.setdefault(key, set())
        self.symbol_pairs.setdefault(key >> _SHIFT, set()).add(key)
        self.symbol_pairs.setdefault(key & _MASK, set()).add(key)

    def _pair_died(self, key: int) -> None:
        del self.pair_count[key]
        self.pair_words.pop(key, None)
        self.symbol_pairs[key >> _SHIFT].discard(key)
        self.symbol_pairs[key & _MASK].discard(key)

    def _score_entry(self, key: int, count: int) -> tuple[float, int]:
        """A score-heap entry: (-score as a float, pair key). The float only orders the heap;
        `_pick_best` compares the near-best entries exactly."""
        return (-count / (self.symbol_freq[key >> _SHIFT] * self.symbol_freq[key & _MASK]), key)

    def _redrift(self, s: int) -> None:
        """Push every pair touching symbol `s` with its current score, and remember the count
        of `s` they were scored with."""
        counts, sym_freq, heap = self.pair_count, self.symbol_freq, self._score_heap
        min_freq = max(1, self.min_frequency)
        for k in self.symbol_pairs.get(s, ()):
            c = counts[k]
            if c >= min_freq:
                heapq.heappush(heap, (-c / (sym_freq[k >> _SHIFT] * sym_freq[k & _MASK]), k))
        self._pushed_freq[s] = sym_freq[s]

    def _rebuild_heaps(self) -> None:
        """Fresh heaps from the live pairs (at the start, and to drop stale entries)."""
        self._pushed_freq = list(self.symbol_freq)
        eligible = [(k, c) for k, c in self.pair_count.items() if c > 0 and c >= self.min_frequency]
        self._score_heap = [self._score_entry(k, c) for k, c in eligible]
        self._count_heap = [(-c, k) for k, c in eligible]
        heapq.heapify(self._score_heap)
        heapq.heapify(self._count_heap)

    # ---- the textbook loop ----------------------------------------------------------------
    def step(self) -> WordPieceMergeStep | None:
        """One merge: pick the best pair, merge it everywhere, record it. None when done."""
        self._record_table()  # the pairs this state offers
        if self.done or len(self.symbols) >= self.vocab_size:
            self.done = True
            return None
        best = self._pick_best()  # argmax of the score, exact tie-break
        if best is None:
            self.done = True
            return None
        key, ties = best
        bpe_key, bpe_count = self._bpe_choice()  # what plain BPE would merge now
        left, right = key >> _SHIFT, key & _MASK
        count, fl, fr = self.pair_count[key], self.symbol_freq[left], self.symbol_freq[right]
        new_symbol = self.symbols[left] + self.symbols[right][len(self.prefix) :]
        changed = self._apply_merge(key, self._add_symbol(new_symbol))
        self.merges.append((self.symbols[left], self.symbols[right]))
        step = WordPieceMergeStep(
            index=len(self.steps) + 1,
            pair=(self.symbols[left], self.symbols[right]),
            new_symbol=new_symbol,
            count=count,
            freq_left=fl,
            freq_right=fr,
            score=count / (fl * fr),
            bpe_pair=(self.symbols[bpe_key >> _SHIFT], self.symbols[bpe_key & _MASK]),
            bpe_count=bpe_count,
            ties=ties,
            words_changed=changed,
            vocab_size=len(self.symbols),
        )
        self.steps.append(step)
        return step

    def __iter__(self) -> Iterator[WordPieceMergeStep]:
        while True:
            step = self.step()
            if step is None:
                return
            yield step

    def run(self, until: int | None = None) -> "WordPieceTrainer":
        """Step until `until` merges have been made (or to the end) and return self."""
        while (until is None or len(self.steps) < until) and self.step() is not None:
            pass
        return self

    # ---- bookkeeping helpers --------------------------------------------------------------
    def _record_table(self) -> None:
        """With `record_top`, keep this state's best pairs (once per state)."""
        if self.record_top and len(self.tables) == len(self.steps):
            self.tables.append(self._peek_top(self.record_top))

    def _peek_top(self, k: int) -> tuple[tuple[int, int, int, int], ...]:
        """The k best pairs now as rows (count, freq_left, freq_right, pair key), ranked as
        `top_pairs` ranks them (`pair_rows` makes them its PairRows), read off the score heap:
        entries are popped while one could still reach the k-th best true score (the bound of
        `_pick_best`), then go back as they were (less the stale ones, which `_pick_best` would
        skip), so training goes on unchanged."""
        heap, counts, freq = self._score_heap, self.pair_count, self.symbol_freq
        min_freq = max(1, self.min_frequency)
        popped: list[tuple[float, int]] = []
        rows: dict[int, tuple[int, int, int, int]] = {}
        best_k: list[float] = []  # the k best true scores so far (a min-heap)
        while heap:
            if len(best_k) == k and -heap[0][0] * _BOUND * (1 + _FLOAT_SLACK) < best_k[0]:
                break  # nothing left can reach the top k
            entry = heapq.heappop(heap)
            key = entry[1]
            count = counts.get(key, 0)
            if count < min_freq or key in rows:
                continue  # a dead pair or a duplicate: dropped
            popped.append(entry)
            row = rows[key] = (count, freq[key >> _SHIFT], freq[key & _MASK], key)
            score = count / (row[1] * row[2])
            if len(best_k) < k:
                heapq.heappush(best_k, score)
            elif score > best_k[0]:
                heapq.heapreplace(best_k, score)
        for entry in popped:
            heapq.heappush(heap, entry)
        floor = best_k[0] / (1 + _FLOAT_SLACK) if len(best_k) == k else 0.0
        near = [r for r in rows.values() if r[0] / (r[1] * r[2]) >= floor]
        return tuple(_ranked(near)[:k])

    def _pick_best(self) -> tuple[int, tuple[tuple[str, str], ...]] | None:
        """Pop the best-scoring pair: floats bound, exact fractions decide.

        A heap entry holds a pair's score from when it was pushed. Its count cannot have changed
        since (every count change pushes a fresh entry), but the two symbol counts may have
        fallen a little (by less than `_DRIFT`, see `_redrift`), so the true score is at most
        `_BOUND` times the stored one. Entries are popped while one could still beat the best
        true score found; the losers go back with their true scores.
        """
        heap, counts, freq = self._score_heap, self.pair_count, self.symbol_freq
        min_freq = max(1, self.min_frequency)
        rows: dict[int, tuple[int, int, int, int]] = {}
        best: tuple[int, int, int, int] | None = None
        best_score = 0.0
        while heap:
            stored = -heap[0][0]
            if best is not None and stored * _BOUND * (1 + _FLOAT_SLACK) < best_score:
                break  # nothing left can reach the best
            key = heapq.heappop(heap)[1]
            count = counts.get(key, 0)
            if count < min_freq or key in rows:
                continue  # a dead pair or a duplicate entry
            row = (count, freq[key >> _SHIFT], freq[key & _MASK], key)
            rows[key] = row
            if best is None or _better(row, best):
                best, best_score = row, count / (row[1] * row[2])
        if best is None:
            return None
        ties = tuple(
            (self.symbols[r[3] >> _SHIFT], self.symbols[r[3] & _MASK])
            for r in sorted(
                r
                for r in rows.values()
                if r is not best and r[0] * best[1] * best[2] == best[0] * r[1] * r[2]
            )[:5]
        )
        for key, (count, fl, fr, _) in rows.items():
            if key != best[3]:
                heapq.heappush(heap, (-count / (fl * fr), key))
        return best[3], ties

    def _bpe_choice(self) -> tuple[int, int]:
        """The pair with the highest raw count (BPE's choice), smallest ids on ties: (key, count).
        Every count change pushes a fresh entry, so stale entries are simply dropped."""
        heap = self._count_heap
        while self.pair_count.get(heap[0][1]) != -heap[0][0]:
            heapq.heappop(heap)
        return heap[0][1], -heap[0][0]

    def _apply_merge(self, key: int, new: int) -> int:
        """Merge the pair in every word that has it; update counts, indexes and heaps.
        Returns the number of distinct words changed."""
        left, right = key >> _SHIFT, key & _MASK
        if new == len(self.symbol_freq):
            self.symbol_freq.append(0)
        delta: dict[int, int] = collections.defaultdict(int)
        changed = 0
        for wi in sorted(self.pair_words.get(key, ())):
            word = self.words[wi]
            merged, times = merge_word(word, left, right, new)
            if not times:
                continue  # stale index entry
            changed += 1
            if self.history is not None:
                self.history[wi].append(len(self.steps) + 1)  # this merge's number
            f = self.word_freq[wi]
            for k in _pairs_of(word):
                delta[k] -= f
            for k in _pairs_of(merged):
                delta[k] += f
                if (k >> _SHIFT) == new or (k & _MASK) == new:
                    self.pair_words.setdefault(k, set()).add(wi)
            self.words[wi] = merged
            self.symbol_freq[left] -= f * times
            self.symbol_freq[right] -= f * times
            self.symbol_freq[new] += f * times
        for k, d in delta.items():
            if d == 0:
                continue
            if k not in self.pair_count:
                self._pair_born(k)
            self.pair_count[k] += d
            if self.pair_count[k] <= 0:
                self._pair_died(k)
        # Pairs whose own count changed get a fresh entry on both heaps. Pairs that merely
        # touch `left` or `right` have a higher score now (those symbols' counts fell); their
        # entries may understate it by less than `_BOUND`, which `_pick_best` allows for.
        counts, sym_freq, min_freq = self.pair_count, self.symbol_freq, max(1, self.min_frequency)
        score_heap, count_heap, push = self._score_heap, self._count_heap, heapq.heappush
        for k, d in delta.items():
            c = counts.get(k, 0)
            if d and c >= min_freq:
                push(count_heap, (-c, k))
                push(score_heap, (-c / (sym_freq[k >> _SHIFT] * sym_freq[k & _MASK]), k))
        if new == len(self._pushed_freq):
            self._pushed_freq.append(sym_freq[new])
        else:  # an existing symbol made again: its
            self._pushed_freq[new] = max(self._pushed_freq[new], sym_freq[new])  # scores fell
        for s in (left, right):
            if sym_freq[s] < _DRIFT * self._pushed_freq[s]:
                self._redrift(s)
        if len(score_heap) > 4 * len(counts) + 65536:
            self._rebuild_heaps()
        return changed

    # ---- results and views ----------------------------------------------------------------
    @property
    def vocab(self) -> dict[str, int]:
        """token -> id: special tokens, initial symbols (code-point order), merged symbols."""
        return dict(self.symbol_id)

    def model(self, **options: Any) -> WordPiece:
        """Run to the end and return the trained `WordPiece` model."""
        self.run()
        unk = options.pop(
            "unk_token",
            "[UNK]"
            if "[UNK]" in self.special_tokens
            else (self.special_tokens[0] if self.special_tokens else "[UNK]"),
        )
        vocab = self.vocab
        if unk not in vocab:
            raise InvalidInput(f"the unknown token {unk!r} must be one of the special tokens")
        return WordPiece(
            vocab,
            unk_token=unk,
            continuing_subword_prefix=self.prefix,
            special_tokens=self.special_tokens,
            merges=self.merges,
            **options,
        )

    def pair_row(self, key: int) -> PairRow:
        count = self.pair_count.get(key, 0)
        fl, fr = self.symbol_freq[key >> _SHIFT], self.symbol_freq[key & _MASK]
        return PairRow(
            (self.symbols[key >> _SHIFT], self.symbols[key & _MASK]),
            count,
            fl,
            fr,
            count / (fl * fr) if fl and fr else 0.0,
        )

    def pair_rows(self, rows: Iterable[tuple[int, int, int, int]]) -> tuple[PairRow, ...]:
        """Recorded rows (count, freq_left, freq_right, key) as PairRows."""
        symbols = self.symbols
        return tuple(
            PairRow(
                (symbols[key >> _SHIFT], symbols[key & _MASK]), count, fl, fr, count / (fl * fr)
            )
            for count, fl, fr, key in rows
        )

    def top_pairs(self, k: int = 10, by: str = "score") -> list[PairRow]:
        """The k best pairs now (the next merge first), by exact score or (by="count") by count.

        Only pairs with at least `min_frequency` occurrences are candidates.
        """
        freq = self.symbol_freq
        live = [
            (c, freq[key >> _SHIFT], freq[key & _MASK], key)
            for key, c in self.pair_count.items()
            if c >= max(1, self.min_frequency)
        ]
        if by == "count":
            rows = heapq.nsmallest(k, live, key=lambda r: (-r[0], r[3]))
        else:
            pre = heapq.nlargest(
                2 * k + 16, live, key=lambda r: (r[0] / (r[1] * r[2]), r[0], -r[3])
            )
            rows = sorted(pre, key=functools.cmp_to_key(_compare))[:k]
        return [self.pair_row(r[3]) for r in rows]

    def word_table(self, offset: int = 0, limit: int = 20) -> tuple[list[WordRow], int]:
        """A page of the word table (most frequent words first) and the number of words."""
        rows = [
            WordRow(
                self.words_text[i], self.word_freq[i], tuple(self.symbols[s] for s in self.words[i])
            )
            for i in range(max(0, offset), min(len(self.words), max(0, offset) + limit))
        ]
        return rows, len(self.words)

    def copy(self) -> "WordPieceTrainer":
        """An independent snapshot of the whole state (for checkpoints)."""
        other = object.__new__(WordPieceTrainer)
        other.__dict__.update(self.__dict__)
        other.symbols = list(self.symbols)
        other.symbol_id = dict(self.symbol_id)
        other.words = [list(w) for w in self.words]
        other.symbol_freq = list(self.symbol_freq)
        other.pair_count = dict(self.pair_count)
        other.pair_words = {k: set(v) for k, v in self.pair_words.items()}
        other.symbol_pairs = {k: set(v) for k, v in self.symbol_pairs.items()}
        other.merges = list(self.merges)
        other.steps = list(self.steps)
        other.tables = list(self.tables)
        other.history = None if self.history is None else [array("I", h) for h in self.history]
        other._score_heap = list(self._score_heap)
        other._pushed_freq = list(self._pushed_freq)
        other._count_heap = list(self._count_heap)
        return other


def train_merges(
    word_counts: Mapping[str, int], vocab_size: int, **options: Any
) -> list[tuple[str, str]]:
    """The merge list of a full training run (a convenience for tests and scripts)."""
    return WordPieceTrainer(word_counts, vocab_size=vocab_size, **options).run().merges

"""Parity-aware BPE, the fast trainer: each merge is chosen for the language that is currently
compressed worst on a parallel development set (Foroutan, Meister, Paul, Niklaus, Ahmadi,
Bosselut and Sennrich 2025, "Parity-Aware Byte-Pair Encoding: Improving Cross-lingual Fairness in
Tokenization", arXiv 2508.04796; reference code swiss-ai/parity-aware-bpe).

The paper's abstract: "At every merge step, Parity-aware BPE maximizes the compression gain of
the currently worst-compressed language, trading a small amount of global compression for
cross-lingual parity." Its inequality measure is "the Gini coefficient of per-language token
costs" (the ACL 2026 abstract). A summary of the paper defines the compression rate as
CR(D; T) = 1/|D| sum over x in D of |x|_u / |T(x)|, "where |x|_u is the length in bytes, chars,
or another unit" (the paper's own body was not reachable from here). The reference code
(`parity_aware_learn_bpe.py`, commit 480ed2b) pins the details:

- **which language**: with a development set, the one whose dev text takes the most tokens
  under the merges so far (`max(enumerate(lengths), ...)`: on a tie the language listed first).
  The dev texts say the same thing in every language, so the most tokens is the lowest
  compression rate against the shared content. Without one (its `--ratio` mode), the one whose
  own training text has the lowest compression rate, initial length / current length, which for
  byte-level words is bytes per token (`measure="rate"`, the default here when `dev` is None).
- **which counts**: that language's own training pair counts (`stats[x][max_index]`); the
  merge is then applied in every language's words and dev text.
- **ties between pairs**: this engine's rule, the smallest (id(left), id(right)) as Hugging
  Face's BpeTrainer (`ties="ids"`, so one language is exactly `byte_bpe`); the reference's own,
  the largest (left, right) as strings (`max(stats, key=lambda x: (stats[x][l], x))`), is
  `ties="max_strings"`.
- **hybrid**: the first `global_merges` merges use the counts of all languages summed (plain
  BPE on the concatenation); those steps have `language` "".
- **moving window** (its `--variant window`): a language chosen more than `alpha / n` of the
  last `window` parity merges is passed over for the next worst (`window=0`: off).

Where this trainer differs from the reference, on purpose: when the worst language has no pair
left at `min_frequency` (its training text is fully merged), the reference stops training; this
trainer passes to the next worst language, so the vocabulary can still be filled. With both
`global_merges` and `window`, the reference's share is alpha / (n + 1) (its count arrays have a
column for the sum); here it is alpha / n. Its default `min_frequency` is 2, this engine's 0.
Its pruning of the statistics changes nothing it picks: on five UDHR languages, its base,
window, hybrid and ratio runs equal this trainer's merge for merge (tests/core/models/golden/
parity_bpe/).

Bookkeeping is one `_Language` per language: its training words, pair counts, a pair -> words
index and a heap (lazy deletion, as `trainer.py`); and its dev words with their own index, so the
dev token count is updated by each merge rather than recounted. The textbook loop,
`textbook/parity_bpe_train.py`, recounts everything and is proven equal step by step.

>>> train = {"en": {"ab": 3, "b": 1}, "xx": {"cd": 2, "ab": 1}}
>>> steps = list(ParityBpeTrainer(train, train, vocab_size=6, alphabet="abcd"))
>>> [(s.language, s.pair, s.count, s.tokens) for s in steps]
[('en', ('a', 'b'), 3, (7, 6)), ('xx', ('c', 'd'), 2, (4, 5))]
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Iterable, Iterator, Mapping

from ...errors import InvalidInput
from ...steps import Step, register_step, step_from_dict  # noqa: F401  (step_from_dict: doctests)
from .model import MAX_VOCAB_SIZE

MEASURES = ("tokens", "rate")
TIES = ("ids", "max_strings")

Table = Mapping[Any, int]  # a word table: each word (a str or a tuple of symbols) -> its count


# ---- the step and the inequality measure ---------------------------------------------------------
@register_step
@dataclass(frozen=True)
class ParityMergeStep(Step):
    """One parity-aware merge: `pair` (occurring `count` times in `language`'s training words;
    summed over all languages for a hybrid's global merge, whose `language` is "") became
    `new_symbol` with id `new_id`.

    What the choice saw, one entry per language of `languages`: `tokens`, the token count of each
    language's dev text before this merge, and `rates`, its compression rate in UTF-8 bytes per
    token (bytes of the dev text / `tokens`). `measure` says which decided: "tokens" (the most
    tokens is the worst) or "rate" (the fewest bytes per token is the worst). `gini` is the Gini
    coefficient of that measure across the languages after this merge (0 = parity).

    >>> s = ParityMergeStep(0, ("a", "b"), 3, "ab", 4, "en", ("en", "xx"), (7, 6),
    ...                     (1.0, 1.0), "tokens", 0.0)
    >>> step_from_dict(s.to_dict()) == s
    True
    """

    kind: ClassVar[str] = "parity_bpe_merge"
    index: int
    pair: tuple[str, str]
    count: int
    new_symbol: str
    new_id: int
    language: str
    languages: tuple[str, ...]
    tokens: tuple[int, ...]
    rates: tuple[float, ...]
    measure: str
    gini: float


def gini(values: Iterable[float]) -> float:
    """The Gini coefficient: the mean absolute difference of all ordered pairs of values over
    twice their mean (0 when all are equal, towards 1 when one value has everything). Computed
    as sum((2i - n + 1) x_i) / (n sum x) over the sorted values, exactly for ints.

    >>> gini([3, 3, 3]), gini([0, 0, 1]), gini([1, 3])
    (0.0, 0.6666666666666666, 0.25)
    """
    xs = sorted(values)
    n, total = len(xs), sum(xs)
    if n == 0 or total == 0:
        return 0.0
    return float(sum((2 * i - n + 1) * x for i, x in enumerate(xs)) / (n * total))


def worst_first(
    tokens: list[int], sizes: list[int], measure: str, recent: list[int], window: int, alpha: int
) -> list[int]:
    """The languages (by index) in the order they are tried: the worst-compressed first, a tie
    to the one listed first; with a moving window, those chosen more than `alpha / n` of the
    last `window` parity merges (`recent`) go last, in the same order.

    >>> worst_first([5, 9, 9], [10, 10, 10], "tokens", [], 0, 2)
    [1, 2, 0]
    >>> worst_first([5, 9, 9], [10, 27, 10], "rate", [], 0, 2)
    [2, 0, 1]
    >>> worst_first([5, 9, 9], [10, 10, 10], "tokens", [1, 1, 1, 0], 4, 1)
    [2, 0, 1]
    """
    n = len(tokens)
    if measure == "tokens":
        order = sorted(range(n), key=lambda i: -tokens[i])
    else:
        order = sorted(range(n), key=lambda i: Fraction(sizes[i], max(tokens[i], 1)))
    if not window:
        return order
    shown = Counter(recent[-window:])
    over = [i for i in order if shown[i] * n > alpha * window]  # share > alpha / n
    return [i for i in order if i not in over] + over


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise InvalidInput(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return str(value)


def _whole(name: str, value: object, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidInput(f"{name} must be a whole number >= {low}")
    return value


# ---- one language's bookkeeping ------------------------------------------------------------------
# As in trainer.py, a symbol is the one character chr(id) and a pair is a 2-character str, so a
# merge in a word is `str.replace` and comparing two pairs compares (id(left), id(right)).
class _Language:
    """A language's training words (counts, pair -> words index, heap) and its dev words."""

    def __init__(self, words: list[str], freqs: list[int], dev: list[str], dev_freqs: list[int]):
        self.words, self.freqs = words, freqs
        self.counts: Counter[str] = Counter()
        self.where: dict[str, list[int]] = {}
        for i, (word, freq) in enumerate(zip(words, freqs)):
            for key in map(str.__add__, word, word[1:]):
                self.counts[key] += freq
                self.where.setdefault(key, []).append(i)
        self.heap = [(-c, key) for key, c in self.counts.items()]
        heapq.heapify(self.heap)
        self.dev, self.dev_freqs = dev, dev_freqs
        self.dev_where: dict[str, list[int]] = {}
        for i, word in enumerate(dev):
            for key in map(str.__add__, word, word[1:]):
                self.dev_where.setdefault(key, []).append(i)
        self.tokens = sum(len(w) * f for w, f in zip(dev, dev_freqs))


def _best(heap: list[tuple[int, str]], counts: Mapping[str, int]) -> tuple[int, str] | None:
    """The heap's best valid (count, pair), left on the heap; a stale entry that surfaces is
    re-queued with the pair's current count, or dropped at 0 (lazy deletion)."""
    while heap:
        stored, key = heap[0]
        current = counts.get(key, 0)
        if -stored == current:
            return current, key
        if current > 0:
            heapq.heapreplace(heap, (-current, key))
        else:
            heapq.heappop(heap)
    return None


def _tied(heap: list[tuple[int, str]], counts: Mapping[str, int], count: int) -> list[str]:
    """Every pair whose current count is `count` (the best), found by popping the heap's top
    and putting it back after: for the reference's tie rule, which needs them all."""
    out, taken = [], []
    while (top := _best(heap, counts)) is not None and top[0] == count:
        out.append(top[1])
        taken.append(heapq.heappop(heap))
    for entry in taken:
        heapq.heappush(heap, entry)
    return out


def _merge_words(
    words: list[str], where: dict[str, list[int]], key: str, new: str, freqs: list[int]
) -> dict[str, int]:
    """Merge `key` -> `new` in the training words the index lists (left to right, as
    `str.replace`), index the pairs each changed word gained, and return the change of every
    pair count, weighted by word frequency. The usual case, one occurrence in a word that does
    not hold `new` yet, changes only the merged pair's neighbours (x a b y -> x new y); any other
    recounts the word's pairs."""
    positions = where.pop(key, None)
    if not positions:
        return {}
    delta: defaultdict[str, int] = defaultdict(int)
    a, b = key[0], key[1]
    for i in dict.fromkeys(positions):  # (each word once; no word keeps the pair)
        old = words[i]
        head, found, tail = old.partition(key)
        if not found:
            continue  # a stale position
        freq = freqs[i]
        if key in tail or new in old:  # the general way: recount the word's pairs
            word = words[i] = old.replace(key, new)
            change = Counter(map(str.__add__, word, word[1:]))
            change.subtract(map(str.__add__, old, old[1:]))
            for pair, n in change.items():
                if n:
                    delta[pair] += n * freq
                    if n > 0:
                        where.setdefault(pair, []).append(i)
            continue
        words[i] = head + new + tail  # one occurrence: x a b y -> x new y
        delta[key] -= freq
        if head:
            delta[head[-1] + a] -= freq
            delta[head[-1] + new] += freq
            where.setdefault(head[-1] + new, []).append(i)
        if tail:
            delta[b + tail[0]] -= freq
            delta[new + tail[0]] += freq
            where.setdefault(new + tail[0], []).append(i)
    return delta


def _merge_dev(
    words: list[str], where: dict[str, list[int]], key: str, new: str, freqs: list[int]
) -> int:
    """Merge `key` -> `new` in the dev words the index lists and index the pairs next to each
    `new`; returns how many tokens the dev text saved (symbols lost, weighted by frequency)."""
    saved = 0
    for i in dict.fromkeys(where.pop(key, ())):
        old = words[i]
        word = words[i] = old.replace(key, new)
        saved += (len(old) - len(word)) * freqs[i]  # (0 at a stale position)
        j = word.find(new) if len(word) < len(old) else -1
        while j >= 0:
            if j:
                where.setdefault(word[j - 1 : j + 1], []).append(i)
            if j + 1 < len(word):
                where.setdefault(word[j : j + 2], []).append(i)
            j = word.find(new, j + 1)
    return saved


# ---- the trainer: pick language -> pick pair -> merge -> record ----------------------------------
class ParityBpeTrainer:
    """The parity-aware trainer as a stepper: iterate it to get one `ParityMergeStep` a merge.

    `train` and `dev` map each language to its word-frequency table, each word spelled as its
    initial symbols (a str is one symbol per character, as `byte_bpe_words` gives; or a tuple);
    the languages are those of `train`, in its order (which breaks ties), and `dev` must have
    the same ones. `alphabet` (default: the symbols of the words, in code-point order) gets ids
    after the `special_tokens`, as in `trainer.BpeTrainer`. Options are the module docstring's.

    >>> t = ParityBpeTrainer({"x": {"aaab": 1}}, {"x": {"aaab": 1}}, vocab_size=4).run()
    >>> t.merge_strings(), t.stop_reason
    ([('a', 'a'), ('a', 'b')], 'the vocabulary reached 4 symbols')
    """

    def __init__(
        self,
        train: Mapping[str, Table],
        dev: Mapping[str, Table],
        vocab_size: int,
        *,
        alphabet: Iterable[str] | None = None,
        special_tokens: Iterable[str] = (),
        min_frequency: int = 0,
        ties: str = "ids",
        measure: str = "tokens",
        global_merges: int = 0,
        window: int = 0,
        alpha: int = 2,
        dev_sizes: Mapping[str, int] | None = None,
    ) -> None:
        self.languages = tuple(train)
        if not self.languages:
            raise InvalidInput("give at least one language to train on")
        if set(dev) != set(self.languages):
            raise InvalidInput("the dev set must have exactly the training languages")
        self.vocab_size = _whole("vocab_size", vocab_size, 1)
        self.min_frequency = _whole("min_frequency", min_frequency)
        self.ties = check_choice("ties", ties, TIES)
        self.measure = check_choice("measure", measure, MEASURES)
        self.global_merges = _whole("global_merges", global_merges)
        self.window, self.alpha = _whole("window", window), _whole("alpha", alpha, 1)
        self.symbols: list[str] = []
        self.symbol_ids: dict[str, int] = {}
        for sym in [*special_tokens, *sorted(alphabet or _symbols_of(train) | _symbols_of(dev))]:
            self._add_symbol(sym)
        self.state = [
            _Language(*self._code(train[lang]), *self._code(dev[lang])) for lang in self.languages
        ]
        # the dev texts' sizes for the rates: UTF-8 bytes (by default, initial symbols)
        self.sizes = [
            (dev_sizes or {}).get(lang, st.tokens) for lang, st in zip(self.languages, self.state)
        ]
        self.totals: Counter[str] = Counter()  # the summed counts, for a hybrid's global merges
        self.total_heap: list[tuple[int, str]] = []
        if self.global_merges:
            for st in self.state:
                self.totals.update(st.counts)
            self.total_heap = [(-c, k) for k, c in self.totals.items()]
            heapq.heapify(self.total_heap)
        self.merges: list[tuple[int, int]] = []
        self.recent: list[int] = []  # the languages chosen by the parity merges, in order
        self.steps: list[ParityMergeStep] = []
        self.done = False
        self.stop_reason = ""

    def _add_symbol(self, sym: str) -> int:
        if sym not in self.symbol_ids:
            if len(self.symbols) >= MAX_VOCAB_SIZE:
                raise InvalidInput(f"a vocabulary is limited to {MAX_VOCAB_SIZE:,} symbols")
            self.symbol_ids[sym] = len(self.symbols)
            self.symbols.append(sym)
        return self.symbol_ids[sym]

    def _code(self, table: Table) -> tuple[list[str], list[int]]:
        """A word table as (words coded one character per symbol id, their frequencies)."""
        ids = self.symbol_ids
        try:
            words = ["".join(chr(ids[s]) for s in word) for word in table]
        except KeyError as e:
            raise InvalidInput(f"the symbol {e.args[0]!r} is not in the alphabet") from None
        return words, [_whole("a word's frequency", f, 1) for f in table.values()]

    # -- the loop --------------------------------------------------------------------------------
    def __iter__(self) -> Iterator[ParityMergeStep]:
        return self

    def step(self) -> ParityMergeStep | None:
        """One merge: pick, merge it everywhere, record it. None when training is over."""
        if self.done:
            return None
        tokens = [st.tokens for st in self.state]  # each language's dev text, in tokens
        chosen = self._pick(tokens)  # the worst-compressed language and its best pair
        if chosen is None:
            self.done = True
            return None
        lang, count, key = chosen
        a, b = ord(key[0]), ord(key[1])
        new = self._add_symbol(self.symbols[a] + self.symbols[b])
        self._apply_merge(key, chr(new))  # merge it in every language, training and dev
        self.merges.append((a, b))  # record the merge
        if lang >= 0:
            self.recent.append(lang)
        step = self._record(lang, count, a, b, new, tokens)
        self.steps.append(step)
        return step

    def __next__(self) -> ParityMergeStep:
        step = self.step()
        if step is None:
            raise StopIteration
        return step

    def _pick(self, tokens: list[int]) -> tuple[int, int, str] | None:
        """(language index, or -1 for a global merge; the count; the pair), or None to stop."""
        if len(self.symbols) >= self.vocab_size:
            self.stop_reason = f"the vocabulary reached {self.vocab_size} symbols"
            return None
        floor = max(self.min_frequency, 1)
        if len(self.merges) < self.global_merges:
            best = self._best_pair(self.total_heap, self.totals)
            if best is not None and best[0] >= floor:
                return -1, *best
        else:
            order = worst_first(
                tokens, self.sizes, self.measure, self.recent, self.window, self.alpha
            )
            for lang in order:
                st = self.state[lang]
                best = self._best_pair(st.heap, st.counts)
                if best is not None and best[0] >= floor:
                    return lang, *best
        self.stop_reason = f"no pair is left that occurs at least {floor} times"
        return None

    def _best_pair(self, heap: list[tuple[int, str]], counts: Mapping[str, int]):
        """The best (count, pair) of one language's counts (or the summed ones), by `ties`."""
        top = _best(heap, counts)
        if top is None or self.ties == "ids":
            return top
        sym = self.symbols
        key = max(_tied(heap, counts, top[0]), key=lambda k: (sym[ord(k[0])], sym[ord(k[1])]))
        return top[0], key

    def _apply_merge(self, key: str, new: str) -> None:
        """Merge in every language: its training words (updating its counts and heap, and the
        summed counts) and its dev words (updating its dev token count)."""
        for st in self.state:
            delta = _merge_words(st.words, st.where, key, new, st.freqs)
            if delta:
                delta[key] = -st.counts[key]  # every occurrence is merged
                self._update_counts(st.counts, st.heap, delta)
                if self.global_merges:
                    self._update_counts(self.totals, self.total_heap, delta)
            if key in st.dev_where:
                st.tokens -= _merge_dev(st.dev, st.dev_where, key, new, st.dev_freqs)

    @staticmethod
    def _update_counts(counts: Counter[str], heap: list[tuple[int, str]], delta: dict[str, int]):
        """Apply the changes of the pair counts; a pair that gained gets a heap entry (one that
        lost keeps its old entry, refreshed when it surfaces)."""
        for pair, d in delta.items():
            c = counts[pair] = counts[pair] + d
            if d > 0:
                heapq.heappush(heap, (-c, pair))
            elif c <= 0:
                del counts[pair]

    def _record(
        self, lang: int, count: int, a: int, b: int, new: int, tokens: list[int]
    ) -> ParityMergeStep:
        sym = self.symbols
        after = [st.tokens for st in self.state]
        return ParityMergeStep(
            index=len(self.merges) - 1,
            pair=(sym[a], sym[b]),
            count=count,
            new_symbol=sym[new],
            new_id=new,
            language=self.languages[lang] if lang >= 0 else "",
            languages=self.languages,
            tokens=tuple(tokens),
            rates=rates(self.sizes, tokens),
            measure=self.measure,
            gini=gini(after if self.measure == "tokens" else rates(self.sizes, after)),
        )

    def run(self) -> "ParityBpeTrainer":
        while self.step() is not None:
            pass
        return self

    # -- results ---------------------------------------------------------------------------------
    def vocab(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.symbols)}

    def merge_strings(self) -> list[tuple[str, str]]:
        """The merges as strings, in the order learned."""
        sym = self.symbols
        return [(sym[a], sym[b]) for a, b in self.merges]


def rates(sizes: list[int], tokens: list[int]) -> tuple[float, ...]:
    """Compression rates: size (UTF-8 bytes) per token, one per language.

    >>> rates([12, 9], [4, 9])
    (3.0, 1.0)
    """
    return tuple(s / t if t else 0.0 for s, t in zip(sizes, tokens))


def _symbols_of(train: Mapping[str, Table]) -> set[str]:
    return {s for table in train.values() for word in table for s in word}

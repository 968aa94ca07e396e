"""Byte-pair encoding, the trainer: one merge at a time (the model is in `bpe.py`).

Three trainable variants (`tokenizers_core.train(name, lines, vocab_size)`):

- ``"bpe"``: the textbook algorithm. Words come from the `Whitespace` pre-tokenizer
  (``\\w+|[^\\w\\s]+``); each word is a tuple of characters plus a separate end-of-word symbol
  ``</w>``, so "er" at the end of a word differs from "er" inside one. ``<unk>`` (id 0) stands for
  characters never seen in training.
- ``"byte_bpe"``: GPT-2 style. Words come from a regex (preset ``gpt2`` by default, or ``cl100k``,
  ``o200k``); each word is its UTF-8 bytes, spelled through the GPT-2 byte-to-unicode table ("Ġ" is
  the space byte), and all 256 bytes are in the alphabet, so nothing is ever unknown. The ``gpt2``
  preset is tiktoken's r50k pattern (`pre_tokenizers.GPT2_PATTERN`); Hugging Face's ByteLevel
  uses OpenAI's original GPT-2 pattern, which differs only in how a whitespace run is taken
  (``\\s++$`` and a final ``\\s`` instead of ``\\s+``) and splits every text we tried the same way
  (`pre_tokenizers` explains why), so the merges equal Hugging Face's on botchan and all 33 UDHR
  texts at V = 1000 and 4000 (`benchmarks/verify_bpe_exactness.py`; the tests run a sample).
- ``"sentencepiece_bpe"``: sentencepiece's BPE (see `sentencepiece_trainer.py`).

**Training** (``"bpe"``, ``"byte_bpe"``) is Hugging Face's `BpeTrainer`, step for step:

1. count the words once (a word-frequency table; the corpus is never read again);
2. give ids to the special tokens, then to the alphabet in code-point order (Python `str` order);
3. count every adjacent pair of symbols, weighted by word frequency, and remember which words
   hold it (the pair -> words index);
4. repeat until the vocabulary is big enough: pick the pair with the highest count -- on a tie
   the smallest ``(id(left), id(right))``, so the pair of older symbols wins -- merge it in every
   word that holds it, and record the merge.

Step 4 never recounts: merging ``a b`` in one word only changes the pairs next to it
(``x a`` -> ``x ab``, ``b y`` -> ``ab y``), so the counts are updated in place and the best pair
comes off a heap whose stale entries are refreshed when they surface (lazy deletion).
`vocab_size` counts special tokens + alphabet + merged symbols, as Hugging Face does; training
also stops when no pair occurs at least `min_frequency` times (and at least once).

Hugging Face's other trainer options (`hf_bpe_trainer`): the alphabet ones and the prefix and
suffix spell the words before training (`alphabet.py`); `max_token_length` stops counting a new
neighbour pair that would span that many initial symbols or more, measured place by place as
Hugging Face's `Word::merge` does (`_drop_long`, `_places`).

>>> t = bpe_trainer(["low low low lower lowest newer wider"], vocab_size=16).run()
>>> t.merge_strings()[:3]
[('l', 'o'), ('lo', 'w'), ('e', 'r')]
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from itertools import chain
from typing import Any, Iterable, Iterator, Mapping

from ...byte_level import BYTE_TO_CHAR
from ...errors import InvalidInput
from .alphabet import OPTION_NAMES, check_options, spell_words
from .model import END_OF_WORD, MAX_VOCAB_SIZE, UNK, BpeMergeStep

# the corpus -> word table step lives in words.py; its names stay importable from here
from .words import (
    MAX_CORPUS_CHARS,
    bpe_word_table,
    bpe_words,
    byte_bpe_word_table,
    byte_bpe_words,
    check_alphabet,
    check_min_frequency,
    check_vocab_size,
    splitter,
)

# the trainers and their checks, then the names kept from words.py (listed so that they read as
# re-exports, not as unused imports)
__all__ = [
    "BpeTrainer",
    "bpe_trainer",
    "byte_bpe_trainer",
    "hf_bpe_trainer",
    "check_specials",
    "MAX_CORPUS_CHARS",
    "bpe_word_table",
    "bpe_words",
    "byte_bpe_word_table",
    "byte_bpe_words",
    "check_alphabet",
    "check_min_frequency",
    "check_vocab_size",
    "splitter",
]

_TIES_SHOWN = 6
_CHANGED_SHOWN = 12


# ---- training: Hugging Face's BpeTrainer, one merge at a time ------------------------------------
# Inside the trainer a symbol is the one character chr(id), a word is a str of such characters and
# a pair is a 2-character str: merging a pair in a word is `str.replace`, and comparing two pairs
# as strings compares (id(left), id(right)), the tie-break order.
def _sym(i: int) -> str:
    return chr(i)


# A heap entry is one int, so that the heap compares ints, not tuples:
#     (-count << _COUNT_SHIFT) + (id(left) << 52) + (id(right) << 32) + seq
# Smallest first means: the highest count, then the smaller (id(left), id(right)), then the older
# entry. `seq` indexes `BpeTrainer._entries`, which holds the entry's pair and its words to visit.
_COUNT_SHIFT = 72
_LOW = (1 << _COUNT_SHIFT) - 1  # everything below the count: the pair and seq
_SEQ = (1 << 32) - 1
_WRAP = 1 << 64  # a negative count read as Rust's u64


def heap_entry(count: int, key: str, seq: int) -> int:
    return (-count << _COUNT_SHIFT) + (ord(key[0]) << 52) + (ord(key[1]) << 32) + seq


class BpeTrainer:
    """The incremental trainer as a stepper: iterate it to get one `BpeMergeStep` per merge.

    `words` is the word-frequency table, each word already spelled as its initial symbols
    (``{("l", "o", "w", "</w>"): 5, ...}``; a str key means one symbol per character).
    `end_of_word`, when given, is one more symbol put at the end of every word (so
    ``{"low": 5}`` with ``end_of_word="</w>"`` is the table above). The state after the steps
    taken so far is inspectable (`segmentation`, `top_pairs`); `run` goes on to the end.
    With `annotate=False` the steps leave out the views' annotations (who tied, which words
    changed): finding the ties costs about a fifth of the training time, and plain training
    (`train_bpe`) keeps only the merges.

    >>> t = BpeTrainer({("a", "b"): 3, ("b", "a", "b"): 1}, vocab_size=3)
    >>> [(s.pair, s.count) for s in t]
    [(('a', 'b'), 4)]
    """

    def __init__(
        self,
        words: Mapping[str, int] | Mapping[tuple[str, ...], int],
        vocab_size: int,
        *,
        min_frequency: int = 0,
        special_tokens: Iterable[str] = (),
        initial_alphabet: Iterable[str] = (),
        end_of_word: str | None = None,
        alphabet: Iterable[str] | None = None,
        continuing_subword_prefix: str | None = None,
        max_token_length: int | None = None,
        record_top: int = 0,
        annotate: bool = True,
    ) -> None:
        self.vocab_size = vocab_size
        self.min_frequency = min_frequency
        self.record_top = record_top
        self.annotate = annotate
        self.end_of_word = end_of_word
        self.prefix = continuing_subword_prefix or ""
        self.max_token_length = max_token_length
        # 1-2. special tokens, then the alphabet in code-point order (or in the order given)
        self.symbols: list[str] = []
        self.symbol_ids: dict[str, int] = {}
        for tok in special_tokens:
            self._add_symbol(tok)
        if alphabet is None:
            alphabet = set(initial_alphabet)
            alphabet.update(chain.from_iterable(words))
            if end_of_word:
                alphabet.add(end_of_word)
            alphabet = sorted(alphabet)
        for sym in alphabet:
            self._add_symbol(sym)
        self.alphabet_size = len(self.symbols)
        # how many initial symbols each symbol spans (for max_token_length), and for the words
        # where a merge made an existing symbol anew (so it may span more there), each place's
        self.lengths: list[int] = [1] * self.alphabet_size
        self._occ: dict[int, list[int]] | None = None if max_token_length is None else {}
        # the word table: one entry per distinct word, coded one character per symbol
        self.word_keys: list = list(words)
        self.counts: list[int] = list(words.values())
        self.words: list[str] = list(map(self._code, self.word_keys))
        # 3. pair counts and the pair -> words index, as heap entries
        self.pair_counts: defaultdict[str, int] = defaultdict(int)
        self._heap: list[int] = []
        self._entries: list[tuple[str, list[int]] | None] = []
        self._count_all_pairs()
        self.merges: list[tuple[int, int]] = []  # (left id, right id), in learned order
        self.new_ids: list[int] = []
        self.steps: list[BpeMergeStep] = []
        self.tables: list[tuple[tuple[str, str, int], ...]] = []  # top pairs before each merge
        self.done = False
        self.stop_reason = ""

    def _code(self, word) -> str:
        """A word (str or tuple of symbols) as a str of symbol-id characters."""
        table = self.__dict__.get("_table")
        if table is None:
            table = self._table = str.maketrans(
                {c: _sym(i) for c, i in self.symbol_ids.items() if len(c) == 1}
            )
            if self.end_of_word:
                self._end_code = _sym(self.symbol_ids[self.end_of_word])
        if isinstance(word, str):
            code = word.translate(table)
        else:
            text = "".join(word)
            code = (
                text.translate(table)
                if len(text) == len(word)
                else "".join(_sym(self.symbol_ids[c]) for c in word)
            )
        return code + self._end_code if self.end_of_word else code

    def _add_symbol(self, sym: str) -> int:
        if sym not in self.symbol_ids:
            if len(self.symbols) >= MAX_VOCAB_SIZE:
                raise InvalidInput(f"a vocabulary is limited to {MAX_VOCAB_SIZE:,} symbols")
            self.symbol_ids[sym] = len(self.symbols)
            self.symbols.append(sym)
        return self.symbol_ids[sym]

    # -- bookkeeping helpers ---------------------------------------------------------------------
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
        found, more = self._walk(_TIES_SHOWN, count, best_key, max_visits=16)
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

    def top_pairs(self, k: int) -> tuple[tuple[str, str, int], ...]:
        """The k most frequent pairs right now, in the order the trainer would pick them."""
        found, _ = self._walk(k, 1, "", max_visits=20 * k + 200)
        sym = self.symbols
        return tuple((sym[ord(key[0])], sym[ord(key[1])], c) for key, c in found)

    # -- the loop: count -> pick -> merge -> record ----------------------------------------------
    def __iter__(self) -> Iterator[BpeMergeStep]:
        return self

    def __next__(self) -> BpeMergeStep:
        if self.done:
            raise StopIteration
        if self.record_top:
            table = self.top_pairs(self.record_top)
        best = self._pop_best()  # pick the most frequent pair
        if best is None:
            self.done = True
            raise StopIteration
        key, count, positions = best
        a, b = ord(key[0]), ord(key[1])
        size = len(self.symbols)
        new = self._add_symbol(self._join(self.symbols[a], self.symbols[b]))
        if new == size:
            self.lengths.append(self.lengths[a] + self.lengths[b])
        tied = more = None
        if self.annotate:  # (for the view: who tied)
            if new == size:
                self._settle(count)
            tied, more = self._ties(count, key)
        changed = self._apply_merge(
            key,
            _sym(new),
            positions,  # merge it everywhere
            fresh=new == size,
        )
        self.merges.append((a, b))  # record the merge
        self.new_ids.append(new)
        if self.record_top:
            self.tables.append(table)
        step = self._record(len(self.merges) - 1, a, b, count, new, tied, more, changed)
        self.steps.append(step)
        return step

    def _join(self, left: str, right: str) -> str:
        """The merged symbol: `left` + `right`, less the right side's continuation prefix
        (merging "a" and "##b" makes "ab"), as Hugging Face builds it."""
        if self.prefix and right.startswith(self.prefix):
            right = right[len(self.prefix) :]
        return left + right

    def _record(
        self,
        index: int,
        a: int,
        b: int,
        count: int,
        new: int,
        tied: list[str] | None,
        more: bool | None,
        changed: list[int],
    ) -> BpeMergeStep:
        sym = self.symbols
        if not self.annotate or tied is None:  # (`tied` is None exactly when not annotating)
            return BpeMergeStep(
                index, (sym[a], sym[b]), count, sym[new], new, None, None, None, None, len(changed)
            )
        return BpeMergeStep(
            index=index,
            pair=(sym[a], sym[b]),
            count=count,
            new_symbol=sym[new],
            new_id=new,
            tied=tuple((sym[ord(k[0])], sym[ord(k[1])]) for k in tied),
            n_tied=len(tied),
            ties_more=more,
            changed_words=tuple(self.word_text(i) for i in changed[:_CHANGED_SHOWN]),
            n_changed_words=len(changed),
        )

    def run(self) -> "BpeTrainer":
        for _ in self:
            pass
        return self

    # -- state and results -----------------------------------------------------------------------
    def word_text(self, i: int) -> str:
        """Word i of the word table as text (its initial symbols joined)."""
        w = self.word_keys[i]
        if not isinstance(w, str):
            w = "".join(w)
        return w + self.end_of_word if self.end_of_word else w

    def initial_symbols(self, i: int) -> tuple[str, ...]:
        """Word i of the word table as its initial symbols."""
        w = self.word_keys[i]
        return (*w, self.end_of_word) if self.end_of_word else tuple(w)

    def segmentation(self, i: int) -> tuple[str, ...]:
        """Word i's symbols in the current state."""
        sym = self.symbols
        return tuple(sym[ord(c)] for c in self.words[i])

    def vocab(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.symbols)}

    def merge_strings(self) -> list[tuple[str, str]]:
        """The merges as strings, as Hugging Face saves them: a pair merged twice (possible when
        one symbol string is made in two ways) is listed once, at its last rank."""
        sym = self.symbols
        last = {pair: r for r, pair in enumerate(self.merges)}
        return [(sym[a], sym[b]) for r, (a, b) in enumerate(self.merges) if last[(a, b)] == r]


# ---- the trainers registered in tokenizers_core._TRAINERS ----------------------------------------
def bpe_trainer(
    lines: Iterable[str],
    vocab_size: int,
    *,
    min_frequency: int = 0,
    record_top: int = 0,
    annotate: bool = True,
    **options: Any,
) -> BpeTrainer:
    """A stepper for the textbook "bpe" variant (see the module docstring). Options:
    limit_alphabet, initial_alphabet and max_token_length, as Hugging Face's (`alphabet.py`);
    `<unk>` and `</w>` are always in the alphabet, outside the limit."""
    vocab_size = check_vocab_size(vocab_size)
    options = check_options(options, ("limit_alphabet", "initial_alphabet", "max_token_length"))
    words = bpe_words(lines)
    if not words:
        raise InvalidInput("the corpus has no words to learn from")
    max_length = options.pop("max_token_length", None)
    spelled, chars = spell_words(words, known=[UNK], **options)
    trainer = BpeTrainer(
        spelled,
        vocab_size,
        min_frequency=check_min_frequency(min_frequency),
        special_tokens=[UNK],
        end_of_word=END_OF_WORD,
        alphabet=sorted({*chars, END_OF_WORD}),
        max_token_length=max_length,
        record_top=record_top,
        annotate=annotate,
    )
    check_alphabet(vocab_size, trainer.alphabet_size, "<unk>, the characters and </w>")
    return trainer


def byte_bpe_trainer(
    lines: Iterable[str],
    vocab_size: int,
    *,
    pattern: str = "gpt2",
    min_frequency: int = 0,
    special_tokens: Iterable[str] = (),
    record_top: int = 0,
    annotate: bool = True,
    **options: Any,
) -> BpeTrainer:
    """A stepper for "byte_bpe": Hugging Face's `BpeTrainer` with the 256-byte alphabet (its
    initial alphabet), taking that trainer's options (`alphabet.OPTION_NAMES`)."""
    options = check_options(options, (*OPTION_NAMES, "symbol_order"))
    options["initial_alphabet"] = [*BYTE_TO_CHAR.values(), *options.get("initial_alphabet", ())]
    trainer = hf_bpe_trainer(
        byte_bpe_words(lines, pattern),
        vocab_size,
        min_frequency=min_frequency,
        special_tokens=special_tokens,
        record_top=record_top,
        annotate=annotate,
        **options,
    )
    spelled = options.get("continuing_subword_prefix") or options.get("end_of_word_suffix")
    check_alphabet(
        vocab_size,
        trainer.alphabet_size,
        "the special tokens and 256 bytes"
        + (" and their spellings with the prefix or suffix" if spelled else ""),
    )
    return trainer


def hf_bpe_trainer(
    word_counts: dict[str, int],
    vocab_size: int,
    *,
    min_frequency: int = 0,
    special_tokens: Iterable[str] = (),
    record_top: int = 0,
    annotate: bool = True,
    **options: Any,
) -> BpeTrainer:
    """Hugging Face's `BpeTrainer` with all its options (`alphabet.py`) over a table of
    pre-tokenised words, plus `symbol_order` (see `alphabet.spell_words`).

    >>> t = hf_bpe_trainer({"low": 5, "lower": 2}, 20, end_of_word_suffix="</w>").run()
    >>> t.merge_strings()[:2]
    [('l', 'o'), ('lo', 'w</w>')]
    """
    vocab_size = check_vocab_size(vocab_size)
    specials = check_specials(special_tokens)
    order = options.pop("symbol_order", None)
    options = check_options(options)
    max_length = options.pop("max_token_length", None)
    words, alphabet = spell_words(word_counts, known=specials, symbol_order=order, **options)
    return BpeTrainer(
        words,
        vocab_size,
        min_frequency=check_min_frequency(min_frequency),
        special_tokens=specials,
        alphabet=alphabet,
        continuing_subword_prefix=options.get("continuing_subword_prefix"),
        max_token_length=max_length,
        record_top=record_top,
        annotate=annotate,
    )


def check_specials(special_tokens: Iterable[str]) -> list[str]:
    if isinstance(special_tokens, str):
        special_tokens = [special_tokens]
    out = []
    for tok in special_tokens:
        if not isinstance(tok, str) or not tok:
            raise InvalidInput("special tokens must be non-empty strings")
        if tok not in out:
            out.append(tok)
    return out

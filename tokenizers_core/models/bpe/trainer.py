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

from collections import defaultdict
from itertools import chain
from typing import Any, Iterable, Iterator, Mapping

from ...byte_level import BYTE_TO_CHAR
from ...errors import InvalidInput
from .alphabet import OPTION_NAMES, check_options, spell_words
from .model import END_OF_WORD, MAX_VOCAB_SIZE, UNK, BpeMergeStep
from .pair_heap import PairHeap

# the corpus -> word table step lives in words.py; its names stay importable from here
from .words import (
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
    "bpe_word_table",
    "bpe_words",
    "byte_bpe_word_table",
    "byte_bpe_words",
    "check_alphabet",
    "check_min_frequency",
    "check_vocab_size",
    "splitter",
]

_CHANGED_SHOWN = 12  # the changed words a step lists


# ---- training: Hugging Face's BpeTrainer, one merge at a time ------------------------------------
# Inside the trainer a symbol is the one character chr(id), a word is a str of such characters and
# a pair is a 2-character str (`pair_heap.py`, which keeps the counts and the heap, says why).
def _sym(i: int) -> str:
    return chr(i)


class BpeTrainer(PairHeap):
    """The incremental trainer as a stepper: `step()` makes one merge and returns its
    `BpeMergeStep` (None when training is over); iterating it steps it to the end.

    `words` is the word-frequency table, each word already spelled as its initial symbols
    (``{("l", "o", "w", "</w>"): 5, ...}``; a str key means one symbol per character).
    `end_of_word`, when given, is one more symbol put at the end of every word (so
    ``{"low": 5}`` with ``end_of_word="</w>"`` is the table above). The state after the steps
    taken so far is inspectable (`segmentation`, `top_pairs`); `run` goes on to the end.
    With `annotate=False` the steps leave out the views' annotations (who tied, which words
    changed): finding the ties costs about a fifth of the training time, and plain training
    (`train_bpe`) keeps only the merges.

    >>> t = BpeTrainer({("a", "b"): 3, ("b", "a", "b"): 1}, vocab_size=3)
    >>> (t.step().pair, t.step(), t.stop_reason)
    (('a', 'b'), None, 'the vocabulary reached 3 symbols')
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

    # -- the loop: count -> pick -> merge -> record ----------------------------------------------
    def step(self) -> BpeMergeStep | None:
        """One merge: pick the most frequent pair, merge it everywhere, record it. None when
        training is over (`stop_reason` says why)."""
        if self.done:
            return None
        if self.record_top:
            table = self.top_pairs(self.record_top)
        best = self._pop_best()  # pick the most frequent pair
        if best is None:
            self.done = True
            return None
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
        changed = self._apply_merge(key, _sym(new), positions, fresh=new == size)  # merge it
        self.merges.append((a, b))  # record the merge
        self.new_ids.append(new)
        if self.record_top:
            self.tables.append(table)
        step = self._record(len(self.merges) - 1, a, b, count, new, tied, more, changed)
        self.steps.append(step)
        return step

    def __iter__(self) -> Iterator[BpeMergeStep]:
        return self

    def __next__(self) -> BpeMergeStep:
        step = self.step()  # (iterating is stepping, for `for step in trainer`)
        if step is None:
            raise StopIteration
        return step

    def run(self) -> "BpeTrainer":
        """Step to the end of training; returns the trainer."""
        while self.step() is not None:
            pass
        return self

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

    # -- symbols, and the state after the steps so far --------------------------------------------
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

    def top_pairs(self, k: int) -> tuple[tuple[str, str, int], ...]:
        """The k most frequent pairs right now, in the order the trainer would pick them."""
        found, _ = self._walk(k, 1, "", max_visits=20 * k + 200)
        sym = self.symbols
        return tuple((sym[ord(key[0])], sym[ord(key[1])], c) for key, c in found)

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
    lines: Iterable[str] | None,
    vocab_size: int,
    *,
    min_frequency: int = 0,
    record_top: int = 0,
    annotate: bool = True,
    words: Mapping[str, int] | None = None,
    **options: Any,
) -> BpeTrainer:
    """A stepper for the textbook "bpe" variant (see the module docstring). Options:
    limit_alphabet, initial_alphabet and max_token_length, as Hugging Face's (`alphabet.py`);
    `<unk>` and `</w>` are always in the alphabet, outside the limit. `words`, when given, is the
    corpus's word counts already made (`tc.count`), and `lines` is not read."""
    vocab_size = check_vocab_size(vocab_size)
    options = check_options(options, ("limit_alphabet", "initial_alphabet", "max_token_length"))
    words = bpe_words(lines or ()) if words is None else words
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
    lines: Iterable[str] | None,
    vocab_size: int,
    *,
    pattern: str = "gpt2",
    min_frequency: int = 0,
    special_tokens: Iterable[str] = (),
    record_top: int = 0,
    annotate: bool = True,
    words: Mapping[str, int] | None = None,
    **options: Any,
) -> BpeTrainer:
    """A stepper for "byte_bpe": Hugging Face's `BpeTrainer` with the 256-byte alphabet (its
    initial alphabet), taking that trainer's options (`alphabet.OPTION_NAMES`). `words`, when
    given, is the corpus's pre-tokens already counted and spelled byte-level (from `tc.count`),
    and `lines` is not read."""
    options = check_options(options, (*OPTION_NAMES, "symbol_order"))
    options["initial_alphabet"] = [*BYTE_TO_CHAR.values(), *options.get("initial_alphabet", ())]
    trainer = hf_bpe_trainer(
        byte_bpe_words(lines or (), pattern) if words is None else dict(words),
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

"""SuperBPE (Liu et al. 2025, "SuperBPE: Space Travel for Language Models", arXiv 2503.13423):
byte-level BPE in two stages, the fast trainer and its step.

**Stage 1** is ordinary byte-level BPE ("byte_bpe": the GPT-2 regex pieces, Hugging Face's
`BpeTrainer`) until the vocabulary holds `transition` symbols (the paper's t).

**Stage 2** re-reads the corpus with a coarser pre-tokenisation that no longer splits on
whitespace, replays the stage-1 merges on the new pieces in order, and goes on merging to
`vocab_size`: merges may now join words into *superword* tokens ("Ġof" + "Ġthe" -> "ĠofĠthe").
The stage-2 pieces are those of the authors' `scripts/extend_tokenizer.sh` (PythonNut/superbpe,
commit bbd0976): the regex `SUPERBPE_PATTERN` in Hugging Face's `Split(..., "isolated")`, so
digits still go in groups of at most three, a run of two or more punctuation marks (with an
optional leading space and trailing newlines or slashes) stays apart, and so does a run of spaces
before another space or the end; everything between those matches -- words and the single
spaces between them -- is one piece. Two rules of the authors' trainer fork
(alisawuffles/tokenizers-superbpe, commit a27d8bf, "limit to 4-word tokens and special case
colon") hold in stage 2: no merge makes a token of more than `max_words` words, nor one holding
a colon followed by a space (`colon_rule`). The fork counts words between space bytes; we count
them between any whitespace bytes (the same for text without tabs or line breaks inside a line).

The fork re-counts the stage-1 merges on the stage-2 pieces and skips one that no longer occurs
there (its token leaves the vocabulary); we keep the whole stage-1 vocabulary, ids included, so
that with `transition == vocab_size` SuperBPE *is* "byte_bpe". Replaying the merges in order,
each everywhere, is encoding the piece by rank (a merge only ever makes pairs of a later rank),
which is what `_replay` does with a `BPE` model.

The loop a student reads is `textbook/superbpe_train.py`; this module's `SuperBpeTrainer` runs
two of the fast `BpeTrainer`s (incremental counts, a heap) and is proved equal to it step by step
by tests/core/models/test_superbpe.py.

>>> t = superbpe_trainer(["of the", "of the", "of a"], 261, transition=259).run()
>>> [s.new_symbol for s in t.steps], [s.after_transition for s in t.steps]
(['of', 'he', 'the', 'ofĠ', 'ofĠthe'], [False, False, False, True, True])
>>> [s.new_symbol for s in t.steps if s.superword]
['ofĠ', 'ofĠthe']
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Iterator

import regex

from ...byte_level import BYTE_TO_CHAR, str_to_byte_level
from ...errors import InvalidInput
from ...steps import register_step, step_from_dict  # noqa: F401  (step_from_dict: doctests)
from ...user_regex import compile_pattern
from .model import BPE, BpeMergeStep
from .trainer import BpeTrainer, check_specials
from .words import byte_bpe_words, check_alphabet, check_min_frequency, check_vocab_size

# The authors' stage-2 pre-tokenisation (scripts/extend_tokenizer.sh), used "isolated".
SUPERBPE_PATTERN = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"
MAX_WORDS = 4  # the fork's cap on the words of a token
WHITESPACE = frozenset(BYTE_TO_CHAR[b] for b in b" \t\n\r\x0b\x0c")  # as byte-level symbols
COLON_SPACE = BYTE_TO_CHAR[ord(":")] + BYTE_TO_CHAR[ord(" ")]
DEFAULT_TRANSITION = 0.9  # the paper's best t for 200k tokens is 180k
SHOWN_TIES = 6  # as BpeTrainer


@register_step
@dataclass(frozen=True)
class SuperBpeMergeStep(BpeMergeStep):
    """One SuperBPE merge: a `BpeMergeStep` and what is new. `after_transition` says the merge
    was learned in stage 2 (pieces no longer split on whitespace); `superword` says the new
    token bridges whitespace (a whitespace byte after a non-whitespace one: "ofĠthe", "ofĠ");
    `n_words` counts its words (runs of non-whitespace bytes).

    >>> s = SuperBpeMergeStep(3, ("of", "Ġthe"), 2, "ofĠthe", 260, (), 0, False, ("ofĠthe",),
    ...                       1, True, True, 2)
    >>> step_from_dict(s.to_dict()) == s, s.to_dict()["superword"]
    (True, True)
    """

    kind: ClassVar[str] = "superbpe_merge"
    after_transition: bool
    superword: bool
    n_words: int


def is_superword(token: str) -> bool:
    """Whether a byte-level token bridges whitespace: a whitespace byte after a non-whitespace one.

    >>> is_superword("ĠofĠthe"), is_superword("ofĠ"), is_superword("Ġthe"), is_superword("ĠĠ")
    (True, True, False, False)
    """
    seen_word = False
    for c in token:
        if c not in WHITESPACE:
            seen_word = True
        elif seen_word:
            return True
    return False


def word_count(token: str) -> int:
    """The words of a byte-level token: its runs of non-whitespace bytes.

    >>> word_count("ĠofĠtheĠcat"), word_count("ĠĠ"), word_count("ofĠ")
    (3, 0, 1)
    """
    count, inside = 0, False
    for c in token:
        if c in WHITESPACE:
            inside = False
        elif not inside:
            count, inside = count + 1, True
    return count


def allowed(token: str, max_words: int | None = MAX_WORDS, colon_rule: bool = True) -> bool:
    """Whether stage 2 may make `token`: at most `max_words` words (None: any number), and,
    with `colon_rule`, no colon followed by a space.

    >>> allowed("ĠaĠbĠcĠd"), allowed("ĠaĠbĠcĠdĠe"), allowed("note:Ġthe"), allowed("a:b")
    (True, False, False, True)
    """
    if colon_rule and COLON_SPACE in token:
        return False
    return max_words is None or word_count(token) <= max_words


def superword_chunks(lines: Iterable[str], pattern: str = SUPERBPE_PATTERN) -> dict[str, int]:
    """The stage-2 word table: each line cut by `pattern` "isolated" (the matches and the text
    between them are pieces), each piece spelled in byte-level characters, with counts.

    >>> superword_chunks(["of the 2024 cats!!", "of the"])
    {'ofĠtheĠ': 1, '202': 1, '4': 1, 'Ġcats': 1, '!!': 1, 'ofĠthe': 1}
    """
    finditer = (
        regex.compile(pattern) if pattern == SUPERBPE_PATTERN else compile_pattern(pattern)
    ).finditer
    counts: Counter[str] = Counter()
    for line in lines:
        pos = 0
        for m in finditer(line, concurrent=False):
            if m.start() > pos:
                counts[line[pos : m.start()]] += 1
            if m.end() > m.start():
                counts[m.group()] += 1
            pos = max(pos, m.end())
        if pos < len(line):
            counts[line[pos:]] += 1
    return {str_to_byte_level(piece): c for piece, c in counts.items()}


def step_of(step: BpeMergeStep, after_transition: bool) -> SuperBpeMergeStep:
    """A `BpeMergeStep` with SuperBPE's fields added."""
    fields = {f.name: getattr(step, f.name) for f in dataclasses.fields(BpeMergeStep)}
    new = step.new_symbol
    return SuperBpeMergeStep(
        **fields, after_transition=after_transition, superword=is_superword(new),
        n_words=word_count(new),
    )  # fmt: skip


class _SuperwordTrainer(BpeTrainer):
    """Stage 2: a `BpeTrainer` that never merges a pair whose token `allowed` refuses. Such a
    pair is dropped when it surfaces on the heap, as the fork's trainer drops it (it comes
    back, and is dropped again, only if its count grows)."""

    def __init__(self, *args: Any, max_words: int | None, colon_rule: bool, **kw: Any) -> None:
        self.max_words, self.colon_rule = max_words, colon_rule
        super().__init__(*args, **kw)

    def _allowed(self, key: str) -> bool:
        sym = self.symbols
        return allowed(sym[ord(key[0])] + sym[ord(key[1])], self.max_words, self.colon_rule)

    def _pop_best(self) -> tuple[str, int, Any] | None:
        while (best := super()._pop_best()) is not None:
            if self._allowed(best[0]):
                return best
        return None

    def _ties(self, count: int, best_key: str) -> tuple[list[str], bool]:
        found, more = self._walk(4 * SHOWN_TIES, count, best_key, max_visits=64)
        keys = [k for k, _ in found if self._allowed(k)]
        return keys[:SHOWN_TIES], more or len(keys) > SHOWN_TIES


class SuperBpeTrainer:
    """The two stages as one stepper: `step()` gives one `SuperBpeMergeStep` per merge (None at
    the end), as iterating it does.

    `words` is stage 1's word table and `chunks` stage 2's (each a dict of byte-level strings,
    one symbol per character, to counts: `byte_bpe_words`, `superword_chunks`). Stage 1 trains
    to `transition` symbols, stage 2 to `vocab_size`; `run` goes to the end.

    >>> t = SuperBpeTrainer({"ab": 2}, {"abĠab": 1}, 6, transition=4).run()
    >>> [s.new_symbol for s in t.steps], t.transition_index
    (['ab', 'Ġab', 'abĠab'], 1)
    """

    def __init__(
        self,
        words: dict[str, int],
        chunks: dict[str, int],
        vocab_size: int,
        *,
        transition: int,
        min_frequency: int = 0,
        special_tokens: Iterable[str] = (),
        initial_alphabet: Iterable[str] = (),
        max_words: int | None = MAX_WORDS,
        colon_rule: bool = True,
        annotate: bool = True,
    ) -> None:
        self.vocab_size, self.transition = vocab_size, transition
        self.chunks, self.min_frequency, self.annotate = chunks, min_frequency, annotate
        self.max_words, self.colon_rule = max_words, colon_rule
        alphabet = {*initial_alphabet, *(c for chunk in chunks for c in chunk)}
        self.stage1 = BpeTrainer(
            words, transition, min_frequency=min_frequency, special_tokens=special_tokens,
            initial_alphabet=alphabet, annotate=annotate,
        )  # fmt: skip
        self.stage2: BpeTrainer | None = None
        self.steps: list[SuperBpeMergeStep] = []
        self.transition_index: int | None = None  # the index of the first stage-2 merge
        self.done = False

    def __iter__(self) -> Iterator[SuperBpeMergeStep]:
        return self

    def step(self) -> SuperBpeMergeStep | None:
        """One merge, of the stage running now; None when both stages are over."""
        if self.done:
            return None
        if self.stage2 is None:
            step = self.stage1.step()  # stage 1: ordinary byte-level BPE
            if step is not None:
                return self._record(step_of(step, False))
            self.stage2 = self._start_stage2()  # the transition: whole chunks
            self.transition_index = len(self.steps)
        step = self.stage2.step()  # stage 2: merges may cross whitespace
        if step is None:
            self.done = True
            return None
        return self._record(step_of(step, True))

    def __next__(self) -> SuperBpeMergeStep:
        step = self.step()
        if step is None:
            raise StopIteration
        return step

    def _record(self, step: SuperBpeMergeStep) -> SuperBpeMergeStep:
        self.steps.append(step)
        return step

    def _start_stage2(self) -> BpeTrainer:
        """Stage 2's trainer: the chunks as the stage-1 merges leave them, every stage-1 symbol
        keeping its id, the stage-1 merges already in its list."""
        first = self.stage1
        trainer = _SuperwordTrainer(
            _replay(self.chunks, first.vocab(), first.merge_strings()), self.vocab_size,
            min_frequency=self.min_frequency, alphabet=first.symbols, annotate=self.annotate,
            max_words=self.max_words, colon_rule=self.colon_rule,
        )  # fmt: skip
        trainer.merges, trainer.new_ids = list(first.merges), list(first.new_ids)
        return trainer

    def run(self) -> SuperBpeTrainer:
        while self.step() is not None:
            pass
        return self

    @property
    def current(self) -> BpeTrainer:
        """The trainer of the stage running now."""
        return self.stage2 or self.stage1

    def vocab(self) -> dict[str, int]:
        return self.current.vocab()

    def merge_strings(self) -> list[tuple[str, str]]:
        return self.current.merge_strings()


def _replay(
    chunks: dict[str, int], vocab: dict[str, int], merges: list[tuple[str, str]]
) -> dict[tuple[str, ...], int]:
    """Each chunk as the merges, replayed in order (encoding by rank), leave it."""
    model = BPE(vocab, merges)
    return {tuple(model.merge_parts(list(chunk))): c for chunk, c in chunks.items()}


def check_transition(transition: Any, vocab_size: int) -> int:
    """The transition vocabulary size t: a whole number, at most `vocab_size` (None: the
    paper's 90% of it).

    >>> check_transition(None, 1000), check_transition(300, 1000)
    (900, 300)
    """
    if transition is None:
        return round(DEFAULT_TRANSITION * vocab_size)
    if isinstance(transition, bool) or not isinstance(transition, int) or transition < 1:
        raise InvalidInput("transition must be a whole number of tokens, at least 1")
    if transition > vocab_size:
        raise InvalidInput(
            f"transition {transition} is above vocab_size {vocab_size}: SuperBPE learns "
            "superwords between the two, so choose a transition at most the vocab size"
        )
    return transition


def superbpe_trainer(
    lines: Iterable[str],
    vocab_size: int,
    *,
    transition: int | None = None,
    pattern: str = "gpt2",
    superword_pattern: str = SUPERBPE_PATTERN,
    min_frequency: int = 0,
    special_tokens: Iterable[str] = (),
    max_words: int | None = MAX_WORDS,
    colon_rule: bool = True,
    annotate: bool = True,
) -> SuperBpeTrainer:
    """A stepper for "superbpe" (the module docstring): stage 1 is `byte_bpe_trainer` with
    `pattern` to `transition` symbols, stage 2 cuts the lines with `superword_pattern`.

    >>> superbpe_trainer(["a b"], 300, transition=400)
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: transition 400 is above vocab_size 300: SuperBPE \
learns superwords between the two, so choose a transition at most the vocab size
    """
    lines = lines if isinstance(lines, str) else list(lines)
    words = byte_bpe_words(lines, pattern)  # (checks the lines)
    vocab_size = check_vocab_size(vocab_size)
    transition = check_transition(transition, vocab_size)
    if max_words is not None and (isinstance(max_words, bool) or not isinstance(max_words, int)
                                  or max_words < 1):  # fmt: skip
        raise InvalidInput("max_words must be a whole number >= 1, or None for no limit")
    if not isinstance(colon_rule, bool):
        raise InvalidInput("colon_rule must be true or false")
    specials = check_specials(special_tokens)
    check_alphabet(
        vocab_size, len({*specials, *BYTE_TO_CHAR.values()}), "the special tokens and 256 bytes"
    )
    return SuperBpeTrainer(
        words, superword_chunks(lines, superword_pattern), vocab_size, transition=transition,
        min_frequency=check_min_frequency(min_frequency), special_tokens=specials,
        initial_alphabet=BYTE_TO_CHAR.values(), max_words=max_words, colon_rule=colon_rule,
        annotate=annotate,
    )  # fmt: skip

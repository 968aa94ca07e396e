"""Random access to BPE training and encoding, for the step-through views.

A view asks "what is the state after k merges?" for a corpus, a variant and options. A
`BpeSession` holds a resumable trainer (the same stepper `train` runs to the end) that has
been advanced at least k steps, with the top-pair table recorded before every merge. A caller that
keeps the session (the web layer caches finished ones: `app.jobs.cache`) makes "next", "back" and
"jump" reuse the run: going forward continues it, going back reads what was recorded, and the word
table at step k is rebuilt for just the rows shown (each row's word re-segmented with the first k
merges). A session is plain data: it pickles as it is (a server trains a large one in a worker
process), and it takes no locks (a caller that shares one between threads shares a finished one,
which only reads).

>>> s = training_session("low low lower newest newest", "bpe", 20)
>>> s.advance_to(2)
2
>>> [m.pair for m in s.steps[:2]]
[('l', 'o'), ('w', 'e')]
>>> [r.segments for r in s.word_rows(2)[0]][:2]
[('lo', 'w', '</w>'), ('n', 'e', 'we', 's', 't', '</w>')]
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ...errors import InvalidInput
from .model import BPE, BPE_RULE, END_OF_WORD, BpeEncodeStep, BpeMergeStep, gc_paused, token_text
from .sentencepiece import SentencePieceBpe
from .sentencepiece_trainer import sentencepiece_bpe_trainer, sentencepiece_encode_steps
from .trainer import bpe_trainer, byte_bpe_trainer

VARIANTS = ("bpe", "byte_bpe", "sentencepiece_bpe")
TOP_K = 12

RULES = {
    "bpe": BPE_RULE,
    "byte_bpe": BPE_RULE,
    "sentencepiece_bpe": (
        "highest frequency; on a tie the shorter piece, then the smaller string "
        "(sentencepiece's BPE trainer)"
    ),
}


@dataclass(frozen=True)
class WordRow:
    """One row of the word table at some step: the word, its frequency, its symbols now, and
    whether the step just shown changed it."""

    word: str
    count: int
    segments: tuple[str, ...]
    changed: bool


class BpeSession:
    """A training run that views can read at any step (see the module docstring)."""

    def __init__(
        self,
        text: str,
        variant: str,
        vocab_size: int,
        options: dict[str, Any],
        *,
        words: Mapping[str, int] | None = None,
    ) -> None:
        """`words`, when given, is the trainer's word table already counted (a counts file's,
        `tokenizers_core.implementations.counting`), in place of `text`: the same steps."""
        if variant not in VARIANTS:
            raise InvalidInput(
                f"unknown BPE variant {variant!r}; choose one of: {', '.join(VARIANTS)}"
            )
        lines = text.splitlines() if words is None else None
        # a BpeTrainer or a SentencePieceBpeTrainer: read alike (steps, tables, the word table)
        self.trainer: Any
        makers: dict[str, Callable[..., Any]] = {
            "bpe": bpe_trainer,
            "byte_bpe": byte_bpe_trainer,
            "sentencepiece_bpe": sentencepiece_bpe_trainer,
        }
        make = makers[variant]
        self.trainer = make(lines, vocab_size, record_top=TOP_K, words=words, **options)
        self.variant = variant
        self.vocab_size = vocab_size
        self.options = dict(options)
        self.byte_level = variant == "byte_bpe"
        self.rule = RULES[variant]
        counts = self.trainer.counts
        self.order = sorted(
            range(len(counts)), key=lambda i: (-counts[i], self.trainer.word_text(i))
        )
        self._replay: BPE | None = None
        self._replay_len = -1
        self._spelled: list[str] | None = None  # each word's starting symbols, joined

    # -- moving ----------------------------------------------------------------------------------
    @property
    def steps(self) -> list[BpeMergeStep]:
        return self.trainer.steps

    @property
    def finished(self) -> bool:
        return self.trainer.done

    def advance_to(self, k: int) -> int:
        """Run the trainer until at least k merges exist (or it stops); returns how many exist."""
        while len(self.trainer.steps) < k and self.trainer.step() is not None:
            pass
        if self.trainer.done:
            self._release()
        return len(self.trainer.steps)

    def _release(self) -> None:
        """A finished run keeps only what views read (steps, tables, the word table): the
        pair counts, the heap and the live segmentations go (views replay from the merges)."""
        t = self.trainer
        for name, empty in (
            ("_heap", list),
            ("_entries", list),
            ("pair_counts", dict),
            ("_cache", dict),
            ("_active", set),
        ):
            if hasattr(t, name):
                setattr(t, name, empty())
        if isinstance(getattr(t, "words", None), list):
            t.words = []
        if self.variant == "sentencepiece_bpe":
            t.symbols = []

    def prepare_views(self) -> None:
        """Build what views read of a finished run now (the replay table of the merges and each
        word's starting symbols, joined), rather than lazily in the first view that needs them."""
        self._model()
        if self._spelled is None:
            self._spelled = ["".join(self._initial(i)) for i in range(len(self.order))]

    def total_steps(self) -> int:
        """All the merges this run makes (runs it to the end)."""
        with gc_paused:
            return self.advance_to(10**9)

    def run_for(self, seconds: float) -> bool:
        """Advance for at most about `seconds`; True when the run is finished."""
        deadline = time.monotonic() + seconds
        while not self.trainer.done and time.monotonic() < deadline:
            self.advance_to(len(self.trainer.steps) + 50)
        return self.trainer.done

    @property
    def progress(self) -> int:
        """Merges made so far."""
        return len(self.trainer.steps)

    # -- what a view shows at step k (k merges done; step k is merge k-1) -------------------------
    def step(self, k: int) -> BpeMergeStep | None:
        """Merge k (1-based; advancing the run to it), or None past the last one."""
        if len(self.steps) < k:
            self.advance_to(k)
        return self.steps[k - 1] if 1 <= k <= len(self.steps) else None

    def pair_table(self, k: int) -> tuple[tuple[str, str, int], ...]:
        """The most frequent pairs just before merge k (1-based), as the trainer saw them."""
        if len(self.steps) < k:
            self.advance_to(k)
        tables = self.trainer.tables
        return tables[k - 1] if 1 <= k <= len(tables) else ()

    def next_table(self, k: int) -> tuple[tuple[str, str, int], ...]:
        """The pair table that decides the next merge after step k (empty if training stopped)."""
        if self.advance_to(k + 1) > k:
            return self.pair_table(k + 1)
        return ()

    def merges(self, k: int) -> list[tuple[str, str, str]]:
        """The merges so far: (left, right, new symbol)."""
        if len(self.steps) < k:
            self.advance_to(k)
        return [(s.pair[0], s.pair[1], s.new_symbol) for s in self.steps[:k]]

    def _model(self) -> BPE:
        if self._replay is None or self._replay_len != len(self.steps):
            self._replay = BPE({}, [s.pair for s in self.steps])
            self._replay_len = len(self.steps)
        return self._replay

    def _initial(self, i: int) -> list[str]:
        """Word i's starting symbols."""
        initial = getattr(self.trainer, "initial_symbols", None)
        return list(initial(i) if initial else self.trainer.word_keys[i])

    def segmentation(self, i: int, k: int) -> tuple[str, ...]:
        """Word i of the table after k merges (replayed: merges applied by rank, ranks < k)."""
        if len(self.steps) < k:
            self.advance_to(k)
        return tuple(self._model().merge_parts(self._initial(i), limit=k))

    def word_rows(self, k: int, page: int = 0, page_size: int = 20) -> tuple[list[WordRow], int]:
        """A page of the word table (most frequent words first) after k merges, rows changed by
        merge k marked; and the number of pages."""
        n = len(self.order)
        pages = max(1, -(-n // page_size))
        page = min(max(page, 0), pages - 1)
        rows = []
        for i in self.order[page * page_size : (page + 1) * page_size]:
            now = self.segmentation(i, k)
            before = self.segmentation(i, k - 1) if k > 0 else now
            rows.append(WordRow(self.word(i), self.trainer.counts[i], now, now != before))
        return rows, pages

    def changed_rows(self, k: int, limit: int = 20) -> list[WordRow]:
        """Rows that merge k changed (the most frequent first), up to `limit`."""
        step = self.step(k)
        if step is None:
            return []
        self.prepare_views()
        spelled = self._spelled
        assert spelled is not None  # (prepare_views made it)
        out = []
        for i in self.order:
            if step.new_symbol not in spelled[i]:
                continue  # a merge makes its symbol: a word without it is as was
            now = self.segmentation(i, k)
            before = self.segmentation(i, k - 1)
            if now != before:
                out.append(WordRow(self.word(i), self.trainer.counts[i], now, True))
                if len(out) >= limit:
                    break
        return out

    def word(self, i: int) -> str:
        """Word i as text (without the end-of-word symbol)."""
        text = self.trainer.word_text(i)
        if self.byte_level:
            return token_text(text, True)
        return (
            text[: -len(END_OF_WORD)]
            if self.variant == "bpe" and text.endswith(END_OF_WORD)
            else text
        )

    def show(self, symbol: str) -> str:
        """A symbol as the view shows it (byte-level symbols as text; broken UTF-8 as <E3 81>)."""
        return token_text(symbol, self.byte_level)


def training_session(text: str, variant: str, vocab_size: int, **options: Any) -> BpeSession:
    """A new session for (corpus, variant, vocab size, options), not yet advanced (nothing is
    cached here: a caller that steps through it many times keeps it)."""
    return BpeSession(text, variant, vocab_size, options)


# ---- encoding, step by step ----------------------------------------------------------------------
@dataclass(frozen=True)
class PieceTrace:
    """How one pre-tokenised piece was encoded: its text, where it is in the original text, the
    merge steps, and the final tokens (token, id)."""

    text: str
    start: int
    end: int
    steps: tuple[BpeEncodeStep, ...]
    initial: tuple[str, ...]
    tokens: tuple[tuple[str, int | None], ...]
    special: bool = False


def encode_trace(tokenizer: Any, text: str, max_pieces: int = 200) -> list[PieceTrace]:
    """Every piece of `text` with the merges that built its tokens (for the encoding view).

    Works for any BPE-family tokenizer whose model has `encode_steps` (bpe, byte_bpe, the OpenAI
    encodings, sentencepiece_bpe); raises ValueError for others."""
    model = tokenizer.model
    steps_of = steps_function(tokenizer)
    specials = getattr(model, "special_tokens", None) or {}
    out = []
    for piece in tokenizer.pre_tokenize(text)[:max_pieces]:
        start, end = piece.span(0, len(piece))
        word = piece.normalized
        if word in specials and isinstance(specials, dict):  # an allowed special token
            out.append(PieceTrace(word, start, end, (), (word,), ((word, specials[word]),), True))
            continue
        steps = tuple(steps_of(word))
        initial = (
            tuple(model.initial_parts(word)) if hasattr(model, "initial_parts") else tuple(word)
        )
        tokens = tuple((t, i) for t, i, _s, _e in model.tokenize(word))
        out.append(PieceTrace(word, start, end, steps, initial, tokens))
    return out


def steps_function(tokenizer: Any):
    model = tokenizer.model
    if hasattr(model, "encode_steps"):
        return model.encode_steps
    if isinstance(model, SentencePieceBpe):
        return lambda piece: sentencepiece_encode_steps(model, piece)
    raise InvalidInput(
        f"{tokenizer.name or 'this tokeniser'} is not a BPE tokeniser "
        f"({tokenizer.algorithm or type(model).__name__}); the merge view needs one"
    )


def merge_tree_of(tokenizer: Any, token: str) -> dict[str, Any]:
    """How a token was built, as nested ``{"token", "id", "children"}`` (see `BPE.merge_tree`).

    For sentencepiece models (no merge list on file) a piece is split the way the encoder would
    build it from the pieces with a higher score."""
    model = tokenizer.model
    if hasattr(model, "merge_tree"):
        return model.merge_tree(token)
    steps_function(tokenizer)  # raises for non-BPE models
    pid = model.token_to_id(token)
    if pid is None:
        raise InvalidInput(f"{token!r} is not a token of this model")
    return _sp_tree(model, token, 0)


def _sp_tree(model: Any, piece: str, depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"token": piece, "id": model.token_to_id(piece), "children": []}
    if len(piece) < 2 or depth > 32:
        return node
    pid = model.token_to_id(piece)
    steps = [s for s in sentencepiece_encode_steps(model, piece, below=pid)]
    parts = list(piece)
    if steps:
        last = steps[-1]
        parts = (
            list(last.parts[: last.chosen]) + [last.merged] + list(last.parts[last.chosen + 2 :])
        )
    if len(parts) == 2:
        node["children"] = [
            _sp_tree(model, parts[0], depth + 1),
            _sp_tree(model, parts[1], depth + 1),
        ]
    return node

"""Random access to a WordPiece training run, for the step-through view.

A view asks "what is the state after k merges?". A `WordPieceSession` trains once with the
trainer's own records switched on: the best pairs of every state (`tables`, read off the
trainer's score heap as it runs) and, for every word, the merges that changed it (`history`).
The state after k merges is then read, not recomputed: the pair table is `tables[k]`, and a
word's symbols come from replaying on its first symbols only the merges (numbered ≤ k) that
changed it, with the very function the trainer merged with. So next / back / jump cost the same
anywhere in a run, and a finished session is plain data (it pickles: a worker process trains
it and hands it over).

>>> s = WordPieceSession({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, vocab_size=20)
>>> s.run().total
8
>>> s.steps[0].pair, s.pairs(0)[0].pair
(('##g', '##s'), ('##g', '##s'))
>>> [(r.word, r.symbols) for r in s.word_rows(1, 0, 5)[0]][2]
('hugs', ('h', '##u', '##gs'))
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping

from .trainer import PairRow, WordPieceMergeStep, WordPieceTrainer, WordRow, merge_word

TOP_PAIRS = 12  # rows of the view's pair table
REPORT_EVERY = 100  # merges between two progress reports


class WordPieceSession:
    """A WordPiece training run that a view can read at any step (see the module docstring)."""

    def __init__(
        self,
        word_counts: Mapping[str, int] | Iterable[tuple[str, int]],
        *,
        vocab_size: int,
        min_frequency: int = 0,
    ) -> None:
        self.trainer = WordPieceTrainer(
            word_counts,
            vocab_size=vocab_size,
            min_frequency=min_frequency,
            record_top=TOP_PAIRS,
            record_history=True,
        )
        self.vocab_size, self.min_frequency = vocab_size, min_frequency

    def run(self, report: Callable[[int], None] | None = None) -> "WordPieceSession":
        """Train to the end (calling `report(merges so far)` now and then), then keep only
        what views read."""
        trainer = self.trainer
        while trainer.step() is not None:
            if report is not None and len(trainer.steps) % REPORT_EVERY == 0:
                report(len(trainer.steps))
        self._release()
        return self

    def _release(self) -> None:
        """The pair counts, indexes and heaps go; the records, the word list and the symbols
        stay."""
        t = self.trainer
        t.pair_count, t.pair_words, t.symbol_pairs = {}, {}, {}
        t._score_heap, t._count_heap, t._pushed_freq = [], [], []
        t.words = []

    # -- what a view shows at step k (k merges done) ---------------------------------------------
    @property
    def steps(self) -> list[WordPieceMergeStep]:
        return self.trainer.steps

    @property
    def total(self) -> int:
        return len(self.trainer.steps)

    @property
    def vocab(self) -> dict[str, int]:
        """The vocabulary the run ends with (token -> id)."""
        return self.trainer.vocab

    @property
    def special_tokens(self) -> tuple[str, ...]:
        return self.trainer.special_tokens

    @property
    def initial_size(self) -> int:
        """Special tokens plus the starting symbols."""
        return self.trainer.initial_size

    @property
    def n_words(self) -> int:
        return len(self.trainer.words_text)

    def pairs(self, k: int) -> tuple[PairRow, ...]:
        """The best pairs after k merges, the next merge first (as `trainer.top_pairs`)."""
        return self.trainer.pair_rows(self.trainer.tables[min(max(k, 0), self.total)])

    def vocab_now(self, k: int) -> int:
        """The vocabulary's size after k merges (a merge that makes an existing symbol again
        does not grow it)."""
        return self.steps[k - 1].vocab_size if k > 0 else self.initial_size

    def segmentation(self, i: int, k: int) -> tuple[str, ...]:
        """Word i's symbols after k merges."""
        t = self.trainer
        ids = self._first_ids(i)
        assert t.history is not None  # (the session's trainer records it: record_history=True)
        for j in t.history[i]:
            if j > k:
                break
            step = t.steps[j - 1]
            ids, _times = merge_word(
                ids,
                t.symbol_id[step.pair[0]],
                t.symbol_id[step.pair[1]],
                t.symbol_id[step.new_symbol],
            )
        return tuple(t.symbols[s] for s in ids)

    def _first_ids(self, i: int) -> list[int]:
        t = self.trainer
        word = t.words_text[i]
        return [t.symbol_id[word[0]], *(t.symbol_id[t.prefix + c] for c in word[1:])]

    def word_rows(self, k: int, offset: int = 0, limit: int = 20) -> tuple[list[WordRow], int]:
        """A page of the word table after k merges (most frequent words first) and the number
        of words, as `trainer.word_table` gives it after k merges."""
        t = self.trainer
        first = max(0, offset)
        rows = [
            WordRow(t.words_text[i], t.word_freq[i], self.segmentation(i, k))
            for i in range(first, min(self.n_words, first + limit))
        ]
        return rows, self.n_words

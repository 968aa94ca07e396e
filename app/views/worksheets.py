"""Printable worksheets: a range of steps of a run as blank tables to fill in by hand, and the
answer key. Each sheet is checked here and its run trained within the request (small enough to
do by hand) through the views' cache (`app.jobs.runs`: a sheet of the run a page shows is not
trained again), then drawn by its view module's `worksheet`, from the same state the
step-through page reads (`app.views.bpe_train`, `wordpiece_train`, `unigram_train`,
`bpe_encode`, `wordpiece_encode`, `unigram_lattice`).
"""
from __future__ import annotations

from typing import Any

from tokenizers_core.corpora import SENNRICH
from tokenizers_core.implementations.bert import count_words
from tokenizers_core.models.bpe.session import VARIANTS

from ..jobs.runs import bpe_session_here, unigram_run_here, wordpiece_run_here
from . import (bpe_encode, bpe_train, unigram_lattice, unigram_train, wordpiece_encode,
               wordpiece_train)

TEXTBOOK = SENNRICH
PAPERS = ("a4", "letter")
MAX_STEPS = 8                  # merges on one training worksheet
MAX_VOCAB = 5000
UNIGRAM_CORPUS = ("the cat sat on the mat and the dog sat on the log\n"
                  "a quick brown fox jumps over the lazy dog\n"
                  "the rain in spain stays mainly in the plain\n"
                  "she sells sea shells on the sea shore\n"
                  "how much wood would a woodchuck chuck if a woodchuck could chuck wood\n"
                  "peter piper picked a peck of pickled peppers\n"
                  "the early bird catches the worm\n"
                  "a stitch in time saves nine\n")


def check_paper(paper: str) -> None:
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}, not {paper!r}")


def check_range(start: int, end: int) -> None:
    if end < start:
        raise ValueError(f"the range {start}–{end} is empty: 'end' must be at least 'start'")
    if end - start + 1 > MAX_STEPS:
        raise ValueError(f"a worksheet holds at most {MAX_STEPS} merges; "
                         f"{start}–{end} is {end - start + 1}")
    if start < 1:
        raise ValueError("merges are numbered from 1")


def check_vocab(vocab_size: int, low: int = 1) -> None:
    if not low <= vocab_size <= MAX_VOCAB:
        raise ValueError(f"vocab_size must be between {low} and {MAX_VOCAB:,} for a worksheet")


def worksheet(text: str, variant: str, vocab_size: int, start: int, end: int,
              options: dict[str, Any]) -> dict[str, Any]:
    """BPE training, merges start..end (1-based, inclusive)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown BPE variant {variant!r}; choose one of: {', '.join(VARIANTS)}")
    check_range(start, end)
    return bpe_train.worksheet(bpe_session_here(text, variant, vocab_size, options), start, end)


def wordpiece_worksheet(text: str, vocab_size: int, start: int, end: int) -> dict[str, Any]:
    """WordPiece training, merges start..end."""
    check_range(start, end)
    words = count_words(text)
    if len(words) > wordpiece_train.SHEET_WORDS:      # before training: a sheet is done by hand
        raise ValueError(f"this corpus has {len(words):,} distinct words; a worksheet to fill in "
                         f"by hand takes at most {wordpiece_train.SHEET_WORDS} (paste a smaller "
                         "corpus)")
    session = wordpiece_run_here(text, {"vocab_size": vocab_size, "min_frequency": 0})
    return wordpiece_train.worksheet(session, start, end)


def unigram_train_worksheet(text: str, vocab_size: int, start: int, end: int) -> dict[str, Any]:
    """Unigram training, rounds start..end (trained here: the corpus is at most 5,000
    characters)."""
    unigram_train.check_sheet_range(start, end, text)
    return unigram_train.worksheet(unigram_run_here(text, vocab_size), start, end)


bpe_encode_worksheet = bpe_encode.worksheet
wordpiece_encode_worksheet = wordpiece_encode.worksheet
lattice_worksheet = unigram_lattice.worksheet

"""Printable worksheets: a range of steps of a run as blank tables to fill in by hand, and the
answer key. Each sheet is checked here and its run trained within the request (small enough to
do by hand) through the views' cache (`app.jobs.runs`: a sheet of the run a page shows is not
trained again), then drawn by its view module's `worksheet`, from the same state the
step-through page reads (`app.views.bpe_train`, `wordpiece_train`, `unigram_train`,
`bpe_encode`, `wordpiece_encode`, `unigram_lattice`).
"""

from __future__ import annotations

from typing import Any

from fastapi import Query

import tokenizers_core as tc
from tokenizers_core.corpora import SENNRICH, corpus_names
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.bert import count_words
from tokenizers_core.models.bpe.sentencepiece_trainer import META_PIECES
from tokenizers_core.models.bpe.session import VARIANTS, BpeSession
from tokenizers_core.models.bpe.words import bpe_word_table, byte_bpe_word_table

from ..jobs.runs import bpe_session_here, unigram_run_here, wordpiece_run_here
from . import (
    bpe_encode,
    bpe_train,
    unigram_lattice,
    unigram_train,
    wordpiece_encode,
    wordpiece_train,
)
from .common import bpe_options, unigram_options, wordpiece_options

TEXTBOOK = SENNRICH
PAPERS = ("a4", "letter")
MAX_STEPS = 8  # merges on one training worksheet
MAX_VOCAB = 5000
UNIGRAM_CORPUS = (
    "the cat sat on the mat and the dog sat on the log\n"
    "a quick brown fox jumps over the lazy dog\n"
    "the rain in spain stays mainly in the plain\n"
    "she sells sea shells on the sea shore\n"
    "how much wood would a woodchuck chuck if a woodchuck could chuck wood\n"
    "peter piper picked a peck of pickled peppers\n"
    "the early bird catches the worm\n"
    "a stitch in time saves nine\n"
)


def check_paper(paper: str) -> None:
    if paper not in PAPERS:
        raise InvalidInput(f"paper must be one of {', '.join(PAPERS)}, not {paper!r}")


def check_range(start: int, end: int) -> None:
    if end < start:
        raise InvalidInput(f"the range {start}–{end} is empty: 'end' must be at least 'start'")
    if end - start + 1 > MAX_STEPS:
        raise InvalidInput(
            f"a worksheet holds at most {MAX_STEPS} merges; {start}–{end} is {end - start + 1}"
        )
    if start < 1:
        raise InvalidInput("merges are numbered from 1")


def check_vocab(vocab_size: int, low: int = 1) -> None:
    if not low <= vocab_size <= MAX_VOCAB:
        raise InvalidInput(f"vocab_size must be between {low} and {MAX_VOCAB:,} for a worksheet")


def worksheet(
    text: str,
    variant: str,
    vocab_size: int | None,
    start: int,
    end: int,
    options: dict[str, Any],
) -> dict[str, Any]:
    """BPE training, merges start..end (1-based, inclusive), on the corpus or, when it has more
    distinct words than a sheet done by hand takes, on its first lines that fit
    (`sheet_corpus`). Without `vocab_size`, the corpus's starting symbols and
    `SPARE_MERGES` merges more (the textbook corpus: 24)."""
    if variant not in VARIANTS:
        raise InvalidInput(f"unknown BPE variant {variant!r}; choose one of: {', '.join(VARIANTS)}")
    check_range(start, end)
    text, cut = sheet_corpus(text, variant, options)
    if vocab_size is None:
        vocab_size = start_symbols(text, variant, options) + max(SPARE_MERGES, end)
    check_vocab(vocab_size)
    session = bpe_session_here(text, variant, vocab_size, options)
    sheet = bpe_train.worksheet(session, start, end)
    return {**sheet, "vocab_size": vocab_size, "cut": cut, "sheet_words": bpe_train.SHEET_WORDS}


SPARE_MERGES = 12  # merges a sheet's default vocab_size leaves room for


def sheet_corpus(text: str, variant: str, options: dict[str, Any]) -> tuple[str, dict | None]:
    """The corpus a hand worksheet is trained on: the text itself when it has at most
    `SHEET_WORDS` distinct words, else its first lines that do, with {"lines", "of", "words"}
    saying how many lines of how many (and the whole corpus's distinct words). InvalidInput
    when even the first line has too many.

    >>> sheet_corpus("low low\\nlower", "bpe", {})
    ('low low\\nlower', None)
    """
    lines = text.splitlines()
    total = _distinct_words(lines, variant, options)
    if total <= bpe_train.SHEET_WORDS:
        return text, None
    fits, over = 0, 1  # the first `fits` lines fit, the first `over` may not
    while over < len(lines) and _distinct_words(lines[:over], variant, options) <= (
        bpe_train.SHEET_WORDS
    ):
        fits, over = over, over * 2
    while over - fits > 1:  # bisect: the first `fits` lines fit, the first `over` do not
        mid = (fits + over) // 2
        if _distinct_words(lines[:mid], variant, options) <= bpe_train.SHEET_WORDS:
            fits = mid
        else:
            over = mid
    if not any(line.strip() for line in lines[:fits]):
        raise InvalidInput(
            f"this corpus has {total:,} distinct words and its first line alone more than "
            f"{bpe_train.SHEET_WORDS}, which a worksheet to fill in by hand takes at most "
            "(paste a smaller corpus)"
        )
    return "\n".join(lines[:fits]), {"lines": fits, "of": len(lines), "words": total}


def _distinct_words(lines: list[str], variant: str, options: dict[str, Any]) -> int:
    """The rows of the run's word table (its distinct words), without starting a run."""
    if not any(line.strip() for line in lines):
        return 0
    if variant == "bpe":
        return len(bpe_word_table(lines))
    if variant == "byte_bpe":
        return len(byte_bpe_word_table(lines, options.get("pattern", "gpt2")))
    return len(BpeSession("\n".join(lines), variant, MAX_VOCAB, options).order)


def start_symbols(text: str, variant: str, options: dict[str, Any]) -> int:
    """How many symbols the run starts with (its vocabulary before any merge)."""
    trainer = BpeSession(text, variant, MAX_VOCAB, options).trainer
    if hasattr(trainer, "alphabet_size"):
        return trainer.alphabet_size
    return len(trainer.chars) + len(META_PIECES)  # sentencepiece: <unk>, <s>, </s>


def wordpiece_worksheet(text: str, vocab_size: int, start: int, end: int) -> dict[str, Any]:
    """WordPiece training, merges start..end."""
    check_range(start, end)
    words = count_words(text)
    if len(words) > wordpiece_train.SHEET_WORDS:  # before training: a sheet is done by hand
        raise InvalidInput(
            f"this corpus has {len(words):,} distinct words; a worksheet to fill in "
            f"by hand takes at most {wordpiece_train.SHEET_WORDS} (paste a smaller "
            "corpus)"
        )
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


# ---- the forms above the sheets (and the sheets' query parameters) ------------------------------
# Each form is its sheet's FastAPI dependency: its arguments are the sheet's query parameters
# (with their defaults), and the sheet is drawn from the values it returns.
def _training_form(
    path: str,
    corpus: str,
    vocab_size: int | None,
    start: int,
    end: int,
    paper: str,
    key: bool,
    params: dict[str, Any] | None = None,
    **shown: Any,
) -> dict[str, Any]:
    """What a training sheet's form holds: its corpus, size, merge range and paper, the sheet's
    permalink query (`params`: by default those five), and what else a family `shown`."""
    if params is None:
        params = {"corpus": corpus or None, "vocab_size": vocab_size}
        params.update(start=start, end=end, paper=paper)
    return {
        "params": params,
        "corpus": corpus,
        "vocab_size": vocab_size,
        "start": start,
        "end": end,
        "paper": paper,
        "key": key,
        "bundled": corpus_names(),
        "path": path,
        **shown,
    }


def bpe_form(
    corpus: str = "",
    variant: str = "bpe",
    vocab_size: int | None = Query(
        None, description="blank: the corpus's starting symbols and 12 merges (textbook: 24)"
    ),
    pattern: str = "gpt2",
    start: int = 1,
    end: int = 3,
    paper: str = "a4",
    key: bool = False,
) -> dict[str, Any]:
    params = {
        "corpus": corpus or None,
        "variant": variant,
        "vocab_size": vocab_size,
        "pattern": pattern if variant == "byte_bpe" else None,
        "start": start,
        "end": end,
        "paper": paper,
    }
    return _training_form(
        "/worksheet/bpe",
        corpus,
        vocab_size,
        start,
        end,
        paper,
        key,
        params,
        variant=variant,
        pattern=pattern,
        variants=VARIANTS,
        algorithm="bpe",
    )


def wordpiece_form(
    corpus: str = "",
    vocab_size: int = 40,
    start: int = 1,
    end: int = 3,
    paper: str = "a4",
    key: bool = False,
) -> dict[str, Any]:
    return _training_form(
        "/worksheet/wordpiece",
        corpus,
        vocab_size,
        start,
        end,
        paper,
        key,
        variant="wordpiece",
        algorithm="wordpiece",
    )


def bpe_encode_form(
    tokenizer: str = "gpt2", text: str = "lowest newer", paper: str = "a4", key: bool = False
) -> dict[str, Any]:
    tokenizer = tc.pretrained.canonical_name(tokenizer)
    params = {"tokenizer": tokenizer, "text": text, "paper": paper}
    return {
        "params": params,
        "tokenizer": tokenizer,
        "text": text,
        "paper": paper,
        "key": key,
        "algorithm": "bpe_encode",
        "max_chars": bpe_encode.SHEET_CHARS,
        "path": "/worksheet/bpe_encode",
        "view": "/bpe/encode",
        "view_params": {"tokenizer": tokenizer, "text": text},
        "field": "tokenizer",
        "options": bpe_options(tokenizer),
    }


def wordpiece_encode_form(
    text: str = wordpiece_encode.DEFAULT_TEXT,
    vocab: str = "small",
    vocab_text: str = wordpiece_encode.SMALL_VOCAB,
    paper: str = "a4",
    key: bool = False,
) -> dict[str, Any]:
    params = {"vocab": vocab, "text": text, "paper": paper}
    if vocab == "small" and vocab_text != wordpiece_encode.SMALL_VOCAB:
        params["vocab_text"] = vocab_text
    return {
        "params": params,
        "tokenizer": vocab,
        "vocab_text": vocab_text,
        "text": text,
        "paper": paper,
        "key": key,
        "algorithm": "wordpiece_encode",
        "max_chars": bpe_encode.SHEET_CHARS,
        "path": "/worksheet/wordpiece_encode",
        "view": "/wordpiece/encode",
        "view_params": {k: v for k, v in params.items() if k != "paper"},
        "options": wordpiece_options(vocab),
        "field": "vocab",
        "small_vocab": vocab_text.split() if vocab == "small" else None,
    }


def lattice_form(
    model: str = "tiny",
    text: str = unigram_lattice.DEFAULT_TEXT,
    paper: str = "a4",
    key: bool = False,
) -> dict[str, Any]:
    params = {"model": model, "text": text, "paper": paper}
    return {
        "params": params,
        "tokenizer": model,
        "text": text,
        "paper": paper,
        "key": key,
        "algorithm": "unigram_lattice",
        "max_chars": unigram_lattice.SHEET_CHARS,
        "path": "/worksheet/unigram_lattice",
        "view": "/unigram/lattice",
        "view_params": {"model": model, "text": text},
        "options": unigram_options(model),
        "field": "model",
    }


def unigram_train_form(
    corpus: str = "",
    vocab_size: int = 30,
    start: int = 1,
    end: int = 3,
    paper: str = "a4",
    key: bool = False,
) -> dict[str, Any]:
    return _training_form(
        "/worksheet/unigram_train",
        corpus,
        vocab_size,
        start,
        end,
        paper,
        key,
        max_rounds=unigram_train.SHEET_ROUNDS,
    )

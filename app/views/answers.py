"""The step views' JSON answers: every step of a run as step dicts, and the vocabulary a
training ends with.

Each function is a FastAPI dependency taking the view's own query parameters, so the JSON
route of a step view (`/api/bpe/train_steps`, ...) returns it as it is and a download
(`app.routers.downloads`) reshapes the same answer, with the same validation and the same 4xx:
the two routers share this module, never each other. The runs come from `app.jobs.runs`, the
cache the pages read.
"""

from __future__ import annotations

from typing import Any

from fastapi import Query

from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.bert import encode_steps
from tokenizers_core.models.bpe.session import RULES, encode_trace
from tokenizers_core.models.unigram.model import lattice_steps

from ..deps import StateDep, bounded
from ..jobs.runs import bpe_session, wordpiece_run
from ..services.tokenizers import check_step_text, check_text, resolve_tokenizer
from ..state import AppState
from . import bpe_encode, bpe_train, unigram_lattice, wordpiece_encode, wordpiece_train
from .common import training_text, unigram_model, whole, wordpiece_tokenizer

VOCAB_QUERY = Query(
    "",
    max_length=12,
    description=(
        f"blank for the default, or a whole number from 1 to {bpe_train.MAX_VIEW_VOCAB:,}"
    ),
)


# ---- BPE -----------------------------------------------------------------------------------------
def _bpe_run(
    state: AppState, corpus: str, variant: str, vocab_size: str, pattern: str, min_frequency: int
) -> tuple[int, Any]:
    """The training view's finished run for these parameters (waiting for it to the end)."""
    size, options = bpe_train.options(variant, whole(vocab_size), pattern, min_frequency, corpus)
    text = training_text(state, corpus)
    return size, bpe_session(state, corpus, text, variant, size, options, wait=None)


def bpe_train_steps(
    state: StateDep,
    corpus: str = "",
    variant: str = "bpe",
    vocab_size: str = VOCAB_QUERY,
    pattern: str = "gpt2",
    min_frequency: int = bounded(0, 0),
) -> dict[str, Any]:
    """Every merge of the BPE training view's run, with the tie-break rule and why it stopped."""
    size, session = _bpe_run(state, corpus, variant, vocab_size, pattern, min_frequency)
    return {
        "corpus": corpus or "default",
        "variant": variant,
        "vocab_size": size,
        "rule": RULES[variant],
        "stop_reason": session.trainer.stop_reason,
        "steps": [s.to_dict() for s in session.steps],
    }


def bpe_train_vocab(
    state: StateDep,
    corpus: str = "",
    variant: str = "bpe",
    vocab_size: str = VOCAB_QUERY,
    pattern: str = "gpt2",
    min_frequency: int = bounded(0, 0),
) -> dict[str, Any]:
    """The vocabulary the training view's run ends with, in id order (sentencepiece_bpe: the
    pieces with their scores)."""
    size, session = _bpe_run(state, corpus, variant, vocab_size, pattern, min_frequency)
    trainer = session.trainer
    if variant == "sentencepiece_bpe":
        rows = [{"id": i, "token": p, "score": s} for i, (p, s) in enumerate(trainer.pieces())]
    else:
        rows = [
            {"id": i, "token": t} for t, i in sorted(trainer.vocab().items(), key=lambda kv: kv[1])
        ]
    return {"corpus": corpus or "default", "variant": variant, "vocab_size": size, "vocab": rows}


def bpe_encode_steps(
    state: StateDep, text: str, tokenizer: str = "gpt2", special: bool = False
) -> dict[str, Any]:
    """Every merge of BPE encoding, piece by piece (with each piece's span and tokens)."""
    check_step_text(state, text)
    tok = bpe_encode.tokenizer_for(resolve_tokenizer(state, tokenizer), special)
    return {
        "tokenizer": tokenizer,
        "pieces": [
            {
                "text": t.text,
                "start": t.start,
                "end": t.end,
                "special": t.special,
                "initial": list(t.initial),
                "steps": [s.to_dict() for s in t.steps],
                "tokens": [list(x) for x in t.tokens],
            }
            for t in encode_trace(tok, text)
        ],
    }


# ---- WordPiece -----------------------------------------------------------------------------------
def _wordpiece_run(state: AppState, corpus: str, vocab_size: int, min_frequency: int) -> Any:
    options = wordpiece_train.options(vocab_size, min_frequency)
    return wordpiece_run(state, corpus, training_text(state, corpus), options, wait=None)


def wordpiece_train_steps(
    state: StateDep,
    corpus: str = "",
    vocab_size: int = bounded(
        wordpiece_train.DEFAULT_VOCAB_SIZE, 1, wordpiece_train.MAX_TRAIN_VOCAB
    ),
    min_frequency: int = bounded(0, 0),
) -> dict[str, Any]:
    """Every merge of the WordPiece training view's run."""
    run = _wordpiece_run(state, corpus, vocab_size, min_frequency)
    return {
        "corpus": corpus or "default",
        "vocab_size": vocab_size,
        "steps": [s.to_dict() for s in run.steps],
    }


def wordpiece_train_vocab(
    state: StateDep,
    corpus: str = "",
    vocab_size: int = bounded(
        wordpiece_train.DEFAULT_VOCAB_SIZE, 1, wordpiece_train.MAX_TRAIN_VOCAB
    ),
    min_frequency: int = bounded(0, 0),
) -> dict[str, Any]:
    """The vocabulary the run ends with, in id order (special tokens, the initial symbols, the
    merged ones)."""
    run = _wordpiece_run(state, corpus, vocab_size, min_frequency)
    rows = [{"id": i, "token": t} for t, i in sorted(run.vocab.items(), key=lambda kv: kv[1])]
    return {"corpus": corpus or "default", "vocab_size": vocab_size, "vocab": rows}


def wordpiece_encode_steps(
    state: StateDep,
    text: str,
    vocab: str = "bert-base-uncased",
    vocab_text: str = wordpiece_encode.SMALL_VOCAB,
) -> dict[str, Any]:
    """Every probe of WordPiece encoding (with its word's index)."""
    check_step_text(state, text)
    tok = wordpiece_tokenizer(state, vocab, vocab_text)
    words, steps = encode_steps(tok, text, max_steps=wordpiece_encode.MAX_STEPS)
    return {
        "words": [list(w) for w in words],
        "steps": [{"word_index": i, **p.to_dict()} for i, p in steps],
    }


# ---- Unigram -------------------------------------------------------------------------------------
def unigram_lattice_steps(
    state: StateDep,
    text: str,
    model: str = "botchan_en_unigram_1000",
    n: int = bounded(5, 1, unigram_lattice.MAX_NBEST),
) -> dict[str, Any]:
    """The Viterbi steps (forward, then the backtrack) and the n best splits of a text."""
    check_text(state, text)
    if not 1 <= n <= unigram_lattice.MAX_NBEST:
        raise InvalidInput(f"n must be between 1 and {unigram_lattice.MAX_NBEST}")
    tok = unigram_model(state, model)
    unigram_lattice.check_size(tok, text, 10 * unigram_lattice.MAX_CHARS, "at most {limit}")
    normalized, steps = lattice_steps(tok, text)
    return {
        "model": model,
        "normalized": normalized,
        "steps": [s.to_dict() for s in steps],
        "nbest": [{"tokens": t, "score": s} for t, s in tok.model.nbest(normalized, n)],
    }

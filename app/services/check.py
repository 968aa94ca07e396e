"""Check your own implementation: a student's merges, vocabulary, pieces or tokens against the
reference run on the same corpus (`tokenizers_core.check`, trained in the job pool), with
links into the step-through views where they first differ; and the page's worked examples.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import tokenizers_core as tc
from tokenizers_core.checker import ALGORITHMS, textbook
from tokenizers_core.checker.parse import parse_pieces
from tokenizers_core.corpora import SENNRICH
from tokenizers_core.errors import InvalidInput
from tokenizers_core.models.bpe.model import token_text

from ..errors import TooLarge
from ..jobs.runs import check_report
from ..state import AppState
from ..trained import corpus_text as corpus_by_ref
from ..urls import url_with
from .corpora import store_corpus
from .tokenizers import check_step_text

MAX_VOCAB = 5_000  # the reference of a large corpus trains in the job pool
TRAIN_VIEW = {
    "bpe": "/bpe/train",
    "byte_bpe": "/bpe/train",
    "sentencepiece_bpe": "/bpe/train",
    "wordpiece": "/wordpiece/train",
}


def reference_options(vocab_size: int, algorithm: str, extra: dict[str, Any]) -> dict[str, Any]:
    if algorithm not in ALGORITHMS:
        raise InvalidInput(
            f"unknown algorithm {algorithm!r}; choose one of: {', '.join(ALGORITHMS)}"
        )
    if not 1 <= vocab_size <= MAX_VOCAB:
        raise InvalidInput(f"vocab_size must be between 1 and {MAX_VOCAB:,} here, got {vocab_size}")
    """The reference trainer's options from a form's or request's extra fields (ValueError for
    an unknown algorithm or a vocab_size out of range)."""
    chosen = {k: v for k, v in extra.items() if v not in (None, "", 0)}
    if chosen.get("ties") == "hf":
        chosen.pop("ties")  # the default convention
    if algorithm != "byte_bpe":
        chosen.pop("pattern", None)
    if algorithm in ("sentencepiece_bpe", "unigram"):
        chosen.pop("min_frequency", None)
    return chosen


def run_check(
    state: AppState,
    algorithm: str,
    ref: str,
    theirs: Any,
    vocab_size: int,
    kind: str | None,
    text: str | None,
    pieces: Any,
    options: dict[str, Any],
) -> tuple[Any, dict[str, str]]:
    """The report, and links into the step-through views for the point of divergence."""
    check_step_text(state, text or "")  # a tokens check lists each word's steps
    size = len(theirs) if isinstance(theirs, (str, list)) else 0
    if size > state.settings.max_upload_bytes:
        raise TooLarge(
            f"what you gave is {size:,} long; the limit is "
            f"{state.settings.max_upload_bytes:,} (TOKVIS_MAX_UPLOAD_BYTES)",
        )
    corpus = SENNRICH if not ref else corpus_by_ref(state.store, ref)
    if kind == "":
        kind = None
    report = check_report(
        state,
        ref,
        corpus,
        algorithm,
        theirs,
        vocab_size=vocab_size,
        kind=kind,
        text=text or None,
        pieces=pieces or None,
        **options,
    )
    return report, divergence_links(state, report, algorithm, ref, vocab_size, options, pieces)


def divergence_links(
    state: AppState, report, algorithm, ref, vocab_size, options, pieces
) -> dict[str, str]:
    """{"step": URL} of the step-through view at the point of divergence, if there is one."""
    k = report.first_divergence
    if k is None:
        return {}
    if options.get("ties") == "minbpe":
        return {}  # the step-through views follow Hugging Face's rule
    if report.kind in ("merges", "vocab") and algorithm in TRAIN_VIEW and k <= report.reference:
        params = {"corpus": ref or None, "vocab_size": vocab_size, "step": k - 1}
        if TRAIN_VIEW[algorithm] == "/bpe/train":
            params.update(
                variant=algorithm,
                pattern=options.get("pattern"),
                min_frequency=options.get("min_frequency"),
            )
        else:
            params.update(min_frequency=options.get("min_frequency"))
        return {"step": url_with(TRAIN_VIEW[algorithm], params)}
    if report.kind == "tokens" and report.state.get("word") and not pieces:
        handle, _tok = state.trained.train(algorithm, ref or _stored(state), vocab_size, options)
        word = report.state["word"]
        if algorithm == "byte_bpe":
            word = token_text(word, True)
        elif algorithm in ("unigram", "sentencepiece_bpe"):
            word = word.replace("▁", " ").strip()
        path, name = {
            "wordpiece": ("/wordpiece/encode", "vocab"),
            "unigram": ("/unigram/lattice", "model"),
        }.get(algorithm, ("/bpe/encode", "tokenizer"))
        return {"step": url_with(path, {name: handle, "text": word})}
    return {}


def _stored(state: AppState) -> str:
    return store_corpus(state, SENNRICH)


EXAMPLES = {
    "no_end_of_word": "BPE merges without </w>",
    "unweighted_counts": "BPE merges counting each word once",
    "dict_order_ties": "BPE merges with minbpe's tie-break",
    "raw_count_score": "WordPiece merges by raw count",
    "count_order_encoding": "BPE tokens merged in count order",
    "no_unk_penalty": "Unigram tokens without the unknown penalty",
}
EXAMPLE_PIECES = "<unk>\t0\n▁\t-1\nc\t-3\n▁c\t-2\nxy\t-8\ny\t-3\n"


def example(name: str) -> dict[str, Any]:
    """The form of a wrong implementation's output, made by replaying one classic mistake with
    the engine's textbook replays (so the page shows what the checker finds for it)."""
    if name == "count_order_encoding":
        corpus = "abab bba ba"
        tok = tc.train("bpe", [corpus], vocab_size=8)
        text = "aaba ab"
        tokens = [
            t
            for w in text.split()
            for t in textbook.encode_by_count(tok.model.initial_parts(w), tok.model.rank)
        ]
        return {"corpus_text": corpus, "vocab_size": 8, "text": text, "theirs": " ".join(tokens)}
    if name == "no_unk_penalty":
        scores = {p: s for p, s in parse_pieces(EXAMPLE_PIECES) if p != "<unk>"}
        normalized = "▁c▁xy"
        tokens = [
            "<unk>" if unk else normalized[i:j]
            for i, j, unk in textbook.viterbi(normalized, scores, unk_score=0.0)
        ]
        return {
            "algorithm": "unigram",
            "vocab_size": 8,
            "text": "c xy",
            "pieces": EXAMPLE_PIECES,
            "theirs": " ".join(tokens),
        }
    words = Counter(SENNRICH.split())
    if name == "raw_count_score":
        seqs = [((w[0], *["##" + c for c in w[1:]]), n) for w, n in words.items()]
        merges = textbook.textbook_merges(seqs, 6, join=lambda a, b: a + b[2:])
        return {
            "algorithm": "wordpiece",
            "vocab_size": 40,
            "theirs": "\n".join(f"{a} {b}" for a, b in merges),
        }
    eow = () if name == "no_end_of_word" else ("</w>",)
    seqs = [((*w, *eow), c) for w, c in words.items()]
    kw = {"unweighted_counts": {"weighted": False}, "dict_order_ties": {"ties": "dict"}}.get(
        name, {}
    )
    return {
        "vocab_size": 24,
        "theirs": "\n".join(f"{a} {b}" for a, b in textbook.textbook_merges(seqs, 8, **kw)),
    }


def whole(value: str, name: str) -> int:
    """A form field as a whole number (blank is 0), or a ValueError naming the field."""
    try:
        return int(str(value).strip() or 0)
    except ValueError:
        raise InvalidInput(f"{name} must be a whole number, got {value!r}") from None

"""The compare view's columns: one text, several tokenisers side by side, with metrics.

A column is either an algorithm trained on the chosen corpus at the chosen vocab size (bpe,
byte_bpe, wordpiece, unigram, sentencepiece_bpe) or a bundled tokeniser (or a trained or
uploaded handle). Trained models come from the bounded cache, or are retrained from the URL,
so a permalink works on any worker. A column whose model still needs training is returned
`pending`: the page sends it as a placeholder that fetches itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import tokenizers_core as tc
from tokenizers_core import pretrained
from tokenizers_core.errors import InvalidInput, NotFound
from tokenizers_core.metrics import Metrics, cut_points, disagreements, text_metrics

from .. import display
from ..state import AppState
from ..trained import make_spec
from ..urls import url_with
from . import specials
from .tokenizers import check_text, resolve_tokenizer, stored_options, tokenizer_label
from .visualiser import step_link

DEFAULT_TEXT = "unhappiness, naïve cafés and 東京"
DEFAULT_COLUMNS = ["bpe", "wordpiece", "unigram", "o200k_base", "bert-base-uncased"]
DEFAULT_CORPUS = "botchan"
DEFAULT_VOCAB = 1000
MAX_COLUMNS = 20  # every bundled real tokeniser side by side
MAX_VOCAB = 100_000
ALGORITHM_TITLES = {
    "bpe": "BPE",
    "byte_bpe": "Byte-level BPE",
    "wordpiece": "WordPiece",
    "unigram": "Unigram",
    "sentencepiece_bpe": "SentencePiece BPE",
    "char_bpe": "Character BPE (</w>)",
    "wordlevel": "WordLevel",
    "superbpe": "SuperBPE",
    "picky_bpe": "Picky BPE",
    "parity_bpe": "Parity-aware BPE",
}


@dataclass
class Column:
    index: int
    spec: str
    title: str
    subtitle: str = ""
    tok: Any = None
    pending: bool = False
    error: str | None = None
    chips: list = field(default_factory=list)
    metrics: Metrics | None = None
    marks: set = field(default_factory=set)
    vocab_size: int = 0
    link: tuple[str, str] | None = None
    enc: Any = None
    compared: bool = False  # marks were worked out against the reference column
    vocab_name: str | None = None  # the tokeniser's name for /vocab (None: no vocabulary)


def default_columns() -> list[str]:
    known = set(tc.algorithms()) | set(pretrained.bundled())
    return [c for c in DEFAULT_COLUMNS if c in known] or ["word", "char"]


def column_tokenizer(
    state: AppState, spec: str, corpus: str, vocab: int, train_now: bool
) -> tuple[str, str, Any]:
    """(title, subtitle, tokenizer or None if it still needs training). Raises NotFound or
    ValueError for a bad spec."""
    if spec in tc.algorithms():
        handle, _ = make_spec(spec, corpus, vocab)
        title = ALGORITHM_TITLES.get(spec, spec)
        sub = f"trained on {corpus if len(corpus) != 64 else corpus[:10] + '…'}, vocab {vocab}"
        tok = state.trained.cached(handle)
        if tok is None and train_now:
            _, tok = state.trained.train(spec, corpus, vocab)
        return title, sub, tok
    tok = resolve_tokenizer(state, spec)
    return tokenizer_label(state, spec), tok.algorithm, tok


def build_columns(
    state: AppState,
    text: str,
    specs: list[str],
    corpus: str,
    vocab: int,
    ref: int,
    train_now: bool,
    only: int | None = None,
    special: bool | None = None,
    bos: bool = True,
) -> list[Column]:
    """The columns (`special`: the switch for special tokens typed in the text, as the
    visualiser's: None, each column's own library's default; True, special tokens; False,
    ordinary text; `bos`: the post-processors add their special tokens, add_special_tokens)."""
    cols: list[Column] = []
    for i, spec in enumerate(specs):
        col = Column(i, spec, spec)
        if only is not None and i != only and i != ref:
            cols.append(col)
            continue
        try:
            col.title, col.subtitle, col.tok = column_tokenizer(
                state, spec, corpus, vocab, train_now
            )
        except (NotFound, InvalidInput) as exc:
            col.error = str(exc).strip("'\"")
        col.pending = col.tok is None and col.error is None
        cols.append(col)
    if only is None and 0 <= ref < len(cols) and cols[ref].pending:
        # every column is compared with the reference: while it trains, all columns wait for it
        # (each placeholder's request trains it once, under the per-handle lock)
        for col in cols:
            if col.error is None:
                col.tok, col.pending = None, True
    for col in cols:
        if col.tok is None or (only is not None and col.index not in (only, ref)):
            continue
        try:
            col.enc = col.tok.encode(
                text,
                add_special_tokens=bos,
                **display.special_options(col.tok, special, text),
            )
        except ValueError as exc:
            col.error = str(exc)
    reference = None
    if 0 <= ref < len(cols) and cols[ref].enc is not None:
        ref_enc = cols[ref].enc
        reference = cut_points(text, ref_enc.offsets, ref_enc.special_tokens_mask)
    for col in cols:
        if col.enc is None or (only is not None and col.index != only):
            continue
        enc = col.enc
        chips = display.chips(col.tok, text, enc, links=False)
        # counted from the chips, so special and unknown tokens are what the visualiser calls
        # them (Llama 3's <|eot_id|> typed is special; CLIP's typed <|endoftext|> not unknown)
        ordinary = [c.value for c in chips if not c.special]
        col.metrics = text_metrics(
            text,
            ordinary,
            special=len(chips) - len(ordinary),
            unk=sum(1 for c in chips if c.mark == "unk"),
        )
        col.vocab_size = col.tok.vocab_size
        col.link = step_link(state, col.tok)
        if reference is not None and col.index != ref:
            col.marks = {i for i, d in enumerate(disagreements(text, enc, reference)) if d}
            col.compared = True
        col.chips = display.compact(chips, col.marks)
        if col.tok.vocab_size:  # each chip opens its vocabulary entry (static/app.js)
            col.vocab_name = (
                make_spec(col.spec, corpus, vocab)[0] if col.spec in tc.algorithms() else col.spec
            )
    return cols


def chip_facts(
    state: AppState,
    text: str,
    specs: list[str],
    corpus: str,
    vocab: int,
    ref: int,
    column: int,
    index: int,
    expected_id: int | None = None,
    special: bool | None = None,
    bos: bool = True,
) -> dict[str, Any]:
    """What the popover says about chip `index` of column `column` (POST /compare/token): that
    chip as the column drew it, whether its boundary differs from the reference's, and its
    vocabulary entry. InvalidInput for a column or chip that is not there (or still trains),
    and for `expected_id` other than the chip's (the text changed since it was drawn)."""
    if not 0 <= column < len(specs):
        raise InvalidInput(f"column {column} does not exist")
    col = build_columns(
        state,
        text,
        specs,
        corpus,
        vocab,
        ref,
        train_now=False,
        only=column,
        special=special,
        bos=bos,
    )[column]
    if col.error is not None or col.enc is None:
        raise InvalidInput(col.error or f"column {column} is still training")
    if not 0 <= index < len(col.enc):
        raise InvalidInput(f"no chip {index}: the column has {len(col.enc):,} tokens")
    if expected_id is not None and col.enc.ids[index] != expected_id:
        raise InvalidInput("the text has changed since this chip was drawn")
    chip = display.chips(col.tok, text, col.enc, links=False, limit=index + 1)[index]
    return {
        "chip": chip,
        "marks": col.marks,
        "step_link": None,  # the column links to its step-through view under the chips
        "name": col.tok.name,
        "vocab_name": col.vocab_name,
    }


def choices(state: AppState, specs: list[str]) -> list[dict[str, str]]:
    """The column checkboxes: the chosen columns first, in their order (so submitting the form
    keeps the order of the columns), then the others (the uploaded ones last)."""
    out = [
        {"value": a, "label": f"{ALGORITHM_TITLES.get(a, a)} (trained)"} for a in tc.algorithms()
    ]
    out += [{"value": n, "label": e.label} for n, e in pretrained.bundled().items()]
    out += [{"value": o["value"], "label": f"yours: {o['label']}"} for o in stored_options(state)]
    known = {o["value"]: o for o in out}
    chosen = [known.get(s, {"value": s, "label": s}) for s in dict.fromkeys(specs)]
    return chosen + [o for o in out if o["value"] not in specs]


def without_column(params: dict[str, Any], i: int) -> dict[str, Any]:
    """The compare URL's `params` with column `i` dropped, the reference kept on its column
    (the first column when the reference is the one dropped).

    >>> without_column({"col": ["a", "b", "c"], "ref": 2}, 0)
    {'col': ['b', 'c'], 'ref': 1}
    >>> without_column({"col": ["a", "b", "c"], "ref": 1}, 1)
    {'col': ['a', 'c'], 'ref': 0}
    """
    cols, ref = list(params["col"]), params["ref"]
    del cols[i]
    return {**params, "col": cols, "ref": ref - 1 if i < ref else 0 if i == ref else ref}


def chosen_columns(
    choices: list[dict[str, str]], params: dict[str, Any]
) -> list[tuple[str, str, bool]]:
    """The ticked columns above the results: (label, the URL without it, is it the reference),
    in the columns' order (`choices` lists the ticked ones first, as `choices()` makes it)."""
    labels = {o["value"]: o["label"] for o in choices}
    return [
        (
            labels.get(spec, spec),
            url_with("/compare", without_column(params, i)),
            i == params["ref"],
        )
        for i, spec in enumerate(params["col"])
    ]


def params(
    text: str,
    specs: list[str],
    corpus: str,
    vocab: int,
    ref: int,
    special: bool | None = None,
    bos: bool = True,
) -> dict[str, Any]:
    return {
        "text": text,
        "col": specs,
        "corpus": corpus,
        "vocab": vocab,
        "ref": ref,
        "special": display.special_param(special),
        "bos": None if bos else "false",
    }


def bos_note(columns: list[Column]) -> str | None:
    """Why the "add BOS/EOS" box does nothing on this page (None: some column's tokeniser
    adds special tokens, or a column still training may)."""
    if any(c.pending or (c.tok is not None and specials.bos_note(c.tok) is None) for c in columns):
        return None
    return "No column's post-processor adds special tokens (no BOS or EOS) to a text."


def validate(state: AppState, text: str, specs: list[str], vocab: int) -> None:
    """ValueError (or the text limit's 413) for inputs the view does not take."""
    check_text(state, text)
    if len(specs) > MAX_COLUMNS:
        raise InvalidInput(f"at most {MAX_COLUMNS} columns, please (got {len(specs)})")
    if not 2 <= vocab <= MAX_VOCAB:
        raise InvalidInput(f"the vocab size must be between 2 and {MAX_VOCAB}")

"""The vocabulary browser's data: every entry of a tokeniser's vocabulary as the views show it,
its BPE merge rank or Unigram score, and how often it occurs in a corpus.

Pure functions of a `Tokenizer` (and a corpus text), cached per model: a vocabulary of 200k
entries is listed once, then searched and paged many times.
"""
from __future__ import annotations

import functools
import threading
from collections import Counter, OrderedDict
from typing import Any, NamedTuple

import tokenizers_core as tc

from . import display

MAX_FREQUENCY_CHARS = 1_000_000     # frequencies are counted on at most this much of a corpus


class Entry(NamedTuple):
    id: int
    value: str        # as the model spells it (Ġ, ##, ▁ kept)
    text: str         # as the visualiser draws it (byte-level as text; <E3 81> for partial bytes)
    bytes_hex: str
    special: bool


def has_vocabulary(tok: tc.Tokenizer) -> bool:
    return bool(getattr(tok.model, "vocab", None))


@functools.lru_cache(maxsize=8)
def entries(model: Any) -> tuple[Entry, ...]:
    """Every vocabulary entry of `model`, in id order (special tokens included)."""
    byte_level = bool(getattr(model, "byte_level", False))
    specials = getattr(model, "special_tokens", None) or {}
    ids = dict(model.vocab)
    if isinstance(specials, dict):
        ids.update(specials)
    out = []
    for value, id_ in sorted(ids.items(), key=lambda kv: kv[1]):
        special = value in specials
        data = value.encode("utf-8") if special else display.token_bytes(value, value, byte_level)
        text = value if special else (display.token_label(data) if byte_level
                                      else display.visible(value))
        out.append(Entry(id_, value, text, display.hex_bytes(data), special))
    return tuple(out)


def search(model: Any, query: str) -> list[Entry]:
    """Entries matching `query`: an id (a whole number) or a substring of the entry as the
    model spells it or as it is drawn. An empty query matches everything."""
    every = entries(model)
    query = query.strip()
    if not query:
        return list(every)
    if query.isdigit():
        return [e for e in every if e.id == int(query)]
    q = query.casefold()
    return [e for e in every if q in e.value.casefold() or q in e.text.casefold()]


@functools.lru_cache(maxsize=8)
def _merge_ranks(model: Any) -> dict[str, int]:
    merges = getattr(model, "merges", None) or []
    ranks: dict[str, int] = {}
    for rank, (left, right) in enumerate(merges):
        ranks.setdefault(left + right, rank)
    return ranks


def merge_rank(model: Any, value: str) -> int | None:
    """A BPE token's merge rank (the merge that made it; lower merges first), or None for an
    alphabet symbol, a special token or a model without merges. tiktoken-style models rank by
    the token itself: the rank is its id."""
    if getattr(model, "rank_by", None) == "tokens":
        data = model.vocab.get(value)
        return data if data is not None and len(display.token_bytes(value, value, True)) > 1 else None
    return _merge_ranks(model).get(value)


def score(model: Any, id_: int) -> float | None:
    """A Unigram piece's log-probability, or None for other models."""
    pieces = getattr(model, "pieces", None)
    if pieces is None or getattr(model, "merges", None):
        return None
    return pieces[id_][1] if 0 <= id_ < len(pieces) else None


_counts: OrderedDict[tuple[str, str], Counter] = OrderedDict()
_lock = threading.Lock()


def frequencies(name: str, tok: tc.Tokenizer, corpus_ref: str, text: str) -> Counter:
    """How often each id occurs when `tok` (named `name`) encodes the corpus (its first
    MAX_FREQUENCY_CHARS characters, no special tokens added), kept for the last few
    (tokeniser, corpus) pairs."""
    key = (name, corpus_ref)
    with _lock:
        if key in _counts:
            _counts.move_to_end(key)
            return _counts[key]
    try:
        enc = tok.encode(text[:MAX_FREQUENCY_CHARS], add_special_tokens=False)
    except TypeError:             # tokenisers without a post-processor option
        enc = tok.encode(text[:MAX_FREQUENCY_CHARS])
    counts = Counter(enc.ids)
    with _lock:
        _counts[key] = counts
        while len(_counts) > 6:
            _counts.popitem(last=False)
    return counts


def shower(model: Any):
    """How a symbol of `model` is drawn (byte-level symbols as text, <E3 81> for partial
    bytes; whitespace made visible)."""
    byte_level = bool(getattr(model, "byte_level", False))
    if not byte_level:
        return display.visible
    return lambda value: display.token_label(display.token_bytes(value, value, True))

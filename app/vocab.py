"""The vocabulary browser's data: every entry of a tokeniser's vocabulary as the views show it,
its BPE merge rank or Unigram score, and how often it occurs in a corpus.

Pure functions of a `Tokenizer` (and a corpus text), cached per model: a vocabulary of 200k
entries is listed once, then searched and paged many times.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections import Counter
from typing import Any, NamedTuple

import tokenizers_core as tc

from . import display
from .lru import LRU

MAX_FREQUENCY_CHARS = 1_000_000  # frequencies are counted on at most this much of a corpus


class Entry(NamedTuple):
    id: int
    value: str  # as the model spells it (Ġ, ##, ▁ kept); an added token's content
    text: str  # as the visualiser draws it (byte-level as text; <E3 81> for partial bytes)
    bytes_hex: str
    special: bool  # a special token (the model's, or an added token marked special)
    added: bool = False  # outside the model's own vocabulary: an added token of a
    # tokenizer.json (Llama 3's 256), a special token a ranks file lacks


def has_vocabulary(tok: tc.Tokenizer) -> bool:
    return bool(getattr(tok.model, "vocab", None))


def entries_of(tok: tc.Tokenizer) -> tuple[Entry, ...]:
    """Every entry of `tok`'s vocabulary in id order: the model's, its special tokens and the
    added tokens (a tokenizer.json's "added_tokens"), as `tok.vocab_size` counts them."""
    return entries(tok.model, tuple(getattr(tok, "added_tokens", ()) or ()))


def per_model(fn):
    """Cache `fn(model, *rest)` for as long as `model` lives (a weak reference: a tokeniser the
    upload cache drops takes its entries with it, unlike an LRU that would keep it alive)."""
    cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
    lock = threading.Lock()

    @functools.wraps(fn)
    def cached(model: Any, *rest: Any) -> Any:
        with lock:
            known = cache.get(model, {})
            if rest in known:
                return known[rest]
        value = fn(model, *rest)
        with lock:
            cache.setdefault(model, {})[rest] = value
        return value

    return cached


@per_model
def entries(model: Any, added: tuple[Any, ...] = ()) -> tuple[Entry, ...]:
    """Every vocabulary entry of `model` and the `added` tokens (`AddedToken`s) in id order.
    An added token with an id of the model's own names that entry (as `Tokenizer.id_to_token`
    does) and marks it special or not; one past the model's vocabulary is an entry of its own."""
    byte_level = bool(getattr(model, "byte_level", False))
    specials = getattr(model, "special_tokens", None) or {}
    if not isinstance(specials, dict):
        specials = {}
    own = {id_: value for value, id_ in model.vocab.items()}
    by_id: dict[int, tuple[str, bool, bool]] = {  # id -> (value, special, added)
        id_: (value, value in specials, False) for id_, value in own.items()
    }
    for value, id_ in specials.items():
        if id_ not in by_id:
            by_id[id_] = (value, True, True)
    for token in added:
        if token.id is None:
            continue
        by_id[token.id] = (
            token.content,
            token.special or token.content in specials,
            own.get(token.id) != token.content,
        )
    out = []
    for id_ in sorted(by_id):
        value, special, is_added = by_id[id_]
        if special or is_added or not byte_level:
            data = (
                value.encode("utf-8")
                if special or is_added  # <0xE3>: byte fallback
                else display.token_bytes(value, value, False)
            )
            text = value if special else display.visible(value)
        else:
            head, stem, tail = display.split_markers(model, value)  # CLIP's `¬</w>`
            data = display.token_bytes(stem, stem, True)
            text = head + display.token_label(data) + tail
        out.append(Entry(id_, value, text, display.hex_bytes(data), special, is_added))
    return tuple(out)


def added_count(tok: tc.Tokenizer) -> int:
    """How many of `tok`'s entries are outside its model's own vocabulary."""
    return sum(1 for e in entries_of(tok) if e.added)


def search(tok: tc.Tokenizer, query: str) -> list[Entry]:
    """Entries of `tok` (added tokens included) matching `query`: an id (a whole number) or a
    substring of the entry as the model spells it or as it is drawn. An empty query matches
    everything."""
    every = entries_of(tok)
    query = query.strip()
    if not query:
        return list(every)
    if query.isascii() and query.isdigit() and len(query) <= 18:  # an id ("²" is no id, and
        return [e for e in every if e.id == int(query)]  # 5,000 digits are none)
    q = query.casefold()
    return [e for e in every if q in e.value.casefold() or q in e.text.casefold()]


@per_model
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
        return (
            data if data is not None and len(display.token_bytes(value, value, True)) > 1 else None
        )
    return _merge_ranks(model).get(value)


def score(model: Any, id_: int) -> float | None:
    """A Unigram piece's log-probability, or None for other models."""
    pieces = getattr(model, "pieces", None)
    if pieces is None or getattr(model, "merges", None):
        return None
    return pieces[id_][1] if 0 <= id_ < len(pieces) else None


_counts: LRU[tuple[str, str], Counter] = LRU(6)  # the last few (tokeniser, corpus) pairs


def frequencies(name: str, tok: tc.Tokenizer, corpus_ref: str, text: str) -> Counter:
    """How often each id occurs when `tok` (named `name`) encodes the corpus (its first
    MAX_FREQUENCY_CHARS characters, no special tokens added), kept for the last few
    (tokeniser, corpus) pairs."""
    return _counts.get_or_make((name, corpus_ref), lambda: _frequencies(tok, text))


def _frequencies(tok: tc.Tokenizer, text: str) -> Counter:
    try:
        enc = tok.encode(text[:MAX_FREQUENCY_CHARS], add_special_tokens=False)
    except TypeError:  # tokenisers without a post-processor option
        enc = tok.encode(text[:MAX_FREQUENCY_CHARS])
    return Counter(enc.ids)


def shower(model: Any):
    """How a symbol of `model` is drawn (byte-level symbols as text, <E3 81> for partial
    bytes; whitespace made visible)."""
    byte_level = bool(getattr(model, "byte_level", False))
    if not byte_level:
        return display.visible

    def show(value: str) -> str:
        head, stem, tail = display.split_markers(model, value)
        return head + display.token_label(display.token_bytes(stem, stem, True)) + tail

    return show

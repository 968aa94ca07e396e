"""One page of the vocabulary browser: a tokeniser's entries by id or substring, each with its
BPE merge rank or Unigram score and its count in a chosen corpus, and one entry in detail (its
merge tree). The entries themselves are `app.vocab`'s."""

from __future__ import annotations

from typing import Any

from tokenizers_core.errors import InvalidInput, NotFound
from tokenizers_core.models.bpe.session import merge_tree_of

from .. import vocab
from ..state import AppState
from ..trained import corpus_text
from .tokenizers import resolve_tokenizer

PAGE = 50


def _tree(tok, value: str) -> dict[str, Any] | None:
    try:
        return merge_tree_of(tok, value)
    except ValueError:  # not a BPE model, or a token the model cannot rebuild
        return None


def vocab_page(
    state: AppState, tokenizer: str, q: str, page: int, id: int | None, corpus: str
) -> dict[str, Any]:
    """The entries block's context. ValueError for a tokeniser without a vocabulary or a bad
    page, NotFound for an unknown tokeniser, corpus or id."""
    tok = resolve_tokenizer(state, tokenizer)
    if not vocab.has_vocabulary(tok):
        raise InvalidInput(
            f"{tokenizer} has no vocabulary to browse: its tokens are cut by "
            "rules (characters, words, sentences or a regex)"
        )
    if page < 0:
        raise InvalidInput("page must be 0 or more")
    model = tok.model
    found = vocab.search(tok, q)
    counts = (
        vocab.frequencies(tokenizer, tok, corpus, corpus_text(state.store, corpus))
        if corpus
        else None
    )
    pages = max(1, -(-len(found) // PAGE))
    page = min(page, pages - 1)

    def row(entry) -> dict[str, Any]:
        return {
            "entry": entry,
            "rank": vocab.merge_rank(model, entry.value),
            "score": vocab.score(model, entry.id),
            "count": counts.get(entry.id, 0) if counts is not None else None,
        }

    detail = None
    if id is not None:
        entry = next((e for e in vocab.entries_of(tok) if e.id == id), None)
        if entry is None:
            raise NotFound(f"{tokenizer} has no token with id {id}")
        detail = {
            **row(entry),
            "tree": None if entry.special or entry.added else _tree(tok, entry.value),
        }
    return {
        "tok": tok,
        "rows": [row(e) for e in found[page * PAGE : (page + 1) * PAGE]],
        "detail": detail,
        "page": page,
        "pages": pages,
        "found": len(found),
        "added_count": vocab.added_count(tok),
        "show": vocab.shower(model),
        "total_tokens": sum(counts.values()) if counts else None,
        "byte_level": bool(getattr(model, "byte_level", False)),
    }

"""Counts files as a training view's corpus: store an uploaded one, read it back by its
digest, and the BPE training run it starts (the same steps as training on the text).

A counts file (`tokvis count`) is binary. The corpus store keeps text, so it is stored as
`PREFIX` + base64 of its bytes, content-addressed like any corpus: its sha256 goes in the
view's URL (`/bpe/train?counts=SHA256`), so the page is linkable and any worker, after any
restart, reads it back. The corpus pickers leave such entries out (`CorpusStore.list`).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from tokenizers_core.errors import InvalidInput, NotFound
from tokenizers_core.implementations.counting import Counts
from tokenizers_core.implementations.counting.from_counts import trainer_words
from tokenizers_core.implementations.counting.under import preset_of
from tokenizers_core.models.bpe.session import VARIANTS, BpeSession

from ..errors import TooLarge
from ..jobs import cache
from ..state import AppState
from ..store import COUNTS_PREFIX as PREFIX
from ..store import is_sha256

MAX_VIEW_WORDS = 50_000  # distinct pre-tokens a step view trains on within a request
MAX_BODY = 64 * MAX_VIEW_WORDS * 16  # what such counts unpack to, at most (64-byte words)


def read_counts(data: bytes, where: str = "the uploaded file") -> Counts:
    """An uploaded counts file, checked: a counts file, small enough for the step view."""
    counts = Counts.from_bytes(data, where, max_body=MAX_BODY)
    if len(counts) > MAX_VIEW_WORDS:
        raise TooLarge(
            f"{where} holds {len(counts):,} distinct pre-tokens; the step view trains on at most "
            f"{MAX_VIEW_WORDS:,}. Train on them with tokvis train NAME --from-counts FILE"
        )
    return counts


def store_counts(state: AppState, data: bytes, name: str = "") -> tuple[str, Counts]:
    """Store an uploaded counts file; (its digest in the store, the counts)."""
    counts = read_counts(data)
    text = PREFIX + base64.b64encode(data).decode("ascii")
    return state.store.put(text, name=name[:200] or "counts file"), counts


def counts_by_ref(state: AppState, digest: str) -> Counts:
    """The stored counts file of `digest`. NotFound (404) for none, InvalidInput for a
    stored corpus that is not a counts file."""
    text = state.store.get(digest) if is_sha256(digest) else None
    if text is None:
        raise NotFound(f"no stored counts file has sha256 {digest}")
    if not text.startswith(PREFIX):
        raise InvalidInput(
            f"the stored corpus {digest[:12]}… is text, not a counts file: open it as corpus="
        )
    try:
        data = base64.b64decode(text[len(PREFIX) :], validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput(f"the stored counts file {digest[:12]}… is damaged") from None
    return read_counts(data, "the stored counts file")


def counts_session(
    state: AppState, digest: str, variant: str, vocab_size: int, options: dict[str, Any]
) -> BpeSession:
    """The finished BPE training run on a stored counts file, trained within the request and
    kept in the view's cache. InvalidInput (422), naming both, for counts made for another
    algorithm than `variant`."""
    key = ("counts", digest, variant, vocab_size, tuple(sorted(options.items())))
    session = cache.BPE.get(key)
    if session is not None:
        return session
    if variant not in VARIANTS:
        raise InvalidInput(f"the BPE view trains {', '.join(VARIANTS)} from counts, not {variant}")
    words, options = trainer_words(variant, counts_by_ref(state, digest), options)
    session = BpeSession("", variant, vocab_size, options, words=words)
    session.total_steps()
    session.prepare_views()
    return cache.BPE.keep(key, session, settle=True)


def counts_variant(counts: Counts) -> str:
    """The BPE view's variant for these counts (their algorithm). InvalidInput for counts of
    an algorithm the view does not train."""
    algorithm = counts.counted_under.algorithm
    if algorithm not in VARIANTS:
        raise InvalidInput(
            f"these counts were made for {algorithm}; the BPE training view trains "
            f"{', '.join(VARIANTS)}. Count the corpus again with --algorithm byte_bpe (or bpe)"
        )
    return algorithm


def counts_pattern(counts: Counts) -> str | None:
    """byte_bpe counts: their pattern's preset name (the view's `pattern`), else None."""
    under = counts.counted_under
    return preset_of(under) if under.algorithm == "byte_bpe" else None

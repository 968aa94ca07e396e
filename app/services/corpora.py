"""Corpora for the routes: store a pasted or uploaded text (the one place that does), read an
uploaded text file.

A corpus is stored content-addressed (`app.store`): its sha256 names it in every URL, so any
server worker reads it back. Line endings are normalised before hashing, so the same text
pasted from Windows and from a file is one corpus.
"""

from __future__ import annotations

from typing import Any

from fastapi import UploadFile

from tokenizers_core.errors import InvalidInput

from .. import limits
from ..errors import TooLarge
from ..state import AppState


def normalise_newlines(text: str) -> str:
    r"""CRLF and lone CR become LF.

    >>> normalise_newlines("a\r\nb\rc\n")
    'a\nb\nc\n'
    """
    return text.replace("\r\n", "\n").replace("\r", "\n")


def put_text(state: AppState, text: str, name: str = "") -> str:
    """Store a text (a corpus, a long visualiser text) and return its sha256; StoreFull (507)
    when the store is full (TOKVIS_MAX_STORE_MB), which a page shows in place."""
    return state.store.put(text, name=name)


def store_corpus(state: AppState, text: str, name: str = "") -> str:
    """Store a corpus (line endings normalised to LF: a pasted text arrives with CRLF; lone
    surrogates read as U+FFFD) and return its sha256; 413 over the size limit, 422 if empty."""
    text = normalise_newlines(limits.without_lone_surrogates(text))
    limits.check_corpus_size(text, state.settings.max_corpus_bytes)
    if not text.strip():
        raise InvalidInput("the corpus is empty")
    return put_text(state, text, name=name.strip()[:200] or first_words(text))


def first_words(text: str, limit: int = 40) -> str:
    """A name for a corpus given none: its first words, up to `limit` characters, cut at a word.

    >>> first_words("Colourless green ideas sleep furiously tonight and tomorrow too")
    'Colourless green ideas sleep furiously…'
    >>> first_words("  short\\ntext ")
    'short text'
    """
    words = " ".join(text.split())
    if len(words) <= limit:
        return words
    cut = words[: limit + 1].rsplit(" ", 1)[0] if " " in words[: limit + 1] else words[:limit]
    return cut + "…"


def corpus_summary(digest: str, text: str) -> dict[str, Any]:
    return {
        "sha256": digest,
        "bytes": len(text.encode("utf-8")),
        "chars": len(text),
        "lines": len(text.splitlines()),
    }


async def read_corpus_upload(state: AppState, upload: UploadFile) -> str:
    """The uploaded file as text (gunzipped if it is gzip), refusing files over the limit,
    gzip bombs and broken gzip, and bytes that are not UTF-8."""
    config = state.settings
    data = await limits.read_upload(upload, config.max_upload_bytes)
    return limits.text_of(
        limits.maybe_gunzip(data, config.max_corpus_bytes, "TOKVIS_MAX_CORPUS_BYTES")
    )


async def read_upload_text(state: AppState, upload: UploadFile) -> str:
    """An uploaded file as text (not a corpus: a student's merges, say), refusing files over
    the upload limit or not UTF-8."""
    limit = state.settings.max_upload_bytes
    data = await upload.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(
            f"the file is over the upload limit of {limit:,} bytes "
            "(set TOKVIS_MAX_UPLOAD_BYTES to change it)",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"the file is not UTF-8 text (bad byte at {exc.start})") from None

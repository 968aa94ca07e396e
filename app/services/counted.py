"""Counts files as a training view's corpus: store an uploaded one, read it back by its
digest, and the training run it starts (the same steps as training on the text): BPE's
(`/bpe/train`), the BPE family's (picky_bpe on byte_bpe counts, parity_bpe on one byte_bpe
counts file per language) and WordPiece's (`/wordpiece/train`).

A counts file (`tokvis count`) is binary. The corpus store keeps text, so it is stored as
`PREFIX` + base64 of its bytes, content-addressed like any corpus: its sha256 goes in the
view's URL (`/bpe/train?counts=SHA256`), so the page is linkable and any worker, after any
restart, reads it back. parity_bpe's files are stored so, each, and then the list of them
(`SET_PREFIX` + JSON `[[language, sha256], ...]`, in the order given), whose sha256 is the
URL's. The corpus pickers leave such entries out (`CorpusStore.list`).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from pathlib import PurePath
from typing import Any, Mapping

from tokenizers_core.errors import InvalidInput, NotFound
from tokenizers_core.implementations.bpe_runs import FAMILY, FamilyRun, family_run
from tokenizers_core.implementations.counting import Counts
from tokenizers_core.implementations.counting.from_counts import trainer_words
from tokenizers_core.implementations.counting.under import preset_of
from tokenizers_core.models.bpe.session import VARIANTS, BpeSession
from tokenizers_core.models.wordpiece.session import WordPieceSession

from ..errors import TooLarge
from ..jobs import cache
from ..state import AppState
from ..store import COUNTS_PREFIX as PREFIX
from ..store import COUNTS_SET_PREFIX as SET_PREFIX
from ..store import is_sha256

MAX_VIEW_WORDS = 50_000  # distinct pre-tokens a step view trains on within a request
MAX_BODY = 64 * MAX_VIEW_WORDS * 16  # what such counts unpack to, at most (64-byte words)
MAX_LANGUAGES = 64  # counts files in one parity_bpe upload
LANGUAGE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")  # as parity_bpe's line tags: eng, cmn_hans


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
    return _put(state, data, name), counts


def _put(state: AppState, data: bytes, name: str) -> str:
    text = PREFIX + base64.b64encode(data).decode("ascii")
    return state.store.put(text, name=name[:200] or "counts file")


def store_uploaded(
    state: AppState, files: list[tuple[str, bytes]], variant: str, languages: list[str]
) -> tuple[str, str]:
    """Store the counts files uploaded (file name, bytes) for the BPE view's `variant`; (the
    digest its URL names, the variant it opens on). One file: the variant its counts were
    made for, or picky_bpe when asked (byte_bpe counts). parity_bpe: one file per language,
    each named by `languages` (in order) or else by its file name (`eng.counts`: eng). Bad
    input is InvalidInput (422) with the core's reason, TooLarge (413)."""
    if variant == "parity_bpe":
        names = languages if any(x.strip() for x in languages) else [n for n, _ in files]
        if len(names) != len(files):
            raise InvalidInput(
                f"{len(files)} counts files and {len(names)} languages: give one language per file"
            )
        return store_counts_set(state, [(_language(n), d, n) for n, (_f, d) in
                                        zip(names, files)]), variant  # fmt: skip
    if len(files) != 1:
        raise InvalidInput(
            f"the {variant or 'BPE'} view trains on one counts file, not {len(files)}; "
            "parity_bpe takes one per language"
        )
    name, data = files[0]
    counts = read_counts(data)
    if variant in FAMILY:
        trainer_words(variant, counts, {})  # counts of another algorithm: the core's reason
    else:
        variant = counts_variant(counts)
    return _put(state, data, name), variant


def store_counts_set(state: AppState, parts: list[tuple[str, bytes, str]]) -> str:
    """Store parity_bpe's counts files (language, bytes, file name), checked against the
    trainer, and the list naming them; the list's digest."""
    if not parts or len(parts) > MAX_LANGUAGES:
        raise InvalidInput(
            f"parity_bpe trains from one counts file per language: give 1 to {MAX_LANGUAGES}, "
            f"not {len(parts)}"
        )
    found: dict[str, Counts] = {}
    for lang, data, name in parts:
        if lang in found:
            raise InvalidInput(f"two counts files for the language {lang!r}: give one each")
        found[lang] = read_counts(data, f"the counts file {name or lang}")
    _check_size(found)
    trainer_words("parity_bpe", found, {})  # another algorithm or pattern: the core's reason
    refs = [[lang, _put(state, data, name)] for lang, data, name in parts]
    text = SET_PREFIX + json.dumps(refs, ensure_ascii=False)
    return state.store.put(text, name=f"counts of {len(refs)} languages")


def _language(name: str) -> str:
    """A language code from a form field or a file's name (`eng.counts`, `fra`)."""
    code = PurePath(name.strip()).name.removesuffix(".counts").strip()
    if not LANGUAGE.fullmatch(code):
        raise InvalidInput(
            f"{name!r} does not name a language: name each counts file by its language "
            "(eng.counts), or give the languages as letters, digits, _ and - (eng, cmn_hans)"
        )
    return code


def _check_size(found: Mapping[str, Counts]) -> None:
    distinct = sum(len(c) for c in found.values())
    if distinct > MAX_VIEW_WORDS:
        raise TooLarge(
            f"these counts hold {distinct:,} distinct pre-tokens in all; the step view trains "
            f"on at most {MAX_VIEW_WORDS:,}. Train on them with tokvis train NAME --from-counts "
            "FILE"
        )


def _stored(state: AppState, digest: str) -> str:
    text = state.store.get(digest) if is_sha256(digest) else None
    if text is None:
        raise NotFound(f"no stored counts file has sha256 {digest}")
    return text


def counts_by_ref(state: AppState, digest: str) -> Counts:
    """The stored counts file of `digest`. NotFound (404) for none, InvalidInput for a
    stored corpus that is not a counts file."""
    text = _stored(state, digest)
    if text.startswith(SET_PREFIX):
        raise InvalidInput(
            f"the stored {digest[:12]}… is a set of counts files, one per language: open it "
            "with variant=parity_bpe"
        )
    if not text.startswith(PREFIX):
        raise InvalidInput(
            f"the stored corpus {digest[:12]}… is text, not a counts file: open it as corpus="
        )
    try:
        data = base64.b64decode(text[len(PREFIX) :], validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput(f"the stored counts file {digest[:12]}… is damaged") from None
    return read_counts(data, "the stored counts file")


def counts_set_by_ref(state: AppState, digest: str) -> dict[str, Counts]:
    """The stored set of counts files of `digest`: language -> counts, in their order."""
    text = _stored(state, digest)
    if not text.startswith(SET_PREFIX):
        raise InvalidInput(
            "parity_bpe trains from one counts file per language: upload them together in "
            f"its form (the stored {digest[:12]}… is not such a set)"
        )
    try:
        refs = json.loads(text[len(SET_PREFIX) :])
        found = {str(lang): counts_by_ref(state, ref) for lang, ref in refs}
    except (ValueError, TypeError):
        raise InvalidInput(f"the stored counts set {digest[:12]}… is damaged") from None
    _check_size(found)
    return found


def counts_info(counts: Counts | Mapping[str, Counts]) -> dict[str, Any]:
    """What a view from counts says of them: distinct pre-tokens, in all, counted under what
    (and parity_bpe's languages)."""
    parts = dict(counts) if isinstance(counts, Mapping) else {"": counts}
    first = next(iter(parts.values()))
    return {
        "distinct": sum(len(c) for c in parts.values()),
        "total": sum(c.total for c in parts.values()),
        "under": first.counted_under.describe(),
        "languages": [lang for lang in parts if lang],
    }


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


def counts_family_run(
    state: AppState, digest: str, variant: str, vocab_size: int, options: dict[str, Any]
) -> tuple[FamilyRun, dict[str, Any]]:
    """The finished run of the BPE family's `variant` on stored counts (picky_bpe: a byte_bpe
    counts file; parity_bpe: a set of them), trained within the request and kept in the view's
    cache, and what `counts_info` says of the counts. superbpe is refused with the core's
    reason (its stage 2 needs the lines)."""
    if variant not in FAMILY:
        raise InvalidInput(f"unknown variant {variant!r}; choose one of: {', '.join(FAMILY)}")
    if variant == "superbpe":
        trainer_words(variant, None, {})  # raises InvalidInput with the core's reason
    counts: Any = (
        counts_set_by_ref(state, digest)
        if variant == "parity_bpe"
        else counts_by_ref(state, digest)
    )
    key = ("counts", digest, variant, vocab_size, tuple(sorted(options.items())))
    run = cache.FAMILY.get(key)
    if run is None:
        words, options = trainer_words(variant, counts, options)
        made = family_run(variant, None, vocab_size, words=words, **options)
        run = cache.FAMILY.keep(key, made, settle=True)
    return run, counts_info(counts)


def counts_wordpiece_run(
    state: AppState, digest: str, options: dict[str, Any]
) -> tuple[WordPieceSession, dict[str, Any]]:
    """The finished WordPiece run on a stored wordpiece counts file (their own casing), trained
    within the request and kept in the view's cache, and what `counts_info` says of them."""
    counts = counts_by_ref(state, digest)
    key = ("counts", digest, tuple(sorted(options.items())))
    session = cache.WORDPIECE.get(key)
    if session is None:
        words, options = trainer_words("wordpiece", counts, options)
        options.pop("lowercase", None)  # (the words are spelled as counted)
        session = cache.WORDPIECE.keep(key, WordPieceSession(words, **options).run())
    return session, counts_info(counts)


def store_wordpiece_counts(state: AppState, data: bytes, name: str = "") -> str:
    """Store an uploaded counts file for the WordPiece view; its digest. InvalidInput (the
    core's reason, naming both) for counts made for another algorithm."""
    trainer_words("wordpiece", read_counts(data), {})
    return _put(state, data, name)


def counts_variant(counts: Counts) -> str:
    """The BPE view's variant for these counts (their algorithm). InvalidInput for counts of
    an algorithm the view does not train."""
    algorithm = counts.counted_under.algorithm
    if algorithm not in VARIANTS:
        raise InvalidInput(
            f"these counts were made for {algorithm}; the BPE training view trains "
            f"{', '.join(VARIANTS)}. Count the corpus again with --algorithm byte_bpe (or bpe)"
            + ("; or open them in the WordPiece training view" if algorithm == "wordpiece" else "")
        )
    return algorithm


def counts_pattern(counts: Counts) -> str | None:
    """byte_bpe counts: their pattern's preset name (the view's `pattern`), else None."""
    under = counts.counted_under
    return preset_of(under) if under.algorithm == "byte_bpe" else None

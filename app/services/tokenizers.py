"""Resolving and listing tokenisers by name (a bundled one, an upload, a trained handle, the
custom regex), and the text limits a tokeniser's input is held to."""

from __future__ import annotations

import threading
import weakref

import tokenizers_core as tc
from tokenizers_core import pretrained
from tokenizers_core.errors import InvalidInput, NotFound

from .. import heap
from ..errors import TooLarge
from ..state import AppState
from ..store import CorpusStore
from ..uploads import PREFIX as UPLOAD_PREFIX

REGEX = "regex"  # the visualiser's "custom regex" tokeniser: tokens are the pattern's matches
_settled: set[str] = set()  # bundled tokenisers already moved out of the collector's way


class UnknownTokenizer(NotFound):
    pass


def resolve_tokenizer(state: AppState, name: str, pattern: str | None = None) -> tc.Tokenizer:
    """The one place a tokeniser name is resolved: a bundled name or alias, an uploaded
    tokeniser's handle (`upload-...`), a trained handle, or the custom regex tokeniser.

    Raises UnknownTokenizer (-> 404) for a name nobody knows, InvalidInput (-> 422) for a bad
    pattern.
    """
    if name == REGEX:
        from tokenizers_core.implementations.rules import regex_tokenizer

        if not pattern:
            raise InvalidInput("the custom regex tokeniser needs a pattern")
        return regex_tokenizer(pattern, timeout=state.settings.regex_timeout)
    if pretrained.is_bundled(name):
        canonical = pretrained.canonical_name(name)
        bundled = tc.load(canonical)
        if canonical not in _settled:  # first use: a vocabulary that stays for good
            _settled.add(canonical)
            heap.settle()
        return bundled
    if name.startswith(UPLOAD_PREFIX):
        uploaded = state.uploads.get(name)
        if uploaded is None:
            raise UnknownTokenizer(
                f"unknown tokeniser {name!r}: no uploaded tokenizer file has "
                "this handle (upload it again: POST /api/tokenizers)"
            )
        # a file's own patterns (Split, Replace, a ranks file's pattern) run under the limit
        return uploaded.limit_regex_time(state.settings.regex_timeout)
    trained = state.trained.get(name)
    if trained is None:
        known = ", ".join(pretrained.bundled())
        raise UnknownTokenizer(
            f"unknown tokeniser {name!r}: use a bundled one ({known}), "
            "'regex' with a pattern, a handle from POST /api/train, or one "
            "from POST /api/tokenizers (an uploaded tokenizer file)"
        )
    return trained.limit_regex_time(state.settings.regex_timeout)  # a trainer's user pattern


def stored_corpora(store: CorpusStore) -> list[dict[str, str]]:
    """The stored corpora as picker options: sha256 and "name · size · date", newest first."""
    from ..display import day, filesize

    return [
        {
            "value": c["sha256"],
            "label": f"{c['name'] or c['sha256'][:12] + '…'} · {filesize(c['bytes'])} · "
            f"{day(c['created'])}",
        }
        for c in store.list()
    ]


YOURS = "Your tokenizers"


def stored_options(state: AppState, family: str | None = None) -> list[dict[str, str]]:
    """The uploaded tokenisers as picker options (group "Your tokenizers"), most recent first;
    `family` keeps those a step-through view runs on (bpe, wordpiece, unigram)."""
    out = []
    for row in state.uploads.list():
        if family is None or row["family"] == family:
            out.append(
                {
                    "value": row["handle"],
                    "group": YOURS,
                    "label": f"{row['name'] or row['handle']} ({row['algorithm']}, "
                    f"{row['vocab_size']:,})",
                }
            )
    return out


def tokenizer_label(state: AppState, name: str) -> str:
    """A tokeniser's name for people: a bundled one's label, an upload's given name, else the
    name itself."""
    entry = pretrained.bundled().get(pretrained.canonical_name(name))
    if entry is not None:
        return entry.label
    info = state.uploads.info(name) if name.startswith(UPLOAD_PREFIX) else None
    return (info["name"] or name) if info else name


def check_text(state: AppState, text: str, what: str = "text") -> None:
    limit = state.settings.max_text_chars
    if len(text) > limit:
        raise TooLarge(
            f"the {what} is {len(text):,} characters; the limit is "
            f"{limit:,} (set TOKVIS_MAX_TEXT_CHARS to change it)",
        )


MAX_STEP_CHARS = 2000  # texts the step-through encoders list every merge / probe of


def check_step_text(state: AppState, text: str, in_form: bool = False) -> None:
    """`check_text`, then the step-through encoding views' own, lower limit (TooLarge, 413, for
    the API; `in_form`: InvalidInput, which a page shows as a 422 form error)."""
    check_text(state, text)
    if len(text) > MAX_STEP_CHARS:
        raise (InvalidInput if in_form else TooLarge)(
            f"the text is {len(text):,} characters; step through at most "
            f"{MAX_STEP_CHARS:,} (the visualiser takes longer texts)",
        )


def tokenizer_options(state: AppState, current: str | None = None) -> list[dict[str, str]]:
    """The tokeniser selector's options, grouped (the uploaded ones as "Your tokenizers"), plus
    `current` if it is a trained handle."""
    groups = {
        "char": "Rules",
        "word": "Rules",
        "sentence": "Rules",
        "byte_bpe": "Byte-level BPE",
        "wordpiece": "WordPiece",
        "unigram": "SentencePiece",
        "sentencepiece_bpe": "SentencePiece",
    }
    out = []
    for name, entry in pretrained.bundled().items():
        aliases = pretrained.aliases_of(name)
        label = entry.label + (f" ({', '.join(aliases)})" if aliases else "")
        out.append(
            {"value": name, "label": label, "group": groups.get(entry.algorithm, entry.algorithm)}
        )
    out.append({"value": REGEX, "label": "Custom regex (matches are tokens)", "group": "Rules"})
    out += stored_options(state)
    if current and not any(
        o["value"] in (current, pretrained.canonical_name(current)) for o in out
    ):  # an alias (gpt2) is its bundled entry
        if pretrained.is_bundled(current):  # gpt-oss-120b: an unlisted encoding by name
            canonical = pretrained.canonical_name(current)
            out.append(
                {
                    "value": current,
                    "group": "OpenAI models",
                    "label": current if canonical == current else f"{current} ({canonical})",
                }
            )
        else:
            out.append({"value": current, "label": f"Trained: {current}", "group": "Trained"})
    return out


def special_kwargs(tok: tc.Tokenizer, allow: str | list[str] | None) -> dict:
    """`allowed_special=...` for tokenisers that take it (the OpenAI encodings); a ValueError
    for a tokeniser that has no such option."""
    if not allow:
        return {}
    import inspect

    if "allowed_special" not in inspect.signature(tok.encode).parameters:
        raise InvalidInput(
            f"{tok.name} has no special tokens to allow in the text; "
            "only the OpenAI encodings (r50k_base, cl100k_base, o200k_base) do"
        )
    return {"allowed_special": allow}


# a tokenizer's fingerprint, taken once per object: the app's tokenizers are read-only, and
# each name resolves to the same object while it is cached
_FINGERPRINTS: weakref.WeakKeyDictionary[tc.Tokenizer, dict] = weakref.WeakKeyDictionary()
_FINGERPRINTS_LOCK = threading.Lock()


def fingerprint_of(state: AppState, name: str, pattern: str | None = None) -> dict:
    """`tc.fingerprint` of the tokenizer a name resolves to, as its JSON dict; an upload's
    sha256 is its file's (the store's record), as `tokvis fingerprint FILE` gives it."""
    tok = resolve_tokenizer(state, name, pattern)
    with _FINGERPRINTS_LOCK:
        known = _FINGERPRINTS.get(tok)
    if known is not None:
        return known
    fp = tc.fingerprint(tok).to_dict()
    info = state.uploads.info(name) if name.startswith(UPLOAD_PREFIX) else None
    if info and info.get("sha256"):
        fp["sha256"] = info["sha256"]
    with _FINGERPRINTS_LOCK:
        _FINGERPRINTS[tok] = fp
    return fp

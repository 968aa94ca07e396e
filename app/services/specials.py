"""Special-token controls the visualiser and compare share: what the post-processor adds (the
"add BOS/EOS" box), and ids typed by the user decoded back (the paste-ids box, and
`POST /api/decode`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import tokenizers_core as tc
from tokenizers_core.errors import InvalidInput

from .. import display

MAX_PASTED_IDS = 2000  # ids the paste-ids box decodes and draws as chips


# ---- add BOS/EOS: the post-processor's special tokens ----------------------------------------
def processor_tokens(tok: tc.Tokenizer) -> tuple[list[str], list[str]]:
    """(before, after): the special tokens the post-processor puts around a text, found by
    encoding one character with and without them (so it holds for every tokenizer kind).

    >>> processor_tokens(tc.load("bert-base-uncased"))
    (['[CLS]'], ['[SEP]'])
    >>> processor_tokens(tc.load("cl100k_base"))
    ([], [])
    """
    try:
        added = tok.encode("a", add_special_tokens=True)
        plain = tok.encode("a", add_special_tokens=False)
    except ValueError:
        return [], []
    if len(added) == len(plain):
        return [], []
    tokens, mask = added.tokens, added.special_tokens_mask
    first = next((i for i, m in enumerate(mask) if not m), len(mask))
    last = max((i for i, m in enumerate(mask) if not m), default=first - 1)
    return tokens[:first], tokens[last + 1 :]


def bos_note(tok: tc.Tokenizer) -> str | None:
    """Why the "add BOS/EOS" box does nothing for `tok` (None: it applies)."""
    before, after = processor_tokens(tok)
    if before or after:
        return None
    return "This tokenizer's post-processor adds no special tokens (no BOS or EOS) to a text."


def bos_summary(tok: tc.Tokenizer) -> str | None:
    """What the box adds, as a sentence ("adds [CLS] before the text and [SEP] after it")."""
    before, after = processor_tokens(tok)
    parts = [
        f"{' '.join(before)} before the text" if before else "",
        f"{' '.join(after)} after it" if after else "",
    ]
    said = " and ".join(p for p in parts if p)
    return f"Adds {said}." if said else None


# ---- decoding ids ----------------------------------------------------------------------------
_SEPARATORS = re.compile(r"[\s,;]+")


def parse_ids(typed: str) -> list[int]:
    """Ids typed as "1, 2 3", one a line, or a JSON list; ValueError with what is wrong.

    >>> parse_ids("1, 2 3"), parse_ids("[9906, 1917]"), parse_ids("  ")
    ([1, 2, 3], [9906, 1917], [])
    >>> parse_ids("1 two")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: 'two' is not a token id: type whole numbers such as 1, ...
    """
    typed = typed.strip()
    if typed.startswith("["):
        try:
            value = json.loads(typed)
        except json.JSONDecodeError as exc:
            raise InvalidInput(
                f"the ids look like a JSON list but are not one ({exc.msg})"
            ) from None
        if not isinstance(value, list) or not all(type(v) is int for v in value):
            raise InvalidInput("a JSON list of ids holds whole numbers only, e.g. [1, 2, 3]")
        return value
    out = []
    for part in _SEPARATORS.split(typed):
        if not part:
            continue
        if not re.fullmatch(r"-?\d{1,12}", part):
            raise InvalidInput(
                f"{part[:40]!r} is not a token id: type whole numbers such as "
                "1, 2 3 or a JSON list [1, 2, 3]"
            )
        out.append(int(part))
    return out


def dropped_ids(tok: tc.Tokenizer, ids: list[int]) -> list[int]:
    """The ids decode leaves out: a tokenizer.json's tokenizer drops an id its vocabulary
    lacks, as Hugging Face's decode does (cl100k's 100256, between its ranks and its special
    tokens); [] for the others, whose decode raises for one (tiktoken's KeyError).

    >>> dropped_ids(tc.load("cl100k_base"), [9906, 100256])
    []
    """
    return tok.unknown_ids(ids) if tok.drops_unknown_ids else []


def decode_ids(
    tok: tc.Tokenizer, ids: list[int], skip_special_tokens: bool = False, with_bytes: bool = False
) -> tuple[str, str | None, list[int]]:
    """(text, hex of the bytes or None, the ids dropped): `POST /api/decode`'s answer. An id
    outside the vocabulary is dropped where the owner library drops it (`dropped_ids`), else a
    ValueError naming it."""
    text = tok.decode(ids, skip_special_tokens=skip_special_tokens)
    dropped = dropped_ids(tok, ids)
    if not with_bytes:
        return text, None, dropped
    gone = set(dropped)
    kept = [
        i
        for i in ids
        if i not in gone and not (skip_special_tokens and tok.is_special(tok.id_to_token(i) or ""))
    ]
    return text, tok.decode_bytes(kept).hex(), dropped


@dataclass(frozen=True)
class IdChip:
    id: int
    text: str  # as the visualiser draws the token
    raw: str  # the token as the model spells it, made visible
    bytes_hex: str
    special: bool
    partial: bool  # bytes of a character a later id completes
    colour: int


@dataclass(frozen=True)
class Decoded:
    ids: list[int]
    chips: list[IdChip]
    text: str  # special tokens kept, as decode does by default
    text_plain: str  # skip_special_tokens=True
    dropped: list[int]  # ids the vocabulary lacks, which decode leaves out (`dropped_ids`)


def decode_pasted(tok: tc.Tokenizer, typed: str) -> Decoded:
    """The paste-ids box: the ids, which token each is, and the text with and without special
    tokens. ValueError for a malformed list, too many ids, or an id outside the vocabulary
    (a tokenizer.json's tokenizer drops such an id instead, as Hugging Face's decode does, and
    `dropped` names it)."""
    ids = parse_ids(typed)
    if len(ids) > MAX_PASTED_IDS:
        raise InvalidInput(f"{len(ids):,} ids are more than the box decodes ({MAX_PASTED_IDS:,})")
    unknown = [i for i in ids if tok.id_to_token(i) is None]
    if unknown and not tok.vocab_size:
        raise InvalidInput(
            f"{tok.name or 'This tokenizer'} numbers its tokens afresh for each "
            "text, so it has no fixed ids to decode"
        )
    if unknown and not tok.drops_unknown_ids:
        raise InvalidInput(
            f"id {unknown[0]} is not in the vocabulary of {tok.name or 'this tokenizer'}"
        )
    gone = set(unknown)
    kept = [i for i in ids if i not in gone]
    return Decoded(
        ids,
        id_chips(tok, kept),
        tok.decode(ids),
        tok.decode(ids, skip_special_tokens=True),
        unknown,
    )


def _is_special(tok: tc.Tokenizer, id_: int, value: str) -> bool:
    added = getattr(tok.added_vocabulary, "tokens", {}).get(id_)
    return added.special if added is not None else tok.is_special(value)


def id_chips(tok: tc.Tokenizer, ids: list[int]) -> list[IdChip]:
    """A chip per id, labelled as the visualiser labels tokens: by the bytes each stands for,
    a character cut across ids drawn once, on the id that completes it (byte-level tokens,
    sentencepiece's byte pieces `<0xE2>`); a special token by its own text; any other by its
    text without the model's word markers (▁ is a space, ## and </w> dropped)."""
    values = [tok.id_to_token(i) or "" for i in ids]
    special = [_is_special(tok, i, v) for i, v in zip(ids, values)]
    byte_level = display.is_byte_level(tok)
    data = [_piece_bytes(tok, i, v, byte_level) for i, v in zip(ids, values)]
    labels = display.byte_labels([None if s else d for s, d in zip(special, data)])
    out = []
    for k, (i, v, s, d) in enumerate(zip(ids, values, special, data)):
        label, partial = (display.visible(v), False) if s else labels[k]
        out.append(IdChip(i, label, display.visible(v), display.hex_bytes(d), s, partial, k % 8))
    return out


def _piece_bytes(tok: tc.Tokenizer, id_: int, value: str, byte_level: bool) -> bytes:
    """The bytes of text a token stands for: a byte-level token's bytes, a byte piece's one
    byte, else its text without the model's word markers, in UTF-8."""
    if byte_level:
        return tok.decode_single_token_bytes(id_)
    if display.is_byte_piece(value):
        return display.token_bytes(value, "", False)
    return display.split_markers(tok.model, value)[1].replace("▁", " ").encode("utf-8")

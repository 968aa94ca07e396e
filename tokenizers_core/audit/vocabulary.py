"""Two views across the whole vocabulary: near-duplicate groups and per-script coverage.

- *Near-duplicates*: tokens that differ only by case, by one leading space (``Ġ``, ``▁``), by the
  continuation prefix (``##``) or the end-of-word suffix (``</w>``): ``the``, `` the``,
  ``The``, `` THE`` and ``##the`` share the key ``the``.
- *Scripts*: how many tokens each Unicode script has (a token's script is the one most of its
  letters are in; tokens without letters count as "Common", undecodable ones as "Bytes"), and,
  for the characters of a corpus, how many of each script have no token of their own (they
  need byte fallback, ``<unk>``, or several byte-level tokens). Scripts are sentencepiece's
  (Hiragana and Katakana count as Han).

>>> dup_key("Ġthe".replace("Ġ", " ")), dup_key("##THE", prefix="##"), dup_key("▁The")
('the', 'the', 'the')
"""

from __future__ import annotations

import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable

from ..models.sentencepiece_common import script

BYTES = "Bytes"
COMMON = "Common"


def bare(text: str, prefix: str = "", suffix: str = "") -> str:
    """A token's text without the continuation prefix, the end-of-word suffix and one leading
    space (``▁`` too): the characters it has a token for."""
    if prefix and text.startswith(prefix) and len(text) > len(prefix):
        text = text[len(prefix) :]
    if suffix and text.endswith(suffix) and len(text) > len(suffix):
        text = text[: -len(suffix)]
    text = text.replace("\u2581", " ")
    return text[1:] if text.startswith(" ") and len(text) > 1 else text


def dup_key(text: str, prefix: str = "", suffix: str = "") -> str:
    """What near-duplicates share: `bare` case-folded; "" when nothing is left."""
    return bare(text, prefix, suffix).casefold()


@dataclass(frozen=True)
class DuplicateGroup:
    key: str
    ids: tuple[int, ...]


def duplicate_groups(keys: Iterable[tuple[int, str]]) -> list[DuplicateGroup]:
    """Groups of two or more ids with the same key, largest first (then by key).

    >>> duplicate_groups([(1, "the"), (2, "the"), (3, "cat")])
    [DuplicateGroup(key='the', ids=(1, 2))]
    """
    by_key: dict[str, list[int]] = defaultdict(list)
    for id_, key in keys:
        if key:
            by_key[key].append(id_)
    groups = [DuplicateGroup(k, tuple(ids)) for k, ids in by_key.items() if len(ids) > 1]
    groups.sort(key=lambda g: (-len(g.ids), g.key))
    return groups


def token_script(text: str | None) -> str:
    """The script most of a token's letters are in (the first on a tie); "Common" when it has
    no letter; "Bytes" when it is not text.

    >>> token_script(" мир"), token_script("123"), token_script(None)
    ('Cyrillic', 'Common', 'Bytes')
    """
    if text is None:
        return BYTES
    counts = Counter(script(c) for c in text if unicodedata.category(c)[0] == "L")
    counts.pop(COMMON, None)
    return counts.most_common(1)[0][0] if counts else COMMON


@dataclass(frozen=True)
class ScriptRow:
    """One script: `tokens` in the vocabulary; `chars` distinct characters of it in the
    corpus, of which `without_token` have no token of their own (`examples`: a few)."""

    script: str
    tokens: int
    chars: int
    without_token: int
    examples: str


def script_rows(
    token_texts: Iterable[str | None], own_texts: set[str], corpus_chars: Iterable[str]
) -> list[ScriptRow]:
    """The table, by number of tokens (most first). `own_texts`: the texts (keys) the vocabulary
    has a token for; `corpus_chars`: the distinct characters of the corpus.

    >>> [r.without_token for r in script_rows(["a", "b"], {"a", "b"}, "abé")]
    [1]
    """
    tokens = Counter(token_script(t) for t in token_texts)
    chars: dict[str, list[str]] = defaultdict(list)
    for c in sorted(set(corpus_chars)):
        if unicodedata.category(c)[0] == "L":
            chars[script(c)].append(c)
    rows = []
    for name in set(tokens) | set(chars):
        missing = [c for c in chars.get(name, ()) if c not in own_texts]
        rows.append(
            ScriptRow(
                name,
                tokens.get(name, 0),
                len(chars.get(name, ())),
                len(missing),
                "".join(missing[:12]),
            )
        )
    rows.sort(key=lambda r: (-r.tokens, -r.chars, r.script))
    return rows

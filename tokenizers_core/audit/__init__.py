"""Vocabulary forensics: what a tokenizer's vocabulary says about itself, without model weights.

Each module answers one question from research on tokenizers alone (see each module's docstring):

- `health`: each entry's primary category (ok, unreachable, never, undecodable, special) and why
  (Land & Bartolo 2024, "Fishing for Magikarp");
- `usage`: how a corpus uses the vocabulary, and Picky BPE's intermediate tokens;
- `vocabulary`: near-duplicate groups (case and leading-space variants, for reading) and
  per-script coverage;
- `token_bytes` and `vocab_diff`: each entry as the bytes it stands for, and two vocabularies
  compared by them (shared, only in one, where the ids part, words split differently);
- `merge_list`, `mix` and `mix_lp`: a BPE merge list, and the training mix it implies (Hayase et
  al. 2024, "Data Mixture Inference"; the linear program needs scipy, an optional extra);
- `premium`: tokens relative to English on parallel text (Petrov et al. 2023);
- `efficiency`: Rényi entropy and efficiency of the token distribution (Zouhar et al. 2023);
- `numbers`: token counts of the integers 0-9999 and a few formats, and the digit grouping.

`audit(tok)` runs the first three (the health audit):

>>> import tokenizers_core as tc
>>> report = audit(tc.load("cl100k_base"), corpus=["Hello world"])
>>> report.category(9906), report.category(100257), report.category(94)
('ok', 'special', 'undecodable')
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .. import byte_api
from ..errors import InvalidInput
from .health import (
    CATEGORIES,
    LABELS,
    Classifier,
    Health,
    continuation_prefix,
    end_of_word_suffix,
    ordinary_encoder,
    vocabulary_ids,
)
from .token_bytes import token_entries
from .usage import Usage, bundled_corpus, corpus_usage
from .vocabulary import DuplicateGroup, ScriptRow, bare, dup_key, duplicate_groups, script_rows

__all__ = ["AuditReport", "CATEGORIES", "FLAGS", "Health", "LABELS", "audit"]

# Secondary flags an entry may carry besides its category:
# - intermediate: only ever inside longer tokens on the corpus (Picky BPE);
# - duplicate: another id stands for exactly the same bytes, with the same word marker (a
#   byte-fallback piece `<0x41>` beside `A`; two entries a broken file spells alike): the model
#   has two embeddings for one text, and the encoder ever produces at most one of them. Case
#   and leading-space variants (`the`, ` The`) are not duplicates: they are different text,
#   listed as near-duplicate groups for reading;
# - unseen: neither produced nor inside a produced token on the corpus.
FLAGS = ("intermediate", "duplicate", "unseen")

Progress = Callable[[int, int, str], None]


@dataclass
class AuditReport:
    """The audit of one tokenizer: `entries` in id order (one `Health` each), the corpus
    usage, near-duplicate groups (case and space variants), the groups of ids that stand for
    the same bytes (`same_bytes`: the "duplicate" flag), the script table and the time each
    phase took."""

    tokenizer: str
    entries: list[Health]
    usage: Usage
    duplicates: list[DuplicateGroup]
    scripts: list[ScriptRow]
    timings: dict[str, float] = field(default_factory=dict)
    same_bytes: list[DuplicateGroup] = field(default_factory=list)
    _by_id: dict[int, int] = field(default_factory=dict, repr=False)
    _group_of: dict[int, int] = field(default_factory=dict, repr=False)
    _same_of: dict[int, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {h.id: i for i, h in enumerate(self.entries)}
        self._group_of = {id_: g for g, group in enumerate(self.duplicates) for id_ in group.ids}
        self._same_of = {id_: g for g, group in enumerate(self.same_bytes) for id_ in group.ids}

    def entry(self, id_: int) -> Health:
        """The entry of an id; ValueError for an id the vocabulary lacks."""
        i = self._by_id.get(id_)
        if i is None:
            raise InvalidInput(f"id {id_!r} is not in the vocabulary of {self.tokenizer}")
        return self.entries[i]

    def category(self, id_: int) -> str:
        return self.entry(id_).category

    def counts(self) -> dict[str, int]:
        """{category: entries}, every category listed (in `CATEGORIES` order)."""
        found = Counter(h.category for h in self.entries)
        return {c: found.get(c, 0) for c in CATEGORIES}

    def flags(self, id_: int) -> list[str]:
        """The secondary flags of an id (in `FLAGS` order)."""
        out = []
        if self.usage.intermediate(id_):
            out.append("intermediate")
        if id_ in self._same_of:
            out.append("duplicate")
        if self.usage.seen[id_] == 0 and self.usage.inside[id_] == 0:
            out.append("unseen")
        return out

    def flag_counts(self) -> dict[str, int]:
        found = Counter(f for h in self.entries for f in self.flags(h.id))
        return {f: found.get(f, 0) for f in FLAGS}

    def duplicates_of(self, id_: int) -> tuple[int, ...]:
        """The other ids in an id's near-duplicate group (case and leading-space variants)."""
        g = self._group_of.get(id_)
        return () if g is None else tuple(i for i in self.duplicates[g].ids if i != id_)

    def same_bytes_as(self, id_: int) -> tuple[int, ...]:
        """The other ids that stand for exactly the same bytes as `id_` (its "duplicate"
        flag's reason; () when it has none)."""
        g = self._same_of.get(id_)
        return () if g is None else tuple(i for i in self.same_bytes[g].ids if i != id_)

    def select(self, category: str | None = None, query: str = "") -> list[Health]:
        """The entries of a category or flag (None: all) whose token or text holds `query`."""
        if category is not None and category not in CATEGORIES and category not in FLAGS:
            raise InvalidInput(
                f"unknown category {category!r}; choose one of: {', '.join(CATEGORIES + FLAGS)}"
            )
        out = []
        for h in self.entries:
            if category in CATEGORIES and h.category != category:
                continue
            if category in FLAGS and category not in self.flags(h.id):
                continue
            if query and query not in h.token and query not in (h.text or ""):
                continue
            out.append(h)
        return out

    def entry_dict(self, h: Health) -> dict[str, Any]:
        """One entry as JSON-safe data."""
        return {
            "id": h.id,
            "token": h.token,
            "text": h.text,
            "category": h.category,
            "reason": h.reason,
            "reencoded": list(h.reencoded),
            "flags": self.flags(h.id),
            "seen": self.usage.seen[h.id],
            "inside": self.usage.inside[h.id],
            "duplicates": list(self.duplicates_of(h.id)),
            "same_bytes": list(self.same_bytes_as(h.id)),
        }

    def summary(self) -> dict[str, Any]:
        """Counts, flag counts, the script table and the timings (no entries)."""
        return {
            "tokenizer": self.tokenizer,
            "vocab_size": len(self.entries),
            "counts": self.counts(),
            "flags": self.flag_counts(),
            "duplicate_groups": len(self.duplicates),
            "same_bytes_groups": len(self.same_bytes),
            "intermediate_counted": self.usage.has_trees,
            "scripts": [vars(r) for r in self.scripts],
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }


def audit(
    tok: Any, corpus: Iterable[str] | str | None = None, progress: Progress | None = None
) -> AuditReport:
    """Audit every vocabulary entry of `tok` (see the modules). `corpus`: texts (or one text)
    for the usage counts and the characters of the script table; None: the bundled corpora
    (botchan and the UDHR in 33 languages). `progress(done, total, phase)` is called now and
    then. Raises ValueError for a tokenizer without a fixed vocabulary (the rule tokenizers)."""
    if tok.model.get_vocab_size() == 0:
        raise InvalidInput(
            f"{tok.name or 'this tokenizer'} has no fixed vocabulary to audit "
            "(a rule tokenizer numbers its tokens as they appear)"
        )
    texts = (
        bundled_corpus()
        if corpus is None
        else [corpus]
        if isinstance(corpus, str)
        else list(corpus)
    )
    report = _Phases(progress)
    ids = vocabulary_ids(tok)
    classifier = Classifier(tok)
    entries = []
    for n, id_ in enumerate(ids):
        entries.append(classifier.classify(id_))  # classify -> record
        report.tick(n, len(ids), "classifying tokens")
    report.done("classify")
    use = corpus_usage(
        tok,
        texts,
        ordinary_encoder(tok),
        lambda done, total: report.tick(done, total, "encoding the corpus", 1),
    )
    report.done("corpus")
    duplicates, scripts = _vocabulary_views(tok, entries, texts)
    same = same_bytes_groups(tok)
    report.done("vocabulary")
    return AuditReport(tok.name or "", entries, use, duplicates, scripts, report.timings, same)


def same_bytes_groups(tok: Any) -> list[DuplicateGroup]:
    """Groups of two or more ordinary entries that stand for exactly the same bytes with the
    same word marker (`token_bytes`: `##ing` continues a word and `ing` does not, so they
    differ; special and added tokens are left out). The key is the marker and the bytes as
    text (bytes that are not UTF-8 as `\\xe2` escapes).

    >>> import tokenizers_core as tc
    >>> same_bytes_groups(tc.load("cl100k_base"))
    []
    >>> groups = same_bytes_groups(tc.load("mistral_v1"))  # its byte pieces beside characters
    >>> len(groups), [g.ids for g in groups if g.key == "A"]  # <0x41> and A
    (125, [(68, 28741)])
    """
    by_key: dict[tuple[str, bytes], list[int]] = {}
    for e in token_entries(tok):
        if not e.special and not e.added:
            by_key.setdefault(e.key, []).append(e.id)
    groups = [
        DuplicateGroup(marker + data.decode("utf-8", "backslashreplace"), tuple(ids))
        for (marker, data), ids in by_key.items()
        if len(ids) > 1
    ]
    return sorted(groups, key=lambda g: g.ids)


def _vocabulary_views(
    tok: Any, entries: list[Health], texts: list[str]
) -> tuple[list[DuplicateGroup], list[ScriptRow]]:
    """Near-duplicate groups and the script table, from each entry's text."""
    prefix, suffix = continuation_prefix(tok.model), end_of_word_suffix(tok.model)
    byte_level = byte_api.is_byte_level(tok)
    plain = [
        (h, h.text if byte_level or h.text is None else h.token)
        for h in entries
        if h.category != "special"
    ]
    groups = duplicate_groups((h.id, dup_key(t, prefix, suffix)) for h, t in plain if t)
    own = {bare(t, prefix, suffix) for _, t in plain if t}
    chars = {c for text in texts for c in text}
    scripts = script_rows((t for _, t in plain), own, chars)
    return groups, scripts


class _Phases:
    """The audit's bookkeeping: progress calls at most every 2,000 steps, phase timings."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress
        self.timings: dict[str, float] = {}
        self._start = time.perf_counter()

    def tick(self, done: int, total: int, phase: str, every: int = 2000) -> None:
        if self.progress is not None and done % every == 0:
            self.progress(done, total, phase)

    def done(self, phase: str) -> None:
        now = time.perf_counter()
        self.timings[phase] = now - self._start
        self._start = now

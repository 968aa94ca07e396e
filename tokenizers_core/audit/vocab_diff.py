"""How two vocabularies differ: the tokens they share and the tokens only one has, compared by
the bytes each token stands for (`token_bytes`), not by id; how far their ids agree; and, on a
corpus, the words the two tokenisers split differently.

Two tokenisers are often relatives. Llama 3 keeps cl100k_base's ranks and adds 28k tokens after
them; GPT-4o's o200k_base shares most of cl100k's tokens but numbers them anew. The report says
which, in three figures over the shared tokens:

- `same_id`: how many have the same id in both;
- `in_order`: the longest chain of shared tokens that both number in the same order (the
  longest increasing subsequence of B's ids taken in A's id order), out of all shared ones;
- `prefix`: ids 0 .. prefix-1 hold the same token in both ("the ranks agree up to prefix"),
  and the two entries at id `prefix`, where they part.

>>> import tokenizers_core as tc
>>> d = vocab_diff(tc.load("r50k_base"), tc.load("p50k_base"))
>>> len(d.shared), len(d.only_a), len(d.only_b), d.ranks.prefix
(50257, 0, 24, 50257)

Two entries of one vocabulary may stand for the same bytes (sentencepiece's byte piece `<0x41>`
beside `A`): the first by id speaks for both, and `duplicates_a`/`duplicates_b` count the others.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterator, NamedTuple

from .token_bytes import TokenEntry, entry_reader, token_entries

_WORD = re.compile(r"\S+")


class SharedToken(NamedTuple):
    """A token both vocabularies have: its entry in each."""

    a: TokenEntry
    b: TokenEntry


@dataclass(frozen=True)
class RankAgreement:
    """How far the ids of the shared tokens agree (see the module's docstring)."""

    shared: int
    same_id: int
    in_order: int
    prefix: int
    part_a: TokenEntry | None  # A's entry at id `prefix` (None: A has none there)
    part_b: TokenEntry | None
    part_a_in_b: int | None  # the id A's entry has in B (None: B lacks it)
    part_b_in_a: int | None

    @property
    def parted(self) -> bool:
        """Whether the two part at all (False when one vocabulary's ids are all a prefix of
        the other's)."""
        return self.part_a is not None and self.part_b is not None


@dataclass(frozen=True)
class WordSplit:
    """A word the two tokenisers split differently, how often it occurs so, and both splits."""

    word: str
    count: int
    a: tuple[TokenEntry, ...]
    b: tuple[TokenEntry, ...]


@dataclass(frozen=True)
class CorpusSplits:
    """The words of a text, split by both tokenisers: how many the two split the same way and
    the others, most frequent first. A word is a run of non-space characters; words joined by
    a token that spans them (a tokeniser that merges across spaces) count as one."""

    chars: int
    words: int
    same: int
    tokens_a: int
    tokens_b: int
    differing: list[WordSplit]


@dataclass(frozen=True)
class VocabDiff:
    size_a: int
    size_b: int
    shared: list[SharedToken]  # in A's id order
    only_a: list[TokenEntry]  # in id order
    only_b: list[TokenEntry]
    duplicates_a: int
    duplicates_b: int
    ranks: RankAgreement
    corpus: CorpusSplits | None = field(default=None)

    def to_dict(self, limit: int = 100, offset: int = 0) -> dict[str, Any]:
        """JSON-safe: the counts, the rank agreement, `limit` entries of each list and of the
        differing words from the `offset`-th on. Bytes are hex."""
        ranks = self.ranks
        cut = slice(offset, offset + limit)
        out: dict[str, Any] = {
            "size_a": self.size_a,
            "size_b": self.size_b,
            "shared": len(self.shared),
            "only_a": len(self.only_a),
            "only_b": len(self.only_b),
            "duplicates_a": self.duplicates_a,
            "duplicates_b": self.duplicates_b,
            "ranks": {
                "same_id": ranks.same_id,
                "in_order": ranks.in_order,
                "prefix": ranks.prefix,
                "part_a": _entry_dict(ranks.part_a),
                "part_b": _entry_dict(ranks.part_b),
                "part_a_in_b": ranks.part_a_in_b,
                "part_b_in_a": ranks.part_b_in_a,
            },
            "shared_tokens": [
                {"a": _entry_dict(s.a), "b": _entry_dict(s.b)} for s in self.shared[cut]
            ],
            "only_a_tokens": [_entry_dict(e) for e in self.only_a[cut]],
            "only_b_tokens": [_entry_dict(e) for e in self.only_b[cut]],
            "corpus": None,
        }
        if self.corpus is not None:
            c = self.corpus
            out["corpus"] = {
                "chars": c.chars,
                "words": c.words,
                "same": c.same,
                "tokens_a": c.tokens_a,
                "tokens_b": c.tokens_b,
                "differing": len(c.differing),
                "words_differing": [
                    {
                        "word": w.word,
                        "count": w.count,
                        "a": [_entry_dict(e) for e in w.a],
                        "b": [_entry_dict(e) for e in w.b],
                    }
                    for w in c.differing[cut]
                ],
            }
        return out


def _entry_dict(e: TokenEntry | None) -> dict[str, Any] | None:
    if e is None:
        return None
    return {
        "id": e.id,
        "token": e.token,
        "bytes": e.data.hex(),
        "marker": e.marker,
        "special": e.special,
        "added": e.added,
    }


def vocab_diff(a: Any, b: Any, corpus: str | None = None) -> VocabDiff:
    """Compare the vocabularies of tokenisers `a` and `b` by bytes; with `corpus` (a text),
    also the words they split differently there. ValueError for a tokeniser without a
    vocabulary."""
    entries_a, entries_b = token_entries(a), token_entries(b)
    first_a, dup_a = _first_by_key(entries_a)
    first_b, dup_b = _first_by_key(entries_b)
    shared = [SharedToken(e, first_b[key]) for key, e in first_a.items() if key in first_b]
    only_a = [e for key, e in first_a.items() if key not in first_b]
    only_b = [e for key, e in first_b.items() if key not in first_a]
    ranks = _rank_agreement(entries_a, entries_b, shared, first_a, first_b)
    splits = corpus_splits(a, b, corpus) if corpus is not None else None
    return VocabDiff(
        len(entries_a), len(entries_b), shared, only_a, only_b, dup_a, dup_b, ranks, splits
    )


def _first_by_key(entries: list[TokenEntry]) -> tuple[dict[tuple, TokenEntry], int]:
    """Each key's first entry by id (a dict in id order), and how many entries repeat a key."""
    first: dict[tuple, TokenEntry] = {}
    for e in entries:
        first.setdefault((e.marker, e.data), e)
    return first, len(entries) - len(first)


def _rank_agreement(
    entries_a: list[TokenEntry],
    entries_b: list[TokenEntry],
    shared: list[SharedToken],
    first_a: dict,
    first_b: dict,
) -> RankAgreement:
    """The agreement of the two numberings: see the module's docstring."""
    by_id_a = {e.id: e for e in entries_a}
    by_id_b = {e.id: e for e in entries_b}
    prefix = 0
    while prefix in by_id_a and prefix in by_id_b and by_id_a[prefix].key == by_id_b[prefix].key:
        prefix += 1
    part_a, part_b = by_id_a.get(prefix), by_id_b.get(prefix)
    in_b = first_b.get(part_a.key) if part_a is not None else None
    in_a = first_a.get(part_b.key) if part_b is not None else None
    return RankAgreement(
        shared=len(shared),
        same_id=sum(1 for s in shared if s.a.id == s.b.id),
        in_order=longest_increasing([s.b.id for s in shared]),
        prefix=prefix,
        part_a=part_a,
        part_b=part_b,
        part_a_in_b=in_b.id if in_b is not None else None,
        part_b_in_a=in_a.id if in_a is not None else None,
    )


def longest_increasing(values: list[int]) -> int:
    """The length of the longest strictly increasing subsequence (patience sorting).

    >>> longest_increasing([0, 1, 5, 2, 3, 9, 4]), longest_increasing([])
    (5, 0)
    """
    tails: list[int] = []  # tails[k]: the smallest last value of a run of k + 1
    for v in values:
        k = bisect.bisect_left(tails, v)
        if k == len(tails):
            tails.append(v)
        else:
            tails[k] = v
    return len(tails)


# ---- the words of a corpus ----------------------------------------------------------------------


def corpus_splits(a: Any, b: Any, text: str) -> CorpusSplits:
    """Split `text` with both tokenisers (special-token strings as ordinary text, no BOS or
    EOS) and compare them word by word. A word's tokens are those whose last non-space
    character falls in it; two splits are the same when they cut the word at the same
    characters (each token's characters without the whitespace it carries, from its
    offsets), so BERT's `the` and cl100k's `Ġthe` split ` the` the same way, and two byte
    tokens of one character differ from one token of it.

    >>> import tokenizers_core as tc
    >>> c = corpus_splits(tc.load("cl100k_base"), tc.load("o200k_base"), "The Clown, the clown")
    >>> w = c.differing[0]
    >>> c.words, c.same, w.word, [e.token for e in w.a], [e.token for e in w.b]
    (4, 3, 'Clown,', ['ĠClown', ','], ['ĠCl', 'own', ','])
    """
    entry_a, entry_b = entry_reader(a)[0], entry_reader(b)[0]
    enc_a, enc_b = encode_ordinary(a, text), encode_ordinary(b, text)
    spans = [m.span() for m in _WORD.finditer(text)]
    starts = [s for s, _ in spans]
    cuts_a = _token_cuts(text, enc_a.offsets, starts)
    cuts_b = _token_cuts(text, enc_b.offsets, starts)
    unit_of = _units(len(spans), cuts_a + cuts_b)
    tokens_a = _tokens_by_unit(enc_a.ids, cuts_a, unit_of)
    tokens_b = _tokens_by_unit(enc_b.ids, cuts_b, unit_of)
    counts: Counter = Counter()
    units = same = 0
    for unit, (lo, hi) in enumerate(_unit_spans(unit_of)):
        units += 1
        split_a, split_b = tokens_a.get(unit, []), tokens_b.get(unit, [])
        if [span for _, span in split_a] == [span for _, span in split_b]:
            same += 1
            continue
        ids_a = tuple(i for i, _ in split_a)
        ids_b = tuple(i for i, _ in split_b)
        counts[(text[spans[lo][0] : spans[hi][1]], ids_a, ids_b)] += 1
    differing = [
        WordSplit(word, n, tuple(entry_a(i) for i in ia), tuple(entry_b(i) for i in ib))
        for (word, ia, ib), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    return CorpusSplits(len(text), units, same, len(enc_a.ids), len(enc_b.ids), differing)


def encode_ordinary(tok: Any, text: str) -> Any:
    """`tok.encode(text)` with special-token strings as ordinary text and no BOS/EOS added."""
    if hasattr(tok, "check_disallowed"):  # tiktoken-style encodings
        return tok.encode(text, add_special_tokens=False, disallowed_special=())
    return tok.encode(text, add_special_tokens=False, encode_special_tokens=True)


Cut = tuple[int, int, int, int]  # a token's first and last word, and its characters


def _token_cuts(text: str, offsets: list[tuple[int, int]], starts: list[int]) -> list[Cut | None]:
    """For each token: the words of its first and last non-space characters (indices into
    `starts`) and the characters from the one to the other (end exclusive); None for a token
    of whitespace alone (or none at all)."""
    out: list[Cut | None] = []
    for s, e in offsets:
        last = e - 1
        while last >= s and text[last].isspace():
            last -= 1
        if last < s:
            out.append(None)
            continue
        first = s
        while text[first].isspace():
            first += 1
        out.append(
            (
                bisect.bisect_right(starts, first) - 1,
                bisect.bisect_right(starts, last) - 1,
                first,
                last + 1,
            )
        )
    return out


def _units(n_words: int, cuts: list[Cut | None]) -> list[int]:
    """Each word's unit: words joined by a token that spans them share one (numbered 0..)."""
    joined = [False] * max(n_words, 1)  # joined[k]: word k and word k + 1 are one unit
    for cut in cuts:
        if cut is not None:
            for k in range(cut[0], cut[1]):
                joined[k] = True
    unit_of, unit = [], 0
    for k in range(n_words):
        unit_of.append(unit)
        if not joined[k]:
            unit += 1
    return unit_of


def _unit_spans(unit_of: list[int]) -> Iterator[tuple[int, int]]:
    """Each unit's first and last word, in order."""
    lo = 0
    for k in range(len(unit_of)):
        if k + 1 == len(unit_of) or unit_of[k + 1] != unit_of[k]:
            yield lo, k
            lo = k + 1


def _tokens_by_unit(
    ids: list[int], cuts: list[Cut | None], unit_of: list[int]
) -> dict[int, list[tuple[int, tuple[int, int]]]]:
    """Each unit's tokens: (id, characters) in order."""
    out: dict[int, list[tuple[int, tuple[int, int]]]] = {}
    for id_, cut in zip(ids, cuts):
        if cut is not None and cut[1] >= 0:
            out.setdefault(unit_of[cut[1]], []).append((id_, (max(cut[2], 0), cut[3])))
    return out

"""The Unigram language model: Viterbi segmentation, n-best, sampling (as sentencepiece does).

Every piece has a log-probability (its *score*). A segmentation of a text scores the sum of its
pieces' scores, and the tokeniser picks the best one with dynamic programming over a *lattice*:
position i of the lattice sits between character i-1 and character i of the normalised text, and
a node is a piece that starts at j and ends at i.

    best[0] = 0
    for i in 1 .. N:                          # advance the end position
        for every piece text[j:i] in the vocabulary:
            candidate = best[j] + score(piece)
        best[i] = the largest candidate; back[i] = its start j
    walk back[] from N to 0 to read the pieces

Example: with `▁cat` scored high and `s` present, "▁cats" comes out as `▁cat` + `s`:

>>> m = Unigram([("<unk>", 0.0), ("▁", -3.0), ("c", -4.0), ("a", -4.0), ("t", -4.0),
...              ("s", -3.0), ("▁c", -5.0), ("at", -4.5), ("▁cat", -2.0), ("ts", -6.0)],
...             types=[2] + [1] * 9)
>>> [t for t, *_ in m.tokenize("▁cats")]
['▁cat', 's']

This module follows sentencepiece's (0.2.3) `unigram_model.cc` to the bit: scores are 32-bit
floats and sums are rounded as the C++ code rounds them (`float + float`, and on a long text the
same shift of the running scores, see `viterbi.py`), ties go to the earliest start, a
user-defined piece scores 0.1 per character past its first (`user_defined_score`), a character
no piece covers becomes an `<unk>` node scoring `min_score - 10` (kUnkPenalty), consecutive unknown
characters merge into one token, and a model with byte pieces (`<0xE3>`) spells an unknown
character as its UTF-8 bytes instead. n-best uses sentencepiece's A* search (with the same heap
discipline as libstdc++'s priority_queue, so even equal-score alternatives come out in the same
order); sampling is subword regularisation (forward-filtering backward-sampling over the lattice,
or sampling among the n best).

The lattice and its searches (Viterbi, forward-backward, A* n-best, sampling) are in
`lattice.py`; this module is the model around them.

What it does not do: sentencepiece's random number stream (sampling here is reproducible with a
`seed`, but the draws differ from sentencepiece's).
"""

from __future__ import annotations

import functools
import math
import random
import sys
from array import array
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Iterator, Sequence

from ...errors import InvalidInput
from ...steps import Step, register_step
from ..bpe.model import gc_paused
from ..columns import TokenColumns, joined
from ..sentencepiece_common import finish_tokens
from .lattice import FLT_MAX, FLT_MIN, Lattice, f32, logsumexp, nbest_paths, sample_path
from .viterbi import (
    WHITESPACE,
    backtrack,
    by_segment,
    crosses_no_mark,
    least_margin,
    segment_paths,
    segment_starts,
    viterbi,
)

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
UNK_PENALTY = 10.0  # sentencepiece's kUnkPenalty
SEGMENT_CACHE_SIZE = 100_000  # ▁-segments whose best path a model keeps (`by_segment`)


def user_defined_score(length: int) -> float:
    """The score of a user-defined piece `length` long (sentencepiece 0.2.3's
    `GetUserDefinedScore`, a 32-bit float): 0.1 per unit beyond the first, so a longer match
    beats its parts and every user-defined piece beats the normal pieces (scores <= 0).

    >>> user_defined_score(1), user_defined_score(4)
    (0.0, 0.30000001192092896)
    """
    return f32(0.1 * (length - 1))


_MATCHED_TYPES = frozenset((NORMAL, USER_DEFINED, UNUSED))


def rounded_to_f32(values: list[float]) -> list[float]:
    """Each value rounded to the nearest 32-bit float (`f32` of each, in one C call); too large
    becomes infinite.

    >>> rounded_to_f32([0.1, -1.5, 1e39])
    [0.10000000149011612, -1.5, inf]
    """
    return array("f", values).tolist()


def first_ids(strings: list[str], ids: list[int]) -> dict[str, int]:
    """{strings[i]: i} over `ids` (ascending), the first id of a repeated string winning.

    >>> first_ids(["a", "b", "a"], [0, 1, 2])
    {'a': 0, 'b': 1}
    """
    return {strings[i]: i for i in reversed(ids)} if ids else {}


def build_trie(items: Iterable[tuple[str, int | None]]) -> dict[str, Any]:
    """The character trie of the pieces: nested dicts char -> child, where a piece ends key ""
    holding its id (the first id wins; None: the path only, no id).

    >>> build_trie([("ab", 1), ("a", 2), ("ab", 3), ("b", None)])
    {'a': {'b': {'': 1}, '': 2}, 'b': {}}
    """
    trie: dict[str, Any] = {}
    for piece, entry in items:
        node = trie
        for ch in piece:
            node = node.setdefault(ch, {})
        if entry is not None:
            node.setdefault("", entry)
    return trie


# ---- steps -------------------------------------------------------------------------------------


@register_step
@dataclass(frozen=True)
class ViterbiStep(Step):
    """The lattice filled up to end position `position`.

    `candidates` are every piece ending here as (start j, piece, id, log-prob, best[j] + log-prob),
    in the order the C++ code considers them (start ascending); `winner` indexes the candidate
    kept (the first of equal totals), `best` is best[position] and `unknown` says the winner is an
    `<unk>` node (no piece covers that character).
    """

    kind: ClassVar[str] = "viterbi"
    position: int
    candidates: tuple[tuple[int, str, int, float, float], ...]
    winner: int
    best: float
    back: int
    unknown: bool


@register_step
@dataclass(frozen=True)
class ViterbiBacktrackStep(Step):
    """Following the back-pointer from `end`: the piece `text[start:end]` is on the best path.

    `path` is the pieces found so far, read right to left (the last one first).
    """

    kind: ClassVar[str] = "viterbi_backtrack"
    end: int
    start: int
    piece: str
    id: int
    score: float
    path: tuple[str, ...]


# ---- the model ---------------------------------------------------------------------------------


class Unigram:
    """A Unigram model: pieces with log-probability scores.

    `pieces` is [(piece, score), ...] in id order; `types` the sentencepiece piece types
    (1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte; default: normal, with
    `<unk>` unknown). Exactly one piece must be unknown.
    """

    float32 = True  # scores add and compare as 32-bit floats, as in sentencepiece

    def __init__(
        self,
        pieces: Sequence[tuple[str, float]],
        *,
        types: Sequence[int] | None = None,
        byte_fallback: bool = False,
    ) -> None:
        pieces = [(str(p), float(s)) for p, s in pieces]
        if not pieces:
            raise InvalidInput("a Unigram model needs at least one piece")
        if types is None:
            types = [UNKNOWN if p == "<unk>" else NORMAL for p, _s in pieces]
        types = list(types)
        if len(types) != len(pieces):
            raise InvalidInput("give one type per piece")
        unk = [i for i, t in enumerate(types) if t == UNKNOWN]
        if len(unk) != 1:
            raise InvalidInput(f"a Unigram model needs exactly one <unk> piece, found {len(unk)}")
        strings = [p for p, _s in pieces]
        self._pieces = list(zip(strings, rounded_to_f32([s for _p, s in pieces])))
        self.types = types
        self.unk_id: int | None = unk[0]  # (always set here; `HFUnigram` may have none)
        self.byte_fallback = byte_fallback
        normal_scores = [s for (_p, s), t in zip(self._pieces, types) if t == NORMAL]
        self.min_score = min(normal_scores) if normal_scores else FLT_MAX
        self.max_score = max(normal_scores + [FLT_MIN]) if normal_scores else FLT_MIN
        self.unk_score = f32(self.min_score - UNK_PENALTY)
        self.special_tokens = frozenset(
            p for (p, _s), t in zip(self._pieces, types) if t == CONTROL
        )
        # normal, user-defined and unused pieces are matched in the text (the first of a
        # repeated spelling wins); the others are reserved: found only by their spelling
        matched = [i for i, t in enumerate(types) if t in _MATCHED_TYPES]
        self._reserved = first_ids(
            strings, [i for i, t in enumerate(types) if t not in _MATCHED_TYPES]
        )
        self.vocab = first_ids(strings, matched)
        for piece, i in self._reserved.items():
            self.vocab.setdefault(piece, i)
        self.max_piece_length = max(map(len, strings), default=1)

    # ---- what the searches walk, built on first use ------------------------------------------
    # The trie is most of a large model's load time (AI21's 262,144 pieces make ~918,000 nodes,
    # ~0.55 s), so it is built by the first search that needs it, not by the constructor.
    @functools.cached_property
    def trie(self) -> dict[str, Any]:
        """The character trie of the pieces matched in the text (`build_trie`): normal and
        user-defined pieces end in their id; an unused piece keeps its path but has no id
        (sentencepiece keeps it in its trie and skips it)."""
        with gc_paused:  # (~a million small dicts, none cyclic)
            return build_trie(self._trie_items())

    def _trie_items(self) -> Iterator[tuple[str, int | None]]:
        """(piece, id or None) for `build_trie`, in id order (the first of a repeated piece
        wins)."""
        for i, ((piece, _score), t) in enumerate(zip(self._pieces, self.types)):
            if t in _MATCHED_TYPES:
                yield piece, (None if t == UNUSED else i)

    @functools.cached_property
    def match_scores(self) -> list[float]:
        """The score of each id as the fast Viterbi search adds it: the piece's own, but a
        user-defined piece's `user_defined_score` of its length in UTF-8 bytes (what
        sentencepiece's optimised encoder counts; its lattice counts characters, `pieces_at`)."""
        return [
            user_defined_score(len(p.encode("utf-8"))) if t == USER_DEFINED else s
            for (p, s), t in zip(self._pieces, self.types)
        ]

    # ---- the Model protocol ------------------------------------------------------------------
    @property
    def pieces(self) -> list[tuple[str, float]]:
        """[(piece, score), ...] in id order."""
        return list(self._pieces)

    def describe(self) -> str:
        return f"Unigram ({len(self._pieces)} pieces)"

    def to_hf_config(self) -> dict:
        """The model section of a tokenizer.json: [piece, score] in id order. What sentencepiece
        does beyond it (control pieces never matched in text, user-defined pieces) the
        tokenizer.json writer expresses with added tokens (`formats/hf_json_writer.py`).

        >>> Unigram([("<unk>", 0.0), ("a", -1.5)]).to_hf_config()  # doctest: +NORMALIZE_WHITESPACE
        {'type': 'Unigram', 'unk_id': 0, 'vocab': [['<unk>', 0.0], ['a', -1.5]],
         'byte_fallback': False}
        """
        return {
            "type": "Unigram",
            "unk_id": self.unk_id,
            "vocab": [[piece, score] for piece, score in self._pieces],
            "byte_fallback": self.byte_fallback,
        }

    def get_vocab_size(self) -> int:
        return len(self._pieces)

    def id_to_token(self, id: int) -> str | None:
        return self._pieces[id][0] if isinstance(id, int) and 0 <= id < len(self._pieces) else None

    def token_to_id(self, token: str) -> int | None:
        if token in self._reserved:
            return self._reserved[token]
        return self.vocab.get(token)

    def score(self, id: int) -> float:
        return self._pieces[id][1]

    def _piece_id(self, piece: str) -> int:
        """sentencepiece's PieceToId: reserved pieces first, then the vocabulary, else <unk>."""
        if piece in self._reserved:
            return self._reserved[piece]
        pid = self.vocab.get(piece, self.unk_id)
        if pid is None:  # (only a Hugging Face model may have no unknown piece)
            raise InvalidInput(f"{piece!r} is not a piece and this Unigram model has no unk_id")
        return pid

    def tokenize(self, text: str) -> list[tuple[str, int, int, int]]:
        """The best segmentation of a normalised text as (token, id, start, end)."""
        return self.tokenize_columns(text).tokens()

    def tokenize_columns(self, text: str) -> TokenColumns:
        """`tokenize`'s tokens as columns (what the pipeline reads: a line's tokens joined
        from its segments' without one tuple a token).

        Searched ▁-segment by ▁-segment as `encode_spans` is, each segment's finished tokens
        kept, when a segment's first node cannot be unknown (▁ is a piece: the unknown runs
        that `finish_tokens` joins never cross a segment's start)."""
        tolerance = self._tolerance(text)
        if self._whole_tokens_by_segment and tolerance is not None:
            found = segment_paths(
                self._finished_columns,
                self._least_margin,
                text,
                self._token_cache,
                SEGMENT_CACHE_SIZE,
                tolerance,
            )
            if found is not None:
                segments, parts = found
                return joined(segment_starts(segments), parts)
        return TokenColumns.of(self._finished(text, self.encode_spans(text)), len(text))

    def _finished_columns(self, text: str) -> tuple[Any, ...]:
        """A segment's finished tokens as `TokenColumns`' fields in a plain tuple, as the cache
        keeps them: the collector stops tracking a plain tuple of plain values (not a named
        tuple), so a cache of 100,000 segments adds nothing to its full passes."""
        return tuple(TokenColumns.of(self._finished(text), len(text)))

    def _finished(
        self, text: str, spans: list[tuple[int, int, int]] | None = None
    ) -> list[tuple[str, int, int, int]]:
        """`finish_tokens` of `spans`, by default the whole text's Viterbi path."""
        spans = self._viterbi(text) if spans is None else spans
        return finish_tokens(text, spans, self.unk_id, self.byte_fallback, self._piece_id)

    @functools.cached_property
    def _whole_tokens_by_segment(self) -> bool:
        """True when ▁ alone is a piece the search matches (see `tokenize`)."""
        return self.trie.get(WHITESPACE, {}).get("") is not None

    @functools.cached_property
    def _token_cache(self) -> dict[str, tuple[float, tuple[Any, ...]]]:
        """(least margin, finished tokens) of each ▁-segment seen (`tokenize`)."""
        return {}

    # ---- Viterbi, fast path ------------------------------------------------------------------
    def encode_spans(self, text: str) -> list[tuple[int, int, int]]:
        """The Viterbi path as (start, end, id), without step objects: `viterbi` (the same
        recurrence as `viterbi_steps`), in 32-bit floats when `float32` (sentencepiece's). Past a
        path score of 100,000 it shifts the scores as sentencepiece's encoder does, which the
        lattice and `viterbi_steps` (sentencepiece's original encoder) do not. When no piece
        holds ▁ past its start, a text is searched ▁-segment by ▁-segment, each segment's path
        kept (`by_segment`: the same path; the property tests prove it on random texts)."""
        spans = self._by_segment(text)
        return spans if spans is not None else self._viterbi(text)

    def _by_segment(self, text: str) -> list[tuple[int, int, int]] | None:
        """`by_segment` with this model's margins and rounding bound; None when `text` is to be
        searched whole (too long, a piece crosses a ▁, or a near tie)."""
        tolerance = self._tolerance(text)
        if tolerance is None:
            return None
        return by_segment(
            self._viterbi,
            self._least_margin,
            text,
            self._segment_cache,
            SEGMENT_CACHE_SIZE,
            tolerance,
        )

    def _tolerance(self, text: str) -> float | None:
        """How near two segment paths' scores may come before rounding could decide between
        them in `text` (`by_segment`); None when `text` is too long to be searched by segment."""
        if len(text) > self._cacheable_length:
            return None
        return self._rounding_per_char * len(text)

    def _least_margin(self, segment: str) -> float:
        return least_margin(self.trie, self.match_scores, segment, self.unk_score)

    def _viterbi(self, text: str) -> list[tuple[int, int, int]]:
        """`viterbi` over the whole of `text` with this model's trie and scores."""
        return viterbi(
            self.trie,
            self.match_scores,
            text,
            unk_id=self.unk_id,
            unk_score=self.unk_score,
            float32=self.float32,
            max_piece_length=self.max_piece_length,
        )

    @functools.cached_property
    def _segment_cache(self) -> dict[str, tuple[float, tuple[tuple[int, int, int], ...]]]:
        """(least margin, best path) of each ▁-segment seen (`by_segment`), at most
        SEGMENT_CACHE_SIZE of them."""
        return {}

    @functools.cached_property
    def _cacheable_length(self) -> int:
        """The longest text `encode_spans` searches segment by segment: none when a piece the
        search matches holds ▁ past its start (`crosses_no_mark`); with 32-bit scores, a text
        short enough that no path's score can reach sentencepiece's shift at +-100,000 (each
        character adds at most the largest score in magnitude), so the whole line's search
        never shifts either."""
        ids = [pid for _piece, pid in self._trie_items() if pid is not None]
        if not crosses_no_mark(self._pieces[pid][0] for pid in ids):
            return -1
        if not self.float32:
            return sys.maxsize
        return int(90_000 / self._largest_score) if self._largest_score > 0 else sys.maxsize

    @functools.cached_property
    def _largest_score(self) -> float:
        """The largest score in magnitude a piece (or an unknown node) adds."""
        ids = [pid for _piece, pid in self._trie_items() if pid is not None]
        return max(abs(s) for s in [self.match_scores[pid] for pid in ids] + [self.unk_score])

    @functools.cached_property
    def _rounding_per_char(self) -> float:
        """How far apart rounding can move two candidate sums of a segment, per character of
        the segment and per character of the text (`by_segment`): a running total is at most
        `_largest_score` per character, a sum rounds by half a unit in the last place (2**-24
        of it in 32 bits, 2**-53 in 64), once per piece, on both candidates' paths, in the
        cached search and in the whole text's: 4 roundings of 2**-24 * total per character."""
        return self._largest_score * (2.0**-22 if self.float32 else 2.0**-51)

    # ---- the lattice, step by step ------------------------------------------------------------
    def pieces_at(self, text: str, i: int) -> list[tuple[int, int, float]]:
        """The pieces starting at i as (end, id, score), shortest first, plus an `<unk>` node of
        length 1 when no piece covers text[i] (sentencepiece's PopulateNodes)."""
        out = []
        node = self.trie
        j = i
        n = len(text)
        has_single = False
        while j < n:
            child = node.get(text[j])
            if child is None:
                break
            node = child
            j += 1
            pid = node.get("")
            if pid is not None:
                score = self._pieces[pid][1]
                if self.types[pid] == USER_DEFINED:  # the lattice counts characters
                    score = user_defined_score(j - i)
                out.append((j, pid, score))
                if j == i + 1:
                    has_single = True
        if not has_single:
            out.append((i + 1, self.unk_id, self.unk_score))
        return out

    def lattice(self, text: str) -> Lattice:
        """The full lattice of a normalised text (sentencepiece's SetSentence + PopulateNodes)."""
        lat = Lattice(text)
        for i in range(len(text)):
            for end, pid, score in self.pieces_at(text, i):
                lat.insert(i, end - i, pid, f32(score))
        return lat

    def viterbi_steps(self, text: str) -> Iterator[Step]:
        """The Viterbi search as steps: one `viterbi` step per end position 1..N, then one
        `viterbi_backtrack` step per piece of the best path (right to left).

        >>> m = Unigram([("<unk>", 0.0), ("a", -1.0), ("b", -1.0), ("ab", -1.5)],
        ...             types=[2, 1, 1, 1])
        >>> [(s.kind, getattr(s, "best", None)) for s in m.viterbi_steps("ab")][:2]
        [('viterbi', -1.0), ('viterbi', -1.5)]
        """
        n = len(text)
        ending: list[list[tuple[int, str, int, float]]] = [[] for _ in range(n + 1)]
        for j in range(n):
            for end, pid, score in self.pieces_at(text, j):
                ending[end].append((j, text[j:end], pid, score))
        best = [0.0] * (n + 1)
        back = [-1] * (n + 1)
        ids = [0] * (n + 1)
        for i in range(1, n + 1):
            candidates = []
            winner = -1
            for j, piece, pid, score in ending[i]:
                total = self._candidate_total(best[j], score, pid)
                candidates.append((j, piece, pid, score, total))
                if winner < 0 or total > best[i]:
                    winner = len(candidates) - 1
                    best[i] = total  # (already rounded as the model rounds)
            back[i] = candidates[winner][0]
            ids[i] = candidates[winner][2]
            yield ViterbiStep(
                position=i,
                candidates=tuple(candidates),
                winner=winner,
                best=best[i],
                back=back[i],
                unknown=candidates[winner][2] == self.unk_id,
            )
        path: list[str] = []
        for start, end in backtrack(back):
            piece = text[start:end]
            path.append(piece)
            yield ViterbiBacktrackStep(
                end=end,
                start=start,
                piece=piece,
                id=ids[end],
                score=float(best[end] - best[start]),
                path=tuple(path),
            )

    def _candidate_total(self, best_j: float, score: float, pid: int) -> float:
        """best[j] + score, in 32-bit float arithmetic when `float32` (as sentencepiece 0.2.3
        computes it; Hugging Face adds 64-bit floats)."""
        return f32(best_j + score) if self.float32 else best_j + score

    # ---- n-best --------------------------------------------------------------------------------
    def nbest(self, text: str, k: int) -> list[tuple[list[str], float]]:
        """The k best segmentations of a normalised text, best first, as (tokens, score).

        sentencepiece's `NBestEncode`: an A* search from the end of the lattice whose heuristic is
        the exact Viterbi score, so paths come out in order of score. k is clipped to 1..1024.
        Unlike sentencepiece (which reports 0.0 when k is 1), the score is always the path's.
        """
        return [(tokens, score) for tokens, _spans, score in self.nbest_detailed(text, k)]

    def nbest_detailed(
        self, text: str, k: int
    ) -> list[tuple[list[str], list[tuple[int, int, int]], float]]:
        """Like `nbest`, with each path's (start, end, id) spans."""
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise InvalidInput("the number of segmentations k must be a positive integer")
        k = min(k, 1024)
        if not text:
            return [([], [], 0.0)]
        lat = self.lattice(text)
        results = []
        for nodes, score in nbest_paths(lat, k):
            spans = [(nd.pos, nd.pos + nd.length, nd.id) for nd in nodes]
            toks = finish_tokens(text, spans, self.unk_id, self.byte_fallback, self._piece_id)
            results.append(([t for t, *_ in toks], spans, score))
        return results

    # ---- sampling --------------------------------------------------------------------------------
    def sample(
        self, text: str, *, alpha: float = 0.1, nbest_size: int = -1, seed: int | None = None
    ) -> list[tuple[str, int, int, int]]:
        """One segmentation drawn at random (subword regularisation), as sentencepiece's
        `SampleEncode`:

        - nbest_size < 0: from all segmentations, P(path) proportional to P(path)**alpha
          (forward-filtering, backward-sampling over the lattice);
        - nbest_size 0 or 1: the best path (no sampling);
        - nbest_size > 1: among the nbest_size best, P proportional to exp(alpha * score).

        `seed` makes the draw reproducible.
        """
        if not isinstance(nbest_size, int) or nbest_size > 512:
            raise InvalidInput("nbest_size must be an integer <= 512 (negative: sample from all)")
        try:
            alpha = float(alpha)
        except (TypeError, ValueError):
            raise InvalidInput("alpha must be a number") from None
        if not math.isfinite(alpha) or alpha < 0:
            raise InvalidInput("alpha must be a non-negative number")
        rng = random.Random(seed)
        if not text:
            return []
        if nbest_size in (0, 1):
            spans = self.encode_spans(text)
        elif nbest_size > 1:
            paths = self.nbest_detailed(text, nbest_size)
            logs = [alpha * score for _t, _s, score in paths]
            z = logsumexp(logs)
            weights = [math.exp(v - z) for v in logs]
            spans = rng.choices(paths, weights=weights)[0][1]
        else:
            lat = self.lattice(text)
            spans = [(nd.pos, nd.pos + nd.length, nd.id) for nd in sample_path(lat, alpha, rng)]
        return finish_tokens(text, spans, self.unk_id, self.byte_fallback, self._piece_id)


# ---- Tokenizer-level helpers ---------------------------------------------------------------------


def sample(
    tokenizer: Any, text: str, *, alpha: float = 0.1, nbest_size: int = -1, seed: int | None = None
) -> list[str]:
    """Subword regularisation on a whole `Tokenizer` (normalise, then `Unigram.sample`).

    >>> import tokenizers_core as tc
    >>> tok = tc.load("botchan_en_unigram_1000")
    >>> sample(tok, "Hello", nbest_size=1)
    ['▁He', 'll', 'o']
    """
    fn = getattr(tokenizer.model, "sample", None)
    if fn is None:
        raise InvalidInput(
            f"{tokenizer.name or 'this tokeniser'} is not a Unigram model; sampling needs one"
        )
    if not isinstance(text, str):
        raise InvalidInput("text must be a string")
    normalized = tokenizer.normalize(text).normalized
    return [t for t, *_ in fn(normalized, alpha=alpha, nbest_size=nbest_size, seed=seed)]


def lattice_steps(tokenizer: Any, text: str) -> tuple[str, list[Step]]:
    """The normalised text and the Viterbi steps of a Unigram `Tokenizer` on `text`."""
    model = tokenizer.model
    if not hasattr(model, "viterbi_steps"):
        raise InvalidInput(f"{tokenizer.name or 'this tokeniser'} is not a Unigram model")
    normalized = tokenizer.normalize(text).normalized
    return normalized, list(model.viterbi_steps(normalized))


# ---- the tiny demo model of the lattice view -----------------------------------------------------

DEMO_PIECES: tuple[tuple[str, float], ...] = (
    ("<unk>", 0.0),
    ("▁cat", -2.0),
    ("s", -3.0),
    ("▁", -3.5),
    ("c", -4.0),
    ("a", -4.0),
    ("t", -4.0),
    ("at", -4.5),
    ("▁c", -5.0),
    ("cat", -5.0),
    ("ca", -5.5),
    ("ts", -6.0),
    ("▁ca", -6.5),
    ("ats", -7.5),
    ("▁cats", -9.0),
)

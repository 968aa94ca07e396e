"""Byte-pair encoding, the model: encoding one merge at a time (training is in `trainer.py`).

**Encoding** is by rank: in each word, of all adjacent pairs that are a known merge, merge the one
with the lowest rank (the earliest learned; leftmost on a tie), and repeat. `BPE.encode_steps`
yields one `BpeEncodeStep` per merge for the views; `BPE.tokenize` runs the same rule without
building steps and caches each word's result.

Loaded Hugging Face models (`formats/hf_json.py`) use the same class with Hugging Face's
options (see `BPE`).
"""

from __future__ import annotations

import gc
import heapq
import threading
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar, Iterator

from ...byte_level import byte_level_to_bytes, str_to_byte_level
from ...errors import InvalidInput
from ...steps import Step, register_step, step_from_dict  # noqa: F401  (step_from_dict: doctests)

END_OF_WORD = "</w>"
UNK = "<unk>"
MAX_VOCAB_SIZE = 1_000_000  # < 0x110000: every symbol id is also a character
_INF = 1 << 62

BPE_RULE = (
    "highest count; on a tie the pair with the smaller (id(left), id(right)) wins, where "
    "ids are given to the alphabet in code-point order and then to merged symbols in "
    "creation order (Hugging Face's BpeTrainer)"
)


# ---- steps --------------------------------------------------------------------------------------
@register_step
@dataclass(frozen=True)
class BpeMergeStep(Step):
    """One training merge: `pair` (occurring `count` times, weighted by word frequency) became
    `new_symbol`, changing `n_changed_words` words of the word table.

    The views' annotations, None when the trainer was not asked for them (plain training skips
    them): `tied` are (up to 6) other pairs with the same count that lost the tie-break, in
    tie-break order (`n_tied` counts them; `ties_more` says there may be more than counted);
    `changed_words` are (up to 12) of the changed words.

    >>> s = BpeMergeStep(0, ("l", "o"), 7, "lo", 12, (("o", "w"),), 1, False, ("low",), 1)
    >>> step_from_dict(s.to_dict()) == s
    True
    """

    kind: ClassVar[str] = "bpe_merge"
    index: int
    pair: tuple[str, str]
    count: int
    new_symbol: str
    new_id: int
    tied: tuple[tuple[str, str], ...] | None
    n_tied: int | None
    ties_more: bool | None
    changed_words: tuple[str, ...] | None
    n_changed_words: int


@register_step
@dataclass(frozen=True)
class BpeEncodeStep(Step):
    """One encoding step inside a word. Most steps are merges (`action` "merge"): of the
    `candidates` (position, rank) -- the adjacent pairs of `parts` that are known merges -- the
    lowest rank wins (the leftmost on a tie): `parts[chosen]` + `parts[chosen + 1]` -> `merged`.

    Hugging Face models (`hf.HFBpe`) take two more kinds of step before any merge, where
    `candidates` is empty and `chosen` and `rank` are -1:

    - "whole_word" (`ignore_merges`): the word `merged` is in the vocabulary, so it is one
      token and no merge runs; `parts` are its characters.
    - "byte_fallback" / "unknown": some of `parts` (the word's characters as the model spells
      them) are not in the vocabulary. `replaced` lists each as (position in `parts`, symbol,
      what stands for it): its UTF-8 bytes as `<0xE6>` pieces (byte_fallback), or the unknown
      token, or nothing (a following unknown fused into the previous one, or a model without
      an unknown token, which drops the character as Hugging Face does). The merges start from
      the parts after the replacement.

    >>> s = BpeEncodeStep(0, ("l", "o", "w"), ((0, 0), (1, 3)), 0, 0, "lo")
    >>> step_from_dict(s.to_dict()) == s
    True
    >>> s = BpeEncodeStep(0, ("日",), (), -1, -1, "", "byte_fallback",
    ...                   ((0, "日", ("<0xE6>", "<0x97>", "<0xA5>")),))
    >>> step_from_dict(s.to_dict()) == s
    True
    """

    kind: ClassVar[str] = "bpe_encode"
    index: int
    parts: tuple[str, ...]
    candidates: tuple[tuple[int, int], ...]
    chosen: int
    rank: int
    merged: str
    action: str = "merge"
    replaced: tuple[tuple[int, str, tuple[str, ...]], ...] = ()


# ---- showing byte-level tokens ------------------------------------------------------------------
def to_byte_level(text: str) -> str:
    """Deprecated: `tokenizers_core.byte_level.str_to_byte_level` (this name is also the
    `NormalizedString` function `byte_level.to_byte_level`, which takes another type)."""
    warnings.warn(
        "tokenizers_core.models.bpe.model.to_byte_level is deprecated: use "
        "tokenizers_core.byte_level.str_to_byte_level",
        DeprecationWarning,
        stacklevel=2,
    )
    return str_to_byte_level(text)


def show_bytes(data: bytes, text_fn=None) -> str:
    """Text for a run of bytes that is honest about broken UTF-8: valid characters as
    themselves, every byte that is not part of a whole character as hex in angle brackets.

    >>> show_bytes("日".encode()[:2])
    '<E6 97>'
    >>> show_bytes(b"a\\xe3\\x81")
    'a<E3 81>'
    >>> show_bytes(b"ok")
    'ok'

    `text_fn`, if given, is applied to each run of valid text (e.g. to make spaces visible).
    """
    out: list[str] = []
    bad: list[int] = []
    i = 0
    while i < len(data):
        for size in (1, 2, 3, 4):
            try:
                ch = data[i : i + size].decode("utf-8")
            except UnicodeDecodeError:
                continue
            break
        else:
            bad.append(data[i])
            i += 1
            continue
        if bad:
            out.append("<" + " ".join(f"{b:02X}" for b in bad) + ">")
            bad = []
        out.append(text_fn(ch) if text_fn else ch)
        i += size
    if bad:
        out.append("<" + " ".join(f"{b:02X}" for b in bad) + ">")
    return "".join(out)


def token_text(token: str, byte_level: bool, text_fn=None) -> str:
    """How a view should show a token: byte-level tokens decoded to text, with bytes that are
    only part of a character shown as `<E3 81>` (never a silent U+FFFD).

    >>> token_text("ĠÃ©", True), token_text("ã", True), token_text("low</w>", False)
    (' é', '<E3>', 'low</w>')
    """
    if not byte_level:
        return text_fn(token) if text_fn else token
    try:
        return show_bytes(byte_level_to_bytes(token), text_fn)
    except ValueError:
        return text_fn(token) if text_fn else token


# ---- the model: rank-based encoding -------------------------------------------------------------
class BPE:
    """A BPE model: a vocabulary and the merges in learned order.

    `rank_by` says how a pair of adjacent parts is ranked while encoding:

    - ``"merges"`` (Hugging Face): the pair ``(left, right)`` has the rank of its position in
      `merges`; pairs not in `merges` never merge.
    - ``"tokens"`` (tiktoken): the pair has the rank of the token ``left + right`` in the
      vocabulary (the token's id), whichever way it was built.

    Other options: `end_of_word` (a symbol appended to every word, "</w>" for "bpe"),
    `byte_level` (pieces are spelled in the GPT-2 byte-level alphabet; tokens show as bytes),
    `unk_token` (stands for symbols outside the vocabulary; without one they raise ValueError),
    `special_tokens` (token -> id; a piece equal to one becomes that token, so only a
    pre-tokenizer that isolates allowed special tokens makes them).

    >>> m = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")])
    >>> m.tokenize("abab")
    [('ab', 2, 0, 2), ('ab', 2, 2, 4)]
    """

    def __init__(
        self,
        vocab: dict[str, int],
        merges: list[tuple[str, str]] | None,
        *,
        rank_by: str = "merges",
        end_of_word: str | None = None,
        byte_level: bool = False,
        unk_token: str | None = None,
        special_tokens: dict[str, int] | None = None,
        cache_size: int = 100_000,
    ) -> None:
        if rank_by not in ("merges", "tokens"):
            raise InvalidInput(f"rank_by must be 'merges' or 'tokens', not {rank_by!r}")
        self.vocab = vocab
        self._merges = list(merges) if merges is not None else None
        self.rank_by = rank_by
        self.end_of_word = end_of_word
        self.byte_level = byte_level
        self.unk_token = unk_token
        self.special_tokens: dict[str, int] = dict(special_tokens or {})
        self._id_to_token: dict[int, str] = dict(zip(vocab.values(), vocab.keys()))
        for t, i in self.special_tokens.items():
            self._id_to_token.setdefault(i, t)
        self._pair_ranks: dict[tuple[str, str], int] | None = None
        if rank_by == "merges":
            self._pair_ranks = {}
            for rank, pair in enumerate(self._merges or ()):
                self._pair_ranks.setdefault(pair, rank)
        self._cache: dict[str, list[tuple[str, int, int, int]]] = {}
        self._cache_size = cache_size

    # -- the Model protocol ----------------------------------------------------------------------
    @property
    def merges(self) -> list[tuple[str, str]]:
        """The merges in learned order (for "tokens" models, derived from the ranks once)."""
        if self._merges is None:
            self._merges = _merges_from_ranks(self.vocab, self.special_tokens)
        return self._merges

    def id_to_token(self, id: int) -> str | None:
        return self._id_to_token.get(id)

    def token_to_id(self, token: str) -> int | None:
        i = self.vocab.get(token)
        return i if i is not None else self.special_tokens.get(token)

    def get_vocab_size(self) -> int:
        return len(self._id_to_token)

    def describe(self) -> str:
        kind = "byte-level BPE" if self.byte_level else "BPE"
        rule = (
            "ranked by token id (tiktoken)" if self.rank_by == "tokens" else "ranked by merge order"
        )
        return f"{kind}, {len(self.vocab):,} tokens, {rule}"

    def to_hf_config(self) -> dict:
        """The model section of a tokenizer.json (HF's BPE). A tiktoken-style model ("tokens")
        is written with its merges recovered from the ranks and `ignore_merges` (a piece that
        is a token is that token, tiktoken's shortcut); its special tokens are the tokenizer's
        added tokens, not the model's. The textbook model has no form: its "</w>" is a symbol
        of its own, where HF's `end_of_word_suffix` is glued to the word's last character.

        >>> BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]).to_hf_config()["merges"]
        [['a', 'b']]
        """
        if self.end_of_word:
            raise InvalidInput(
                f"the textbook BPE has no exact tokenizer.json form: its {self.end_of_word!r} is "
                "a symbol of its own that merges like any other, where Hugging Face's "
                "end_of_word_suffix is glued to each word's last character. Save it as "
                'vocab.json + merges.txt instead (format="vocab_merges", a directory)'
            )
        return {
            "type": "BPE",
            "dropout": None,
            "unk_token": self.unk_token,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": self.rank_by == "tokens",
            "vocab": dict(sorted(self.vocab.items(), key=lambda kv: kv[1])),
            "merges": [[a, b] for a, b in self.merges],
        }

    def tokenize(self, piece: str) -> list[tuple[str, int, int, int]]:
        """The tokens of one piece as (token, id, start, end), positions in the piece.

        The result for each distinct piece is cached (the fast path builds no steps).
        """
        cached = self._cache.get(piece)
        if cached is not None:
            return cached
        special = self.special_tokens.get(piece)
        if special is not None:
            out = [(piece, special, 0, len(piece))]
        else:
            out = self._with_ids(self.merge_parts(self.initial_parts(piece)))
        if len(self._cache) >= self._cache_size:
            self._cache.clear()
        self._cache[piece] = out
        return out

    # -- the algorithm ---------------------------------------------------------------------------
    def initial_parts(self, piece: str) -> list[str]:
        """The symbols a piece starts as: its characters (+ the end-of-word symbol)."""
        parts = list(piece)
        if self.end_of_word:
            parts.append(self.end_of_word)
        return parts

    def rank(self, left: str, right: str) -> int | None:
        """The rank of merging `left` and `right`, or None when they never merge."""
        if self._pair_ranks is not None:
            return self._pair_ranks.get((left, right))
        return self.vocab.get(left + right)

    def merge_parts(self, parts: list[str], limit: int | None = None) -> list[str]:
        """Merge by rank until no known pair is left (with `limit`: only ranks < limit).

        The textbook loop of `encode_steps` without the steps: rank every adjacent pair, merge
        the lowest (leftmost on a tie), re-rank the two neighbours, repeat.
        """
        if len(parts) < 2:
            return parts
        if self._pair_ranks is None and limit is None:
            whole = "".join(parts)
            if whole in self.vocab:  # tiktoken's shortcut: a piece that is a token
                return [whole]  # is that token (what its BPE gives anyway)
        if len(parts) > 256:
            return _merge_long(parts, self.rank, limit)
        cutoff = _INF if limit is None else limit
        if self._pair_ranks is not None:
            table = self._pair_ranks
            ranks = [table.get(pair, _INF) for pair in zip(parts, parts[1:])]
        else:
            vocab = self.vocab
            table = None
            ranks = [vocab.get(a + b, _INF) for a, b in zip(parts, parts[1:])]
        parts = list(parts)
        while ranks:
            best = min(ranks)
            if best >= cutoff or best >= _INF:
                break
            i = ranks.index(best)
            parts[i] += parts[i + 1]
            del parts[i + 1]
            del ranks[i]
            # re-rank the pairs on either side of the new part
            if table is not None:
                if i > 0:
                    ranks[i - 1] = table.get((parts[i - 1], parts[i]), _INF)
                if i < len(ranks):
                    ranks[i] = table.get((parts[i], parts[i + 1]), _INF)
            else:
                if i > 0:
                    ranks[i - 1] = vocab.get(parts[i - 1] + parts[i], _INF)
                if i < len(ranks):
                    ranks[i] = vocab.get(parts[i] + parts[i + 1], _INF)
        return parts

    def encode_steps(self, piece: str, limit: int | None = None) -> Iterator[BpeEncodeStep]:
        """One `BpeEncodeStep` per merge while encoding `piece` (the rule of `merge_parts`,
        spelled out). The parts after the last step are `merge_parts(initial_parts(piece))`.

        >>> m = BPE({"l": 0, "o": 1, "w": 2, "lo": 3, "low": 4}, [("l", "o"), ("lo", "w")])
        >>> [(s.parts, s.merged) for s in m.encode_steps("low")]
        [(('l', 'o', 'w'), 'lo'), (('lo', 'w'), 'low')]
        """
        yield from self._merge_steps(self.initial_parts(piece), 0, limit)

    def _merge_steps(
        self, parts: list[str], index: int, limit: int | None
    ) -> Iterator[BpeEncodeStep]:
        """The textbook loop: rank every adjacent pair, merge the lowest (leftmost on a tie)."""
        while len(parts) > 1:
            candidates = []
            for i in range(len(parts) - 1):
                r = self.rank(parts[i], parts[i + 1])
                if r is not None and (limit is None or r < limit):
                    candidates.append((i, r))
            if not candidates:
                return
            chosen, rank = min(candidates, key=lambda c: (c[1], c[0]))
            merged = self._join(parts[chosen], parts[chosen + 1])
            yield BpeEncodeStep(index, tuple(parts), tuple(candidates), chosen, rank, merged)
            parts = parts[:chosen] + [merged] + parts[chosen + 2 :]
            index += 1

    def _join(self, left: str, right: str) -> str:
        """The symbol a merge of `left` and `right` makes (a subword prefix changes it in HF)."""
        return left + right

    def _with_ids(self, parts: list[str]) -> list[tuple[str, int, int, int]]:
        """Attach ids and positions in the piece (the end-of-word symbol has no width)."""
        out = []
        pos = 0
        eow = self.end_of_word
        for part in parts:
            width = len(part)
            if eow and part.endswith(eow):
                width -= len(eow)
            tid = self.vocab.get(part)
            if tid is None:
                out.extend(self._unknown(part, pos, width))
            else:
                out.append((part, tid, pos, pos + width))
            pos += width
        return out

    def _unknown(self, part: str, pos: int, width: int) -> list[tuple[str, int, int, int]]:
        """The unknown token for `part`, covering `width` characters of the piece (an
        end-of-word symbol adds none, so the offsets never run past the word)."""
        if self.unk_token is None or self.unk_token not in self.vocab:
            raise InvalidInput(
                f"{part!r} is not in the vocabulary and this model has no unknown token"
            )
        return [(self.unk_token, self.vocab[self.unk_token], pos, pos + width)]

    # -- explaining a token ----------------------------------------------------------------------
    def merge_tree(self, token: str) -> dict[str, Any]:
        """How `token` was built: ``{"token", "id", "children": [left_tree, right_tree]}``
        (no children for an alphabet symbol).

        >>> m = BPE({"l": 0, "o": 1, "w": 2, "lo": 3, "low": 4}, [("l", "o"), ("lo", "w")])
        >>> t = m.merge_tree("low")
        >>> [c["token"] for c in t["children"]], [c["token"] for c in t["children"][0]["children"]]
        (['lo', 'w'], ['l', 'o'])
        """
        if token not in self.vocab and token not in self.special_tokens:
            raise InvalidInput(f"{token!r} is not a token of this model")
        return self._tree(token, 0)

    def _tree(self, token: str, depth: int) -> dict[str, Any]:
        node: dict[str, Any] = {"token": token, "id": self.token_to_id(token), "children": []}
        if depth > 64 or len(token) < 2 or token in self.special_tokens:
            return node
        split = self._split_of(token)
        if split is not None:
            node["children"] = [self._tree(split[0], depth + 1), self._tree(split[1], depth + 1)]
        return node

    def _split_of(self, token: str) -> tuple[str, str] | None:
        if self.rank_by == "tokens":
            parts = self.merge_parts(list(token), limit=self.vocab.get(token))
            return (parts[0], parts[1]) if len(parts) == 2 else None
        made = getattr(self, "_made_by", None)
        if made is None:
            made = {}
            for left, right in self.merges:
                made.setdefault(left + right, (left, right))
            self._made_by = made
        return made.get(token)


def _merge_long(parts: list[str], rank_of, limit: int | None) -> list[str]:
    """`merge_parts` for long pieces: a heap of (rank, position) over a linked list, so a piece
    of n symbols costs O(n log n) instead of O(n^2). Same rule: lowest rank, then leftmost."""
    n = len(parts)
    parts = list(parts)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    alive = [True] * n
    cutoff = _INF if limit is None else limit
    heap = []
    for i in range(n - 1):
        r = rank_of(parts[i], parts[i + 1])
        if r is not None and r < cutoff:
            heap.append((r, i, parts[i], parts[i + 1]))
    heapq.heapify(heap)
    while heap:
        r, i, left, right = heapq.heappop(heap)
        j = nxt[i] if alive[i] else n
        if j >= n or parts[i] != left or parts[j] != right:
            continue  # a stale entry: one side has changed since
        parts[i] = left + right
        alive[j] = False
        nxt[i] = nxt[j]
        if nxt[j] < n:
            prv[nxt[j]] = i
        p = prv[i]
        if p >= 0:
            rp = rank_of(parts[p], parts[i])
            if rp is not None and rp < cutoff:
                heapq.heappush(heap, (rp, p, parts[p], parts[i]))
        q = nxt[i]
        if q < n:
            rq = rank_of(parts[i], parts[q])
            if rq is not None and rq < cutoff:
                heapq.heappush(heap, (rq, i, parts[i], parts[q]))
    return [parts[i] for i in range(n) if alive[i]]


def _merges_from_ranks(vocab: dict[str, int], special: dict[str, int]) -> list[tuple[str, str]]:
    """Recover a merge list from tiktoken-style ranks: each multi-symbol token, in rank order,
    is what rank-based BPE makes of its own symbols with the lower ranks -- two parts."""
    model = BPE(vocab, [], rank_by="tokens")
    merges = []
    for token, rank in sorted(vocab.items(), key=lambda kv: kv[1]):
        if len(token) < 2 or token in special:
            continue
        parts = model.merge_parts(list(token), limit=rank)
        if len(parts) == 2:
            merges.append((parts[0], parts[1]))
    return merges


# ---- pausing the cyclic garbage collector while training -----------------------------------------
class _GcPause:
    """While any training runs, keep Python's cyclic garbage collector off: training allocates
    millions of small acyclic objects, and the collections they trigger cost ~10% of the time.
    Counted, so concurrent trainings in several threads restore the collector only at the end."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._was_enabled = False

    def __enter__(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._depth += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._was_enabled:
                gc.enable()


gc_paused = _GcPause()


# ---- pre-tokenising ASCII fast (used by the trainer and by tiktoken-style encoding) ------------
# Pure-ASCII lines (most of an English corpus) are split with the standard library's `re`, which
# is about twice as fast as `regex` here, using the ASCII spelling of the same patterns: on ASCII
# text \p{L} is [A-Za-z], \p{N} and \d are [0-9], \w is [A-Za-z0-9_] and \s (White_Space) is
# [ \t\n\r\x0b\x0c] -- not `re`'s \s, which also takes \x1c-\x1f. Tested against `regex`.
_S, _NS = r"[ \t\n\r\x0b\x0c]", r"[^ \t\n\r\x0b\x0c]"
ASCII_PATTERNS = {
    "gpt2": (
        r"'(?:[sdmt]|ll|ve|re)| ?[A-Za-z]++| ?[0-9]++| ?[^ \t\n\r\x0b\x0cA-Za-z0-9]++"
        rf"|{_S}++$|{_S}+(?!{_NS})|{_S}"
    ),
    "whitespace": r"[A-Za-z0-9_]+|[^A-Za-z0-9_ \t\n\r\x0b\x0c]+",
    "cl100k": (
        r"'(?i:[sdmt]|ll|ve|re)|[^\r\nA-Za-z0-9]?+[A-Za-z]++|[0-9]{1,3}+"
        r"| ?[^ \t\n\r\x0b\x0cA-Za-z0-9]++[\r\n]*+"
        rf"|{_S}++$|{_S}*[\r\n]|{_S}+(?!{_NS})|{_S}"
    ),
    "o200k": (
        r"[^\r\nA-Za-z0-9]?[A-Z]*[a-z]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
        r"|[^\r\nA-Za-z0-9]?[A-Z]+[a-z]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
        r"|[0-9]{1,3}| ?[^ \t\n\r\x0b\x0cA-Za-z0-9]+[\r\n/]*"
        rf"|{_S}*[\r\n]+|{_S}+(?!{_NS})|{_S}+"
    ),
}

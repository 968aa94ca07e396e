"""BPE as Hugging Face `tokenizers` (0.23.3, `models/bpe/model.rs`) runs it: the options a
tokenizer.json's `"model": {"type": "BPE", ...}` may set.

Encoding one word (a pre-tokenised piece), as `BPE::merge_word`:

1. **ignore_merges**: a word that is itself in the vocabulary is that one token (Llama 3).
2. Spell the word as symbols, one per character: the `continuing_subword_prefix` before every
   character but the first, the `end_of_word_suffix` after the last ("w</w>" is one symbol).
3. A symbol not in the vocabulary becomes, in this order of preference: its UTF-8 bytes as
   `<0xE6>` pieces (**byte_fallback**, when every byte has a piece), the **unk_token**
   (consecutive ones fused into one with **fuse_unk**), or nothing at all (a model without an
   unknown token drops the character, as Hugging Face does).
4. Merge by rank (the lowest first, the leftmost on a tie) until no pair of neighbours is a
   merge. Merging `a` and `##b` makes `ab`: the right side loses the prefix.

**dropout** (BPE-dropout: each merge is skipped with probability p) is a sampling option here,
never applied by `tokenize`: encoding stays deterministic unless asked, and a model loaded from a
file with `"dropout": 0.1` encodes as Hugging Face does with dropout off. Ask for samples with
`model.with_dropout(p, seed=...)`, a copy whose `tokenize` draws from `random.Random(seed)`
(Hugging Face's own draws come from an unseeded thread RNG, so no two runs agree anyway). As in
Hugging Face, a dropout run neither caches nor takes whole words (`ignore_merges`).

Positions: Hugging Face counts in bytes and the Python binding turns bytes into characters, each
token covering every character it has a byte of: all three byte pieces of "日" cover (p, p + 1).
`tokenize` reports the same character positions, with one deliberate difference: under byte
fallback Hugging Face counts the bytes of a symbol's prefix or suffix too ("##日" is 5 byte
pieces of length 1), so its offsets can run past the word (and past the text); ours stop at the
word's end. No released model combines byte fallback with a prefix or suffix.

>>> m = HFBpe({"<unk>": 0, "a": 1, "b": 2, "ab": 3, "<0xC3>": 4, "<0xA9>": 5},
...           [("a", "b")], unk_token="<unk>", byte_fallback=True)
>>> m.tokenize("abéx")
[('ab', 3, 0, 2), ('<0xC3>', 4, 2, 3), ('<0xA9>', 5, 2, 3), ('<unk>', 0, 3, 4)]
"""

from __future__ import annotations

import copy
import heapq
import random
from itertools import accumulate, repeat
from operator import itemgetter
from typing import Any, Iterable, Iterator

from ...errors import InvalidInput
from .model import BPE, BpeEncodeStep

_NONE = -1


def byte_piece(byte: int) -> str:
    """The vocabulary piece that stands for one byte under byte fallback.

    >>> byte_piece(0xE6), byte_piece(10)
    ('<0xE6>', '<0x0A>')
    """
    return f"<0x{byte:02X}>"


def check_merges(
    vocab: dict[str, int], merges: list[tuple[str, str]], prefix: str | None = None
) -> None:
    """Raise ValueError naming the first merge whose sides or result are not in `vocab`
    (Hugging Face's `MergeTokenOutOfVocabulary`).

    >>> check_merges({"a": 0, "b": 1, "ab": 2}, [("a", "b"), ("a", "c")])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: merge 2 ('a', 'c') names 'c', which is not in the ...
    """
    cut = len(prefix) if prefix else 0
    if prefix:
        joined_of = dict(zip(merges, (cut_join(a, b, prefix) for a, b in merges)))
    has = vocab.__contains__
    lefts = list(map(itemgetter(0), merges))
    rights = list(map(itemgetter(1), merges))
    try:
        if cut:
            joined = list(map(joined_of.__getitem__, merges))
        else:
            joined = list(map(str.__add__, lefts, rights))
        if all(map(has, lefts)) and all(map(has, rights)) and all(map(has, joined)):
            return  # the common case, checked at C speed
    except TypeError:  # a side that is not a string
        pass
    for number, (a, b) in enumerate(merges, 1):
        if not (isinstance(a, str) and isinstance(b, str)):
            raise InvalidInput(f"merge {number} {(a, b)!r} is not a pair of strings")
        for token in (a, b, joined_of[(a, b)] if cut else a + b):
            if token not in vocab:
                raise InvalidInput(
                    f"merge {number} {(a, b)!r} names {token!r}, which is not in the vocabulary"
                )


def cut_join(left: str, right: str, prefix: str) -> str:
    """What merging `left` and `right` makes in a model with a continuing-subword prefix:
    Hugging Face cuts as many BYTES as the prefix has off the right side, whether or not it
    starts with the prefix; a cut that leaves no valid text is an error (Hugging Face panics).

    >>> cut_join("a", "##b", "##"), cut_join("a", "xyb", "##")
    ('ab', 'ab')
    >>> cut_join("a", "b", "##")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: merge ('a', 'b'): the right side is shorter than the ...
    """
    raw = right.encode("utf-8", "surrogatepass")
    size = len(prefix.encode("utf-8", "surrogatepass"))
    if len(raw) < size:
        raise InvalidInput(
            f"merge {(left, right)!r}: the right side is shorter than the prefix {prefix!r}"
        )
    try:
        return left + raw[size:].decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(
            f"merge {(left, right)!r}: cutting the prefix {prefix!r} off the right "
            "side splits a character"
        ) from None


class HFBpe(BPE):
    """A BPE model with Hugging Face's options (see the module docstring).

    `merges` are (left, right) pairs in rank order; a pair listed twice keeps its last rank (as
    Hugging Face's merge map does). `byte_level` only says how views show the tokens (the
    ByteLevel pre-tokenizer has already spelled the text in its alphabet).
    """

    # both set by __init__, never None here (`BPE` may leave them to be derived later)
    _merges: list[tuple[str, str]]
    _pair_ranks: dict[tuple[str, str], int]

    def __init__(
        self,
        vocab: dict[str, int],
        merges: list[tuple[str, str]],
        *,
        unk_token: str | None = None,
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        fuse_unk: bool = False,
        byte_fallback: bool = False,
        ignore_merges: bool = False,
        dropout: float | None = None,
        byte_level: bool = False,
        cache_size: int = 100_000,
    ) -> None:
        if dropout is not None and not (
            isinstance(dropout, (int, float)) and 0.0 <= dropout <= 1.0
        ):
            raise InvalidInput(f"BPE dropout must be a number between 0 and 1, not {dropout!r}")
        super().__init__(
            vocab, [], byte_level=byte_level, unk_token=unk_token, cache_size=cache_size
        )
        self._merges = merges
        # pair -> rank; a later duplicate overwrites an earlier one, as in Hugging Face
        self._pair_ranks = dict(zip(merges, range(len(merges))))
        self.continuing_subword_prefix = continuing_subword_prefix or None
        self.end_of_word_suffix = end_of_word_suffix or None
        self.fuse_unk = bool(fuse_unk)
        self.byte_fallback = bool(byte_fallback)
        self.ignore_merges = bool(ignore_merges)
        self.dropout = dropout
        self._rng: random.Random | None = None
        prefix = self.continuing_subword_prefix
        cut = len(prefix or "")
        # merging a and ##b makes a + b: Hugging Face cuts the prefix's length off the right side
        self._cut = cut
        self._joined = {pair: cut_join(*pair, prefix) for pair in merges} if prefix else None
        # plain: every symbol is one character and a merge is concatenation (Llama 3, GPT-2)
        self._plain = not (cut or self.end_of_word_suffix or self.byte_fallback)

    def to_hf_config(self) -> dict:
        """The model section of a tokenizer.json, as tokenizers 0.23.3 writes it: the vocabulary
        in id order, each merge once at its rank (a repeated pair keeps its last rank, as the
        merge map does).

        >>> bpe = HFBpe({"a": 0, "b": 1, "ab": 2}, [("a", "b")], unk_token="a")
        >>> bpe.to_hf_config()["unk_token"]
        'a'
        """
        ranks = self._pair_ranks or {}
        merges = (
            self._merges
            if len(ranks) == len(self._merges)
            else [  # no repeated pair
                pair for pair, _rank in sorted(ranks.items(), key=lambda kv: kv[1])
            ]
        )
        return {
            "type": "BPE",
            "dropout": self.dropout,
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "end_of_word_suffix": self.end_of_word_suffix,
            "fuse_unk": self.fuse_unk,
            "byte_fallback": self.byte_fallback,
            "ignore_merges": self.ignore_merges,
            "vocab": dict(sorted(self.vocab.items(), key=lambda kv: kv[1])),
            "merges": list(map(list, merges)),
        }

    # -- options ---------------------------------------------------------------------------------
    def with_dropout(self, dropout: float | None = None, *, seed: int | None = None) -> "HFBpe":
        """A copy of this model whose `tokenize` samples with BPE-dropout `dropout` (default: the
        model's own), drawing from `random.Random(seed)`.

        >>> m = HFBpe({"a": 0, "b": 1, "ab": 2}, [("a", "b")])
        >>> [t for t, *_ in m.with_dropout(1.0, seed=0).tokenize("ab")]
        ['a', 'b']
        """
        p = self.dropout if dropout is None else dropout
        if p is None or not (isinstance(p, (int, float)) and 0.0 <= p <= 1.0):
            raise InvalidInput(f"BPE dropout must be a number between 0 and 1, not {p!r}")
        sampler = object.__new__(_DropoutBpe)
        sampler.__dict__.update(self.__dict__)
        sampler.dropout = p
        sampler._rng = random.Random(seed)
        sampler._cache = {}
        return sampler

    def describe(self) -> str:
        kind = "byte-level BPE" if self.byte_level else "BPE"
        options = [
            name for name in ("ignore_merges", "byte_fallback", "fuse_unk") if getattr(self, name)
        ]
        if self.continuing_subword_prefix:
            options.append(f"prefix {self.continuing_subword_prefix!r}")
        if self.end_of_word_suffix:
            options.append(f"suffix {self.end_of_word_suffix!r}")
        if self.dropout:
            options.append(f"dropout {self.dropout} not applied: encoding is deterministic")
        extra = f" ({', '.join(options)})" if options else ""
        return f"{kind}, {len(self.vocab):,} tokens, ranked by merge order{extra}"

    # -- encoding --------------------------------------------------------------------------------
    def tokenize(self, piece: str) -> list[tuple[str, int, int, int]]:
        """The tokens of one piece as (token, id, start, end), character positions in the piece."""
        if self.ignore_merges:  # 1. a word in the vocabulary
            id_ = self.vocab.get(piece)
            if id_ is not None:
                return [(piece, id_, 0, len(piece))]
        cached = self._cache.get(piece)
        if cached is not None:
            return cached
        if not piece:
            return []
        vocab = self.vocab
        out: list[tuple[str, int, int, int]] | None = None
        if self._plain:  # the fast path: 2 and 4 only
            parts = BPE.merge_parts(self, list(piece))
            ids = [i for i in map(vocab.get, parts) if i is not None]
            if len(ids) == len(parts):  # every part is a token
                ends = list(accumulate(map(len, parts)))
                out = list(zip(parts, ids, [0] + ends[:-1], ends))
        if out is None:
            out = self._encode_word(piece, None)
        if len(self._cache) >= self._cache_size:
            self._cache.clear()
        self._cache[piece] = out
        return out

    def _encode_word(self, piece: str, dropout: float | None) -> list[tuple[str, int, int, int]]:
        """Hugging Face's `merge_word` + `word_to_tokens`, positions turned into characters."""
        if not piece:
            return []
        parts, lengths, _replaced = self._symbols(piece)
        parts, lengths = self._merge(parts, lengths, dropout)
        vocab = self.vocab
        span = _char_span(piece)
        out = []
        pos = 0
        for part, length in zip(parts, lengths):
            end = pos + length
            out.append((part, vocab[part], *span(pos, end)))
            pos = end
        return out

    def spelled(self, piece: str) -> list[str]:
        """The word as symbols before any lookup: prefix on all but the first character, suffix
        on the last.

        >>> HFBpe({}, [], continuing_subword_prefix="##", end_of_word_suffix="</w>").spelled("abc")
        ['a', '##b', '##c</w>']
        """
        parts = list(piece)
        if self.continuing_subword_prefix and len(parts) > 1:
            prefix = self.continuing_subword_prefix
            parts[1:] = [prefix + c for c in parts[1:]]
        if self.end_of_word_suffix and parts:
            parts[-1] += self.end_of_word_suffix
        return parts

    def _symbols(
        self, piece: str
    ) -> tuple[list[str], list[int], list[tuple[int, str, tuple[str, ...]]]]:
        """Steps 2-3: the symbols merging starts from, each one's length in bytes of the word
        (as Hugging Face counts them: a byte piece is 1, so a prefix's bytes count too), and
        the symbols that were replaced, as (position, symbol, replacement)."""
        vocab = self.vocab
        unk_token = self.unk_token
        parts: list[str] = []
        lengths: list[int] = []
        replaced: list[tuple[int, str, tuple[str, ...]]] = []
        unk: int | None = None  # the byte length of a pending unknown token
        for i, (ch, s) in enumerate(zip(piece, self.spelled(piece))):
            size = len(ch.encode("utf-8", "surrogatepass"))
            if s in vocab:
                if unk is not None:
                    assert unk_token is not None  # (an unknown is pending only with a token)
                    parts.append(unk_token)
                    lengths.append(unk)
                    unk = None
                parts.append(s)
                lengths.append(size)
                continue
            if self.byte_fallback:
                pieces = [byte_piece(b) for b in s.encode("utf-8", "surrogatepass")]
                if all(p in vocab for p in pieces):
                    # (a pending unknown token stays pending, after these bytes, as in Hugging Face)
                    parts.extend(pieces)
                    lengths.extend([1] * len(pieces))
                    replaced.append((i, s, tuple(pieces)))
                    continue
            if unk_token is None:
                replaced.append((i, s, ()))  # dropped, as Hugging Face drops it
                continue
            if unk_token not in vocab:
                raise InvalidInput(f"the unknown token {unk_token!r} is not in the vocabulary")
            if unk is not None and self.fuse_unk:
                unk += size
                replaced.append((i, s, ()))
                continue
            if unk is not None:
                parts.append(unk_token)
                lengths.append(unk)
            unk = size
            replaced.append((i, s, (unk_token,)))
        if unk is not None:
            assert unk_token is not None  # (as above)
            parts.append(unk_token)
            lengths.append(unk)
        return parts, lengths, replaced

    def _join(self, left: str, right: str) -> str:
        if self._joined is None:
            return left + right
        joined = self._joined.get((left, right))
        if joined is not None:
            return joined
        assert self.continuing_subword_prefix is not None  # (`_joined` is made only with one)
        return cut_join(left, right, self.continuing_subword_prefix)

    def _merge(
        self, parts: list[str], lengths: list[int], dropout: float | None
    ) -> tuple[list[str], list[int]]:
        """Step 4 as Hugging Face's `Word::merge_all`: a heap of (rank, position) over a linked
        list of symbols; an entry whose pair has changed since it was queued is skipped. With
        `dropout`, each merge popped is skipped with that probability (skipped entries return to
        the heap when the next merge is made)."""
        n = len(parts)
        ranks = self._pair_ranks
        join = self._join
        parts = list(parts)
        lengths = list(lengths)
        nxt = list(range(1, n + 1))
        prv = list(range(-1, n - 1))
        alive = [True] * n
        heap = []
        for i in range(n - 1):
            r = ranks.get((parts[i], parts[i + 1]))
            if r is not None:
                heap.append((r, i, join(parts[i], parts[i + 1])))
        heapq.heapify(heap)
        rng = self._rng
        skipped: list[tuple[int, int, str]] = []
        while heap:
            top = heapq.heappop(heap)
            if dropout and rng is not None and rng.random() < dropout:
                skipped.append(top)
                continue
            for entry in skipped:
                heapq.heappush(heap, entry)
            skipped.clear()
            _rank, i, new = top
            if not alive[i] or nxt[i] >= n:
                continue
            j = nxt[i]
            pair = (parts[i], parts[j])
            if ranks.get(pair) is None or join(*pair) != new:
                continue  # stale: the pair here has changed
            parts[i] = new
            lengths[i] += lengths[j]
            alive[j] = False
            nxt[i] = nxt[j]
            if nxt[j] < n:
                prv[nxt[j]] = i
            p = prv[i]
            if p >= 0:
                r = ranks.get((parts[p], parts[i]))
                if r is not None:
                    heapq.heappush(heap, (r, p, join(parts[p], parts[i])))
            q = nxt[i]
            if q < n:
                r = ranks.get((parts[i], parts[q]))
                if r is not None:
                    heapq.heappush(heap, (r, i, join(parts[i], parts[q])))
        keep = [i for i in range(n) if alive[i]]
        return [parts[i] for i in keep], [lengths[i] for i in keep]

    def initial_parts(self, piece: str) -> list[str]:
        """The symbols merging starts from (after byte fallback and unknown tokens)."""
        return self._symbols(piece)[0]

    def merge_parts(self, parts: list[str], limit: int | None = None) -> list[str]:
        if not self._cut:
            return BPE.merge_parts(self, parts, limit)
        if limit is not None:
            raise InvalidInput("merge_parts(limit=...) needs a model without a subword prefix")
        return self._merge(parts, [1] * len(parts), None)[0]

    # -- the steps for the views -----------------------------------------------------------------
    def encode_steps(self, piece: str, limit: int | None = None) -> Iterator[BpeEncodeStep]:
        """One step per thing that happens to `piece`: a "whole_word" step (ignore_merges), or a
        "byte_fallback" / "unknown" step when some symbols are not in the vocabulary, then one
        step per merge (see `BpeEncodeStep`). The last step's result is what `tokenize` gives.

        >>> m = HFBpe({"<0xE6>": 0, "<0x97>": 1, "<0xA5>": 2, "a": 3}, [], byte_fallback=True)
        >>> [(s.action, s.replaced) for s in m.encode_steps("日")]
        [('byte_fallback', ((0, '日', ('<0xE6>', '<0x97>', '<0xA5>')),))]
        """
        if not piece:
            return
        if self.ignore_merges and piece in self.vocab:
            yield BpeEncodeStep(0, tuple(piece), (), -1, -1, piece, "whole_word")
            return
        parts, _lengths, replaced = self._symbols(piece)
        index = 0
        if replaced:
            action = (
                "byte_fallback"
                if any(r and r[0] != self.unk_token for _i, _s, r in replaced)
                else "unknown"
            )
            yield BpeEncodeStep(
                0, tuple(self.spelled(piece)), (), -1, -1, "", action, tuple(replaced)
            )
            index = 1
        yield from self._merge_steps(parts, index, limit)

    def _split_of(self, token: str) -> tuple[str, str] | None:
        made = getattr(self, "_made_by", None)
        if made is None:
            made = {}
            for left, right in self.merges:
                made.setdefault(self._join(left, right), (left, right))
            self._made_by = made
        return made.get(token)


class _DropoutBpe(HFBpe):
    """A model made by `HFBpe.with_dropout`: `tokenize` samples (no cache, no whole words)."""

    deterministic = False  # the same piece may give other tokens next time

    def tokenize(self, piece: str) -> list[tuple[str, int, int, int]]:
        if not self.dropout:
            return HFBpe.tokenize(self, piece)
        return self._encode_word(piece, self.dropout)

    def describe(self) -> str:
        return HFBpe.describe(self).replace(
            "not applied: encoding is deterministic", "sampled (BPE-dropout)"
        )


def _char_span(word: str):
    """A function (start byte, end byte) -> (start, end) characters of `word`, as Hugging
    Face's Python binding converts offsets: the start is the character holding the first byte,
    the end is one past the character holding the last byte (so every byte piece of "日" covers
    the whole character). Positions past the word (Hugging Face counts a prefix's bytes under
    byte fallback) stop at its end."""
    n = len(word)
    if word.isascii():
        return lambda a, b: (min(a, n), min(b, n))
    char_of: list[int] = []
    for i, ch in enumerate(word):
        char_of.extend([i] * len(ch.encode("utf-8", "surrogatepass")))
    total = len(char_of)

    def span(a: int, b: int) -> tuple[int, int]:
        start = char_of[a] if a < total else n
        if b <= a:
            return start, start
        return start, (char_of[b - 1] + 1 if b <= total else n)

    return span


def hf_bpe_from_config(vocab: dict[str, int], merges: Iterable, **options) -> HFBpe:
    """Build and check a model from a tokenizer.json's vocab and merges (`"a b"` strings or
    `["a", "b"]` pairs), ValueError naming what is wrong."""
    pairs = parse_merges(merges)
    check_merges(vocab, pairs, options.get("continuing_subword_prefix"))
    return HFBpe(vocab, pairs, **options)


def parse_merges(merges: Iterable) -> list[tuple[str, str]]:
    """Merges as (left, right) pairs, from `"a b"` strings (Hugging Face's legacy form) or
    two-element lists.

    >>> parse_merges(["a b", ["ab", "c"]])
    [('a', 'b'), ('ab', 'c')]
    """
    if not isinstance(merges, list):
        raise InvalidInput("the BPE model's merges must be a list")
    kinds = set(map(type, merges))
    pairs: list = []
    if kinds == {str}:  # "a b" (C-level split and tuple)
        pairs = list(map(tuple, map(str.split, merges, repeat(" "))))
    elif kinds <= {list, tuple}:  # ["a", "b"] (or pairs already)
        pairs = list(map(tuple, merges))
    if len(pairs) != len(merges) or (pairs and set(map(len, pairs)) != {2}):
        for number, m in enumerate(merges, 1):
            p = m.split(" ") if isinstance(m, str) else m
            if not isinstance(p, (list, tuple)) or len(p) != 2:
                raise InvalidInput(f'merge {number} ({m!r}) is not "left right" or [left, right]')
        pairs = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in merges]
    return pairs


def sample(
    tokenizer: Any, text: str, *, dropout: float | None = None, seed: int | None = None
) -> Any:
    """Encode `text` with BPE-dropout: the whole pipeline, with the model replaced by
    `model.with_dropout(dropout, seed=seed)` (`dropout` defaults to the file's own). Returns the
    `Encoding`; the tokenizer itself is left deterministic.

    >>> from tokenizers_core.pipeline import Tokenizer
    >>> tok = Tokenizer(HFBpe({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
    >>> sample(tok, "ab", dropout=1.0, seed=0).tokens, tok.encode("ab").tokens
    (['a', 'b'], ['ab'])
    """
    model = tokenizer.model
    if not isinstance(model, HFBpe):
        raise InvalidInput(
            f"{tokenizer.name or 'this tokeniser'} is not a Hugging Face BPE model; "
            "BPE-dropout needs one"
        )
    sampler = copy.copy(tokenizer)
    sampler.model = model.with_dropout(dropout, seed=seed)
    return sampler.encode(text)

"""sentencepiece's BPE model as its runtime runs a `.model` file: merging by piece score
(`SentencePieceBpe`), and its char and word models (`SentencePieceSplit`).

Its normaliser lives in `normalizers/sentencepiece.py`, the piece types and byte fallback it
shares with the Unigram model in `models/sentencepiece_common.py`, its trainer in
`sentencepiece_trainer.py`, and reading/writing the file in `formats/sentencepiece_model.py`.
"""

from __future__ import annotations

import functools
import heapq
from itertools import compress
from typing import Sequence

from ...errors import InvalidInput
from ..sentencepiece_common import (
    CONTROL,
    NORMAL,
    SPACE,
    UNKNOWN,
    USER_DEFINED,
    PieceIndex,
    finish_tokens,
    index_pieces,
    type_mask,
)

# ---- sentencepiece's BPE model (encoding by piece scores) ---------------------------------------


Columns = tuple[Sequence[str], Sequence[float], Sequence[int]]  # (strings, scores, types)
_CONTROL, _USER_DEFINED = frozenset((CONTROL,)), frozenset((USER_DEFINED,))


class SentencePieceBpe:
    """sentencepiece's BPE encoder (`bpe_model.cc`): merge the adjacent pair whose merged piece
    has the highest score, leftmost first among equal scores, until no merge is in the vocabulary.

    >>> m = SentencePieceBpe([("<unk>", 0.0, UNKNOWN), ("a", -2.0, NORMAL), ("b", -3.0, NORMAL),
    ...                       ("ab", -1.0, NORMAL)])
    >>> [t for t, *_ in m.tokenize("abab")]
    ['ab', 'ab']

    Characters outside the vocabulary become `<unk>` (consecutive ones merged into one token), or
    `<0xNN>` byte pieces when the model has byte fallback.
    """

    def __init__(
        self,
        pieces: Sequence[tuple[str, float, int]],
        *,
        byte_fallback: bool = False,
        columns: Columns | None = None,
        index: PieceIndex | None = None,
    ) -> None:
        """`columns`: the pieces as (strings, scores, types) instead, when the caller has them
        so (a `.model` loader does; `pieces` is then ignored): nothing is transposed. `index`:
        their `index_pieces`, when the caller has made it (the loader's checks do)."""
        strings, scores, types = columns or (tuple(zip(*pieces)) or ((), (), ()))
        self.scores, self.types = list(scores), list(types)
        self._strings = strings
        self._normal, self._reserved, _repeats = index or index_pieces(strings, types)
        self.unk_id = self.types.index(UNKNOWN)
        self.byte_fallback = byte_fallback
        self.special_tokens = frozenset(compress(strings, type_mask(types, _CONTROL)))
        user = compress(strings, type_mask(types, _USER_DEFINED))
        self._user = sorted(user, key=len, reverse=True)
        self._merges: list[tuple[str, str]] | None = None

    @functools.cached_property
    def vocab(self) -> dict[str, int]:
        """{piece: id} of every piece (a repeated spelling: its last id); built when first
        asked for, as encoding does not use it."""
        return dict(zip(self._strings, range(len(self._strings))))

    @functools.cached_property
    def _pieces(self) -> list[tuple[str, float, int]]:
        """[(piece, score, type), ...] in id order (made when first asked for)."""
        return list(zip(self._strings, self.scores, self.types))

    @property
    def pieces(self) -> list[tuple[str, float]]:
        """[(piece, score), ...] in id order."""
        return list(zip(self._strings, self.scores))

    def describe(self) -> str:
        return f"SentencePiece BPE ({len(self._strings)} pieces)"

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The merges in learned order, recovered from the pieces: each multi-character normal
        piece (in score order, which is the order BPE learned them) is the merge of the two
        symbols the encoder reaches when it may use only the pieces learned before it.

        >>> SentencePieceBpe([("<unk>", 0.0, UNKNOWN), ("a", -2.0, NORMAL), ("b", -3.0, NORMAL),
        ...                   ("ab", -1.0, NORMAL), ("abb", -1.5, NORMAL)]).merges
        [('a', 'b'), ('ab', 'b')]
        """
        if self._merges is None:
            learned = {
                p: i for i, (p, _s, t) in enumerate(self._pieces) if t != NORMAL or len(p) == 1
            }
            order = sorted(
                (i for i, (p, _s, t) in enumerate(self._pieces) if t == NORMAL and len(p) > 1),
                key=lambda i: (-self.scores[i], i),
            )
            out = []
            for i in order:
                piece = self._pieces[i][0]
                spans = self.encode_spans(piece, vocabulary=learned)
                if len(spans) == 2:
                    (s0, e0), (s1, e1) = spans
                    out.append((piece[s0:e0], piece[s1:e1]))
                learned[piece] = i
            self._merges = out
        return list(self._merges)

    @merges.setter
    def merges(self, merges: list[tuple[str, str]]) -> None:
        """A trainer that knows its merges (in learned order) may set them."""
        self._merges = [tuple(m) for m in merges]  # type: ignore[misc]

    def get_vocab_size(self) -> int:
        return len(self._strings)

    def id_to_token(self, id: int) -> str | None:
        return self._strings[id] if 0 <= id < len(self._strings) else None

    def token_to_id(self, token: str) -> int | None:
        if token in self._reserved:
            return self._reserved[token]
        return self._normal.get(token)

    def _piece_id(self, piece: str) -> int:
        """sentencepiece's PieceToId: reserved pieces first, then normal ones, else <unk>."""
        if piece in self._reserved:
            return self._reserved[piece]
        return self._normal.get(piece, self.unk_id)

    def _initial_symbols(self, text: str) -> list[tuple[int, int, bool]]:
        """Split into characters, keeping user-defined symbols whole (and frozen)."""
        out = []
        i = 0
        n = len(text)
        while i < n:
            for sym in self._user:
                if text.startswith(sym, i):
                    out.append((i, i + len(sym), True))
                    i += len(sym)
                    break
            else:
                out.append((i, i + 1, False))
                i += 1
        return out

    def encode_spans(
        self, text: str, *, vocabulary: dict[str, int] | None = None
    ) -> list[tuple[int, int]]:
        """The merged symbols as (start, end) character spans of `text` (merging only into
        pieces of `vocabulary`, by default the model's)."""
        symbols = self._initial_symbols(text)
        n = len(symbols)
        start = [s for s, _e, _f in symbols]
        end = [e for _s, e, _f in symbols]
        frozen = [f for _s, _e, f in symbols]
        prev = list(range(-1, n - 1))
        nxt = list(range(1, n + 1))
        if n:
            nxt[-1] = -1
        alive = [True] * n
        normal = self._normal if vocabulary is None else vocabulary
        scores = self.scores
        agenda: list[tuple[float, int, int, int]] = []

        def add_pair(left: int, right: int) -> None:
            if left == -1 or right == -1 or frozen[left] or frozen[right]:
                return
            pid = normal.get(text[start[left] : end[right]])
            if pid is None:
                return
            # highest score first; among equal scores the leftmost pair
            heapq.heappush(agenda, (-scores[pid], left, right, end[right] - start[left]))

        for k in range(1, n):
            add_pair(k - 1, k)
        while agenda:
            _neg, left, right, size = heapq.heappop(agenda)
            if (
                not alive[left]
                or not alive[right]
                or end[right] - start[left] != size
                or nxt[left] != right
            ):
                continue
            end[left] = end[right]  # merge right into left
            alive[right] = False
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prev[nxt[right]] = left
            add_pair(prev[left], left)
            add_pair(left, nxt[left])
        return [(start[k], end[k]) for k in range(n) if alive[k]]

    def tokenize(self, text: str) -> list[tuple[str, int, int, int]]:
        spans = self.encode_spans(text)
        return finish_tokens(
            text,
            [(s, e, self._piece_id(text[s:e])) for s, e in spans],
            self.unk_id,
            self.byte_fallback,
            self._piece_id,
        )


# ---- sentencepiece's char and word models (no merging) -------------------------------------------


class SentencePieceSplit(SentencePieceBpe):
    """sentencepiece's `char` and `word` models (`char_model.cc`, `word_model.cc`): the
    normalised text is cut, and each cut is its piece or `<unk>`; nothing is merged.

    - "char": one character at a time, a user-defined symbol whole where one starts;
    - "word": words, each starting at a "▁" (so "▁▁a" is the words "▁" and "▁a").

    >>> pieces = [("<unk>", 0.0, UNKNOWN), ("▁a", -1.0, NORMAL), ("b", -1.0, NORMAL)]
    >>> [t for t, *_ in SentencePieceSplit(pieces, kind="word").tokenize("▁a▁ab")]
    ['▁a', '▁ab']
    >>> [(t, i) for t, i, *_ in SentencePieceSplit(pieces, kind="char").tokenize("b▁ab")]
    [('b', 2), ('▁a', 0), ('b', 2)]

    (In the last, "▁" and "a" are each unknown, and consecutive unknowns become one `<unk>`.)
    """

    def __init__(
        self,
        pieces: Sequence[tuple[str, float, int]],
        *,
        kind: str,
        byte_fallback: bool = False,
        columns: Columns | None = None,
        index: PieceIndex | None = None,
    ) -> None:
        if kind not in ("char", "word"):
            raise InvalidInput(f"kind must be 'char' or 'word', not {kind!r}")
        super().__init__(pieces, byte_fallback=byte_fallback, columns=columns, index=index)
        self.kind = kind

    def describe(self) -> str:
        return f"SentencePiece {self.kind} model ({len(self._strings)} pieces)"

    @property
    def merges(self) -> list[tuple[str, str]]:
        return []

    @merges.setter
    def merges(self, merges: list[tuple[str, str]]) -> None:
        raise AttributeError(f"a sentencepiece {self.kind} model merges nothing: no merges to set")

    def encode_spans(
        self, text: str, *, vocabulary: dict[str, int] | None = None
    ) -> list[tuple[int, int]]:
        if self.kind == "char":
            return [(s, e) for s, e, _user in self._initial_symbols(text)]
        return split_into_words(text)


def split_into_words(text: str) -> list[tuple[int, int]]:
    """sentencepiece's SplitIntoWords, as the word model calls it: a new word at the start and
    at every "▁", as spans of `text`.

    >>> split_into_words("▁ab▁▁c")
    [(0, 3), (3, 4), (4, 6)]
    """
    spans: list[tuple[int, int]] = []
    for i, c in enumerate(text):
        if i == 0 or c == SPACE:
            spans.append((i, i + 1))
        else:
            spans[-1] = (spans[-1][0], i + 1)
    return spans

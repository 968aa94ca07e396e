"""Unigram as Hugging Face `tokenizers` (0.23.3, `models/unigram/model.rs`) runs it.

The same Viterbi search as sentencepiece (`unigram.py`: every piece scores its log-probability, a
character no piece covers is an unknown node scoring `min_score - 10`, ties go to the earliest
start), with Hugging Face's differences:

- scores are 64-bit floats, added without rounding to 32 bits;
- every piece is in the search, control and unknown pieces too (a text containing "<unk>" can
  match the piece "<unk>"); `min_score` is the lowest score of all pieces;
- consecutive unknown nodes fuse into one token whose string is the text they cover (not
  "<unk>"); its id is that string's id if it happens to be a piece, else `unk_id`
  (`fuse_unk=False`, Rust's `set_fuse_unk(false)`: each unknown character is its own token);
- with `byte_fallback`, such an unknown string becomes its UTF-8 bytes as `<0xE6>` pieces, each
  covering the whole unknown stretch, when every byte has a piece;
- `unk_id` may be None: the model then fails (ValueError) on text no piece covers.

>>> m = HFUnigram([("<unk>", 0.0), ("a", -1.0), ("b", -1.0), ("ab", -1.5)], unk_id=0)
>>> m.tokenize("abxxa")
[('ab', 3, 0, 2), ('xx', 0, 2, 4), ('a', 1, 4, 5)]
"""

from __future__ import annotations

from typing import Iterator, Sequence

from ...errors import InvalidInput
from ..bpe.hf import byte_piece
from ..columns import TokenColumns
from .model import NORMAL, UNK_PENALTY, Unigram


class HFUnigram(Unigram):
    """A Unigram model with Hugging Face's rules (see the module docstring)."""

    fuse_unk = True  # (models pickled before the option existed fuse)
    float32 = False  # scores are added as 64-bit floats

    def __init__(
        self,
        pieces: Sequence[tuple[str, float]],
        *,
        unk_id: int | None = None,
        byte_fallback: bool = False,
        fuse_unk: bool = True,
    ) -> None:
        pieces = [(str(p), float(s)) for p, s in pieces]
        if unk_id is not None:
            if not pieces:
                raise InvalidInput("the vocabulary is empty but at least <unk> is needed")
            if not 0 <= unk_id < len(pieces):
                raise InvalidInput(
                    f"unk_id {unk_id} is not an index of the vocabulary ({len(pieces)} pieces)"
                )
        self._pieces = pieces
        self.types = [NORMAL] * len(pieces)
        self.unk_id = unk_id
        self.byte_fallback = bool(byte_fallback)
        self.fuse_unk = bool(fuse_unk)
        self.vocab: dict[str, int] = {}
        self._reserved: dict[str, int] = {}
        self.special_tokens = frozenset()
        for i, (piece, _score) in enumerate(pieces):
            self.vocab[piece] = i  # a repeated piece: the last id wins
        scores = [s for _p, s in pieces]
        self.min_score = min(scores) if scores else float("inf")
        self.max_score = max(scores) if scores else 0.0
        self.unk_score = self.min_score - UNK_PENALTY
        self.max_piece_length = max((len(p) for p, _s in pieces), default=1)

    def _trie_items(self) -> Iterator[tuple[str, int | None]]:
        """Every piece with its id, the last id of a repeated piece (as `vocab` holds them)."""
        return iter(self.vocab.items())

    def describe(self) -> str:
        extra = (", byte fallback" if self.byte_fallback else "") + (
            "" if self.fuse_unk else ", unknown characters not fused"
        )
        return f"Unigram ({len(self._pieces):,} pieces{extra})"

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def _piece_id(self, piece: str) -> int:
        pid = self.vocab.get(piece, self.unk_id)
        if pid is None:
            raise InvalidInput(f"{piece!r} is not a piece and this Unigram model has no unk_id")
        return pid

    # ---- encoding ------------------------------------------------------------------------------
    def tokenize(self, text: str) -> list[tuple[str, int, int, int]]:
        """The best segmentation as (token, id, start, end), Hugging Face's `Unigram::tokenize`."""
        out: list[tuple[str, int, int, int]] = []
        for start, end in self._fused(self.encode_spans(text)):
            string = text[start:end]
            pid = self.vocab.get(string)
            if pid is None and self.byte_fallback:
                pieces = [byte_piece(b) for b in string.encode("utf-8", "surrogatepass")]
                known = [(p, i) for p in pieces if (i := self.vocab.get(p)) is not None]
                if len(known) == len(pieces):  # every byte is a piece
                    out.extend((p, i, start, end) for p, i in known)
                    continue
            if pid is None:
                pid = self._piece_id(string)
            out.append((string, pid, start, end))
        return out

    def tokenize_columns(self, text: str) -> TokenColumns:
        """`tokenize`'s tokens as columns (the pipeline reads these)."""
        return TokenColumns.of(self.tokenize(text), len(text))

    def _fused(self, spans: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
        """The path's (start, end) with consecutive unknown nodes joined (fuse_unk)."""
        out: list[tuple[int, int]] = []
        unk_id = self.unk_id if self.fuse_unk else None
        pending = None
        for start, end, pid in spans:
            if unk_id is not None and pid == unk_id:
                pending = (pending[0], end) if pending else (start, end)
                continue
            if pending:
                out.append(pending)
                pending = None
            out.append((start, end))
        if pending:
            out.append(pending)
        return out

    # ---- the lattice view ----------------------------------------------------------------------
    def pieces_at(self, text: str, i: int) -> list[tuple[int, int, float]]:
        out = [entry for entry in Unigram.pieces_at(self, text, i) if entry[1] is not None]
        return out

"""The two shapes of a student's tokenizer, as the courses define them, and the reference model
of each (`reference.py` trains it).

- ``minbpe`` (karpathy/minbpe): a class, `Class()`, with `train(text, vocab_size,
  verbose=False)`, `encode(text)`, `decode(ids)`, `merges: {(a, b): id}` and `vocab: {id:
  bytes}`; a RegexTokenizer also has `register_special_tokens({str: id})` and
  `encode(text, allowed_special="all")`. BasicTokenizer reads the text as one sequence,
  RegexTokenizer splits it with GPT-4's pattern (which one: the class's name says "Basic" or
  not). Bytes are ids 0-255, merge i is id 256 + i, so vocab_size = 256 + merges; special tokens
  get ids from vocab_size on. Compared as dicts. Ties: minbpe's own (the pair seen first).
- ``cs336`` (Stanford CS336 assignment 1, `adapters.py` in its tests folder):
  `run_train_bpe(input_path, vocab_size, special_tokens) -> (vocab: dict[int, bytes], merges:
  list[tuple[bytes, bytes]])` and `get_tokenizer(vocab, merges, special_tokens)` with `encode`,
  `decode` and `encode_iterable`. The text is cut at the special tokens (no merge crosses one),
  then split with GPT-2's pattern; the vocabulary is the special tokens, the 256 bytes, then the
  merges, so vocab_size = specials + 256 + merges. Compared as CS336 compares: the merges in
  order, the vocabulary's keys and values as sets. Ties: the lexicographically greater pair of
  bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .reference import (
    ReferenceBpe,
    encode_bytes,
    encode_ids,
    pretokenize,
    split_specials,
    train_reference,
    word_table,
)

SHAPES = ("minbpe", "cs336")
DEFAULT_TIES = {"minbpe": "minbpe", "cs336": "cs336"}


@dataclass(frozen=True)
class Model:
    """A trained reference in the shape's own terms: `vocab` {id: bytes}; `merges` as the
    shape lists them (minbpe: [(a, b, id)], CS336: [(bytes, bytes)]); `pairs` the merges as
    byte strings, in order; `counts` each merge's count."""

    vocab: dict[int, bytes]
    merges: list[Any]
    pairs: list[tuple[bytes, bytes]]
    counts: list[int]
    specials: dict[str, int]

    def child_model(self) -> dict[str, Any]:
        """The model as the child gets it (bytes as hex)."""
        merges = (
            [[a.hex(), b.hex()] for a, b in self.merges]
            if self.merges and isinstance(self.merges[0][0], bytes)
            else [list(m) for m in self.merges]
        )
        return {"vocab": {str(i): v.hex() for i, v in self.vocab.items()}, "merges": merges}


@dataclass(frozen=True)
class Shape:
    """A course's conventions: how the corpus is read (`words`), how many merges a vocab_size
    means, and the ids of the vocabulary."""

    name: str
    words: str  # reference.pretokenize's name: basic, gpt4, gpt2
    specials: tuple[str, ...]

    @property
    def default_ties(self) -> str:
        return DEFAULT_TIES[self.name]

    def n_merges(self, vocab_size: int) -> int:
        if self.name == "minbpe":
            return vocab_size - 256
        return vocab_size - 256 - len(self.specials)

    def table(self, text: str, words: str | None = None) -> list:
        return word_table(pretokenize(text, words or self.words, self.specials))

    def train(self, text: str, vocab_size: int, ties: str) -> tuple[ReferenceBpe, Model]:
        trainer = train_reference(self.table(text), self.n_merges(vocab_size), ties=ties)
        return trainer, self.model(trainer)

    def model(self, trainer: ReferenceBpe) -> Model:
        pairs = [(trainer.vocab[a], trainer.vocab[b]) for a, b in trainer.merges]
        counts = [n for _p, n in trainer.steps]
        if self.name == "minbpe":
            vocab = {i: trainer.vocab[i] for i in range(256 + len(trainer.steps))}
            merges: list[Any] = [(a, b, 256 + i) for i, (a, b) in enumerate(trainer.merges)]
            return Model(vocab, merges, pairs, counts, {})
        s = len(self.specials)
        vocab = {i: tok.encode("utf-8") for i, tok in enumerate(self.specials)}
        for i in range(256 + len(trainer.steps)):
            vocab[s + i] = trainer.vocab[i]
        return Model(vocab, list(pairs), pairs, counts, {t: i for i, t in enumerate(self.specials)})

    # ---- the reference's encoding ------------------------------------------------------
    def encode(
        self,
        model: Model,
        text: str,
        specials: Sequence[str] = (),
        *,
        words: str | None = None,
        split: bool = True,
        longest_first: bool | None = None,
    ) -> list[int]:
        """The reference's ids for `text` with the model and these special tokens (their ids:
        `with_specials`). `words`, `split` and `longest_first` switch the pre-tokenisation to
        a student's mistake's (the checks name the mistake whose ids equal theirs)."""
        words = words or self.words
        if longest_first is None:
            longest_first = self.name == "cs336"
        ids_of = self.special_ids(model, specials)
        parts = split_specials(text, list(specials) if split else [], longest_first=longest_first)
        out: list[int] = []
        if self.name == "minbpe":
            merges = {(a, b): i for a, b, i in model.merges}
            for part, special in parts:
                if special:
                    out.append(ids_of[part])
                    continue
                for piece in pretokenize(part, words):
                    out += encode_ids(list(piece), merges)
            return out
        ranks = {pair: r for r, pair in enumerate(model.pairs)}
        inverse: dict[bytes, int] = {}
        for i, tok in model.vocab.items():
            inverse.setdefault(tok, i)
        cache: dict[bytes, list[int]] = {}
        for part, special in parts:
            if special:
                out.append(ids_of[part])
                continue
            for piece in pretokenize(part, "gpt2_across" if words == "gpt2" else words):
                ids = cache.get(piece)
                if ids is None:
                    ids = cache[piece] = [inverse[t] for t in encode_bytes(piece, ranks)]
                out += ids
        return out

    def special_ids(self, model: Model, specials: Sequence[str]) -> dict[str, int]:
        """The ids of these special tokens: the trained vocabulary's own (CS336), else the
        next free ids in order (minbpe's `register_special_tokens` takes ids from vocab_size on;
        a CS336 tokenizer appends the ones its vocabulary lacks)."""
        out: dict[str, int] = {}
        inverse = {v: i for i, v in model.vocab.items()} if self.name == "cs336" else {}
        nxt = max(model.vocab) + 1
        for s in specials:
            b = s.encode("utf-8")
            if b in inverse:
                out[s] = inverse[b]
            else:
                out[s] = nxt
                nxt += 1
        return out

    def with_specials(self, model: Model, specials: Sequence[str]) -> dict[str, Any]:
        """The child's model with these special tokens: (minbpe) the dict to register; (CS336)
        the vocabulary holding them, so the ids are not the student's to choose."""
        child = model.child_model()
        ids = self.special_ids(model, specials)
        if self.name == "cs336":
            for s, i in ids.items():
                child["vocab"][str(i)] = s.encode("utf-8").hex()
        return {"model": child, "specials": ids if self.name == "minbpe" else list(specials)}

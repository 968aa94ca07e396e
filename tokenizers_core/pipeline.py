"""`Tokenizer`: normalizer -> pre_tokenizer -> model -> post_processor (+ decoder).

The four stages are separate objects, named as in Hugging Face `tokenizers`:

- a normalizer has `normalize(NormalizedString) -> NormalizedString`;
- a pre-tokenizer has `split(NormalizedString) -> list[NormalizedString]` (the pieces, each still
  aligned to the original text);
- a model has `tokenize(piece) -> [(token, id, start, end), ...]` (see `models/__init__.py`);
- a post-processor has `process(tokens, pair_tokens) -> (tokens, type_ids)` over `Token` lists;
- a decoder has `decode(tokens: list[str]) -> str`.

`Tokenizer.encode` runs them in order. `Tokenizer.trace` runs the same code and also records one
step per stage (what went in, what came out, with offsets), which the visualiser's pipeline panel
renders.

Added tokens (optional, `Tokenizer(..., added_tokens=["[CLS]", ...])`) come first, as Hugging
Face's `AddedVocabulary` does for special tokens: the ORIGINAL text is split on them (leftmost
match, the longest one where several start at the same place, case-sensitive), each match becomes
one token with its vocabulary id, and only the text between the matches is normalised,
pre-tokenised and tokenised (each stretch on its own). A matched token counts as a word of its own
(its word id is its place among the pieces) and is not marked special in the encoding (Hugging
Face marks only the post-processor's tokens). In the trace, the normalize step's output keeps the
matched tokens as typed, and the pre_tokenize step lists each of them as a piece.

>>> from tokenizers_core.models.wordpiece import WordPiece
>>> tok = Tokenizer(WordPiece({"[UNK]": 0, "[MASK]": 1, "a": 2}), added_tokens=["[MASK]"])
>>> enc = tok.encode("a[MASK]a")
>>> enc.tokens, enc.offsets, enc.word_ids
(['a', '[MASK]', 'a'], [(0, 1), (1, 7), (7, 8)], [0, 1, 2])
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Protocol

from .added_tokens import AddedToken
from .encoding import Encoding, Token
from .models import Model
from .normalized import NormalizedString
from .steps import Step, Trace, register_step


class Normalizer(Protocol):
    def normalize(self, text: NormalizedString) -> NormalizedString: ...


class PreTokenizer(Protocol):
    def split(self, text: NormalizedString) -> list[NormalizedString]: ...


class PostProcessor(Protocol):
    def process(self, tokens: list[Token],
                pair: list[Token] | None) -> tuple[list[Token], list[int]]: ...


class Decoder(Protocol):
    def decode(self, tokens: list[str]) -> str: ...


# ---- the pipeline's own steps -------------------------------------------------------------
@register_step
@dataclass(frozen=True)
class NormalizeStep(Step):
    """Stage 1: the text before and after normalisation, and each output character's
    span in the original text."""

    kind: ClassVar[str] = "normalize"
    input: str
    output: str
    alignments: tuple[tuple[int, int], ...]
    normalizer: str


@register_step
@dataclass(frozen=True)
class PreTokenizeStep(Step):
    """Stage 2: the pieces as `(text, start, end)`, offsets in the original text."""

    kind: ClassVar[str] = "pre_tokenize"
    pieces: tuple[tuple[str, int, int], ...]
    pre_tokenizer: str


@register_step
@dataclass(frozen=True)
class ModelStep(Step):
    """Stage 3: the model's tokens as `(token, id, start, end, word_id)`."""

    kind: ClassVar[str] = "model"
    tokens: tuple[tuple[str, int, int, int, int], ...]
    model: str


@register_step
@dataclass(frozen=True)
class PostProcessStep(Step):
    """Stage 4: the final tokens as `(token, id, start, end, special)`."""

    kind: ClassVar[str] = "post_process"
    tokens: tuple[tuple[str, int, int, int, bool], ...]
    processor: str


def describe(component: Any) -> str:
    """A short human name for a pipeline component ("none" for a missing one)."""
    if component is None:
        return "none"
    describe_fn = getattr(component, "describe", None)
    if callable(describe_fn):
        return describe_fn()
    return type(component).__name__


class Tokenizer:
    """A complete tokeniser. `name` and `algorithm` label it in views and in the API."""

    def __init__(self, model: Model, *, normalizer: Normalizer | None = None,
                 pre_tokenizer: PreTokenizer | None = None,
                 post_processor: PostProcessor | None = None,
                 decoder: Decoder | None = None, name: str = "", algorithm: str = "",
                 added_tokens: Iterable[str | AddedToken] = (),
                 truncation: dict | None = None, padding: dict | None = None) -> None:
        self.model = model
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.post_processor = post_processor
        self.decoder = decoder
        self.name = name
        self.algorithm = algorithm
        # Stage 0 (see the module docstring): the tokens matched whole in the original text.
        self.truncation = truncation
        self.padding = padding
        self.added_tokens: tuple[str, ...] = tuple(dict.fromkeys(
            t.content if isinstance(t, AddedToken) else t for t in added_tokens))
        self._added_ids = _added_ids(model, self.added_tokens)
        self._added_re = _added_pattern(self.added_tokens)

    # ---- encoding -----------------------------------------------------------------------
    def encode(self, text: str, pair: str | None = None, *,
               add_special_tokens: bool = True) -> Encoding:
        """Tokenise `text` (and optionally a second sequence `pair`)."""
        return self._run(text, pair, add_special_tokens, None)

    def trace(self, text: str, pair: str | None = None, *,
              add_special_tokens: bool = True) -> tuple[Encoding, Trace]:
        """Like `encode`, and also the pipeline's steps (one per stage and sequence)."""
        trace = Trace()
        return self._run(text, pair, add_special_tokens, trace), trace

    def _run(self, text: str, pair: str | None, add_special_tokens: bool,
             trace: Trace | None) -> Encoding:
        if not isinstance(text, str) or (pair is not None and not isinstance(pair, str)):
            raise ValueError("text to encode must be a string")
        first = self._tokens(text, trace)
        second = self._tokens(pair, trace) if pair is not None else None
        local_ids: dict[str, int] = {}
        first = _fill_local_ids(first, local_ids)
        if second is not None:
            second = _fill_local_ids(second, local_ids)
        if self.post_processor is not None and add_special_tokens:
            tokens, type_ids = self.post_processor.process(first, second)
        else:
            tokens = first + (second or [])
            type_ids = [0] * len(first) + [1] * len(second or [])
        if trace is not None:
            trace.append(PostProcessStep(
                tokens=tuple((t.value, t.id, t.offsets[0], t.offsets[1], t.special)
                             for t in tokens),
                processor=describe(self.post_processor if add_special_tokens else None)))
        enc = Encoding.from_tokens(tokens)
        enc.type_ids = list(type_ids)
        return enc

    def normalize(self, text: str) -> NormalizedString:
        """The whole text through the normaliser (added tokens are not looked for here)."""
        return self._normalize(NormalizedString(text))

    def pre_tokenize(self, text: str) -> list[NormalizedString]:
        """Split on added tokens, normalise and split: the pieces, aligned to `text` (an added
        token is one piece, as typed)."""
        return self._pre_tokenized(text, None)[0]

    def _split_added(self, text: str) -> list[tuple[NormalizedString, bool]]:
        """Stage 0: `text` cut at the added tokens, as `(segment, is an added token)`; the
        whole text as one segment when there are none. Segments keep their place in `text`."""
        whole = NormalizedString(text)
        if self._added_re is None:
            return [(whole, False)]
        segments: list[tuple[NormalizedString, bool]] = []
        pos = 0
        for match in self._added_re.finditer(text):
            if match.start() > pos:
                segments.append((whole.slice(pos, match.start()), False))
            segments.append((whole.slice(match.start(), match.end()), True))
            pos = match.end()
        if pos < len(text) or not segments:
            segments.append((whole.slice(pos, len(text)), False))
        return segments

    def _pre_tokenized(self, text: str,
                       trace: Trace | None) -> tuple[list[NormalizedString], set[int]]:
        """Stages 0-2: the pieces the model will see, and the indices of those that are added
        tokens (already whole tokens, which neither normaliser nor pre-tokeniser touches)."""
        segments = [(seg if added else self._normalize(seg), added)
                    for seg, added in self._split_added(text)]
        if trace is not None:
            trace.append(NormalizeStep(
                input=text, output="".join(seg.normalized for seg, _ in segments),
                alignments=tuple(a for seg, _ in segments for a in seg.alignments),
                normalizer=describe(self.normalizer)))
        pieces: list[NormalizedString] = []
        added_at: set[int] = set()
        for seg, added in segments:
            if added:
                added_at.add(len(pieces))
                pieces.append(seg)
            elif self.pre_tokenizer is None:
                pieces.extend([seg] if len(seg) else [])
            else:
                pieces.extend(self.pre_tokenizer.split(seg))
        if trace is not None:
            trace.append(PreTokenizeStep(
                pieces=tuple((p.normalized, *p.span(0, len(p))) for p in pieces),
                pre_tokenizer=describe(self.pre_tokenizer)))
        return pieces, added_at

    def _normalize(self, ns: NormalizedString) -> NormalizedString:
        return self.normalizer.normalize(ns) if self.normalizer is not None else ns

    def _tokens(self, text: str, trace: Trace | None) -> list[Token]:
        pieces, added_at = self._pre_tokenized(text, trace)
        tokens: list[Token] = []
        for word_id, piece in enumerate(pieces):
            if word_id in added_at:
                tokens.append(Token(self._added_ids[piece.normalized], piece.normalized,
                                    piece.span(0, len(piece)), word_id))
                continue
            for value, id_, start, end in self.model.tokenize(piece.normalized):
                # The model reports positions in the piece; the piece maps them to the
                # original text, through every normalisation and pre-tokenisation change.
                tokens.append(Token(id_, value, piece.span(start, end), word_id))
        if trace is not None:
            trace.append(ModelStep(
                tokens=tuple((t.value, t.id, t.offsets[0], t.offsets[1], t.word_id)
                             for t in tokens),
                model=describe(self.model)))
        return tokens

    def nbest(self, text: str, k: int) -> list[tuple[list[str], float]]:
        """Unigram models: the k best segmentations of `text` as (tokens, score), best first."""
        fn = getattr(self.model, "nbest", None)
        if fn is None:
            raise ValueError(f"{self.name or 'this tokeniser'} is not a Unigram model; "
                             "n-best segmentations need one")
        return fn(self.normalize(text).normalized, k)

    # ---- decoding -----------------------------------------------------------------------
    def decode(self, ids: list[int], *, skip_special_tokens: bool = True) -> str:
        """Turn ids back into text (the decoder joins the tokens)."""
        tokens: list[str] = []
        for i in ids:
            tok = self.model.id_to_token(i) if isinstance(i, int) else None
            if tok is None:
                raise ValueError(f"id {i!r} is not in the vocabulary of {self.name or 'this tokeniser'}")
            if skip_special_tokens and self.is_special(tok):
                continue
            tokens.append(tok)
        if self.decoder is not None:
            return self.decoder.decode(tokens)
        return "".join(tokens)

    def is_special(self, token: str) -> bool:
        special = getattr(self.model, "special_tokens", None) or ()
        return token in special

    # ---- information --------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        return self.model.get_vocab_size()

    def info(self) -> dict[str, Any]:
        """What `/api/tokenizers` lists about this tokeniser."""
        return {
            "name": self.name,
            "algorithm": self.algorithm,
            "vocab_size": self.vocab_size,
            "normalizer": describe(self.normalizer),
            "pre_tokenizer": describe(self.pre_tokenizer),
            "model": describe(self.model),
            "post_processor": describe(self.post_processor),
        }


def _fill_local_ids(tokens: list[Token], local_ids: dict[str, int]) -> list[Token]:
    """Give tokens without a vocabulary id (rule tokenisers) an id by first appearance."""
    if all(t.id is not None for t in tokens):
        return tokens
    out = []
    for t in tokens:
        if t.id is None:
            t = Token(local_ids.setdefault(t.value, len(local_ids)), t.value, t.offsets,
                      t.word_id, t.special)
        out.append(t)
    return out


def _added_ids(model: Model, added_tokens: tuple[str, ...]) -> dict[str, int]:
    """Each added token's id in the model's vocabulary (ValueError for one it lacks)."""
    ids: dict[str, int] = {}
    for token in added_tokens:
        id_ = model.token_to_id(token) if isinstance(token, str) and token else None
        if id_ is None:
            raise ValueError(f"added token {token!r} must be a non-empty string in the "
                             "vocabulary")
        ids[token] = id_
    return ids


def _added_pattern(added_tokens: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex for all added tokens, longest first: a regex tries alternatives in order at
    each position, so this finds the leftmost match and, of those starting there, the longest
    (Hugging Face's leftmost-longest Aho-Corasick search).

    >>> _added_pattern(("[M]", "[MASK]")).findall("x[MASK][M]")
    ['[MASK]', '[M]']
    """
    if not added_tokens:
        return None
    return re.compile("|".join(re.escape(t) for t in sorted(added_tokens, key=len, reverse=True)))

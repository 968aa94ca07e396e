"""`Tokenizer`: normalizer -> pre_tokenizer -> model -> post_processor (+ decoder).

The four stages are separate objects, named as in Hugging Face `tokenizers`:

- a normalizer has `normalize(NormalizedString) -> NormalizedString`;
- a pre-tokenizer has `split(NormalizedString) -> list[NormalizedString]` (the pieces, each still
  aligned to the original text);
- a model has `tokenize(piece) -> [(token, id, start, end), ...]` (see `models/__init__.py`);
- a post-processor has `process_encodings([encoding, pair?], add_special_tokens) -> encodings`
  and `added_tokens(is_pair)` (see `processors.py`; one with only `process(tokens, pair) ->
  (tokens, type_ids)` over `Token` lists also works);
- a decoder has `decode(tokens: list[str]) -> str`.

`Tokenizer.encode` runs them in order. `Tokenizer.trace` runs the same code and also records one
step per stage (what went in, what came out, with offsets), which the visualiser's pipeline panel
renders.

Added tokens (optional, `Tokenizer(..., added_tokens=["[CLS]", AddedToken("<mask>", lstrip=True),
...])`) come first, as Hugging Face's `AddedVocabulary` matches them (see `added_tokens.py`): tokens
with normalized=False cut the ORIGINAL text, each stretch between them is normalised, and tokens
with normalized=True cut the normalised text; each match becomes one token (a word of its own),
and only the rest is pre-tokenised and tokenised. Then, as Hugging Face's `post_process`:
truncation (`truncation.py`; what it cuts off is kept as `Encoding.overflowing`), the
post-processor (`processors.py`) and padding.

The trace has one step per stage, one per member of a Sequence normaliser or pre-tokeniser
(Prepend, then Replace, ...), and "truncate" and "pad" steps when the tokenizer has those settings.

>>> from tokenizers_core.models.wordpiece import WordPiece
>>> tok = Tokenizer(WordPiece({"[UNK]": 0, "[MASK]": 1, "a": 2}), added_tokens=["[MASK]"])
>>> enc = tok.encode("a[MASK]a")
>>> enc.tokens, enc.offsets, enc.word_ids
(['a', '[MASK]', 'a'], [(0, 1), (1, 7), (7, 8)], [0, 1, 2])
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Protocol

from . import processors
from .added_tokens import AddedToken, AddedVocabulary
from .encoding import Encoding, Token
from .models import Model
from .normalized import NormalizedString
from .steps import Step, Trace, register_step
from .truncation import PaddingParams, TruncationParams, pad, truncate_encodings

__all__ = ["AddedToken", "Tokenizer", "NormalizeStep", "PreTokenizeStep", "ModelStep",
           "TruncateStep", "PostProcessStep", "PadStep", "describe"]


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


@register_step
@dataclass(frozen=True)
class TruncateStep(Step):
    """Before stage 4: each sequence cut to fit `max_length` (`room` of it is left for the
    model's tokens, the rest for the post-processor's special tokens). `lengths` and `kept` are
    the sequences' lengths before and after; `overflowing` the tokens of the windows cut off."""

    kind: ClassVar[str] = "truncate"
    max_length: int
    room: int
    stride: int
    strategy: str
    direction: str
    lengths: tuple[int, ...]
    kept: tuple[int, ...]
    overflowing: tuple[tuple[tuple[str, ...], ...], ...]


@register_step
@dataclass(frozen=True)
class PadStep(Step):
    """After stage 4: `added` copies of `pad_token` put on the `direction` side, up to `length`."""

    kind: ClassVar[str] = "pad"
    length: int
    direction: str
    pad_token: str
    pad_id: int
    added: int


def describe(component: Any) -> str:
    """A short human name for a pipeline component ("none" for a missing one)."""
    if component is None:
        return "none"
    describe_fn = getattr(component, "describe", None)
    if callable(describe_fn):
        return describe_fn()
    return type(component).__name__


class Tokenizer:
    """A complete tokeniser. `name` and `algorithm` label it in views and in the API.

    `added_tokens`: plain strings are matched as typed and are special (what BERT's special
    tokens are in Hugging Face: normalized, lstrip, rstrip and single_word all false); each must
    be in the model's vocabulary. An `AddedToken` carries its own flags and id (None: the
    model's id for it, or the next id after the vocabulary). `truncation` and `padding` are the
    sections of a tokenizer.json (dicts, or None); see `truncation.py`.
    """

    def __init__(self, model: Model, *, normalizer: Normalizer | None = None,
                 pre_tokenizer: PreTokenizer | None = None,
                 post_processor: PostProcessor | None = None,
                 decoder: Decoder | None = None, name: str = "", algorithm: str = "",
                 added_tokens: Iterable[str | AddedToken] = (),
                 truncation: dict | TruncationParams | None = None,
                 padding: dict | PaddingParams | None = None) -> None:
        self.model = model
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.post_processor = post_processor
        self.decoder = decoder
        self.name = name
        self.algorithm = algorithm
        # Stage 0 (see the module docstring): the tokens matched whole before the model.
        self.added_tokens: tuple[AddedToken, ...] = _resolve_added(model, added_tokens)
        self.added_vocabulary = AddedVocabulary(self.added_tokens, self._normalize_str)
        self.truncation = (truncation if isinstance(truncation, TruncationParams)
                           else TruncationParams.from_hf_config(truncation))
        self.padding = (padding if isinstance(padding, PaddingParams)
                        else PaddingParams.from_hf_config(padding))
        if self.truncation is not None:
            room = self.truncation.max_length - self._n_added(False)
            if room < self.truncation.stride:
                raise ValueError(f"truncation stride ({self.truncation.stride}) must be at most "
                                 f"max_length ({self.truncation.max_length}) minus the "
                                 f"{self._n_added(False)} special tokens the post-processor adds")

    # ---- encoding -----------------------------------------------------------------------
    def encode(self, text: str, pair: str | None = None, *,
               add_special_tokens: bool = True) -> Encoding:
        """Tokenise `text` (and optionally a second sequence `pair`)."""
        return self._run(text, pair, add_special_tokens, None)

    def trace(self, text: str, pair: str | None = None, *,
              add_special_tokens: bool = True) -> tuple[Encoding, Trace]:
        """Like `encode`, and also the pipeline's steps (one per stage and sequence, and one per
        member of a Sequence normaliser or pre-tokeniser)."""
        trace = Trace()
        return self._run(text, pair, add_special_tokens, trace), trace

    def _run(self, text: str, pair: str | None, add_special_tokens: bool,
             trace: Trace | None) -> Encoding:
        """Hugging Face's `encode`: each sequence through stages 0-3, then truncation, the
        post-processor and padding (`Tokenizer::post_process`)."""
        if not isinstance(text, str) or (pair is not None and not isinstance(pair, str)):
            raise ValueError("text to encode must be a string")
        local_ids: dict[str, int] = {}
        first = Encoding.from_tokens(_fill_local_ids(self._tokens(text, trace), local_ids), 0)
        second = None
        if pair is not None:
            second = Encoding.from_tokens(_fill_local_ids(self._tokens(pair, trace), local_ids), 1)
        if self.truncation is not None:
            self._truncate(first, second, add_special_tokens, trace)
        processor = self.post_processor
        enc = processors.post_process(processor, first, second, add_special_tokens)
        if trace is not None:
            trace.append(PostProcessStep(
                tokens=tuple((t.value, t.id, t.offsets[0], t.offsets[1], t.special)
                             for t in enc.token_list()),
                processor=describe(processor if add_special_tokens else None)))
        if self.padding is not None:
            self._pad(enc, trace)
        return enc

    def _n_added(self, is_pair: bool) -> int:
        """How many tokens the post-processor adds (truncation leaves room for them)."""
        counter = getattr(self.post_processor, "added_tokens", None)
        return counter(is_pair) if callable(counter) else 0

    def _truncate(self, first: Encoding, second: Encoding | None, add_special_tokens: bool,
                  trace: Trace | None) -> None:
        params = self.truncation
        assert params is not None
        added = self._n_added(second is not None) if add_special_tokens else 0
        if added:
            if params.max_length < added:
                raise ValueError(f"truncation max_length ({params.max_length}) is shorter than "
                                 f"the {added} special tokens the post-processor adds")
            params = dataclasses.replace(params, max_length=params.max_length - added)
        before = tuple(len(e) for e in (first, second) if e is not None)
        truncate_encodings(first, second, params)
        if trace is not None:
            kept = [e for e in (first, second) if e is not None]
            trace.append(TruncateStep(
                max_length=self.truncation.max_length, room=params.max_length,  # type: ignore[union-attr]
                stride=params.stride, strategy=params.strategy, direction=params.direction,
                lengths=before, kept=tuple(len(e) for e in kept),
                overflowing=tuple(tuple(tuple(o.tokens) for o in e.overflowing) for e in kept)))

    def _pad(self, enc: Encoding, trace: Trace | None) -> None:
        params = self.padding
        assert params is not None
        before = len(enc)
        target = params.target(before)
        pad(enc, target, params)
        if trace is not None:
            trace.append(PadStep(length=target, direction=params.direction,
                                 pad_token=params.pad_token, pad_id=params.pad_id,
                                 added=len(enc) - before))

    def normalize(self, text: str) -> NormalizedString:
        """The whole text through the normaliser (added tokens are not looked for here)."""
        return self._normalize(NormalizedString(text))

    def pre_tokenize(self, text: str) -> list[NormalizedString]:
        """Split on added tokens, normalise and split: the pieces, aligned to `text` (an added
        token is one piece, its matched text)."""
        return [piece for piece, _ in self._pre_tokenized(text, None)]

    def _segments(self, text: str, trace: Trace | None) -> list[tuple[NormalizedString, int | None]]:
        """Stages 0-1: `text` cut at the added tokens and normalised, as (segment, added id or
        None), in the two passes of Hugging Face's `extract_and_normalize`: tokens with
        normalized=False cut the original text; each stretch between them is normalised (one
        member of a Sequence at a time, each a step of the trace), then cut at the tokens with
        normalized=True."""
        segments = self.added_vocabulary.split_original(NormalizedString(text))
        if trace is not None and not segments:
            segments = [(NormalizedString(text), None)]      # "" still gets its steps
        members = _members(self.normalizer, "normalizers") if trace is not None else (
            [self.normalizer] if self.normalizer is not None else [])
        for member in members:
            segments = [(seg if added is not None else member.normalize(seg), added)
                        for seg, added in segments]
            if trace is not None:
                trace.append(_normalize_step(text, segments, describe(member)))
        if trace is not None and not members:
            trace.append(_normalize_step(text, segments, describe(None)))
        if not self.added_vocabulary.has_normalized:
            return [(seg, added) for seg, added in segments if added is not None or len(seg)]
        return [part for seg, added in segments
                for part in ([(seg, added)] if added is not None
                             else self.added_vocabulary.split_normalized(seg))]

    def _pre_tokenized(self, text: str, trace: Trace | None
                       ) -> list[tuple[NormalizedString, int | None]]:
        """Stages 0-2: the pieces the model will see, each with its added-token id (an added
        token is already a whole token, which the pre-tokeniser does not touch) or None."""
        pieces = self._segments(text, trace)
        members = _members(self.pre_tokenizer, "pre_tokenizers") if trace is not None else (
            [self.pre_tokenizer] if self.pre_tokenizer is not None else [])
        for member in members:
            pieces = [(part, None) if added is None else (piece, added)
                      for piece, added in pieces
                      for part in (member.split(piece) if added is None else [piece])]
            if trace is not None:
                trace.append(_pre_tokenize_step(pieces, describe(member)))
        if not members:
            pieces = [(piece, added) for piece, added in pieces if added is not None or len(piece)]
            if trace is not None:
                trace.append(_pre_tokenize_step(pieces, describe(None)))
        return pieces

    def _normalize(self, ns: NormalizedString) -> NormalizedString:
        return self.normalizer.normalize(ns) if self.normalizer is not None else ns

    def _normalize_str(self, text: str) -> str:
        return self._normalize(NormalizedString(text)).normalized

    def _tokens(self, text: str, trace: Trace | None) -> list[Token]:
        tokens: list[Token] = []
        for word_id, (piece, added) in enumerate(self._pre_tokenized(text, trace)):
            if added is not None:
                # An added token: its matched text (with any stripped spaces), as one token.
                tokens.append(Token(added, piece.normalized, piece.span(0, len(piece)), word_id))
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

    # ---- vocabulary and decoding ----------------------------------------------------------
    def id_to_token(self, id_: int) -> str | None:
        """The token of an id: an added token's (normalised) content, else the model's."""
        token = self.added_vocabulary.id_to_token(id_)
        return token if token is not None else self.model.id_to_token(id_)

    def token_to_id(self, token: str) -> int | None:
        id_ = self.added_vocabulary.ids.get(token)
        return id_ if id_ is not None else self.model.token_to_id(token)

    def decode(self, ids: list[int], *, skip_special_tokens: bool = False) -> str:
        """Turn ids back into text (the decoder joins the tokens). Special tokens are kept
        unless `skip_special_tokens` (as Hugging Face's and tiktoken's decode); an id outside
        the vocabulary is a ValueError (Hugging Face drops it silently)."""
        tokens: list[str] = []
        for i in ids:
            tok = self.id_to_token(i) if isinstance(i, int) and not isinstance(i, bool) else None
            if tok is None:
                raise ValueError(f"id {i!r} is not in the vocabulary of {self.name or 'this tokeniser'}")
            if skip_special_tokens and self.is_special(tok):
                continue
            tokens.append(tok)
        if self.decoder is not None:
            return self.decoder.decode(tokens)
        return "".join(tokens)

    def is_special(self, token: str) -> bool:
        """A special added token (the model's own special tokens when there are no added
        tokens, e.g. tiktoken's and sentencepiece's)."""
        if self.added_tokens:
            return token in self.added_vocabulary.special
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


def _members(component: Any, attribute: str) -> list[Any]:
    """The stages a component runs: the members of a Sequence (nested ones flattened), else
    the component itself; none for a missing one."""
    if component is None:
        return []
    inner = getattr(component, attribute, None)
    if type(component).__name__ == "Sequence" and isinstance(inner, (list, tuple)):
        return [m for member in inner for m in _members(member, attribute)]
    return [component]


def _normalize_step(text: str, segments: list[tuple[NormalizedString, int | None]],
                    name: str) -> "NormalizeStep":
    return NormalizeStep(input=text, output="".join(seg.normalized for seg, _ in segments),
                         alignments=tuple(a for seg, _ in segments for a in seg.alignments),
                         normalizer=name)


def _pre_tokenize_step(pieces: list[tuple[NormalizedString, int | None]],
                       name: str) -> "PreTokenizeStep":
    return PreTokenizeStep(pieces=tuple((p.normalized, *p.span(0, len(p))) for p, _ in pieces),
                           pre_tokenizer=name)


def _resolve_added(model: Model, entries: Iterable[str | AddedToken]) -> tuple[AddedToken, ...]:
    """Each added token with its id: a plain string is a special token matched as typed and
    must be in the vocabulary; an `AddedToken` without an id takes the id of an earlier entry
    or of the model for the same string, or the next free id (Hugging Face's `add_tokens`)."""
    if isinstance(entries, (str, AddedToken)):
        raise ValueError("added_tokens must be a list of strings or AddedTokens")
    out: dict[str, AddedToken] = {}
    size = model.get_vocab_size()
    next_id: int | None = None
    for entry in entries:
        if isinstance(entry, str):
            id_ = model.token_to_id(entry) if entry else None
            if id_ is None:
                raise ValueError(f"added token {entry!r} must be a non-empty string in the "
                                 "vocabulary")
            token = AddedToken(entry, id=id_, special=True, normalized=False)
        elif isinstance(entry, AddedToken):
            token = entry
            if token.id is None:
                id_ = out[token.content].id if token.content in out else \
                    model.token_to_id(token.content)
                if id_ is None:
                    if next_id is None:
                        top = max((t.id for t in out.values()), default=None)
                        next_id = top + 1 if top is not None and (top >= size or size == 0) \
                            else size
                    id_, next_id = next_id, next_id + 1
                token = dataclasses.replace(token, id=id_)
        else:
            raise ValueError(f"added token {entry!r} must be a string or an AddedToken")
        out.pop(token.content, None)
        out[token.content] = token
    return tuple(out.values())


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



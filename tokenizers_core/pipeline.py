"""`Tokenizer`: normalizer -> pre_tokenizer -> model -> post_processor (+ decoder).

The four stages are separate objects, named as in Hugging Face `tokenizers`:

- a normalizer has `normalize(NormalizedString) -> NormalizedString`;
- a pre-tokenizer has `split(NormalizedString) -> list[NormalizedString]` (the pieces, each still
  aligned to the original text);
- a model has `tokenize(piece) -> [(token, id, start, end), ...]` (see `models/__init__.py`);
- a post-processor has `process_encodings([encoding, pair?], add_special_tokens) -> encodings`
  and `added_tokens(is_pair)` (see `processors/`; one with only `process(tokens, pair) ->
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
truncation (`processors/truncation.py`; what it cuts off is kept as `Encoding.overflowing`), the
post-processor (`processors/`) and padding (`processors/stage.py` runs the three).

The trace has one step per stage, one per member of a Sequence normaliser or pre-tokeniser
(Prepend, then Replace, ...), and "truncate" and "pad" steps when the tokenizer has those settings.

>>> from tokenizers_core.models.wordpiece.model import WordPiece
>>> tok = Tokenizer(WordPiece({"[UNK]": 0, "[MASK]": 1, "a": 2}), added_tokens=["[MASK]"])
>>> enc = tok.encode("a[MASK]a")
>>> enc.tokens, enc.offsets, enc.word_ids
(['a', '[MASK]', 'a'], [(0, 1), (1, 7), (7, 8)], [0, 1, 2])
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Callable, Iterable, Protocol

from . import byte_api, pretokenized
from .added_tokens import AddedToken, AddedVocabulary, with_ids
from .encoding import Encoding, Token
from .errors import InvalidInput
from .models import Model
from .normalized import NormalizedString
from .normalizers import NormalizedTooLong
from .pipeline_steps import (
    ModelStep,
    NormalizeStep,
    PadStep,
    PostProcessStep,
    PreTokenizeStep,
    TruncateStep,
    normalize_step,
)
from .pre_tokenizers import byte_level_fast, split_fast
from .pre_tokenizers.stage import Added, into_encoding, members, split_pieces, unzip
from .processors.stage import check_room, post_process_stage
from .processors.truncation import PaddingParams, TruncationParams, pad
from .steps import Trace, describe
from .user_regex import shared_budget, timed_patterns

__all__ = [
    "AddedToken",
    "Tokenizer",
    "NormalizeStep",
    "PreTokenizeStep",
    "ModelStep",
    "TruncateStep",
    "PostProcessStep",
    "PadStep",
    "describe",
]


class Normalizer(Protocol):
    def normalize(self, text: NormalizedString) -> NormalizedString: ...


# `runner(normalizer, ns)`: `normalizer.normalize(ns)`, somewhere else (a sandbox)
NormalizerRunner = Callable[[Any, NormalizedString], NormalizedString]


class PreTokenizer(Protocol):
    def split(self, text: NormalizedString) -> list[NormalizedString]: ...


class PostProcessor(Protocol):
    def process(
        self, tokens: list[Token], pair: list[Token] | None
    ) -> tuple[list[Token], list[int]]: ...


class Decoder(Protocol):
    def decode(self, tokens: list[str]) -> str: ...


MAX_ID = 2**32  # ids are unsigned 32-bit in Hugging Face's and tiktoken's decode


def is_id(value: object) -> bool:
    """Whether `value` can be a token id at all: a whole number from 0 to 2**32 - 1, as the
    owner libraries read one (a bool or a float is none).

    >>> is_id(100256), is_id(-1), is_id(2**32), is_id(True), is_id("7")
    (True, False, False, False, False)
    """
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_ID


# the attributes the fast paths keep in a tokenizer's __dict__ (not pickled)
FAST_PATH_CACHES = frozenset({"_splitter_of", "_words_seen_of", "_pieces_seen", "_bytes_of"})


class Tokenizer:
    """A complete tokeniser. `name` and `algorithm` label it in views and in the API.

    `added_tokens`: plain strings are matched as typed and are special (what BERT's special
    tokens are in Hugging Face: normalized, lstrip, rstrip and single_word all false); each must
    be in the model's vocabulary. An `AddedToken` carries its own flags and id (None: the
    model's id for it, or the next id after the vocabulary). `truncation` and `padding` are the
    sections of a tokenizer.json (dicts, or None); see `processors/truncation.py`.
    """

    # a model folder's tokenizer_config.json, which its loader keeps (`formats/model_folder.py`)
    tokenizer_config: dict[str, Any] | None = None
    # what `decode` does with an id the vocabulary lacks: False raises (tiktoken's KeyError),
    # True drops it (Hugging Face's decode; set by the tokenizer.json loader)
    drops_unknown_ids: bool = False
    # what the class a tokenizer_config.json names changed (`formats/hf_classes.ClassRebuild`)
    class_rebuild: Any = None
    # where its normaliser runs: here (None), or `runner(normalizer, ns)`, e.g. a server's
    # sandbox (a child process with hard limits) for a file whose chain nobody has checked
    normalizer_runner: NormalizerRunner | None = None
    # the file it was loaded from, for its fingerprint (`fingerprints.py`): the sha256 of its
    # bytes, or the path of a GGUF model, hashed only when asked (`pretrained.load` sets them)
    source_sha256: str | None = None
    source_path: str | None = None

    def __init__(
        self,
        model: Model,
        *,
        normalizer: Normalizer | None = None,
        pre_tokenizer: PreTokenizer | None = None,
        post_processor: PostProcessor | None = None,
        decoder: Decoder | None = None,
        name: str = "",
        algorithm: str = "",
        added_tokens: Iterable[str | AddedToken] = (),
        truncation: dict | TruncationParams | None = None,
        padding: dict | PaddingParams | None = None,
    ) -> None:
        self.model = model
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.post_processor = post_processor
        self.decoder = decoder
        self.name = name
        self.algorithm = algorithm
        # Stage 0 (see the module docstring): the tokens matched whole before the model.
        self.added_tokens: tuple[AddedToken, ...] = with_ids(model, added_tokens)
        self.added_vocabulary = AddedVocabulary(self.added_tokens, self._normalize_str)
        self.truncation = (
            truncation
            if isinstance(truncation, TruncationParams)
            else TruncationParams.from_hf_config(truncation)
        )
        self.padding = (
            padding if isinstance(padding, PaddingParams) else PaddingParams.from_hf_config(padding)
        )
        check_room(self.truncation, post_processor)

    # ---- encoding -----------------------------------------------------------------------
    def encode(
        self,
        text: str,
        pair: str | None = None,
        *,
        add_special_tokens: bool = True,
        is_pretokenized: bool = False,
        encode_special_tokens: bool = False,
    ) -> Encoding:
        """Tokenise `text` (and optionally a second sequence `pair`); each a list of words with
        `is_pretokenized` (Hugging Face's; see `pretokenized`). Special added tokens typed in the
        text are matched as themselves, as Hugging Face does; `encode_special_tokens` makes them
        ordinary text (Hugging Face's option of that name, tiktoken's `encode_ordinary`)."""
        return self._matching(encode_special_tokens)._run(
            text, pair, add_special_tokens, None, is_pretokenized=is_pretokenized
        )

    def trace(
        self,
        text: str,
        pair: str | None = None,
        *,
        add_special_tokens: bool = True,
        encode_special_tokens: bool = False,
    ) -> tuple[Encoding, Trace]:
        """Like `encode`, and also the pipeline's steps (one per stage and sequence, and one per
        member of a Sequence normaliser or pre-tokeniser)."""
        trace = Trace()
        tok = self._matching(encode_special_tokens)
        return tok._run(text, pair, add_special_tokens, trace), trace

    def _matching(self, encode_special_tokens: bool) -> "Tokenizer":
        """This tokenizer, or (`encode_special_tokens`) a copy of it whose special added tokens
        match nowhere in the text (its caches are shared: they do not depend on them)."""
        if not encode_special_tokens or not self.added_vocabulary.special:
            return self
        plain = copy.copy(self)
        plain.added_vocabulary = self.added_vocabulary.without_special()
        return plain

    def encode_batch(
        self,
        inputs: Iterable[str | tuple[str, str]],
        *,
        add_special_tokens: bool = True,
        is_pretokenized: bool = False,
    ) -> list[Encoding]:
        """`encode` for many texts (or `(text, pair)` tuples), as Hugging Face's
        `encode_batch`: padding "BatchLongest" pads every encoding to the longest one.

        >>> from tokenizers_core.models.wordlevel.model import WordLevel
        >>> from tokenizers_core.pre_tokenizers import Whitespace
        >>> tok = Tokenizer(WordLevel({"a": 0, "[PAD]": 1}), pre_tokenizer=Whitespace(),
        ...                 padding={"pad_id": 1})
        >>> [e.ids for e in tok.encode_batch(["a", "a a a"])]
        [[0, 1, 1], [0, 0, 0]]
        """
        if isinstance(inputs, str):
            raise InvalidInput("encode_batch takes a list of texts; use encode for one text")
        encodings = []
        for item in inputs:
            text, pair = pretokenized.batch_item(item, is_pretokenized)
            encodings.append(
                self._run(
                    text,
                    pair,
                    add_special_tokens,
                    None,
                    padded=False,
                    is_pretokenized=is_pretokenized,
                )
            )
        if self.padding is not None and encodings:
            target = self.padding.target(max(len(e) for e in encodings))
            for e in encodings:
                pad(e, target, self.padding)
        return encodings

    def _run(
        self,
        text: str,
        pair: str | None,
        add_special_tokens: bool,
        trace: Trace | None,
        padded: bool = True,
        is_pretokenized: bool = False,
    ) -> Encoding:
        """Hugging Face's `encode`: each sequence through stages 0-3, then truncation, the
        post-processor and padding (`Tokenizer::post_process`)."""
        sequence = pretokenized.sequence_encoder(self._encoding, text, pair, is_pretokenized)
        local_ids: dict[str, int] = {}
        with shared_budget():  # the file's patterns share one time limit per encode
            first = sequence(text, 0, local_ids, trace)
            second = sequence(pair, 1, local_ids, trace) if pair is not None else None
        return post_process_stage(
            first,
            second,
            self.post_processor,
            add_special_tokens,
            self.truncation,
            self.padding if padded else None,
            trace,
        )

    def normalize(self, text: str) -> NormalizedString:
        """The whole text through the normaliser (added tokens are not looked for here)."""
        return self._normalize(NormalizedString(text))

    def pre_tokenize(self, text: str) -> list[NormalizedString]:
        """Split on added tokens, normalise and split: the pieces, aligned to `text` (an added
        token is one piece, its matched text)."""
        return self._pre_tokenized(text, None)[0]

    def train_from_iterator(self, iterator: Iterable[str], trainer: Any) -> None:
        """Hugging Face's: train a new model with `trainer` (one of `tokenizers_core.trainers`)
        on the words this tokenizer's normaliser and pre-tokenizer cut from `iterator`'s lines;
        the trainer's special tokens become special added tokens. Replaces the model in place."""
        if isinstance(iterator, str):
            raise InvalidInput("train on an iterable of lines, not one string")
        words: dict[str, int] = {}
        for line in iterator:
            for piece in self.pre_tokenize(line):
                words[piece.normalized] = words.get(piece.normalized, 0) + 1
        self.model = trainer.train_model(words, self.model)
        self.__dict__.pop("_pieces_seen", None)  # the old model's tokens of each piece
        # the added tokens keep their flags and take their ids afresh from the new model
        kept = [dataclasses.replace(a, id=None) for a in self.added_tokens]
        specials = [t for t in trainer.special_tokens_list() if t not in {a.content for a in kept}]
        self.added_tokens = with_ids(self.model, [*kept, *specials])
        self.added_vocabulary = AddedVocabulary(self.added_tokens, self._normalize_str)

    def _segments(self, text: str, trace: Trace | None) -> tuple[list[NormalizedString], Added]:
        """Stages 0-1: `text` cut at the added tokens and normalised, in the two passes of
        Hugging Face's `extract_and_normalize`: tokens with normalized=False cut the original
        text; each stretch between them is normalised (one member of a Sequence at a time, each
        a step of the trace), then cut at the tokens with normalized=True. Returns the segments
        and {index of a segment that is an added token: its id}."""
        segments, added = unzip(self.added_vocabulary.split_original(NormalizedString(text)))
        if trace is not None and not segments:
            segments = [NormalizedString(text)]  # "" still gets its steps
        steps = (
            members(self.normalizer, "normalizers")
            if trace is not None
            else ([self.normalizer] if self.normalizer is not None else [])
        )
        in_sequence = trace is not None and steps != [self.normalizer]
        for place, member in enumerate(steps, 1):
            try:
                segments = [
                    seg if i in added else self._normalize_with(member, seg)
                    for i, seg in enumerate(segments)
                ]
            except NormalizedTooLong as exc:  # traced one member at a time: say which
                raise exc.within(place) if in_sequence else exc from None
            if trace is not None:
                trace.append(normalize_step(text, segments, describe(member)))
        if trace is not None and not steps:
            trace.append(normalize_step(text, segments, describe(None)))
        vocabulary = self.added_vocabulary
        return unzip(
            [
                part
                for i, seg in enumerate(segments)
                for part in (
                    [(seg, added[i])]
                    if i in added
                    else vocabulary.split_normalized(seg)
                    if vocabulary.has_normalized
                    else [(seg, None)]
                    if len(seg)
                    else []
                )
            ]
        )

    def _pre_tokenized(
        self, text: str, trace: Trace | None
    ) -> tuple[list[NormalizedString], Added]:
        """Stages 0-2: the pieces the model will see, and {index of a piece that is an added
        token: its id} (an added token is already a whole token, which the pre-tokeniser does
        not touch)."""
        pieces, added = self._segments(text, trace)
        return split_pieces(self.pre_tokenizer, pieces, added, trace)

    def _normalize(self, ns: NormalizedString) -> NormalizedString:
        return self._normalize_with(self.normalizer, ns) if self.normalizer is not None else ns

    def _normalize_with(self, normalizer: Normalizer, ns: NormalizedString) -> NormalizedString:
        """`normalizer.normalize(ns)`, here or through the tokeniser's `normalizer_runner`.

        >>> from tokenizers_core.normalizers import Lowercase
        >>> from tokenizers_core.models.wordlevel.model import WordLevel
        >>> model = WordLevel({"hi": 0, "<unk>": 1}, unk_token="<unk>")
        >>> tok = Tokenizer(model, normalizer=Lowercase())
        >>> seen = []
        >>> tok.normalizer_runner = lambda norm, ns: seen.append(ns) or norm.normalize(ns)
        >>> tok.encode("HI").ids, len(seen)
        ([0], 1)
        """
        runner = self.normalizer_runner
        return normalizer.normalize(ns) if runner is None else runner(normalizer, ns)

    def _normalize_str(self, text: str) -> str:
        return self._normalize(NormalizedString(text)).normalized

    def _encoding(
        self, text: str, type_id: int, local_ids: dict[str, int], trace: Trace | None
    ) -> Encoding:
        """Stages 0-3 for one sequence: the model's tokens as an `Encoding` (filled array by
        array: a text of 1 MB makes a quarter of a million tokens)."""
        if (
            trace is None
            and self.pre_tokenizer is not None
            and getattr(self.model, "deterministic", True)
        ):
            split = self._fast_splitter()
            if split is not None:
                fast = self._plain_byte_level_encoding(text, type_id, split)
                if fast is not None:
                    return fast
            cut = split_fast.spans_of(self.pre_tokenizer)
            if cut is not None:  # BERT's and the other pre-tokenizers that only cut
                segments, added = self._segments(text, None)
                seen = self._words_seen()
                return split_fast.encoding_of(
                    self.model, segments, added, cut, seen, type_id, local_ids
                )
        pieces, added = self._pre_tokenized(text, trace)
        return into_encoding(self.model, pieces, added, type_id, local_ids, trace)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the fast paths' caches (a splitter function, the tokens of pieces
        and words seen): they are rebuilt on first use."""
        return {k: v for k, v in self.__dict__.items() if k not in FAST_PATH_CACHES}

    def _fast_splitter(self) -> byte_level_fast.Splitter | None:
        """`byte_level_fast.pieces_of` the current pre-tokenizer, worked out once per one."""
        known = self.__dict__.get("_splitter_of")
        if known is None or known[0] is not self.pre_tokenizer:
            known = self.__dict__["_splitter_of"] = (
                self.pre_tokenizer,
                byte_level_fast.pieces_of(self.pre_tokenizer),
            )
        return known[1]

    def _words_seen(self) -> dict[str, split_fast.Word]:
        """Each word's tokens for `split_fast`, kept for the current model only."""
        known = self.__dict__.get("_words_seen_of")
        if known is None or known[0] is not self.model:
            known = self.__dict__["_words_seen_of"] = (self.model, {})
        return known[1]

    def _plain_byte_level_encoding(
        self, text: str, type_id: int, split: byte_level_fast.Splitter
    ) -> Encoding | None:
        """`_encoding` for the plain byte-level pipelines (`byte_level_fast.encoding_of`),
        untraced; None when a segment is not a plain stretch of the text (a normaliser, such as
        Qwen's NFC, that changed it: the text is then normalised once more by the general path)."""
        vocabulary = self.added_vocabulary
        if vocabulary.has_normalized or self.normalizer is not None:
            segments, added = self._segments(text, None)
        else:  # no normaliser, no normalised added token: the first pass is all
            segments, added = unzip(vocabulary.split_original(NormalizedString(text)))
        seen = self.__dict__.setdefault("_pieces_seen", {})  # each piece's tokens, per model
        return byte_level_fast.encoding_of(self.model, segments, added, split, seen, type_id)

    def nbest(self, text: str, k: int) -> list[tuple[list[str], float]]:
        """Unigram models: the k best segmentations of `text` as (tokens, score), best first."""
        fn = getattr(self.model, "nbest", None)
        if fn is None:
            raise InvalidInput(
                f"{self.name or 'this tokeniser'} is not a Unigram model; "
                "n-best segmentations need one"
            )
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
        """Turn ids back into text (the decoder joins the tokens; with no decoder, a space
        joins them, as Hugging Face's decode). Special tokens are kept
        unless `skip_special_tokens` (as Hugging Face's and tiktoken's decode). An id the
        vocabulary lacks (cl100k's 100256, between its ranks and its special tokens) is
        dropped by a tokenizer.json's tokenizer, as Hugging Face drops it (`drops_unknown_ids`;
        `unknown_ids` names them), and is a KeyError elsewhere, as tiktoken raises
        (`NotAToken`, also a ValueError). Anything that is no id at all (a negative number, one
        past 2**32, a string) is a ValueError everywhere.

        >>> import tokenizers_core as tc
        >>> tc.load("cl100k_base").decode([9906, 100256])
        Traceback (most recent call last):
        ...
        tokenizers_core.byte_api.NotAToken: id 100256 is not in the vocabulary of cl100k_base
        """
        tokens: list[str] = []
        for i in ids:
            tok = self.id_to_token(i) if is_id(i) else None
            if tok is None:
                if self.drops_unknown_ids and is_id(i):
                    continue
                raise (byte_api.NotAToken if is_id(i) else InvalidInput)(
                    f"id {i!r} is not in the vocabulary of {self.name or 'this tokeniser'}"
                )
            if skip_special_tokens and self.is_special(tok):
                continue
            tokens.append(tok)
        if self.decoder is not None:
            with shared_budget():
                return self.decoder.decode(tokens)
        return " ".join(tokens)  # no decoder: Hugging Face joins with spaces

    def unknown_ids(self, ids: list[int]) -> list[int]:
        """The ids of `ids` that are no token of this tokenizer, in order: what `decode` drops
        when `drops_unknown_ids` (else the first of them is its KeyError).

        >>> import tokenizers_core as tc
        >>> tc.load("cl100k_base").unknown_ids([9906, 100256, 100257, 10**6])
        [100256, 1000000]
        """
        return [i for i in ids if is_id(i) and self.id_to_token(i) is None]

    # tiktoken's bytes in and out (see byte_api)
    encode_single_token = byte_api.encode_single_token
    encode_bytes = byte_api.encode_bytes
    decode_bytes = byte_api.decode_bytes
    decode_single_token_bytes = byte_api.decode_single_token_bytes
    decode_tokens_bytes = byte_api.decode_tokens_bytes

    def limit_regex_time(self, seconds: float | None) -> "Tokenizer":
        """Run every pattern a user or a file supplied (a tokenizer.json's Split and Replace, a
        ranks file's pattern, the custom regex rule) under one time limit: an encode (or a
        decode) whose searches take longer than `seconds` in all raises ValueError naming the
        pattern. None lifts the limit (how the library loads files: as Hugging Face runs
        them). Trusted presets (gpt2, cl100k, ...) are never limited. Returns the tokeniser.

        >>> from tokenizers_core.implementations.rules import regex_tokenizer
        >>> tok = regex_tokenizer("(a|a)*$").limit_regex_time(0.05)
        >>> tok.encode("a" * 40 + "!")  # doctest: +NORMALIZE_WHITESPACE
        Traceback (most recent call last):
        ...
        tokenizers_core.errors.InvalidInput: the pattern '(a|a)*$' took longer than 0.05 s on this
        text, so it was stopped; nested repetition such as (a|a)+ or (a+)+ makes a regex backtrack
        exponentially: simplify it
        """
        if seconds is not None and not seconds > 0:
            raise InvalidInput(
                "the regex time limit must be a positive number of seconds (or None)"
            )
        for pattern in timed_patterns(
            [self.normalizer, self.pre_tokenizer, self.decoder, self.post_processor]
        ):
            pattern.timeout = seconds
        return self

    def is_special(self, token: str) -> bool:
        """A special added token (the model's own special tokens when there are no added
        tokens, e.g. tiktoken's and sentencepiece's)."""
        if self.added_tokens:
            return token in self.added_vocabulary.special
        special = getattr(self.model, "special_tokens", None) or ()
        return token in special

    # ---- saving ------------------------------------------------------------------------
    def save(self, path: str, format: str | None = None) -> str:
        """Write this tokenizer to `path` in `format` ("hf_json", "tiktoken", "sentencepiece",
        "vocab_txt", "vocab_merges"; from the extension when None). "vocab_merges" (BPE only)
        writes a .zip of vocab.json + merges.txt when `path` ends in .zip, else the two files
        into the folder `path`. Returns the format written; a ValueError, saying what does
        exist, when it has no exact form in that format."""
        return _writers()["save"](self, path, format)

    def to_hf_json(self) -> dict[str, Any]:
        """This tokenizer as a Hugging Face tokenizer.json dict (see `formats/hf_json_writer`)."""
        return _writers()["to_hf_json"](self)

    # ---- information --------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        """The model's vocabulary and the added tokens it lacks (Hugging Face's
        `get_vocab_size(with_added_tokens=True)`)."""
        model = self.model
        return model.get_vocab_size() + sum(
            1 for t in self.added_tokens if model.token_to_id(t.content) is None
        )

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


# ---- the seam of saving -------------------------------------------------------------------------
# The writers live in formats/, a layer above this one: it hands them over when imported.
_WRITERS: dict[str, Any] = {}


def use_writers(**writers: Any) -> None:
    """Called once by `tokenizers_core.formats` when it is imported: hands over `save(tok, path,
    format)` and `to_hf_json(tok)`, which `Tokenizer.save` / `to_hf_json` call. (formats/ builds
    Tokenizers, so this module cannot import it without an import circle.)"""
    _WRITERS.update(writers)


def _writers() -> dict[str, Any]:
    if not _WRITERS:
        raise RuntimeError(
            "saving needs tokenizers_core.formats: `import tokenizers_core` loads it"
        )
    return _WRITERS

"""OpenAI's byte-level BPE encodings, bundled: r50k_base (GPT-2), cl100k_base (GPT-4),
o200k_base (GPT-4o), and o200k_harmony (gpt-oss: o200k_base's ranks with the harmony chat
format's special tokens).

Each is the ranks file (`data/vocab/<name>.tiktoken.gz`: base64 token bytes and rank per line),
tiktoken's pre-tokenisation pattern for it and its special tokens. Encoding is tiktoken's rule:
split the text with the pattern, spell each piece as bytes (shown in the GPT-2 byte-to-unicode
alphabet, "Ġ" for a space), then repeatedly merge the adjacent pair whose concatenation has the
lowest rank (leftmost on a tie). The ids are the ranks, so they equal tiktoken's.

>>> tok = load_encoding("r50k_base")
>>> tok.encode("Hello, world!").ids
[15496, 11, 995, 0]

**Special tokens** (``<|endoftext|>`` ...) typed in the text are tiktoken's business, with
tiktoken's defaults: ``tok.encode(text)`` raises ``InvalidInput`` (a ``ValueError``) when the text
holds one, as tiktoken's ``encode`` does; ``allowed_special={"<|endoftext|>"}`` (or ``"all"``)
turns each occurrence into its single special id, and ``disallowed_special=()`` reads them as
ordinary text (tiktoken's ``encode_ordinary``).

Offsets are character positions in the original text; a token holding only part of a character's
UTF-8 bytes gets that whole character's span. A lone surrogate (not encodable as UTF-8) is
encoded as U+FFFD, as tiktoken does.
"""

from __future__ import annotations

import base64
import functools
import gzip
import re
from pathlib import Path
from typing import Any, Collection, Iterable

import regex

from ..byte_api import NotAToken
from ..byte_level import byte_level_to_bytes, bytes_to_byte_level, str_to_byte_level
from ..decoders import ByteLevel as ByteLevelDecoder
from ..encoding import Encoding, Token
from ..errors import InvalidInput
from ..models.bpe.model import ASCII_PATTERNS, BPE, gc_paused
from ..normalized import NormalizedString
from ..pipeline import Tokenizer, is_id
from ..pre_tokenizers import PRESETS, ByteLevel, Regex, Sequence
from ..pretokenized import check_words, concat, join

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "vocab"

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"


def _harmony_specials(base: dict[str, int]) -> dict[str, int]:
    """o200k_harmony's special tokens: o200k_base's, the harmony format's named ones, and
    `<|reserved_N|>` for every other id from 200,000 to 201,087. (Id 200018 is both
    `<|endofprompt|>` and `<|reserved_200018|>`, as in tiktoken; it decodes as the first.)"""
    named = {
        "<|startoftext|>": 199998,
        "<|return|>": 200002,
        "<|constrain|>": 200003,
        "<|channel|>": 200005,
        "<|start|>": 200006,
        "<|end|>": 200007,
        "<|message|>": 200008,
        "<|call|>": 200012,
    }
    reserved = {f"<|reserved_{i}|>": i for i in range(200000, 201088) if i not in named.values()}
    return {**base, **named, **reserved}


# name -> (pattern preset in pre_tokenizers.PRESETS, special tokens), from tiktoken 0.14.0
ENCODINGS: dict[str, tuple[str, dict[str, int]]] = {
    "r50k_base": ("gpt2", {ENDOFTEXT: 50256}),
    "cl100k_base": (
        "cl100k",
        {
            ENDOFTEXT: 100257,
            FIM_PREFIX: 100258,
            FIM_MIDDLE: 100259,
            FIM_SUFFIX: 100260,
            ENDOFPROMPT: 100276,
        },
    ),
    "o200k_base": ("o200k", {ENDOFTEXT: 199999, ENDOFPROMPT: 200018}),
    "o200k_harmony": ("o200k", _harmony_specials({ENDOFTEXT: 199999, ENDOFPROMPT: 200018})),
}

# an encoding that reuses another's ranks file
_RANKS_FILE = {"o200k_harmony": "o200k_base"}


@functools.lru_cache(maxsize=None)
def load_ranks(name: str) -> dict[bytes, int]:
    """The mergeable ranks of a bundled encoding: token bytes -> rank."""
    if name not in ENCODINGS:
        raise InvalidInput(f"unknown encoding {name!r}; bundled: {', '.join(ENCODINGS)}")
    if name in _RANKS_FILE:
        return load_ranks(_RANKS_FILE[name])
    ranks: dict[bytes, int] = {}
    with gzip.open(DATA_DIR / f"{name}.tiktoken.gz", "rb") as f:
        for line in f:
            if line.strip():
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
    return ranks


def _surrogate_safe(text: str) -> tuple[str, list[int] | None]:
    """The text tiktoken encodes when `text` holds surrogates (Python strings may): a valid
    surrogate pair becomes the one character it encodes in UTF-16, a lone surrogate U+FFFD.
    Also where each character of the result starts in `text` (None when nothing changed), so
    offsets can still point into the original.

    >>> _surrogate_safe("a\\ud83d\\udc4db\\ud800")
    ('a👍b\ufffd', [0, 1, 3, 4, 5])
    """
    try:
        text.encode("utf-8")
        return text, None
    except UnicodeEncodeError:
        fixed = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    starts = []
    pos = 0
    for c in fixed:
        starts.append(pos)
        pair = c > "\uffff" and 0xD800 <= ord(text[pos]) <= 0xDBFF
        pos += 2 if pair else 1
    starts.append(pos)
    return fixed, starts


def _restore_offsets(enc: Encoding, starts: list[int] | None) -> Encoding:
    """Offsets in the surrogate-safe text mapped back to the original text."""
    if starts is not None:
        enc.offsets = [(starts[a], starts[b]) for a, b in enc.offsets]
    return enc


class SpecialTokensSplit:
    """Pre-tokenizer: cut out the allowed special tokens as pieces of their own, and hand the
    text between them to `inner`.

    >>> from tokenizers_core.pre_tokenizers import Regex
    >>> SpecialTokensSplit(Regex("gpt2"), ["<|endoftext|>"]).pre_tokenize_str("a<|endoftext|>b")
    [('a', (0, 1)), ('<|endoftext|>', (1, 14)), ('b', (14, 15))]
    """

    def __init__(self, inner: Any, allowed: Collection[str]) -> None:
        self.inner = inner
        self.allowed = tuple(sorted(allowed, key=lambda s: (-len(s), s)))
        self._re = regex.compile("|".join(regex.escape(s) for s in self.allowed))

    def split(self, text: NormalizedString) -> list[NormalizedString]:
        out: list[NormalizedString] = []
        pos = 0
        s = text.normalized
        for m in self._re.finditer(s, concurrent=False):
            if m.start() > pos:
                out.extend(self.inner.split(text.slice(pos, m.start())))
            out.append(text.slice(m.start(), m.end()))
            pos = m.end()
        if pos < len(s):
            out.extend(self.inner.split(text.slice(pos, len(s))))
        return out

    def pre_tokenize_str(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        return [(p.normalized, p.span(0, len(p))) for p in self.split(NormalizedString(text))]

    def describe(self) -> str:
        return f"special tokens {', '.join(self.allowed)}, then {self.inner.describe()}"


class MarkSpecial:
    """Post-processor: mark the special tokens found in the text (they keep their offsets)."""

    def __init__(self, special_ids: Iterable[int]) -> None:
        self.special_ids = frozenset(special_ids)

    def process(
        self, tokens: list[Token], pair: list[Token] | None
    ) -> tuple[list[Token], list[int]]:
        out = [
            Token(t.id, t.value, t.offsets, t.word_id, True) if t.id in self.special_ids else t
            for t in tokens
        ]
        type_ids = [0] * len(out)
        if pair is not None:
            more = [
                Token(t.id, t.value, t.offsets, t.word_id, True) if t.id in self.special_ids else t
                for t in pair
            ]
            out += more
            type_ids += [1] * len(more)
        return out, type_ids

    def describe(self) -> str:
        return "mark special tokens"


class TiktokenTokenizer(Tokenizer):
    """A byte-level BPE `Tokenizer` ranked by token id, with tiktoken's special-token options:
    the bundled OpenAI encodings and any tiktoken ranks file (`formats/tiktoken_file.py`).

    `pattern` is a preset name of `pre_tokenizers.PRESETS` or a regex. `encode` takes
    `allowed_special` (special tokens, or "all") and `disallowed_special` (special tokens, "all"
    = every one not allowed; `()` = none). A disallowed special token found in the text raises
    `ValueError`, as tiktoken does (`strict_special=False` makes `()` the default instead, so
    special-token strings are ordinary text unless allowed).

    For a single text `encode` runs a fast path (one regex pass, a per-piece cache, arrays filled
    directly); `trace` runs the general pipeline stage by stage, and the two give the same
    `Encoding` (tested).
    """

    model: BPE  # (ranked by token id; `Tokenizer` types it as any `Model`)

    def __init__(
        self,
        name: str,
        model: BPE,
        pattern: str,
        special_tokens: dict[str, int],
        *,
        strict_special: bool = True,
    ) -> None:
        super().__init__(
            model,
            pre_tokenizer=Sequence([Regex(pattern, timeout=None), ByteLevel(use_regex=False)]),
            decoder=ByteLevelDecoder(),
            name=name,
            algorithm="byte_bpe",
        )
        self.preset = pattern if pattern in PRESETS else None
        self.pattern = PRESETS.get(pattern, pattern)
        self.special_tokens = dict(special_tokens)
        self.strict_special = strict_special
        self._compiled = regex.compile(self.pattern)
        # pure-ASCII text is split with `re` and the ASCII spelling of the pattern (faster;
        # see models.bpe.ASCII_PATTERNS, tested equal)
        ascii_pattern = ASCII_PATTERNS.get(self.preset or "", None)
        self._ascii = re.compile(ascii_pattern) if ascii_pattern else None
        # piece -> (ids, tokens, offsets in the piece, the piece's length)
        self._pieces: dict[
            str, tuple[tuple[int, ...], tuple[str, ...], tuple[tuple[int, int], ...], int]
        ] = {}
        self._variants: dict[frozenset[str], Tokenizer] = {}

    def allowed(self, allowed_special: Collection[str] | str = ()) -> frozenset[str]:
        """Check `allowed_special` ("all" or special tokens of this encoding)."""
        if allowed_special == "all":
            return frozenset(self.special_tokens)
        if isinstance(allowed_special, str):
            allowed_special = [allowed_special]
        allowed = frozenset(allowed_special)
        unknown = sorted(allowed - set(self.special_tokens))
        if unknown:
            raise InvalidInput(
                f"{', '.join(unknown)} is not a special token of {self.name}; "
                f"its special tokens are {', '.join(self.special_tokens)}"
            )
        return allowed

    def check_disallowed(
        self, text: str, allowed: frozenset[str], disallowed_special: Collection[str] | str | None
    ) -> None:
        """Raise ValueError when `text` holds a disallowed special token (tiktoken's rule)."""
        if disallowed_special is None:
            disallowed_special = "all" if self.strict_special else ()
        if disallowed_special == "all":
            disallowed = frozenset(self.special_tokens) - allowed
        else:
            disallowed = frozenset(
                [disallowed_special] if isinstance(disallowed_special, str) else disallowed_special
            )
        for token in sorted(disallowed, key=lambda t: (-len(t), t)):
            if token in text:
                raise InvalidInput(
                    f"the text contains the special token {token!r}, which is disallowed: pass "
                    "it in allowed_special to encode it as a special token, or "
                    "disallowed_special=() to encode it as ordinary text"
                )

    def with_special(self, allowed_special: Collection[str] | str) -> Tokenizer:
        """The general pipeline that also cuts out the allowed special tokens."""
        allowed = self.allowed(allowed_special)
        if not allowed:
            return self
        variant = self._variants.get(allowed)
        if variant is None:
            variant = Tokenizer(
                self.model,
                pre_tokenizer=SpecialTokensSplit(self.pre_tokenizer, allowed),
                post_processor=MarkSpecial(self.special_tokens[s] for s in allowed),
                decoder=self.decoder,
                name=self.name,
                algorithm=self.algorithm,
            )
            self._variants[allowed] = variant
        return variant

    def encode(
        self,
        text: str,
        pair: str | None = None,
        *,
        add_special_tokens: bool = True,
        allowed_special: Collection[str] | str = (),
        disallowed_special: Collection[str] | str | None = None,
        is_pretokenized: bool = False,
    ) -> Encoding:
        if is_pretokenized:
            return self._encode_words(text, pair, allowed_special, disallowed_special)
        if not isinstance(text, str) or (pair is not None and not isinstance(pair, str)):
            raise InvalidInput("text to encode must be a string")
        allowed = self.allowed(allowed_special) if allowed_special else frozenset()
        for t in (text, pair or ""):
            self.check_disallowed(t, allowed, disallowed_special)
        if pair is not None or self.preset is None:
            # a pattern of the user's may skip text, which the fast path assumes it never does
            return self.trace(
                text,
                pair,
                add_special_tokens=add_special_tokens,
                allowed_special=allowed,
                disallowed_special=(),  # checked above
            )[0]
        text, starts = _surrogate_safe(text)
        if len(text) < 20_000:
            return _restore_offsets(self._fast_encode(text, allowed), starts)
        with gc_paused:  # a long text makes ~1 tuple per token: no GC passes
            return _restore_offsets(self._fast_encode(text, allowed), starts)

    def encode_batch(
        self,
        texts: list[str],
        *,
        allowed_special: Collection[str] | str = (),
        disallowed_special: Collection[str] | str | None = None,
        is_pretokenized: bool = False,
    ) -> list[Encoding]:
        """`encode` for many texts (Hugging Face's `encode_batch`). The cyclic garbage collector
        is paused meanwhile: thousands of fresh `Encoding`s would otherwise set off collections
        that cost more than the encoding itself.

        >>> [e.ids for e in load_encoding("r50k_base").encode_batch(["Hello", " world"])]
        [[15496], [995]]
        """
        if isinstance(texts, str):
            raise InvalidInput("encode_batch takes a list of texts; use encode for one text")
        with gc_paused:
            return [
                self.encode(
                    t,
                    allowed_special=allowed_special,
                    disallowed_special=disallowed_special,
                    is_pretokenized=is_pretokenized,
                )
                for t in texts
            ]

    def _encode_words(
        self,
        words: Any,
        pair: Any,
        allowed_special: Any,
        disallowed_special: Any,
    ) -> Encoding:
        """Pre-tokenized input (see `pretokenized`; checked here, so any value is taken): each
        word encoded on its own, word id = its index, offsets in the word; a pair's tokens get
        type id 1."""
        sequences = [check_words(s) for s in (words, pair) if s is not None]
        parts = [
            join(
                [
                    self.encode(
                        w, allowed_special=allowed_special, disallowed_special=disallowed_special
                    )
                    for w in seq
                ],
                type_id,
            )
            for type_id, seq in enumerate(sequences)
        ]
        return concat(parts)

    def trace(
        self,
        text: str,
        pair: str | None = None,
        *,
        add_special_tokens: bool = True,
        allowed_special: Collection[str] | str = (),
        disallowed_special: Collection[str] | str | None = None,
    ):
        """The general pipeline's encoding and steps, with `encode`'s special-token options
        (a disallowed special token in the text raises here too). Text with surrogates is
        traced as the surrogate-safe text tiktoken encodes; the encoding's offsets point into
        `text`."""
        allowed = self.allowed(allowed_special) if allowed_special else frozenset()
        for t in (text, pair or ""):
            self.check_disallowed(t, allowed, disallowed_special)
        pipeline = self.with_special(allowed)
        text, starts = _surrogate_safe(text)
        pair, _pair_starts = _surrogate_safe(pair) if pair is not None else (None, None)
        enc, steps = Tokenizer.trace(pipeline, text, pair, add_special_tokens=add_special_tokens)
        if pair is None:
            _restore_offsets(enc, starts)
        return enc, steps

    def decode(self, ids: list[int], *, skip_special_tokens: bool = False) -> str:
        """tiktoken's `decode`: every token's bytes joined (a special token's as UTF-8), then
        read as UTF-8 with U+FFFD for invalid bytes; special tokens kept unless asked. An id
        the vocabulary lacks is a KeyError, as tiktoken 0.14 raises it ("Invalid token for
        decoding"): `NotAToken`, also a ValueError."""
        special_ids = set(self.special_tokens.values())
        fast = self._decode_known(ids, special_ids, skip_special_tokens)
        if fast is not None:
            return fast
        data = bytearray()
        for i in ids:
            token = self.model.id_to_token(i) if is_id(i) else None
            if token is None:
                raise (NotAToken if is_id(i) else InvalidInput)(
                    f"id {i!r} is not in the vocabulary of {self.name}"
                )
            if i in special_ids:
                if not skip_special_tokens:
                    data += token.encode("utf-8")
            else:
                data += byte_level_to_bytes(token)
        return data.decode("utf-8", errors="replace")

    def _decode_known(
        self, ids: list[int], special_ids: set[int], skip_special_tokens: bool
    ) -> str | None:
        """`decode` over whole lists (a 20 KB text's ids in well under a millisecond): each
        token's bytes are worked out once per model and kept; None when an id is not a plain
        int the vocabulary has (then `decode` goes id by id, and says which one is wrong)."""
        if set(map(type, ids)) - {int}:
            return None
        known = self.__dict__.get("_bytes_of")
        if known is None or known[0] is not self.model or known[1] != special_ids:
            known = self.__dict__["_bytes_of"] = (self.model, special_ids, {})
        table: dict[int, bytes] = known[2]
        for i in set(ids) - table.keys():
            token = self.model.id_to_token(i) if is_id(i) else None
            if token is None:
                return None
            table[i] = token.encode("utf-8") if i in special_ids else byte_level_to_bytes(token)
        if skip_special_tokens and not special_ids.isdisjoint(ids):
            ids = [i for i in ids if i not in special_ids]
        return b"".join(map(table.__getitem__, ids)).decode("utf-8", errors="replace")

    # -- the fast path ---------------------------------------------------------------------------
    def _fast_encode(self, text: str, allowed: frozenset[str]) -> Encoding:
        """The pipeline's result without its intermediate objects: the preset patterns match
        every character, so each piece starts where the previous one ended."""
        ids: list[int] = []
        tokens: list[str] = []
        offsets: list[tuple[int, int]] = []
        word_ids: list[int | None] = []
        specials_at: list[int] = []
        word = 0
        segments = _split_specials(text, allowed) if allowed else [(0, text, False)]
        cache = self._pieces
        for pos, segment, is_special in segments:
            if is_special:
                specials_at.append(len(ids))
                ids.append(self.special_tokens[segment])
                tokens.append(segment)
                offsets.append((pos, pos + len(segment)))
                word_ids.append(word)
                word += 1
                continue
            for piece in self._pieces_of(segment):
                hit = cache.get(piece)
                if hit is None:
                    hit = self._encode_piece(piece)
                p_ids, p_tokens, p_offsets, width = hit
                if len(p_ids) == 1:
                    ids.append(p_ids[0])
                    tokens.append(p_tokens[0])
                    offsets.append((pos, pos + width))
                    word_ids.append(word)
                else:
                    ids.extend(p_ids)
                    tokens.extend(p_tokens)
                    offsets.extend([(pos + a, pos + b) for a, b in p_offsets])
                    word_ids.extend([word] * len(p_ids))
                pos += width
                word += 1
        n = len(ids)
        special_mask = [0] * n
        for i in specials_at:
            special_mask[i] = 1
        return Encoding(
            ids=ids,
            tokens=tokens,
            offsets=offsets,
            word_ids=word_ids,
            attention_mask=[1] * n,
            special_tokens_mask=special_mask,
            type_ids=[0] * n,
        )

    def _pieces_of(self, segment: str) -> list[str]:
        """The pattern's pieces of a segment (`re` and the ASCII spelling for ASCII text)."""
        if self._ascii is not None and segment.isascii():
            return self._ascii.findall(segment)
        return self._compiled.findall(segment, concurrent=False)

    def piece_tokens(
        self, piece: str
    ) -> tuple[tuple[int, ...], tuple[str, ...], tuple[tuple[int, int], ...], int]:
        """(ids, tokens, offsets in the piece, the piece's length) of one piece of the pattern's
        split, as the fast path encodes it (cached); `incremental.reencode` splices with it.

        >>> load_encoding("r50k_base").piece_tokens(" world")
        ((995,), ('Ġworld',), ((0, 6),), 6)
        """
        hit = self._pieces.get(piece)
        return hit if hit is not None else self._encode_piece(piece)

    def _encode_piece(self, piece: str):
        """(ids, tokens, offsets in the piece, piece length) for one regex piece, cached."""
        spelled = str_to_byte_level(piece)
        parts = self.model.merge_parts(list(spelled))
        vocab = self.model.vocab
        if len(spelled) == len(piece):  # ASCII: one byte per character
            char_of_byte = None
        else:
            char_of_byte = [i for i, c in enumerate(piece) for _ in range(len(c.encode("utf-8")))]
        out_offsets = []
        pos = 0
        for part in parts:
            end = pos + len(part)
            if char_of_byte is None:
                out_offsets.append((pos, end))
            else:  # a partial character gets its span
                out_offsets.append((char_of_byte[pos], char_of_byte[end - 1] + 1))
            pos = end
        hit = (tuple(vocab[p] for p in parts), tuple(parts), tuple(out_offsets), len(piece))
        if len(self._pieces) >= 200_000:
            self._pieces.clear()
        self._pieces[piece] = hit
        return hit


def _split_specials(text: str, allowed: frozenset[str]) -> list[tuple[int, str, bool]]:
    """[(start, segment, is_special)] with the allowed special tokens cut out."""
    pattern = "|".join(regex.escape(s) for s in sorted(allowed, key=lambda s: (-len(s), s)))
    out = []
    pos = 0
    for m in regex.finditer(pattern, text, concurrent=False):
        if m.start() > pos:
            out.append((pos, text[pos : m.start()], False))
        out.append((m.start(), m.group(), True))
        pos = m.end()
    if pos < len(text):
        out.append((pos, text[pos:], False))
    return out


@functools.lru_cache(maxsize=None)
def load_encoding(name: str) -> TiktokenTokenizer:
    """A bundled OpenAI encoding as a `Tokenizer` (cached; treat it as read-only)."""
    if name not in ENCODINGS:
        raise InvalidInput(f"unknown encoding {name!r}; bundled: {', '.join(ENCODINGS)}")
    pattern, specials = ENCODINGS[name]
    vocab = {_spell(b): rank for b, rank in load_ranks(name).items()}
    model = BPE(vocab, None, rank_by="tokens", byte_level=True, special_tokens=specials)
    return TiktokenTokenizer(name, model, pattern, specials)


_spell = bytes_to_byte_level  # token bytes in the byte-level alphabet


def r50k_base() -> Tokenizer:
    return load_encoding("r50k_base")


def cl100k_base() -> Tokenizer:
    return load_encoding("cl100k_base")


def o200k_base() -> Tokenizer:
    return load_encoding("o200k_base")


def o200k_harmony() -> Tokenizer:
    return load_encoding("o200k_harmony")

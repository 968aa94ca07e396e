"""What "decodes to the text" means for each model family: the units a text is spelled in, the
surface of every vocabulary token in those units, and the canonical path among them.

The space of tokenisations of a text is every sequence of vocabulary tokens whose surfaces,
joined, spell the text exactly as the model sees it (after the normaliser): the "decodes to the
text" space of Adversarial Tokenization (arXiv 2503.02174) and Canonical BPE (2506.07956). It is
NOT restricted to the pre-tokenizer's pieces: a token may cross a pre-token boundary (" world"
after "hello" may be spelled "hello w" + "orld" when both are tokens), except where the tokens
themselves say where words begin or end (WordPiece, below). Per family:

- **byte-level BPE** (tiktoken's encodings, Hugging Face ByteLevel files): the units are the
  text's UTF-8 bytes, a token's surface its bytes. A token may hold part of a character.
- **byte fallback** (sentencepiece and Hugging Face models with `<0xE6>` pieces): bytes too, of
  the text as it decodes: a normal piece's surface is its UTF-8 with `▁` read as the space it
  decodes to, a byte piece's is its one byte, so `<0x61>` and `a` are two tokens with the same
  surface, and `<0x20>` spells a `▁` (while `<0xE2><0x96><0x81>` decodes to a `▁` character and
  so never spells a space). One exception, sentencepiece's decoder: it drops the leading space
  of the first piece (the dummy prefix), never a byte's, so `<0x20>` may not start the text.
- **sentencepiece** (Unigram, BPE) and other character models: the units are the characters of
  the normalised text (`▁Hello▁world`), a piece's surface its characters.
- **WordPiece** (and any BPE with a continuing-subword prefix or an end-of-word suffix): a token
  says whether it starts a word (no `##`) or ends one (`</w>`), so the words are the
  pre-tokenizer's (whitespace and punctuation for BERT) and each word is spelled on its own: a
  word-initial token, then `##` continuations. `un ##aff ##able` and `una ##ff ##able` both
  decode to "unaffable"; `un aff able` decodes to "un aff able", another text. The units mark
  each word start (or end) with `SENTINEL`, a noncharacter that word-initial (or word-final)
  surfaces carry, so no token crosses a word.

Kept: every entry that decodes to text (sentencepiece's normal, user-defined, unused and byte
pieces). Left out: special and added tokens, and the unknown token except where the canonical
encoding puts it (an `<unk>` edge stands for exactly the text encode gave it, so the canonical
path is always in the lattice). Models without a fixed subword vocabulary (WordLevel, the rule
tokenisers) raise `InvalidInput`.

>>> from tokenizers_core.models.bpe.model import BPE
>>> from tokenizers_core.pipeline import Tokenizer
>>> tok = Tokenizer(BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
>>> s = space_of(tok)
>>> s.family, s.unit, s.surfaces["ab"], spell(tok, s, "abab")
('bpe', 'char', (2,), ('abab', ((0, 2, 2), (2, 4, 2))))
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterator

from ..byte_level import BYTE_TO_CHAR, CHAR_TO_BYTE, str_to_byte_level
from ..errors import InvalidInput
from ..implementations.openai_public import TiktokenTokenizer
from ..models.bpe.hf import HFBpe
from ..models.bpe.model import BPE
from ..models.bpe.sentencepiece import SentencePieceBpe
from ..models.sentencepiece_common import BYTE, NORMAL, UNUSED, USER_DEFINED, piece_to_byte
from ..models.unigram.model import Unigram
from ..models.wordpiece.model import WordPiece

SPACE = "\u2581"  # "▁", how sentencepiece writes a space
SENTINEL = "\ufdd0"  # a noncharacter (Unicode keeps them for internal use): a word boundary unit
MAX_TEXT_BYTES = 2000  # the longest text (UTF-8) whose space is computed


def check_text(text: Any, what: str = "text") -> None:
    """InvalidInput unless `text` is a string of at most `MAX_TEXT_BYTES` bytes of UTF-8.

    >>> check_text("x" * 2001)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: the text has 2,001 bytes of UTF-8; ... at most 2,000
    """
    if not isinstance(text, str):
        raise InvalidInput(f"the {what} must be a string")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_TEXT_BYTES:
        raise InvalidInput(
            f"the {what} has {size:,} bytes of UTF-8; the space of tokenisations is computed "
            f"for at most {MAX_TEXT_BYTES:,}"
        )


@dataclass(frozen=True, eq=False)
class Space:
    """One tokenizer's space: its family, its unit ("byte" or "char"), the word marks its tokens
    carry (`prefix` "##", `suffix` "</w>"), and its index: every surface -> the ids spelling it
    (in id order), and for each first two units the lengths (>= 2) of the surfaces starting so,
    which is how the lattice finds the tokens at a position without trying every length.

    Byte units are spelled in GPT-2's byte-level alphabet (one character per byte), so a unit
    string is always a `str` and one index serves both units."""

    family: str
    unit: str
    prefix: str | None
    suffix: str | None
    surfaces: dict[str, tuple[int, ...]]
    lengths: dict[str, tuple[int, ...]]
    surface_of: dict[int, str]
    unk_id: int | None
    spaces: bool = False  # byte units read `▁` as a space (byte fallback)
    not_first: frozenset[int] = frozenset()  # ids that may not start the text

    @cached_property
    def ordered(self) -> list[str]:
        """The surfaces sorted (for prefix searches; o200k's take ~0.1 s, once)."""
        return sorted(self.surfaces)


# ---- the vocabulary, per family ----------------------------------------------------------------
_SPACES: weakref.WeakKeyDictionary[Any, tuple[frozenset[int], Space]] = (
    weakref.WeakKeyDictionary()
)  # model -> (the tokenizer's added ids, its space): a 200k vocabulary indexes in ~0.2 s


def space_of(tok: Any) -> Space:
    """The space of `tok` (built once per model and set of added tokens, then reused).

    >>> from tokenizers_core.models.wordpiece.model import WordPiece
    >>> from tokenizers_core.pipeline import Tokenizer
    >>> s = space_of(Tokenizer(WordPiece({"[UNK]": 0, "un": 1, "##aff": 2}, unk_token="[UNK]")))
    >>> s.family, sorted(s.surfaces) == sorted([SENTINEL + "un", "aff"])
    ('wordpiece', True)
    """
    added = frozenset(a.id for a in getattr(tok, "added_tokens", ()) if a.id is not None)
    cached = _SPACES.get(tok.model)
    if cached is not None and cached[0] == added:
        return cached[1]
    space = _build(tok, added)
    _SPACES[tok.model] = (added, space)
    return space


def _build(tok: Any, added: frozenset[int]) -> Space:
    model = tok.model
    family, unit, prefix, suffix, unk_id = _describe(tok)
    byte_pieces = unit == "byte" and not getattr(model, "byte_level", False)
    not_first = set()
    surfaces: dict[str, list[int]] = {}
    for id_, token in _entries(model):
        if id_ in added or id_ == unk_id:
            continue
        surface = _surface(token, byte_pieces, prefix, suffix)
        if surface:
            surfaces.setdefault(surface, []).append(id_)
        if byte_pieces and family in ("unigram", "sentencepiece_bpe") and token == "<0x20>":
            not_first.add(id_)
    lengths: dict[str, set[int]] = {}
    for surface in surfaces:
        if len(surface) > 1:
            lengths.setdefault(surface[:2], set()).add(len(surface))
    return Space(
        family=family,
        unit=unit,
        prefix=prefix,
        suffix=suffix,
        surfaces={s: tuple(sorted(ids)) for s, ids in surfaces.items()},
        lengths={k: tuple(sorted(v)) for k, v in lengths.items()},
        surface_of={i: s for s, ids in surfaces.items() for i in ids},
        unk_id=unk_id,
        spaces=byte_pieces,
        not_first=frozenset(not_first),
    )


def _describe(tok: Any) -> tuple[str, str, str | None, str | None, int | None]:
    """(family, unit, prefix, suffix, unknown id) of a tokenizer's model."""
    model = tok.model
    name = tok.name or "this tokeniser"
    if isinstance(model, WordPiece):
        unk = model.vocab.get(model.unk_token) if model.unk_token else None
        return "wordpiece", "char", model.continuing_subword_prefix or None, None, unk
    if isinstance(model, BPE):
        byte_level = bool(model.byte_level)
        fallback = isinstance(model, HFBpe) and model.byte_fallback
        prefix = model.continuing_subword_prefix if isinstance(model, HFBpe) else None
        suffix = (
            model.end_of_word_suffix if isinstance(model, HFBpe) else None
        ) or model.end_of_word
        unk = model.vocab.get(model.unk_token) if model.unk_token else None
        family = "byte_bpe" if byte_level else "bpe"
        return family, "byte" if byte_level or fallback else "char", prefix, suffix, unk
    if isinstance(model, (Unigram, SentencePieceBpe)):
        family = "unigram" if isinstance(model, Unigram) else "sentencepiece_bpe"
        return family, "byte" if model.byte_fallback else "char", None, None, model.unk_id
    raise InvalidInput(
        f"{name} has no fixed subword vocabulary ({type(model).__name__}): the space of "
        "tokenisations needs a BPE, WordPiece or Unigram model"
    )


def _entries(model: Any) -> Iterator[tuple[int, str]]:
    """(id, token) of every vocabulary entry that decodes to text: special and control pieces
    left out (sentencepiece's normal, user-defined, unused and byte pieces kept)."""
    if isinstance(model, (Unigram, SentencePieceBpe)):
        keep = {NORMAL, USER_DEFINED, UNUSED, BYTE}
        for id_, ((piece, _score), kind) in enumerate(zip(model.pieces, model.types)):
            if kind in keep:
                yield id_, piece
        return
    special = getattr(model, "special_tokens", None) or ()
    for token, id_ in model.vocab.items():
        if token not in special:
            yield id_, token


def _surface(token: str, byte_pieces: bool, prefix: str | None, suffix: str | None) -> str:
    """A token's surface in units: a word-initial token (no prefix) starts with `SENTINEL`, a
    word-final one (the suffix) ends with it; a byte piece is its byte. Byte units are spelled
    in the byte-level alphabet (a byte-level model's tokens already are)."""
    start = end = ""
    if prefix:
        if token.startswith(prefix) and len(token) > len(prefix):
            token = token[len(prefix) :]
        else:
            start = SENTINEL
    if suffix and token.endswith(suffix):
        token, end = token[: -len(suffix)], SENTINEL
    if byte_pieces:
        b = piece_to_byte(token)
        token = BYTE_TO_CHAR[b] if b >= 0 else str_to_byte_level(token.replace(SPACE, " "))
    return start + token + end


def merges_plainly(model: Any) -> bool:
    """Whether a BPE model encodes by BPE's own rule (merge the best-ranked pair, repeat): the
    engine's BPE, Hugging Face's and sentencepiece's, not a subclass that encodes otherwise
    (Picky BPE replays removals; sentencepiece's char and word models never merge).

    >>> import tokenizers_core as tc
    >>> [merges_plainly(tc.load(n).model) for n in ("cl100k_base", "bert-base-uncased")]
    [True, False]
    """
    kind = type(model)
    if isinstance(model, SentencePieceBpe):
        return kind.encode_spans is SentencePieceBpe.encode_spans
    if isinstance(model, BPE):
        return kind.merge_parts in (BPE.merge_parts, HFBpe.merge_parts) and kind.tokenize in (
            BPE.tokenize,
            HFBpe.tokenize,
        )
    return False


# ---- a text in units, and its canonical path -----------------------------------------------------
def model_pieces(tok: Any, text: str) -> list[str]:
    """The pieces the model sees: the text normalised and pre-tokenised (added tokens are not
    looked for; a byte-level pre-tokenizer spells them in its alphabet).

    >>> import tokenizers_core as tc
    >>> model_pieces(tc.load("cl100k_base"), "Hi there")
    ['Hi', 'Ġthere']
    """
    normalized = tok.normalize(text)
    pre = tok.pre_tokenizer
    pieces = pre.split(normalized) if pre is not None else [normalized]
    return [p.normalized for p in pieces if len(p.normalized)]


def piece_units(space: Space, piece: str) -> str:
    """One piece in units (with its word marks).

    >>> import tokenizers_core as tc
    >>> piece_units(space_of(tc.load("mistral_v1")), "▁é")  # under byte fallback, ▁ is a space
    'ĠÃ©'
    """
    if SENTINEL in piece:
        raise InvalidInput("the text holds U+FDD0, a noncharacter the lattice keeps for itself")
    if space.spaces:
        units = str_to_byte_level(piece.replace(SPACE, " "))
    else:
        units = piece
        if space.unit == "byte" and not all(c in CHAR_TO_BYTE for c in piece):
            raise InvalidInput(
                f"the pre-tokenizer gave {piece!r}, which is not spelled in the byte-level "
                "alphabet this byte-level model expects"
            )
    return (SENTINEL if space.prefix else "") + units + (SENTINEL if space.suffix else "")


def spell(tok: Any, space: Space, text: str) -> tuple[str, tuple[tuple[int, int, int], ...]]:
    """The text in units, and its canonical path as (start, end, id) edges: the model's own
    tokens of each piece, checked against `encode` (ordinary: special-token strings are text).
    InvalidInput when the text holds an added token, or the model drops text it cannot spell."""
    parts: list[str] = []
    path: list[tuple[int, int, int]] = []
    pos = 0
    for piece in model_pieces(tok, text):
        units = piece_units(space, piece)
        cursor = pos
        for _token, id_, _start, end in tok.model.tokenize(piece):
            surface = space.surface_of.get(id_)
            if surface is not None and units.startswith(surface, cursor - pos):
                stop = cursor + len(surface)
            elif id_ == space.unk_id:  # the unknown token: the text encode gave it
                stop = pos + _unit_offset(space, piece, end)
            else:
                raise InvalidInput(
                    f"token {id_} of {tok.name or 'this tokeniser'} does not spell its text"
                )
            path.append((cursor, stop, id_))
            cursor = stop
        if cursor != pos + len(units):
            raise InvalidInput(
                f"{tok.name or 'this tokeniser'} drops text it cannot spell (no unknown token):"
                f" {piece!r} is not covered"
            )
        parts.append(units)
        pos = cursor
    ids = [i for _s, _e, i in path]
    encoded = ordinary_ids(tok, text)
    if encoded != ids:
        _why_not(tok, encoded, ids)
    return "".join(parts), tuple(path)


def _unit_offset(space: Space, piece: str, end: int) -> int:
    """Where character `end` of a piece falls in its units (past the end mark at the end)."""
    if space.spaces:
        units = len(piece[:end].replace(SPACE, " ").encode("utf-8", "surrogatepass"))
    else:
        units = end
    mark = 1 if space.prefix else 0
    if space.suffix and end == len(piece):
        mark += 1
    return units + mark


def ordinary_ids(tok: Any, text: str) -> list[int]:
    """`encode`'s ids with no post-processor tokens and special-token strings read as text
    (tiktoken's `encode_ordinary`).

    >>> import tokenizers_core as tc
    >>> ordinary_ids(tc.load("cl100k_base"), "<|endoftext|>")[:2]
    [27, 91]
    """
    if isinstance(tok, TiktokenTokenizer):
        return tok.encode(text, disallowed_special=()).ids
    return tok.encode(text, add_special_tokens=False, encode_special_tokens=True).ids


def _why_not(tok: Any, encoded: list[int], ids: list[int]) -> None:
    added = {a.id: a.content for a in getattr(tok, "added_tokens", ())}
    for id_ in encoded:
        if id_ in added:
            raise InvalidInput(
                f"the text holds {added[id_]!r}, an added token of "
                f"{tok.name or 'this tokeniser'}: the space of tokenisations covers the "
                "model's vocabulary only, so leave it out"
            )
    raise InvalidInput(
        f"{tok.name or 'this tokeniser'} encodes this text otherwise than its model does on the "
        "pre-tokenised pieces, so its space of tokenisations cannot be drawn"
    )


def unit_label(space: Space, unit: str) -> str:
    """How a view labels one unit: a byte as its ASCII character or hex ('E6'), a character as
    itself, a word mark as ''.

    >>> import tokenizers_core as tc
    >>> s = space_of(tc.load("cl100k_base"))
    >>> unit_label(s, "a"), unit_label(s, "Ġ"), unit_label(s, "Ã")
    ('a', ' ', 'C3')
    """
    if unit == SENTINEL:
        return ""
    if space.unit == "char":
        return unit
    b = CHAR_TO_BYTE[unit]
    if b == 0x20 and space.spaces:
        return SPACE
    return chr(b) if 0x20 <= b < 0x7F else f"{b:02X}"


def surface_bytes(space: Space, surface: str) -> bytes:
    """The bytes (UTF-8 for character units) a surface stands for, word marks left out (under
    byte fallback, a `▁` is the space it decodes to)."""
    surface = surface.replace(SENTINEL, "")
    if space.unit == "byte":
        return bytes(CHAR_TO_BYTE[c] for c in surface)
    return surface.encode("utf-8", "surrogatepass")


def surface_text(space: Space, surface: str) -> str:
    """A surface as the model's own text (a byte-fallback `▁` restored); UnicodeDecodeError for
    bytes that are not whole characters.

    >>> import tokenizers_core as tc
    >>> s = space_of(tc.load("mistral_v1"))
    >>> surface_text(s, s.surface_of[22557])
    '▁Hello'
    """
    if space.unit == "char":
        return surface.replace(SENTINEL, "")
    text = surface_bytes(space, surface).decode("utf-8", "surrogatepass")
    return text.replace(" ", SPACE) if space.spaces else text

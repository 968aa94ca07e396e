"""Canonicality: whether a sequence of ids is what `encode` gives for the text they spell, and
where it first breaks.

A sequence is canonical when encode(text(ids)) == ids, `text` being what the ids decode to
(`tok.decode`; a tokeniser without a decoder joins the tokens' texts) and `encode` the ordinary
encoding (no post-processor tokens, special-token strings read as text). `is_canonical` always
decides by that whole re-encode, so its verdict is exact for every model; what differs by model
is how the first break is found (`method`):

- **"pairwise"** (BPE of every family: tiktoken's, Hugging Face's, sentencepiece's): Vieira et
  al. (ICML 2025, arXiv 2506.07956) prove that for BPE a token string is canonical exactly
  when every adjacent pair (a, b) is, i.e. when BPE of text(a) + text(b) gives back [a, b]. The
  proof is for BPE run on the whole string. A pre-tokenizer that splits changes that: encode
  runs BPE on each pre-token alone, and the regex that cuts the pre-tokens reads context, so a
  pair's text re-encoded alone may be cut otherwise than inside the text ("!" + "abc" is one
  piece alone and two after "!!"), and the bare pairwise test then flags pairs of canonical
  sequences. So the test here is the paper's, made exact for pre-tokenised BPE: the text is
  pre-tokenised once, a token that crosses a pre-token boundary is a break ("pre_token": encode
  never makes one), so is a pre-token spelled by several tokens when the model takes a
  pre-token that is a token whole (`ignore_merges`, Llama 3), and within each pre-token each
  adjacent pair is re-encoded by the model's BPE alone (no pre-tokenizer), which is the
  paper's setting. The index is the first failing pair's left token. Under sentencepiece's
  byte fallback the bytes of one character count as one symbol (BPE never merges them), and a
  character of the vocabulary spelled by its bytes is a break ("byte_fallback": encode spells
  by bytes only the characters outside the vocabulary). Where the test cannot read the ids
  (below), the whole re-encode gives the index.
- **"reencode"** (Unigram, WordPiece, BPE with a subword prefix or suffix, Hugging Face BPE
  with byte fallback, BPE that does not encode by merging alone such as Picky BPE, and any
  sequence the pairwise test cannot read: one holding the unknown token, bytes cut inside a
  character, or a text that reads back as other units, e.g. a sentencepiece sequence without
  its leading `▁`): the index is the first position where the ids and encode's ids differ.

The pairwise verdict (`pairwise`) is tested equal to the whole re-encode's on tiktoken's
cl100k and o200k, Hugging Face's Llama 3 (`ignore_merges`), Qwen3, and sentencepiece's BPE
(Mistral, with byte fallback; Botchan), on uniform samples, shortest sequences and StochasTok
splits of random texts.

>>> from tokenizers_core.models.bpe.model import BPE
>>> from tokenizers_core.pipeline import Tokenizer
>>> tok = Tokenizer(BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
>>> is_canonical(tok, [2, 2]) is None
True
>>> found = is_canonical(tok, [2, 0, 1])
>>> found.index, found.method, found.pair_encoding, found.canonical_ids
(1, 'pairwise', (2,), (2, 2))
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..errors import InvalidInput
from ..models.bpe.hf import HFBpe
from ..models.bpe.model import BPE
from ..models.bpe.sentencepiece import SentencePieceBpe
from ..models.sentencepiece_common import USER_DEFINED, piece_to_byte
from .lattice import edge_text, utf8_size
from .space import (
    SPACE,
    Space,
    merges_plainly,
    model_pieces,
    ordinary_ids,
    piece_units,
    space_of,
    surface_bytes,
    surface_text,
)

MAX_IDS = 2000


@dataclass(frozen=True)
class CanonicalBreak:
    """Where a sequence of ids stops being canonical: `index` (the left token of the first
    failing pair for "pairwise", the crossing token or the first token of a whole-token
    pre-token for "pre_token", the first byte piece for "byte_fallback", the first differing
    position for "reencode"), the `method`, both sides as texts (`tokens` and
    `canonical_tokens`, shown as the lattice shows them) and ids, `differs_at` (the first
    position where the two id sequences differ, whatever the method), the failing pair
    (`pair_ids`: two ids, or more when a side is the byte pieces of one character; for
    "byte_fallback", those byte pieces) and what its text encodes to (`pair_encoding`; for
    "byte_fallback", the character's own piece), empty for the other methods, and `reason`, a
    sentence saying why."""

    index: int
    method: str
    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    canonical_ids: tuple[int, ...]
    canonical_tokens: tuple[str, ...]
    differs_at: int
    pair_ids: tuple[int, ...]
    pair_encoding: tuple[int, ...]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


def is_canonical(tok: Any, ids: list[int]) -> CanonicalBreak | None:
    """None when `encode(text(ids)) == ids`, else where it first breaks (see the module
    docstring). Ids outside the vocabulary, or special or added tokens, are InvalidInput.

    >>> import tokenizers_core as tc
    >>> enc = tc.load("cl100k_base")
    >>> is_canonical(enc, enc.encode("Hello world").ids) is None
    True
    >>> found = is_canonical(enc, [9906, 289, 1410])  # "Hello" + " w" + "orld"
    >>> found.method, found.index, found.tokens, found.canonical_tokens
    ('pairwise', 1, ('Hello', ' w', 'orld'), ('Hello', ' world'))
    """
    space = space_of(tok)
    ids = check_ids(tok, space, ids)
    text = text_of(tok, space, ids)
    canonical = ordinary_ids(tok, text)
    if canonical == ids:
        return None
    found = _pairwise(tok, space, ids, text) if _pairwise_applies(tok) else UNDECIDED
    if found is None or found is UNDECIDED:  # (None: the rule missed it; never seen so far)
        found = _reencode_break(ids, canonical)
    return _result(tok, space, ids, canonical, *found)


def pairwise(tok: Any, ids: list[int]) -> CanonicalBreak | None:
    """The pairwise test alone (see the module docstring): the first break it finds, or None
    when every pair within every pre-token re-encodes to itself. Its verdict agrees with the
    whole re-encode for BPE (tested on tiktoken's, Hugging Face's and sentencepiece's); for
    other models, InvalidInput. Where the rule cannot read the ids -- their text reads back as
    other units (a sentencepiece sequence without its leading `▁`), or a pair holds part of a
    character (byte pieces) -- the whole re-encode decides, and a break says "reencode".

    >>> from tokenizers_core.models.bpe.model import BPE
    >>> from tokenizers_core.pipeline import Tokenizer
    >>> tok = Tokenizer(BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
    >>> pairwise(tok, [2, 2]) is None, pairwise(tok, [0, 1]).index
    (True, 0)
    """
    if not _pairwise_applies(tok):
        raise InvalidInput(
            "the pairwise test is for BPE that encodes by merging alone, without a subword "
            "prefix or suffix (and Hugging Face's without byte fallback); "
            f"{tok.name or 'this tokeniser'} is {type(tok.model).__name__}: use is_canonical"
        )
    space = space_of(tok)
    ids = check_ids(tok, space, ids)
    text = text_of(tok, space, ids)
    found = _pairwise(tok, space, ids, text)
    if found is None:
        return None
    canonical = ordinary_ids(tok, text)
    if found is UNDECIDED:
        if canonical == ids:
            return None
        found = _reencode_break(ids, canonical)
    return _result(tok, space, ids, canonical, *found)


def check_ids(tok: Any, space: Space, ids: Any) -> list[int]:
    """The ids as a list, each a token of the space or the unknown token; else InvalidInput."""
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
        raise InvalidInput("give a list of token ids")
    ids = list(ids)
    if len(ids) > MAX_IDS:
        raise InvalidInput(f"{len(ids):,} ids: canonicality is checked for at most {MAX_IDS:,}")
    name = tok.name or "this tokeniser"
    for id_ in ids:
        if not isinstance(id_, int) or isinstance(id_, bool):
            raise InvalidInput(f"{id_!r} is not a token id (an integer)")
        if id_ in space.surface_of or id_ == space.unk_id:
            continue
        if tok.id_to_token(id_) is None:
            raise InvalidInput(f"id {id_} is not in the vocabulary of {name}")
        raise InvalidInput(
            f"id {id_} ({tok.id_to_token(id_)!r}) is a special or added token of {name}: "
            "canonicality is about the model's own vocabulary, so leave it out"
        )
    return ids


def text_of(tok: Any, space: Space, ids: list[int]) -> str:
    """The text the ids decode to (`decode`; without a decoder, the tokens' texts joined)."""
    if tok.decoder is not None:
        return tok.decode(ids)
    return "".join(edge_text(space, space.surface_of.get(i, "")) for i in ids)


def token_texts(tok: Any, space: Space, ids: list[int] | tuple[int, ...]) -> tuple[str, ...]:
    """Each id's text as the lattice shows it (the unknown token as itself)."""
    return tuple(
        edge_text(space, space.surface_of[i]) if i in space.surface_of else tok.id_to_token(i) or ""
        for i in ids
    )


def _result(
    tok: Any,
    space: Space,
    ids: list[int],
    canonical: list[int],
    index: int,
    method: str,
    pair: tuple[int, ...],
    encoded: tuple[int, ...],
    reason: str,
) -> CanonicalBreak:
    return CanonicalBreak(
        index=index,
        method=method,
        ids=tuple(ids),
        tokens=token_texts(tok, space, ids),
        canonical_ids=tuple(canonical),
        canonical_tokens=token_texts(tok, space, canonical),
        differs_at=_first_difference(ids, canonical),
        pair_ids=pair,
        pair_encoding=encoded,
        reason=reason,
    )


def _pair_reason(tok: Any, space: Space, pair: tuple[int, ...], encoded: tuple[int, ...]) -> str:
    """Why a pair breaks, with its tokens: "'H' + 'ello' encode on their own as 'Hello'"."""
    spell = " + ".join(repr(t) for t in token_texts(tok, space, pair))
    again = " + ".join(repr(t) for t in token_texts(tok, space, encoded))
    return f"{spell} encode on their own as {again}"


def _first_difference(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def _pairwise_applies(tok: Any) -> bool:
    """BPE that encodes by merging alone (`merges_plainly`): no prefix or suffix, for Hugging
    Face no byte fallback, and for sentencepiece no user-defined pieces (kept whole)."""
    model = tok.model
    if not merges_plainly(model):
        return False
    if isinstance(model, HFBpe):
        return not (
            model.continuing_subword_prefix or model.end_of_word_suffix or model.byte_fallback
        )
    if isinstance(model, BPE):
        return not model.end_of_word
    if isinstance(model, SentencePieceBpe):
        return USER_DEFINED not in model.types
    return False


Found = tuple[int, str, tuple[int, ...], tuple[int, ...], str]
UNDECIDED: Found = (-1, "", (), (), "")  # the pairwise rule cannot read these ids


def _reencode_break(ids: list[int], canonical: list[int]) -> Found:
    index = _first_difference(ids, canonical)
    return index, "reencode", (), (), f"encode gives other ids from position {index} on"


def _pairwise(tok: Any, space: Space, ids: list[int], text: str) -> Found | None:
    """(index, method, pair, its encoding, reason) of the first break by the pre-token-aware
    pairwise test, None when there is none, or UNDECIDED when it meets what it cannot read
    before any break."""
    pieces = model_pieces(tok, text)
    spelled = [piece_units(space, p) for p in pieces]
    surfaces = [space.surface_of.get(i) for i in ids]
    if None in surfaces or "".join(s or "" for s in surfaces) != "".join(spelled):
        return UNDECIDED  # the ids' text reads back as other units
    model = tok.model
    whole = isinstance(model, HFBpe) and model.ignore_merges
    k = 0  # the first token of the current pre-token
    start = 0  # where it starts, in units
    for piece, units in zip(pieces, spelled):
        end = start + len(units)
        first = k
        pos = start
        while pos < end:
            pos += len(surfaces[k] or "")
            k += 1
        if pos != end:  # token k - 1 runs past the pre-token
            return (
                k - 1,
                "pre_token",
                (),
                (),
                f"token {k - 1} crosses the boundary between two pre-tokens, which encode "
                "never does (it encodes each pre-token alone)",
            )
        if whole and k - first > 1 and piece in model.vocab:
            return (
                first,
                "pre_token",
                (),
                (),
                f"the pre-token {piece!r} is itself a token, which encode takes whole",
            )
        symbols = _symbols(tok, space, ids, surfaces, first, k)
        if not isinstance(symbols, list):
            return symbols  # a break, or UNDECIDED
        for (i, left, a), (_j, right, b) in zip(symbols, symbols[1:]):
            pair = left + right
            encoded = _bpe_alone(model, a + b)
            if encoded != pair:
                return i, "pairwise", pair, encoded, _pair_reason(tok, space, pair, encoded)
        start = end
    return None


Symbol = tuple[int, tuple[int, ...], str]  # (index of its first token, its ids, its text)


def _symbols(
    tok: Any, space: Space, ids: list[int], surfaces: list[str | None], first: int, stop: int
) -> list[Symbol] | Found:
    """Tokens first..stop as the pairwise test's symbols: a token and its text in the model's
    own characters; under byte fallback, the byte pieces of one character are one symbol (BPE
    never merges them; encode spells a character by its bytes exactly when the vocabulary lacks
    it, so a character it has, spelled by bytes, is a break, "byte_fallback")."""
    if not space.spaces:
        return [(i, (ids[i],), surfaces[i] or "") for i in range(first, stop)]
    out: list[Symbol] = []
    i = first
    while i < stop:
        j = i + 1
        data = surface_bytes(space, surfaces[i] or "")
        if _is_byte_piece(tok, ids[i]):  # gather the rest of the character's bytes
            while j < stop and len(data) < utf8_size(data[0]) and _is_byte_piece(tok, ids[j]):
                data += surface_bytes(space, surfaces[j] or "")
                j += 1
        try:
            text = surface_text(space, surfaces[i] or "") if j == i + 1 else data.decode()
        except UnicodeDecodeError:
            return UNDECIDED  # bytes that are not one whole character
        if j > i + 1 or _is_byte_piece(tok, ids[i]):
            if tok.model.token_to_id(text.replace(" ", SPACE)) is not None:
                return (
                    i,
                    "byte_fallback",
                    tuple(ids[i:j]),
                    (tok.model.token_to_id(text.replace(" ", SPACE)),),
                    f"{text!r} is in the vocabulary, and encode spells by bytes only the "
                    "characters outside it",
                )
            text = text.replace(" ", SPACE)
        out.append((i, tuple(ids[i:j]), text))
        i = j
    return out


def _is_byte_piece(tok: Any, id_: int) -> bool:
    return piece_to_byte(tok.model.id_to_token(id_) or "") >= 0


def _bpe_alone(model: Any, text: str) -> tuple[int, ...]:
    """The model's BPE of one string, with no pre-tokenizer (the paper's setting); for
    sentencepiece, with its byte fallback for characters outside the vocabulary."""
    if isinstance(model, SentencePieceBpe):
        return tuple(id_ for _t, id_, _s, _e in model.tokenize(text))
    parts = model.merge_parts(list(text))
    return tuple(model.vocab.get(p, -1) for p in parts)

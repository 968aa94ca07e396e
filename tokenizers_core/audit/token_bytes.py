"""Each vocabulary entry as the bytes it stands for, whatever kind of tokeniser it comes from, so
that two vocabularies can be compared by what their tokens mean rather than by their ids.

A token's spelling depends on its family; this module undoes each family's convention:

- byte-level BPE (the OpenAI encodings, tiktoken ranks files, byte-level tokenizer.json files):
  GPT-2's byte-to-unicode alphabet undone (`Ġthe` is b" the"), as `byte_api` reads a token;
- sentencepiece and Metaspace vocabularies: `▁` is a space, and a byte piece `<0xE2>` is the
  one byte 0xE2;
- WordPiece: the `##` of a continuation piece is a marker, not text: `##ing` is b"ing" marked
  "continues a word", which a word-initial `ing` is not;
- end-of-word suffixes (CLIP's and the textbook BPE's `</w>`): b"ing" marked "ends a word";
- special tokens (the unknown token too) and added tokens are flagged, and stand for their
  text in UTF-8.

>>> import tokenizers_core as tc
>>> [(e.token, e.data, e.marker) for e in token_entries(tc.load("bert-base-uncased"))][1996:1997]
[('the', b'the', '')]
>>> entry_of(tc.load("bert-base-uncased"), 2075).key
('continues', b'ing')
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from ..byte_level import CHAR_TO_LATIN1
from ..errors import InvalidInput, NotFound

CONTINUES = "continues"  # a WordPiece continuation piece (`##ing`)
ENDS = "ends"  # a word-final piece (`ing</w>`)
SPECIAL = "special"  # a special token: compared by its text

# str.translate's table from the byte alphabet to bytes; the other characters below 256 go to
# one above it, so that encoding the result as latin-1 fails for a token not in the alphabet
_TO_BYTE = {**{c: 0x10000 for c in range(256)}, **CHAR_TO_LATIN1}
_METASPACE = "\u2581"  # ▁
_SPECIAL_TYPES = (2, 3)  # UNKNOWN, CONTROL


class TokenEntry(NamedTuple):
    """One vocabulary entry: its id, its spelling, the bytes it stands for and its marker.

    `marker` is "" for an ordinary token, CONTINUES or ENDS for word markers kept apart from the
    bytes, SPECIAL for a special token. `added`: outside the model's own vocabulary (an added
    token of a tokenizer.json, a special token a ranks file lacks)."""

    id: int
    token: str
    data: bytes
    marker: str = ""
    added: bool = False

    @property
    def special(self) -> bool:
        return self.marker == SPECIAL

    @property
    def key(self) -> tuple[str, bytes]:
        """What two vocabularies compare: the marker and the bytes."""
        return self.marker, self.data


def token_entries(tok: Any) -> list[TokenEntry]:
    """Every entry of `tok`'s vocabulary (its model's, its special tokens and its added tokens,
    as `tok.vocab_size` counts them) in id order, as bytes. Raises ValueError for a tokeniser
    without a vocabulary (the rule tokenisers: characters, words, sentences, a regex)."""
    entry, ids = entry_reader(tok)
    return [entry(i) for i in ids]


def entry_of(tok: Any, id_: int) -> TokenEntry:
    """The entry of one id (NotFound for an id outside the vocabulary)."""
    return entry_reader(tok)[0](id_)


def entry_reader(tok: Any) -> tuple[Callable[[int], TokenEntry], list[int]]:
    """A function from an id to its entry (NotFound for an id outside the vocabulary), and
    every id in order. An added token with an id of the model's own names that entry; a
    tiktoken-style special token past the ranks is an entry of its own. InvalidInput for a
    tokeniser without a vocabulary."""
    model = tok.model
    vocab = getattr(model, "vocab", None)
    if not vocab:
        raise InvalidInput(
            f"{tok.name or 'this tokeniser'} has no vocabulary: its tokens are cut "
            "by rules (characters, words, sentences or a regex)"
        )
    read = _reader(model)
    specials = _special_names(model)
    own = {id_: token for token, id_ in vocab.items()}
    named = getattr(model, "special_tokens", None)
    extra = (
        {id_: token for token, id_ in named.items() if id_ not in own}
        if isinstance(named, dict)
        else {}
    )  # tiktoken-style: past the ranks
    added = {a.id: a for a in getattr(tok, "added_tokens", ()) or () if a.id is not None}
    typed = isinstance(getattr(model, "types", None), list)
    unk_id = getattr(model, "unk_id", None)

    def entry(id_: int) -> TokenEntry:
        token = own.get(id_)
        if added and id_ in added:
            a = added[id_]
            if a.special or a.content in specials:
                return _special(id_, a.content, added=token != a.content)
            if token != a.content:
                return TokenEntry(id_, a.content, _added_bytes(model, a.content), "", True)
        if token is None:
            if id_ in extra:
                return _special(id_, extra[id_], added=True)
            raise NotFound(f"{tok.name or 'this tokeniser'} has no token with id {id_}")
        if token in specials or id_ == unk_id or typed and _typed_special(model, id_):
            return _special(id_, token)
        return read(id_, token)

    return entry, sorted({*own, *extra, *added})


def _special(id_: int, token: str, added: bool = False) -> TokenEntry:
    return TokenEntry(id_, token, token.encode("utf-8"), SPECIAL, added)


def _special_names(model: Any) -> frozenset[str]:
    """The model's special tokens and its unknown token (a marker, not bytes)."""
    named = set(getattr(model, "special_tokens", None) or ())
    unk = getattr(model, "unk_token", None)
    if isinstance(unk, str):
        named.add(unk)
    return frozenset(named)


def _typed_special(model: Any, id_: int) -> bool:
    """A sentencepiece piece typed unknown or control (`<unk>`, `<s>`, `</s>`)."""
    types = getattr(model, "types", None)
    return isinstance(types, list) and 0 <= id_ < len(types) and types[id_] in _SPECIAL_TYPES


def _added_bytes(model: Any, content: str) -> bytes:
    """An added token's bytes: through the byte alphabet when a byte-level model spells it so
    (as Hugging Face's ByteLevel decoder reads it), else its text in UTF-8."""
    data = _alphabet_bytes(content) if getattr(model, "byte_level", False) else None
    return content.encode("utf-8") if data is None else data


def _alphabet_bytes(spelled: str) -> bytes | None:
    """The bytes a token spelled in GPT-2's byte alphabet stands for, or None when it is not
    spelled in it.

    >>> _alphabet_bytes("ĠÃ©"), _alphabet_bytes("a b"), _alphabet_bytes("")
    (b' \\xc3\\xa9', None, None)
    """
    try:
        return spelled.translate(_TO_BYTE).encode("latin-1") or None
    except UnicodeEncodeError:
        return None


def _reader(model: Any):
    """A function (id, token) -> TokenEntry for `model`'s own spelling."""
    prefix = getattr(model, "continuing_subword_prefix", None) or ""
    suffix = getattr(model, "end_of_word_suffix", None) or _end_of_word(model)
    byte_level = bool(getattr(model, "byte_level", False))
    wordpiece = hasattr(model, "max_input_chars_per_word")
    types = getattr(model, "types", None)
    byte_pieces = isinstance(types, list) or bool(getattr(model, "byte_fallback", False))

    def read(id_: int, token: str) -> TokenEntry:
        stem, marker = token, ""
        if suffix and stem.endswith(suffix) and len(stem) > len(suffix):
            stem, marker = stem[: -len(suffix)], ENDS
        if prefix and stem.startswith(prefix) and len(stem) > len(prefix):
            stem, marker = stem[len(prefix) :], CONTINUES
        data = _alphabet_bytes(stem) if byte_level else None
        if data is not None:
            return TokenEntry(id_, token, data, marker)
        if byte_pieces and _is_byte_piece(stem):
            return TokenEntry(id_, token, bytes([int(stem[3:5], 16)]), marker)
        if not (byte_level or wordpiece):
            stem = stem.replace(_METASPACE, " ")
        return TokenEntry(id_, token, stem.encode("utf-8", "surrogatepass"), marker)

    return read


def _end_of_word(model: Any) -> str:
    """The textbook BPE's end-of-word symbol (`</w>`), when its tokens carry one."""
    end = getattr(model, "end_of_word", None)
    return end if isinstance(end, str) else ""


def _is_byte_piece(piece: str) -> bool:
    """A byte-fallback piece such as `<0xE2>`.

    >>> _is_byte_piece("<0xE2>"), _is_byte_piece("<0xZZ>"), _is_byte_piece("E2")
    (True, False, False)
    """
    if len(piece) != 6 or not piece.startswith("<0x") or not piece.endswith(">"):
        return False
    return all(c in "0123456789ABCDEFabcdef" for c in piece[3:5])

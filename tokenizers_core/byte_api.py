"""Bytes in and out, as tiktoken's `Encoding` offers them: `encode_single_token(b"...")`,
`encode_bytes` (tiktoken's `_encode_bytes`: any bytes, UTF-8 or not), `decode_bytes`,
`decode_single_token_bytes` and `decode_tokens_bytes`. `Tokenizer` has each as a method.

A byte-level tokeniser (the OpenAI encodings, any tiktoken ranks file, a Hugging Face
tokenizer.json with a ByteLevel pre-tokenizer) spells every token in GPT-2's byte-to-unicode
alphabet, so each token stands for exact bytes, and joining them gives the raw bytes, a character
cut across two tokens included:

>>> import tokenizers_core as tc
>>> enc = tc.load("cl100k_base")
>>> enc.decode_bytes([9906, 1917]), enc.encode_single_token(b" world")
(b'Hello world', 1917)
>>> enc.decode_tokens_bytes(enc.encode("🙂").ids)
[b'\\xf0\\x9f', b'\\x99\\x82']

A special token's bytes are its text in UTF-8 (tiktoken's rule). An added token of a Hugging Face
file is read as its ByteLevel decoder reads every token: through the alphabet when each of its
characters is in it, else as UTF-8.

Tokenisers that are not byte-level have no bytes of their own: a token's bytes are its
vocabulary entry in UTF-8 (`##ing`, `▁the`), and `decode_bytes` is `decode`'s text in UTF-8.

A non-token raises `NotAToken`, a KeyError as in tiktoken that is also a ValueError (the engine's
error for bad input).
"""

from __future__ import annotations

from typing import Any, Iterable

from .byte_level import CHAR_TO_BYTE, bytes_to_byte_level
from .errors import InvalidInput

_SPACES = frozenset(b" \n\t")


class NotAToken(KeyError, InvalidInput):
    """An id or bytes that are no token: a KeyError, as tiktoken raises, and an InvalidInput."""

    def __str__(self) -> str:  # KeyError would show the message quoted
        return str(self.args[0]) if self.args else ""


def is_byte_level(tok: Any) -> bool:
    """Whether `tok`'s tokens are spelled in the byte-level alphabet."""
    return bool(getattr(tok.model, "byte_level", False))


def spell(data: bytes) -> str:
    """Bytes in the byte-level alphabet.

    >>> spell(b" \\xc3\\xa9")
    'ĠÃ©'
    """
    return bytes_to_byte_level(data)


def _read(token: str) -> bytes:
    """A token's bytes as Hugging Face's ByteLevel decoder reads them: through the alphabet when
    every character is in it, else the token's UTF-8.

    >>> _read("ĠÃ©"), _read("<|begin_of_text|>"), _read("a b")
    (b' \\xc3\\xa9', b'<|begin_of_text|>', b'a b')
    """
    try:
        return bytes(CHAR_TO_BYTE[c] for c in token)
    except KeyError:
        return token.encode("utf-8")


def _name(tok: Any) -> str:
    return tok.name or "this tokeniser"


def decode_single_token_bytes(tok: Any, id_: int) -> bytes:
    """The bytes one token id stands for (tiktoken's `decode_single_token_bytes`; special
    tokens too). NotAToken for an id outside the vocabulary."""
    token = tok.id_to_token(id_) if isinstance(id_, int) and not isinstance(id_, bool) else None
    if token is None:
        raise NotAToken(f"id {id_!r} is not in the vocabulary of {_name(tok)}")
    if not is_byte_level(tok):
        return token.encode("utf-8")
    special = getattr(tok.model, "special_tokens", None) or {}
    if special.get(token) == id_ and tok.model.vocab.get(token) != id_:
        return token.encode("utf-8")
    return _read(token)


def decode_tokens_bytes(tok: Any, ids: Iterable[int]) -> list[bytes]:
    """Each token's bytes (tiktoken's `decode_tokens_bytes`)."""
    known: dict[int, bytes] = {}  # a text repeats its tokens: read each once
    out = []
    for i in _ids(ids):
        data = known.get(i) if type(i) is int else None
        if data is None:
            data = known[i] = decode_single_token_bytes(tok, i)
        out.append(data)
    return out


def encoding_bytes(tok: Any, encoding: Any) -> list[bytes]:
    """Each token of an `Encoding` as bytes: `decode_single_token_bytes` of its id for a
    byte-level tokeniser, else its token in UTF-8 (rule tokenisers number tokens per encode).

    >>> import tokenizers_core as tc
    >>> encoding_bytes(tc.load("char"), tc.load("char").encode("hé"))
    [b'h', b'\xc3\xa9']
    """
    if is_byte_level(tok):
        return decode_tokens_bytes(tok, encoding.ids)
    return [token.encode("utf-8", "surrogatepass") for token in encoding.tokens]


def decode_bytes(tok: Any, ids: Iterable[int]) -> bytes:
    """The bytes of the tokens joined (tiktoken's `decode_bytes`): a character split across
    tokens, or cut off at the end, stays as its raw bytes (`decode` would show U+FFFD).

    >>> import tokenizers_core as tc
    >>> tc.load("r50k_base").decode_bytes([8582]), tc.load("r50k_base").decode([8582])
    (b'\\xf0\\x9f', '\ufffd')
    """
    ids = _ids(ids)
    if getattr(tok, "drops_unknown_ids", False):  # as its decode: Hugging Face's
        ids = [i for i in ids if not (type(i) is int and 0 <= i and tok.id_to_token(i) is None)]
    if not is_byte_level(tok):
        decode_tokens_bytes(tok, ids)  # every id checked first
        return tok.decode(ids).encode("utf-8")
    return b"".join(decode_tokens_bytes(tok, ids))


def encode_single_token(tok: Any, text_or_bytes: str | bytes) -> int:
    """The id of the token whose bytes (or text, as UTF-8) are exactly these (tiktoken's
    `encode_single_token`; special tokens too). NotAToken when no single token has them.

    >>> import tokenizers_core as tc
    >>> (tc.load("r50k_base").encode_single_token("hello"),
    ...  tc.load("gpt2").encode_single_token(b"<|endoftext|>"))
    (31373, 50256)
    """
    data = _bytes(text_or_bytes)
    id_ = tok.model.vocab.get(spell(data)) if is_byte_level(tok) else None
    if id_ is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and is_byte_level(tok):
            special = getattr(tok.model, "special_tokens", None) or {}
            id_ = tok.added_vocabulary.ids.get(text, special.get(text))
        elif text is not None:
            id_ = tok.token_to_id(text)
    if id_ is None:
        raise NotAToken(f"{data!r} is not a single token of {_name(tok)}")
    return id_


def encode_bytes(tok: Any, data: bytes) -> list[int]:
    """The ids of any bytes (tiktoken's `_encode_bytes`). UTF-8 is encoded as its text is
    (special-token strings as ordinary text). Bytes that are not UTF-8 (tiktoken-style
    encodings only): the valid prefix is encoded, then the tokens of its last piece (and the
    whitespace-only tokens before it, when that piece starts with one) are given back and their
    bytes, with the rest of the input, are merged again by rank as one piece.

    >>> import tokenizers_core as tc
    >>> tc.load("cl100k_base").encode_bytes(b" \\xec\\x8b\\xa4\\xed")
    [62085]
    """
    data = _bytes(data)
    try:
        return _encode_text(tok, data.decode("utf-8")).ids
    except UnicodeDecodeError as err:
        valid = err.start
    if getattr(tok.model, "rank_by", None) != "tokens":
        raise InvalidInput(
            f"{_name(tok)} encodes text, and these bytes are not UTF-8 (byte "
            f"{valid}); only tiktoken-style encodings take any bytes"
        )
    enc = _encode_text(tok, data[:valid].decode("utf-8"))
    ids = list(enc.ids)
    last = enc.word_ids.count(enc.word_ids[-1]) if ids else 0  # the last piece's tokens
    if last and _all_space(tok, ids[-last]):
        while last < len(ids) and _all_space(tok, ids[-last - 1]):
            last += 1
    tail = b"".join(decode_tokens_bytes(tok, ids[len(ids) - last :])) + data[valid:]
    del ids[len(ids) - last :]
    whole = tok.model.vocab.get(spell(tail))
    if whole is not None:
        return ids + [whole]
    return ids + [tok.model.vocab[p] for p in tok.model.merge_parts(list(spell(tail)))]


def _encode_text(tok: Any, text: str) -> Any:
    """Ordinary encoding: special-token strings are text, no post-processor tokens."""
    if getattr(tok.model, "rank_by", None) == "tokens" and hasattr(tok, "special_tokens"):
        return tok.encode(text, disallowed_special=())
    return tok.encode(text, add_special_tokens=False)


def _all_space(tok: Any, id_: int) -> bool:
    return all(b in _SPACES for b in decode_single_token_bytes(tok, id_))


def _bytes(data: Any) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8", "surrogatepass")
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise InvalidInput(f"expected bytes or a string, not {type(data).__name__}")


def _ids(ids: Iterable[int]) -> list[int]:
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        raise InvalidInput("give a list of token ids")
    return list(ids)

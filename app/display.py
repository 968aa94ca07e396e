"""How tokens are shown: visible whitespace, byte labels, chips and input segments.

Pure functions from an `Encoding` (and its text) to small values the templates render.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import tokenizers_core as tc

_VISIBLE = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}


def visible(text: str) -> str:
    """Make whitespace and invisible characters visible.

    >>> visible("a b\\n\\tc\\u200b")
    'a·b↵→c⟨U+200B⟩'
    """
    out = []
    for c in text:
        if c in _VISIBLE:
            out.append(_VISIBLE[c])
        elif unicodedata.category(c) in ("Cc", "Cf", "Zs", "Zl", "Zp", "Co", "Cn", "Cs"):
            out.append(f"⟨U+{ord(c):04X}⟩")
        else:
            out.append(c)
    return "".join(out)


def hex_bytes(data: bytes) -> str:
    """Bytes as upper-case hex pairs.

    >>> hex_bytes("é".encode())
    'C3 A9'
    """
    return " ".join(f"{b:02X}" for b in data)


def token_label(data: bytes) -> str:
    """A token's bytes as text, or as `<E3 81>` when they are not valid UTF-8 on their own."""
    try:
        return visible(data.decode("utf-8"))
    except UnicodeDecodeError:
        return f"<{hex_bytes(data)}>"


_BYTE_DECODER: dict[str, int] | None = None


def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-to-unicode table, inverted (built here so the app does not depend on a
    particular model module)."""
    global _BYTE_DECODER
    if _BYTE_DECODER is None:
        printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                     *range(ord("®"), ord("ÿ") + 1)]
        table, extra = {}, 0
        for b in range(256):
            if b in printable:
                table[chr(b)] = b
            else:
                table[chr(256 + extra)] = b
                extra += 1
        _BYTE_DECODER = table
    return _BYTE_DECODER


def is_byte_level(tok: tc.Tokenizer) -> bool:
    return bool(getattr(tok.model, "byte_level", False)) or tok.algorithm == "byte_bpe"


def token_bytes(tok: tc.Tokenizer, value: str, surface: str) -> bytes:
    """The UTF-8 bytes a token stands for."""
    if is_byte_level(tok):
        table = _byte_decoder()
        if value and all(c in table for c in value):
            return bytes(table[c] for c in value)
    if value.startswith("<0x") and value.endswith(">") and len(value) == 6:  # byte fallback
        try:
            return bytes([int(value[3:5], 16)])
        except ValueError:
            pass
    return surface.encode("utf-8")


@dataclass(frozen=True)
class Chip:
    index: int
    id: int
    raw: str          # the token as the model spells it (Ġ, ##, ▁ kept), made visible
    text: str         # the token as text: its surface in the input, or <E3 81> for partial bytes
    start: int
    end: int
    bytes_hex: str
    special: bool
    colour: int
    word: str         # the pre-tokenised word it belongs to (for step-through links)


def chips(tok: tc.Tokenizer, text: str, enc: tc.Encoding, words: list[tuple[int, int]]) -> list[Chip]:
    """One chip per token. `words` are the original spans of the pre-tokenised pieces."""
    out: list[Chip] = []
    spans = enc.offsets
    for i, (id_, value, (s, e), special) in enumerate(
            zip(enc.ids, enc.tokens, spans, enc.special_tokens_mask)):
        surface = "" if special else text[s:e]
        shared = (not special) and (
            (i > 0 and spans[i - 1] == (s, e) and not enc.special_tokens_mask[i - 1])
            or (i + 1 < len(spans) and spans[i + 1] == (s, e)
                and not enc.special_tokens_mask[i + 1]))
        data = token_bytes(tok, value, surface) if not special else value.encode("utf-8")
        if special:
            label = value
        elif shared:
            label = token_label(data) if is_byte_level(tok) or value.startswith("<0x") \
                else visible(value)
        else:
            label = visible(surface) if surface else visible(value)
        word_id = enc.word_ids[i]
        word = ""
        if word_id is not None and 0 <= word_id < len(words):
            ws, we = words[word_id]
            word = text[ws:we]
        out.append(Chip(i, id_, visible(value), label, s, e, hex_bytes(data), bool(special),
                        i % 8, word))
    return out


@dataclass(frozen=True)
class Segment:
    text: str               # made visible
    tokens: tuple[int, ...]  # indices of the tokens covering it
    start: int
    end: int


def segments(text: str, enc: tc.Encoding) -> list[Segment]:
    """The input cut at every token boundary, each piece knowing which tokens cover it, so
    hovering a chip can light up its span of the input (and the other way round)."""
    cuts = {0, len(text)}
    for (s, e), special in zip(enc.offsets, enc.special_tokens_mask):
        if not special:
            cuts.update((s, e))
    points = sorted(c for c in cuts if 0 <= c <= len(text))
    spans = sorted((s, e, i) for i, ((s, e), sp) in enumerate(zip(enc.offsets, enc.special_tokens_mask))
                   if not sp and s < e)
    out: list[Segment] = []
    active: list[tuple[int, int, int]] = []
    j = 0
    for a, b in zip(points, points[1:]):
        # sweep: tokens starting at or before a join, tokens ending at or before a leave
        while j < len(spans) and spans[j][0] <= a:
            active.append(spans[j])
            j += 1
        active = [t for t in active if t[1] > a]
        covering = tuple(sorted(i for s, e, i in active if b <= e))
        out.append(Segment(visible(text[a:b]), covering, a, b))
    return out

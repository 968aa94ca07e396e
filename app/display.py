"""How tokens are shown: visible whitespace, byte labels, chips and input segments.

Pure functions from an `Encoding` (and its text) to small values the templates render.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import NamedTuple

import tokenizers_core as tc

_VISIBLE = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}


def visible(text: str) -> str:
    """Make whitespace and invisible characters visible.

    >>> visible("a b\\n\\tc\\u200b")
    'a·b↵→c⟨U+200B⟩'
    """
    if text.isascii() and text.isprintable():   # the common case: only spaces to show
        return text.replace(" ", "·")
    out = []
    for c in text:
        if c in _VISIBLE:
            out.append(_VISIBLE[c])
        elif unicodedata.category(c) in ("Cc", "Cf", "Zs", "Zl", "Zp", "Co", "Cn", "Cs"):
            out.append(f"⟨U+{ord(c):04X}⟩")
        else:
            out.append(c)
    return "".join(out)


def sci(x: float) -> str:
    """A score in one notation at every size, so a column of them lines up.

    >>> sci(0.00026399), sci(7.1286e-05), sci(1.0)
    ('2.640e-04', '7.129e-05', '1.000e+00')
    """
    return f"{x:.3e}"


def filesize(n: int) -> str:
    """A byte count for people.

    >>> filesize(24), filesize(12_345), filesize(2_500_000)
    ('24 B', '12.3 KB', '2.5 MB')
    """
    if n < 1000:
        return f"{n} B"
    if n < 1_000_000:
        return f"{n / 1000:.1f} KB"
    return f"{n / 1_000_000:.1f} MB"


def day(timestamp: float) -> str:
    """A Unix time as its UTC date, `2026-11-23`."""
    import time
    return time.strftime("%Y-%m-%d", time.gmtime(timestamp))


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd ...

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 102, 111)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '102nd', '111th']
    """
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def hex_bytes(data: bytes) -> str:
    """Bytes as upper-case hex pairs.

    >>> hex_bytes("é".encode())
    'C3 A9'
    """
    return data.hex(" ").upper()


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


def token_bytes(value: str, surface: str, byte_level: bool) -> bytes:
    """The UTF-8 bytes a token stands for (`byte_level`: spelled in GPT-2's byte alphabet)."""
    if byte_level:
        table = _byte_decoder()
        if value and all(c in table for c in value):
            return bytes(table[c] for c in value)
    if is_byte_piece(value):  # byte fallback
        try:
            return bytes([int(value[3:5], 16)])
        except ValueError:
            pass
    return surface.encode("utf-8")


class Chip(NamedTuple):
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
    value: str = ""   # the token exactly as the model spells it
    partial: bool = False   # shows bytes of a character that another token completes
    mark: str = ""    # "unk": the model's unknown token; "byte": a byte-fallback piece <0xE2>


def unknown_id(tok: tc.Tokenizer) -> int | None:
    """The id of the model's unknown token (`[UNK]`, `<unk>`), or None if it has none."""
    model = tok.model
    unk = getattr(model, "unk_id", None)
    if unk is None and getattr(model, "unk_token", None) is not None:
        unk = getattr(model, "vocab", {}).get(model.unk_token)
    return unk


def is_byte_piece(value: str) -> bool:
    """A sentencepiece byte-fallback piece such as `<0xE2>`."""
    return len(value) == 6 and value.startswith("<0x") and value.endswith(">")


MAX_LINK_WORD = 64


def byte_labels(text: str, pieces: list[bytes]) -> list[tuple[str, bool]] | None:
    """Labels for tokens whose bytes, in order, spell `text`'s UTF-8 (byte-level BPE): each
    character is drawn once, on the token holding its last byte; bytes of a character that a
    later token completes are drawn as `<E6 9D>`. Returns (label, partial) per token, or None
    when the pieces do not spell the text (a normalising tokeniser, say). The pieces may stop
    short of the end of the text (the first tokens only).

    >>> byte_labels("a 東", [b"a", " 東".encode()[:3], " 東".encode()[3:]])
    [('a', False), ('·<E6 9D>', True), ('東', False)]
    >>> byte_labels("a 東", [b"a", " 東".encode()[:3]])
    [('a', False), ('·<E6 9D>', True)]
    """
    data = text.encode("utf-8")
    size = sum(len(p) for p in pieces)
    if data[:size] != b"".join(pieces):
        return None
    ends, pos = [], 0               # ends[k]: the byte just after character k
    for c in text:
        if pos >= size:
            break
        pos += len(c.encode("utf-8"))
        ends.append(pos)
    out, a, k = [], 0, 0            # k: the first character not yet drawn
    for piece in pieces:
        b = a + len(piece)
        first = k
        while k < len(ends) and ends[k] <= b:
            k += 1
        label = visible(text[first:k])
        done = ends[k - 1] if k > first else a      # bytes up to here are whole characters
        tail = data[max(done, a):b]
        if tail:
            label += f"<{hex_bytes(tail)}>"
        out.append((label, bool(tail)))
        a = b
    return out


def word_spans(text: str, enc: tc.Encoding) -> dict[int, tuple[int, int]]:
    """The original span of each pre-tokenised word, from the tokens that carry its word id."""
    spans: dict[int, tuple[int, int]] = {}
    for (s, e), w, special in zip(enc.offsets, enc.word_ids, enc.special_tokens_mask):
        if w is None or special:
            continue
        ws, we = spans.get(w, (s, e))
        spans[w] = (min(ws, s), max(we, e))
    return spans


def link_word(text: str, span: tuple[int, int], token: tuple[int, int]) -> str:
    """The word a chip's "how was it built?" link steps through: its pre-tokenised word, or,
    when that is long (SentencePiece has no pre-tokeniser: the whole text is one piece), the
    whitespace-delimited word around the token, with the space before it.

    >>> link_word("the cats sat", (0, 12), (5, 8))
    'the cats sat'
    >>> text = "a " * 40 + "cats sat"
    >>> link_word(text, (0, len(text)), (81, 84))
    ' cats'
    """
    ws, we = span
    if we - ws <= MAX_LINK_WORD:
        return text[ws:we]
    s, e = token
    while s > ws and not text[s - 1].isspace():
        s -= 1
    if s > ws and text[s - 1] == " ":
        s -= 1
    while e < we and not text[e].isspace():
        e += 1
    return text[s:min(e, s + MAX_LINK_WORD)]


def chips(tok: tc.Tokenizer, text: str, enc: tc.Encoding, links: bool = True,
          limit: int | None = None) -> list[Chip]:
    """One chip per token (`links`: work out the word each chip's step-through link shows;
    `limit`: only the first `limit` tokens' chips)."""
    out: list[Chip] = []
    words = word_spans(text, enc) if links else {}
    spans = enc.offsets
    specials = enc.special_tokens_mask
    byte_level = is_byte_level(tok)
    last = len(spans) - 1
    by_bytes = None
    if byte_level:
        shown = slice(0, limit)     # only the chips drawn need their labels
        by_bytes = byte_labels(text, [
            v.encode("utf-8") if sp else token_bytes(v, text[s:e], True)
            for v, (s, e), sp in zip(enc.tokens[shown], spans[shown], specials[shown])])
    unk = unknown_id(tok)
    for i, (id_, value, (s, e), special) in enumerate(zip(enc.ids, enc.tokens, spans, specials)):
        if limit is not None and i >= limit:
            break
        surface = "" if special else text[s:e]
        # several tokens from one character (bytes of a character, NFKC "ﬁ" -> "f" "i")
        shared = (not special) and (
            (i > 0 and spans[i - 1] == (s, e) and not specials[i - 1])
            or (i < last and spans[i + 1] == (s, e) and not specials[i + 1]))
        data = value.encode("utf-8") if special else token_bytes(value, surface, byte_level)
        partial = False
        if special:
            label = value
        elif by_bytes is not None:
            label, partial = by_bytes[i]
        elif shared and is_byte_piece(value):
            # byte-fallback pieces of one character: the last one shows the character
            completes = i == last or spans[i + 1] != (s, e) or not is_byte_piece(enc.tokens[i + 1])
            label, partial = (visible(surface), False) if completes else (token_label(data), True)
        elif shared:
            label = token_label(data) if byte_level else visible(value)
        else:
            label = visible(surface or value)
        word_id = enc.word_ids[i]
        word = link_word(text, words[word_id], (s, e)) if word_id in words else ""
        raw = label if value == surface else visible(value)
        mark = "" if special else "unk" if id_ == unk else "byte" if is_byte_piece(value) else ""
        out.append(Chip(i, id_, raw, label, s, e, hex_bytes(data), bool(special), i % 8, word,
                        value, partial, mark))
    return out


MARK_TITLES = {"unk": "unknown: the model has no piece for this text",
               "byte": "byte fallback: one UTF-8 byte of a character the vocabulary lacks"}


def compact(chips: list[Chip], marks: set[int] | frozenset[int] = frozenset()
            ) -> list[tuple[str, int, int, int, str, str, int]]:
    """Chips as (classes, index, start, end, title, label, id): what the compare view draws for
    thousands of chips, with every attribute worked out once here rather than in the template.
    """
    out = []
    for c in chips:
        classes = f"chip chip-{c.colour}"
        title = f"{c.raw} · id {c.id} · offsets {c.start}–{c.end} · bytes {c.bytes_hex}"
        if c.special:
            classes += " special"
        if c.mark:
            classes += f" mark-{c.mark}"
            title += " · " + MARK_TITLES[c.mark]
        if c.index in marks:
            classes += " differs"
            title += " · boundary differs from the reference"
        out.append((classes, c.index, c.start, c.end, title, c.text, c.id))
    return out


@dataclass(frozen=True)
class Segment:
    text: str               # made visible
    tokens: tuple[int, ...]  # indices of the tokens covering it
    start: int
    end: int


def segments(text: str, enc: tc.Encoding, upto: int | None = None) -> list[Segment]:
    """The input cut at every token boundary, each piece knowing which tokens cover it, so
    hovering a chip can light up its span of the input (and the other way round).
    `upto`: only the first `upto` characters (the rest is one plain segment)."""
    end = len(text) if upto is None else min(upto, len(text))
    cuts = {0, end}
    for (s, e), special in zip(enc.offsets, enc.special_tokens_mask):
        if not special and s < end:
            cuts.update((s, min(e, end)))
    points = sorted(c for c in cuts if 0 <= c <= end)
    spans = sorted((s, e, i) for i, ((s, e), sp) in enumerate(zip(enc.offsets, enc.special_tokens_mask))
                   if not sp and s < e and s < end)
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
    if end < len(text):             # the rest, past the chips drawn: one plain segment
        out.append(Segment(visible(text[end:]), (), end, len(text)))
    return out

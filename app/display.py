"""How tokens are shown: visible whitespace, byte labels, chips and input segments.

Pure functions from an `Encoding` (and its text) to small values the templates render.
"""

from __future__ import annotations

import unicodedata
from typing import Any, NamedTuple

import tokenizers_core as tc
from tokenizers_core import metrics
from tokenizers_core.byte_level import CHAR_TO_BYTE
from tokenizers_core.special_switch import (  # noqa: F401  (the surfaces name them here)
    special_default,
    special_note,
    special_options,
)

_VISIBLE = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}


def _show_whitespace(text: str) -> str:
    """`text` with its spaces, line feeds, tabs and carriage returns drawn as `_VISIBLE` draws
    them: one `str.replace` each (a C loop each; `str.translate` with a table of non-ASCII
    characters goes through a dict a character, 80 times slower on 20 KB).

    >>> _show_whitespace("a b\\n\\tc\\r")
    'a·b↵→c␍'
    """
    for c, shown in _VISIBLE.items():
        text = text.replace(c, shown)
    return text


def visible(text: str) -> str:
    """Make whitespace and invisible characters visible.

    >>> visible("a b\\n\\tc\\u200b")
    'a·b↵→c⟨U+200B⟩'
    """
    # str.isprintable is False exactly for the categories below and for \n \t \r, except the
    # space: printable text (any script, and the byte-level alphabet) has only spaces to show.
    if text.isprintable():
        return text.replace(" ", "·")
    shown = _show_whitespace(text)  # the common case: lines and tabs
    if shown.isprintable():
        return shown
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


def is_byte_level(tok: tc.Tokenizer) -> bool:
    return bool(getattr(tok.model, "byte_level", False)) or tok.algorithm == "byte_bpe"


_BYTE_ALPHABET: tuple[frozenset[str], dict[int, int]] | None = None


def _byte_alphabet() -> tuple[frozenset[str], dict[int, int]]:
    """The byte alphabet's characters, and `str.translate`'s table from each to its byte."""
    global _BYTE_ALPHABET
    if _BYTE_ALPHABET is None:
        table = CHAR_TO_BYTE
        _BYTE_ALPHABET = frozenset(table), {ord(c): b for c, b in table.items()}
    return _BYTE_ALPHABET


def token_bytes(value: str, surface: str, byte_level: bool) -> bytes:
    """The UTF-8 bytes a token stands for (`byte_level`: spelled in GPT-2's byte alphabet).

    >>> token_bytes("ĠÃ©", "", True), token_bytes("<0xE2>", "☃", False)
    (b' \\xc3\\xa9', b'\\xe2')
    """
    if byte_level:
        alphabet, to_byte = _byte_alphabet()
        if value and alphabet.issuperset(value):
            return value.translate(to_byte).encode("latin-1")
    if is_byte_piece(value):  # byte fallback
        try:
            return bytes([int(value[3:5], 16)])
        except ValueError:
            pass
    return surface.encode("utf-8")


class Chip(NamedTuple):
    index: int
    id: int
    raw: str  # the token as the model spells it (Ġ, ##, ▁ kept), made visible
    text: str  # the token as text: its surface in the input, or <E3 81> for partial bytes
    start: int
    end: int
    bytes_hex: str
    special: bool
    colour: int
    word: str  # the pre-tokenised word it belongs to (for step-through links)
    value: str = ""  # the token exactly as the model spells it
    partial: bool = False  # shows bytes of a character that another token completes
    mark: str = ""  # "unk": the model's unknown token; "byte": a byte-fallback piece <0xE2>
    source: str = ""  # the input's characters, made visible, where the token differs (Café)


def unknown_id(tok: tc.Tokenizer) -> int | None:
    """The id of the model's unknown token (`[UNK]`, `<unk>`), or None if it has none."""
    return metrics.unk_id(tok.model)


def unknown_tokens(
    tok: tc.Tokenizer, text: str, enc: tc.Encoding, n: int | None = None
) -> set[int]:
    """The positions (among the first `n`) of the unknown tokens: the model's unknown token
    standing for text it has no piece for. The one definition the visualiser's chips, its
    decode note and compare's count share. Not unknown: a special token, and the unknown
    token's own spelling typed in the text (CLIP's `<|endoftext|>` is its unk_token and an
    added special token; BERT's `[UNK]` typed is matched as itself).

    >>> tok = tc.load("bert-base-uncased")
    >>> text = "☃ [UNK]"
    >>> sorted(unknown_tokens(tok, text, tok.encode(text)))
    [1]
    """
    unk = unknown_id(tok)
    if unk is None:
        return set()
    spelled = tok.id_to_token(unk)
    out = set()
    for i in range(len(enc) if n is None else min(n, len(enc))):
        if enc.ids[i] != unk or enc.special_tokens_mask[i]:
            continue
        s, e = enc.offsets[i]
        typed = text[s:e].strip()
        if typed != spelled and tok.normalize(typed).normalized.strip() != spelled:
            out.add(i)
    return out


def is_byte_piece(value: str) -> bool:
    """A sentencepiece byte-fallback piece such as `<0xE2>`."""
    return len(value) == 6 and value.startswith("<0x") and value.endswith(">")


MAX_LINK_WORD = 64


def byte_labels(pieces: list[bytes | None]) -> list[tuple[str, bool]]:
    """Labels for the tokens of a byte-level tokenizer, from their bytes alone (so a ranks file,
    a tokenizer.json and a vocab.json + merges.txt with the same ids draw the same chips).

    The rule: each character is drawn once, on the token holding its last byte; a token that
    holds the first bytes of a character a later token completes shows them as `<E6 9D>` (its
    label is `partial`). Bytes that no token completes into a character stay hex too. A None
    piece is a token outside the byte stream (a special or added token): it ends any character
    left open, and its label here is "" (the caller draws it). Returns (label, partial) per piece.

    >>> byte_labels([b"a", " 東".encode()[:3], " 東".encode()[3:]])
    [('a', False), ('·<E6 9D>', True), ('東', False)]
    >>> byte_labels([b"\\xe6\\x9d", None, b"\\xffok"])
    [('<E6 9D>', False), ('', False), ('<FF>ok', False)]
    """
    out: list[tuple[str, bool]] = []
    run: list[bytes] = []
    for piece in [*pieces, None]:
        if piece is not None:
            run.append(piece)
            continue
        out.extend(_run_labels(run))
        out.append(("", False))
        run = []
    return out[:-1]


def _characters(data: bytes) -> list[tuple[int, int, str | None]]:
    """`data` as (start, end, character) in byte positions; None for a byte that is not part
    of a whole UTF-8 character.

    >>> _characters(b"a\\xc3\\xa9\\xff")
    [(0, 1, 'a'), (1, 3, 'é'), (3, 4, None)]
    """
    out: list[tuple[int, int, str | None]] = []
    pos = 0
    for c in data.decode("utf-8", errors="surrogateescape"):
        if "\udc80" <= c <= "\udcff":  # surrogateescape: one undecodable byte
            out.append((pos, pos + 1, None))
            pos += 1
        else:
            size = len(c.encode("utf-8"))
            out.append((pos, pos + size, c))
            pos += size
    return out


def _run_labels(run: list[bytes]) -> list[tuple[str, bool]]:
    """`byte_labels` of consecutive tokens with nothing between them."""
    try:  # the common case: every token holds whole characters (each drawn as itself)
        return [(visible(piece.decode("utf-8")), False) for piece in run]
    except UnicodeDecodeError:
        return run_labels_by_character(run)


def run_labels_by_character(run: list[bytes]) -> list[tuple[str, bool]]:
    """`_run_labels` character by character: what a token completes, what it starts."""
    data = b"".join(run)
    chars = _characters(data)
    out, k, a = [], 0, 0  # k: the first character not yet drawn; a: the token's start
    for piece in run:
        b = a + len(piece)
        if k < len(chars) and chars[k][0] == a:  # the common case: whole characters
            try:
                text = piece.decode("utf-8")
            except UnicodeDecodeError:
                pass
            else:
                out.append((visible(text), False))
                k += len(text)
                a = b
                continue
        parts: list[str | bytes] = []
        while k < len(chars) and chars[k][1] <= b:  # the characters this token completes
            s, e, c = chars[k]
            parts.append(data[s:e] if c is None else c)
            k += 1
        partial = k < len(chars) and chars[k][0] < b  # one that a later token completes
        if partial:
            parts.append(data[max(chars[k][0], a) : b])
        out.append((_label(parts), partial))
        a = b
    return out


def _label(parts: list[str | bytes]) -> str:
    """Characters made visible, bytes as `<E6 9D>`, each run of either kind drawn as one.

    >>> _label(["a", " ", b"\\xe6", b"\\x9d"])
    'a·<E6 9D>'
    """
    out, i = [], 0
    while i < len(parts):
        j = i
        kind = type(parts[i])
        while j < len(parts) and type(parts[j]) is kind:
            j += 1
        if kind is bytes:
            out.append(f"<{hex_bytes(b''.join(parts[i:j]))}>")  # type: ignore[arg-type]
        else:
            out.append(visible("".join(parts[i:j])))  # type: ignore[arg-type]
        i = j
    return "".join(out)


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
    whitespace-delimited word around the token, with the space before it, in at most
    MAX_LINK_WORD characters that keep the token whole. The walks to the word's ends stop at
    that window, so a chip costs the same in a word of 100,000 characters as in a short one.

    >>> link_word("the cats sat", (0, 12), (5, 8))
    'the cats sat'
    >>> text = "a " * 40 + "cats sat"
    >>> link_word(text, (0, len(text)), (81, 84))
    ' cats'

    In a word longer than the window, the window ends where the token ends:

    >>> word = "abcdefghij" * 10
    >>> link_word(word, (0, 100), (90, 93)) == word[93 - MAX_LINK_WORD:93]
    True
    """
    ws, we = span
    if we - ws <= MAX_LINK_WORD:
        return text[ws:we]
    s, e = token
    first = max(ws, e - MAX_LINK_WORD)  # the window keeps the token whole
    while s > first and not text[s - 1].isspace():
        s -= 1
    if s > first and text[s - 1] == " ":
        s -= 1
    last = min(we, s + MAX_LINK_WORD)
    while e < last and not text[e].isspace():
        e += 1
    return text[s : min(e, s + MAX_LINK_WORD)]


def whole_tokens(tok: tc.Tokenizer, enc: tc.Encoding, n: int) -> dict[int, bool]:
    """{index: special?} of the first `n` tokens that are drawn as their own text, outside any
    byte stream: the post-processor's tokens and the added tokens matched whole in the text
    (`<|begin_of_text|>` typed in Llama 3's text; Hugging Face leaves those out of the
    special-tokens mask, but they are special tokens all the same)."""
    added = getattr(getattr(tok, "added_vocabulary", None), "tokens", {})
    ids, mask = enc.ids, enc.special_tokens_mask
    out = {}
    for i in range(n):
        if mask[i]:
            out[i] = True
        elif ids[i] in added:
            out[i] = added[ids[i]].special
    return out


def stream_bytes(tok: tc.Tokenizer, value: str, surface: str) -> bytes:
    """The bytes a byte-level model's token stands for: its spelling in GPT-2's byte alphabet,
    without the model's own word markers (CLIP's `</w>` end-of-word suffix is not bytes)."""
    return token_bytes(split_markers(tok.model, value)[1], surface, True)


def split_markers(model: Any, value: str) -> tuple[str, str, str]:
    """(prefix, stem, suffix) of a token: the model's own word markers around the part that
    stands for text (`("", "¬", "</w>")` for CLIP's `¬</w>`; no markers: `("", value, "")`)."""
    suffix = getattr(model, "end_of_word_suffix", None) or ""
    prefix = getattr(model, "continuing_subword_prefix", None) or ""
    head = tail = ""
    if suffix and value.endswith(suffix) and len(value) > len(suffix):
        value, tail = value[: -len(suffix)], suffix
    if prefix and value.startswith(prefix) and len(value) > len(prefix):
        head, value = prefix, value[len(prefix) :]
    return head, value, tail


def byte_stream(
    tok: tc.Tokenizer, text: str, enc: tc.Encoding, n: int, outside: set[int]
) -> list[bytes | None]:
    """The bytes of each of the first `n` tokens of a byte-level model (`stream_bytes`), None
    for the tokens `outside` the byte stream; the bytes of a token and its surface are worked
    out once however often it comes (" the", ",").

    >>> tok = tc.load("cl100k_base")
    >>> byte_stream(tok, "a a", tok.encode("a a"), 2, set())
    [b'a', b' a']
    """
    spans, tokens = enc.offsets, enc.tokens
    known: dict[tuple[str, str], bytes] = {}
    out: list[bytes | None] = []
    for i in range(n):
        if i in outside:
            out.append(None)
            continue
        s, e = spans[i]
        key = (tokens[i], text[s:e])
        data = known.get(key)
        if data is None:
            data = known[key] = stream_bytes(tok, *key)
        out.append(data)
    return out


def _shares_character(spans: list[tuple[int, int]], mask: list[int], i: int) -> bool:
    """Token `i` has its span in common with a neighbour outside the special-tokens mask:
    several tokens from one character (bytes of a character, NFKC "ﬁ" -> "f" "i")."""
    here = spans[i]
    before = i > 0 and spans[i - 1] == here and not mask[i - 1]
    return before or (i < len(spans) - 1 and spans[i + 1] == here and not mask[i + 1])


def chips(
    tok: tc.Tokenizer, text: str, enc: tc.Encoding, links: bool = True, limit: int | None = None
) -> list[Chip]:
    """One chip per token (`links`: work out the word each chip's step-through link shows;
    `limit`: only the first `limit` tokens' chips). Byte-level tokenizers follow
    `byte_labels`' rule; a special or added token shows its own text."""
    out: list[Chip] = []
    words = word_spans(text, enc) if links else {}
    ids, tokens, spans, mask = enc.ids, enc.tokens, enc.offsets, enc.special_tokens_mask
    n = len(enc) if limit is None else min(limit, len(enc))
    byte_level = is_byte_level(tok)
    last = len(spans) - 1
    ahead = min(len(enc), n + 4) if byte_level else n  # the tokens after the last one drawn
    whole = whole_tokens(tok, enc, ahead)  # complete its last character, if cut
    unknown = unknown_tokens(tok, text, enc, ahead)
    by_bytes = None
    if byte_level:
        stream = byte_stream(tok, text, enc, ahead, whole.keys() | unknown)
        by_bytes = byte_labels(stream)
    for i in range(n):
        id_, value, (s, e) = ids[i], tokens[i], spans[i]
        special = whole.get(i, False)
        in_mask = mask[i]
        own_text = i in whole or i in unknown  # drawn as its own text, outside the stream
        surface = "" if in_mask else text[s:e]
        # (a byte-level model's labels follow the stream, whatever the spans)
        shared = by_bytes is None and not in_mask and _shares_character(spans, mask, i)
        if own_text:
            data = (surface or value).encode("utf-8")
        else:
            data = stream[i] if byte_level else token_bytes(value, surface, False)  # type: ignore
        partial = False
        if in_mask:
            label = value
        elif own_text:
            label = visible(surface or value)
        elif by_bytes is not None:
            label, partial = by_bytes[i]
        elif shared and is_byte_piece(value):
            # byte-fallback pieces of one character: the last one shows the character
            completes = i == last or spans[i + 1] != (s, e) or not is_byte_piece(tokens[i + 1])
            label, partial = (visible(surface), False) if completes else (token_label(data), True)
        elif shared:
            label = visible(value)
        else:
            label = visible(normalised_text(tok, value, surface) or surface or value)
        word_id = enc.word_ids[i]
        word = link_word(text, words[word_id], (s, e)) if word_id in words else ""
        raw = label if value == surface else visible(value)
        mark = "unk" if i in unknown else "byte" if is_byte_piece(value) and not special else ""
        shown_surface = visible(surface) if surface else ""
        source = shown_surface if label != shown_surface else ""
        out.append(
            Chip(
                i,
                id_,
                raw,
                label,
                s,
                e,
                hex_bytes(data),
                special,
                i % 8,
                word,
                value,
                partial,
                mark,
                source,
            )
        )
    return out


def normalised_text(tok: tc.Tokenizer, value: str, surface: str) -> str | None:
    """The text a token stands for where the normaliser changed the input under it (BERT
    uncased: "Café" is the token `cafe`, "Ll" is `##ll`): the token without the model's word
    markers (`##`, `</w>`, sentencepiece's `▁` as a space). None where the token spells its
    surface (then the chip shows the input's own characters).

    >>> wp = tc.load("bert-base-uncased")
    >>> [normalised_text(wp, v, s) for v, s in [("cafe", "Café"), ("##ll", "Ll"), ("hi", "hi")]]
    ['cafe', 'll', None]
    """
    if not surface or value == surface:
        return None
    stem = split_markers(tok.model, value)[1].replace("▁", " ")
    if stem.strip() == surface.strip() or is_byte_piece(value):
        return None
    return stem


def compact(
    chips: list[Chip], marks: set[int] | frozenset[int] = frozenset()
) -> list[tuple[str, int, int, str, int]]:
    """Chips as (classes, start, end, label, id): what the compare view draws for thousands of
    chips, the classes besides `chip` worked out once here (" special", " mark-unk",
    " differs": its boundary differs from the reference) rather than in the template. The
    colour is the chip's place in its list, and its facts come into the page's popover.

    >>> c = Chip(0, 7, "a", "a", 0, 1, "61", False, 0, "", mark="unk")
    >>> compact([c], {0})
    [(' mark-unk differs', 0, 1, 'a', 7)]
    """
    out = []
    for c in chips:
        classes = ""
        if c.special:
            classes += " special"
        if c.mark:
            classes += f" mark-{c.mark}"
        if c.index in marks:
            classes += " differs"
        out.append((classes, c.start, c.end, c.text, c.id))
    return out


class Segment(NamedTuple):  # (a tuple: the mirror makes one per token boundary)
    text: str  # made visible
    tokens: tuple[int, ...]  # indices of the tokens covering it
    start: int
    end: int

    @property
    def t(self) -> str:
        """The indices of the tokens covering it, as the page's `data-t` names them: "3 4"."""
        return " ".join(map(str, self.tokens))


def _token_indices(active: list[tuple[int, int, int]]) -> tuple[int, ...]:
    """The indices of (start, end, index) spans, in order (most pieces have one token).

    >>> _token_indices([(0, 3, 2), (0, 3, 1)]), _token_indices([(4, 6, 5)]), _token_indices([])
    ((1, 2), (5,), ())
    """
    if len(active) == 1:
        return (active[0][2],)
    return tuple(sorted(i for _, _, i in active))


def segments(text: str, enc: tc.Encoding, upto: int | None = None) -> list[Segment]:
    """The input cut at every token boundary, each piece knowing which tokens cover it, so
    hovering a chip can light up its span of the input (and the other way round).
    `upto`: only the first `upto` characters (the rest is one plain segment)."""
    end = len(text) if upto is None else min(upto, len(text))
    # (start, end, index) of the text's own tokens that start before `end`, cut there
    kept = [
        (s, min(e, end), i)
        for i, ((s, e), special) in enumerate(zip(enc.offsets, enc.special_tokens_mask))
        if not special and s < end
    ]
    cuts = {0, end}
    for s, e, _ in kept:
        cuts.add(s)
        cuts.add(e)
    points = sorted(c for c in cuts if 0 <= c <= end)
    spans = sorted(t for t in kept if t[0] < t[1])  # an empty token covers nothing
    out: list[Segment] = []
    active: list[tuple[int, int, int]] = []
    j = 0
    # visible() maps each character on its own: where it maps every one to one character (no
    # ⟨U+200B⟩), the visible text's slices are the slices' visible text, worked out once
    shown = visible(text)
    same_length = len(shown) == len(text)
    for a, b in zip(points, points[1:]):
        # sweep: tokens starting at or before a join, tokens ending at or before a leave; every
        # start and end is a point, so a token still active at a ends at b or after it
        while j < len(spans) and spans[j][0] <= a:
            active.append(spans[j])
            j += 1
        if active:
            active = [t for t in active if t[1] > a]
        piece = shown[a:b] if same_length else visible(text[a:b])
        out.append(Segment(piece, _token_indices(active), a, b))
    if end < len(text):  # the rest, past the chips drawn: one plain segment
        rest = shown[end:] if same_length else visible(text[end:])
        out.append(Segment(rest, (), end, len(text)))
    return out


# ---- special tokens typed in the text ------------------------------------------------------
# One switch on every surface, named `special` (the page's and compare's `special=true|false`,
# the CLI's `--special` / `--no-special`, the API's `"special": true | false`): left out, a
# special token typed in the text is read as the tokenizer's own library reads it by default;
# true reads it as its one special id, false as ordinary text.
SPECIAL_CHOICES = {"": None, "true": True, "false": False}


def special_choice(value: str | bool | None) -> bool | None:
    """The `special` switch from a query or form value: "" (left out) is None, the owner
    library's default; "true" / "false" (or a bool). Anything else is an InvalidInput.

    >>> special_choice(""), special_choice("true"), special_choice("false")
    (None, True, False)
    """
    if value is None or isinstance(value, bool):
        return value
    key = value.strip().lower()
    if key in ("on", "1"):
        key = "true"
    if key in ("off", "0"):
        key = "false"
    if key not in SPECIAL_CHOICES:
        raise tc.InvalidInput(f"special must be true, false or left out, not {value!r}")
    return SPECIAL_CHOICES[key]


def special_param(special: bool | None) -> str | None:
    """The switch as a URL parameter: "true", "false", or None (left out: the default)."""
    return None if special is None else ("true" if special else "false")

"""Unicode normal forms (NFC, NFD, NFKC, NFKD) as aligned edits, for the normalisers.

`form_edits(form, text)` says how `form` rewrites `text`: a list of edits, each replacing a span
of the text and saying, for every character it writes, which input character it comes from, as
Hugging Face's alignment crate assigns it (a composed "é" comes from the "e"; a mark moved by
canonical reordering keeps its own source). `normalizers.NFC` and the others apply the edits to a
`NormalizedString`, so token offsets still point into what the user typed.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from typing import Any, Literal

# An edit rewrites normalized[start:end] as `out`; `sources` says where its characters came
# from: None for "the whole span start:end" (how "é" from "e" + U+0301 gets the span of both),
# else one index into the normalized text per output character.
Edit = tuple[int, int, str, "list[int] | None"]


def _char_class(code_points: Iterable[int]) -> str:
    """The inside of a regex character class for these code points, as ranges.

    >>> _char_class([0x41, 0x42, 0x43, 0x61])
    '\\\\U00000041-\\\\U00000043\\\\U00000061'
    """
    ranges: list[list[int]] = []
    for cp in sorted(set(code_points)):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return "".join(f"\\U{a:08X}" if a == b else f"\\U{a:08X}-\\U{b:08X}" for a, b in ranges)


Form = Literal["NFC", "NFD", "NFKC", "NFKD"]  # unicodedata.normalize's four forms
# each form and the decomposition it starts from
_DECOMPOSED: dict[Form, Form] = {"NFC": "NFD", "NFD": "NFD", "NFKC": "NFKD", "NFKD": "NFKD"}

# Each form is computed chunk by chunk. A chunk starts at a character before which the text has
# a normalisation boundary (UAX #15 "hasBoundaryBefore"): nothing before it can reorder or
# compose with it or with anything after it. That holds when its (full) decomposition starts with
# a character of canonical combining class 0 (reordering never crosses such a character; it
# blocks all later marks from composing with earlier starters) and, for the composing forms,
# that character cannot itself compose with a preceding starter (it is never the second half of
# a canonical pair, nor a Hangul vowel or trailing consonant jamo). Then
# normalize(chunk + rest) == normalize(chunk) + normalize(rest), so each chunk's output
# characters can be aligned to that chunk's span in the input.

_HANGUL_SYLLABLES = range(0xAC00, 0xD7A4)
_HANGUL_V_AND_T = [*range(0x1161, 0x1176), *range(0x11A8, 0x11C3)]  # compose with a preceding L/LV


@functools.lru_cache(maxsize=1)
def _unicode_candidates() -> tuple[frozenset[int], frozenset[int]]:
    """(code points that may matter to some normal form, code points that can compose with a
    preceding starter). Every other code point is its own normal form in all four forms and is
    a boundary. Computed once, on first use (a scan of the Unicode database, ~0.2 s)."""
    decomposition, combining = unicodedata.decomposition, unicodedata.combining
    candidates: set[int] = set(_HANGUL_SYLLABLES)
    backward: set[int] = set(_HANGUL_V_AND_T)
    for cp in range(0x110000):
        c = chr(cp)
        dec = decomposition(c)
        if dec or combining(c):
            candidates.add(cp)
        if dec and not dec.startswith("<"):
            parts = dec.split()
            if len(parts) == 2:  # a canonical pair: its second half composes backward
                backward.add(int(parts[1], 16))
    candidates |= backward
    return frozenset(candidates), frozenset(backward)


@functools.lru_cache(maxsize=4)
def _chunk_pattern(form: Form) -> re.Pattern[str]:
    """The places where `form` may change the text. A match of group 1 is a run of characters
    with no boundary before them (marks; for the composing forms also characters that compose
    with the one before): with the character before it, that is one chunk. Any other match is a
    run of boundary characters that normalise to something else on their own: one chunk each.

    (Stdlib `re` here: its large character classes scan about 2.5 times faster than `regex`'s.)
    """
    candidates, backward = _unicode_candidates()
    composing = form in ("NFC", "NFKC")
    decomposed = _DECOMPOSED[form]
    no_boundary: list[int] = []
    changes_alone: list[int] = []
    for cp in candidates:
        c = chr(cp)
        first = unicodedata.normalize(decomposed, c)[0]
        if unicodedata.combining(first) or (composing and ord(first) in backward):
            no_boundary.append(cp)
        elif unicodedata.normalize(form, c) != c:
            changes_alone.append(cp)
    return re.compile(f"([{_char_class(no_boundary)}]+)|[{_char_class(changes_alone)}]+")


def _char_by_char(form: Form, text: str, start: int, end: int) -> list[Edit]:
    """One edit for text[start:end], whose characters each normalise on their own (there is a
    boundary before every one), each output character aligned to its own source character."""
    if start >= end:
        return []
    pieces = [unicodedata.normalize(form, c) for c in text[start:end]]
    return [(start, end, "".join(pieces), [i for i, p in enumerate(pieces, start) for _ in p])]


def _reordered_sources(
    pieces: list[str], start: int, compose: bool = False
) -> tuple[str, list[int]]:
    """Canonical ordering (and, with `compose`, canonical composition) of decomposed `pieces`
    (one per source character), with the source index of each output character, as Hugging
    Face's alignment crate assigns it.

    Each piece's first character "replaces" its source character (a change of 0), the rest are
    "inserted" (+1); reordering stably sorts every run of marks by combining class, carrying
    the changes along; composing a mark into its starter adds the mark's change, minus one, to
    the starter's. Then, in output order, a character with change c <= 0 takes the next source
    character and consumes 1 - c of them, and an inserted one takes the source of the character
    before it. So for "ê" + U+0323 (sources 0, 1) the NFD output "e" + U+0323 + U+0302 comes
    from sources 0, 1, 1, and NFC of "e" + U+0301 + U+0323 ("ẹ" + U+0301) from sources 0, 2.

    >>> text, sources = _reordered_sources(["e\\u0302", "\\u0323"], 0)
    >>> [f"{ord(c):04X}" for c in text], sources
    (['0065', '0323', '0302'], [0, 1, 1])
    >>> text, sources = _reordered_sources(["e", "\\u0301", "\\u0323"], 0, compose=True)
    >>> [f"{ord(c):04X}" for c in text], sources
    (['1EB9', '0301'], [0, 2])
    """
    flagged = [(c, int(k > 0)) for piece in pieces for k, c in enumerate(piece)]
    ordered: list[tuple[str, int]] = []
    run: list[tuple[str, int]] = []  # marks waiting to be sorted
    for item in flagged + [("", 0)]:  # a sentinel starter flushes the last run
        if item[0] and unicodedata.combining(item[0]):
            run.append(item)
            continue
        ordered += sorted(run, key=lambda x: unicodedata.combining(x[0]))
        run = []
        if item[0]:
            ordered.append(item)
    if compose:
        ordered = _compose(ordered)
    sources: list[int] = []
    next_source = start
    for _, change in ordered:
        if change > 0:  # inserted: the source before it
            sources.append(max(next_source - 1, 0))
        else:
            sources.append(next_source)
            next_source += 1 - change
    return "".join(c for c, _ in ordered), sources


def _compose(items: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Unicode's canonical composition of a decomposed, reordered sequence of
    (character, change): a mark not blocked from the last starter merges into it, and the
    composite's change is the sum of both, minus one."""
    out: list[list[Any]] = []
    starter = -1
    last_class = 256
    for c, change in items:
        ccc = unicodedata.combining(c)
        if starter >= 0 and (last_class < ccc or last_class == 0 and len(out) - 1 == starter):
            pair = out[starter][0] + c
            composite = unicodedata.normalize("NFC", pair)
            if len(composite) == 1 and composite != pair:
                out[starter] = [composite, out[starter][1] + change - 1]
                continue
        if ccc == 0:
            starter = len(out)
        last_class = ccc
        out.append([c, change])
    return [(c, change) for c, change in out]


def _align_chunk(form: Form, chunk: str, out: str, start: int) -> Edit:
    """The edit for one chunk of text that `form` changes, each output character aligned as
    Hugging Face aligns it (see `_reordered_sources`): "é" from NFD of "é" gives "e" + U+0301,
    both from "é"; NFC of "e" + U+0301 gives "é", from the "e" (the source of a composed
    character is its starter; Hugging Face's offsets then do not cover the mark).
    """
    decomposed = _DECOMPOSED[form]
    pieces = [unicodedata.normalize(decomposed, c) for c in chunk]
    text, sources = _reordered_sources(pieces, start, compose=form in ("NFC", "NFKC"))
    if text == out:
        return (start, start + len(chunk), out, sources)
    return (start, start + len(chunk), out, None)  # pragma: no cover - Unicode surprises


def form_edits(form: Form, text: str) -> list[Edit]:
    """The edits that turn `text` into its normal form `form` ("NFC", "NFD", "NFKC", "NFKD"),
    chunk by chunk, each output character aligned as Hugging Face aligns it.

    >>> form_edits("NFD", "café")
    [(3, 4, 'e\u0301', [3, 3])]
    >>> form_edits("NFC", "cafe\u0301")
    [(3, 5, 'é', [3])]
    """
    edits: list[Edit] = []
    pending: tuple[int, int] | None = None  # characters that change on their own
    for m in _chunk_pattern(form).finditer(text):
        start, end = m.span()
        if m.lastindex is None:
            if pending is not None:
                edits += _char_by_char(form, text, *pending)
            pending = (start, end)
            continue
        start = max(start - 1, 0)  # the marks join the character before them
        if pending is not None:  # ... which may end the pending run
            edits += _char_by_char(form, text, pending[0], min(pending[1], start))
            pending = None
        chunk = text[start:end]
        out = unicodedata.normalize(form, chunk)
        if out != chunk:
            edits.append(_align_chunk(form, chunk, out, start))
    if pending is not None:
        edits += _char_by_char(form, text, *pending)
    return edits

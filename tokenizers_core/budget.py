"""Token budgets: cut a text where its first N tokens end, and split it into chunks of at most N
tokens each (what a context window or an embedding model's input limit asks for).

Every cut falls on a character boundary of the text, so the pieces join back into the text
exactly. A byte-level tokeniser may cut a character across two tokens (an emoji's four bytes in
two tokens); a budget ending between them moves the cut back to the start of that character,
and says so.

Counts are not additive: a piece re-encoded on its own may take a different number of tokens
than its share of the whole text's encoding (the first word of a chunk loses the space the
previous chunk kept; a regex pre-tokeniser splits a run of spaces differently at the end of a
text). So every cut is checked by re-encoding the piece, and moved back (to an earlier token
boundary, or at worst an earlier character) until the piece fits.

Counts are of the text's own tokens: the post-processor's ([CLS], <|begin_of_text|>) are left
out (`add_special_tokens=False`); `options` are passed to `tok.encode` (e.g. tiktoken's
`allowed_special`). Does not handle: a single character that alone takes more than N tokens
(a rare character in byte pieces, a ligature NFKC spells out) - that is a ValueError.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Any, NamedTuple

from .errors import InvalidInput

_Offsets = list[tuple[int, int]]  # a text's tokens as character spans, in token order


@dataclass(frozen=True)
class Split:
    """The text cut where its first `n` tokens end: `text[:cut]` and `text[cut:]`."""

    n: int
    cut: int  # the character where the next chunk starts
    head_share: int  # the whole text's tokens before the cut
    head_tokens: int  # text[:cut] re-encoded on its own
    rest_tokens: int  # text[cut:] re-encoded on its own
    total: int  # the whole text's tokens
    inside_character: bool  # the n-th token ended inside a character: the cut moved back
    moved_back: bool  # text[:cut] re-encoded took more than n tokens: cut earlier


@dataclass(frozen=True)
class Chunk:
    start: int  # characters of the text
    end: int
    share: int  # the whole text's tokens that start inside the chunk
    tokens: int  # the chunk re-encoded on its own (at most n)


def split_at_tokens(
    tok: Any, text: str, n: int, *, offsets: _Offsets | None = None, **options: Any
) -> Split:
    """Cut `text` where its first `n` tokens end, on a character boundary.

    >>> import tokenizers_core as tc
    >>> s = split_at_tokens(tc.load("cl100k_base"), "Hello big world", 2)
    >>> "Hello big world"[:s.cut], s.head_tokens, s.rest_tokens, s.total
    ('Hello big', 2, 1, 3)
    >>> s = split_at_tokens(tc.load("cl100k_base"), "a🦜b", 2)    # the parrot is two tokens
    >>> s.cut, s.inside_character
    (1, True)

    `offsets`: the text's token offsets, if the caller has encoded it already (as
    `encode(text, add_special_tokens=False)` gives them), so it is not encoded again.
    """
    _check_budget(n)
    spans = _spans(tok, text, options, offsets)
    cut, inside, moved = _fit(tok, text, 0, spans, n, options)
    return Split(
        n=n,
        cut=cut,
        head_share=_share(spans, 0, cut),
        head_tokens=_count(tok, text[:cut], options),
        rest_tokens=_count(tok, text[cut:], options),
        total=len(spans.starts),
        inside_character=inside,
        moved_back=moved,
    )


def chunks(
    tok: Any,
    text: str,
    n: int,
    *,
    limit: int | None = None,
    offsets: _Offsets | None = None,
    **options: Any,
) -> list[Chunk]:
    """`text` in consecutive chunks of at most `n` tokens each (each re-encoded on its own);
    joined, they give the text back. The empty text has no chunks. `limit`: stop after that
    many chunks (the rest of the text is not cut).

    >>> import tokenizers_core as tc
    >>> [(c.start, c.end, c.tokens) for c in chunks(tc.load("cl100k_base"), "Hello big world", 2)]
    [(0, 9, 2), (9, 15, 1)]

    `offsets`: as `split_at_tokens`'.
    """
    _check_budget(n)
    spans = _spans(tok, text, options, offsets)
    out: list[Chunk] = []
    pos = 0
    while pos < len(text) and (limit is None or len(out) < limit):
        cut, _, _ = _fit(tok, text, pos, spans, n, options)
        out.append(Chunk(pos, cut, _share(spans, pos, cut), _count(tok, text[pos:cut], options)))
        pos = cut
    return out


def _check_budget(n: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise InvalidInput(f"the token budget must be a whole number of at least 1 (got {n!r})")


def _encode(tok: Any, text: str, options: dict[str, Any]) -> Any:
    return tok.encode(text, add_special_tokens=False, **options)


def _count(tok: Any, text: str, options: dict[str, Any]) -> int:
    return len(_encode(tok, text, options)) if text else 0


class _Spans(NamedTuple):
    """The whole text's tokens as character spans: where each starts and ends (in token
    order, which is text order), and the starts sorted, to count with bisect."""

    starts: list[int]
    ends: list[int]
    ordered: list[int]


def _spans(tok: Any, text: str, options: dict[str, Any], offsets: _Offsets | None = None) -> _Spans:
    if offsets is None:
        offsets = _encode(tok, text, options).offsets
    starts = [s for s, _ in offsets]
    return _Spans(starts, [e for _, e in offsets], sorted(starts))


def _share(spans: _Spans, start: int, end: int) -> int:
    """How many tokens of the whole text start in [start, end).

    >>> _share(_Spans([0, 3, 3, 5], [3, 5, 5, 6], [0, 3, 3, 5]), 3, 5)
    2
    """
    return bisect_left(spans.ordered, end) - bisect_left(spans.ordered, start)


def _fit(
    tok: Any, text: str, start: int, spans: _Spans, n: int, options: dict[str, Any]
) -> tuple[int, bool, bool]:
    """(cut, inside_character, moved_back): the furthest cut after `start` such that
    text[start:cut] re-encodes to at most `n` tokens, tried first at the boundary after the
    whole text's n-th token from `start`, then at earlier token boundaries, then character by
    character. A token's offsets are characters: one that begins inside a character (the
    second byte-level piece of an emoji) starts where that character starts."""
    if start >= len(text):
        return len(text), False, False
    starts = spans.starts
    first = bisect_left(starts, start)  # the first token at or after `start`
    after = first + n
    inside = False
    candidates = [len(text)] if after >= len(starts) else []
    if after < len(starts):
        # the token `after` begins the next chunk: inside a character when it starts before
        # the token it follows ends
        inside = after > first and starts[after] < spans.ends[after - 1]
    candidates += [starts[i] for i in range(min(after, len(starts) - 1), first, -1)]
    for k, cut in enumerate(dict.fromkeys(c for c in candidates if c > start)):
        if _count(tok, text[start:cut], options) <= n:
            return cut, inside, k > 0
    return _fit_characters(tok, text, start, n, options), inside, True


def _fit_characters(tok: Any, text: str, start: int, n: int, options: dict[str, Any]) -> int:
    """The furthest cut found character by character from `start` whose piece fits in `n`
    tokens (for the rare piece whose every token boundary re-encodes to more)."""
    cut = start + 1
    if _count(tok, text[start:cut], options) > n:
        count = _count(tok, text[start:cut], options)
        raise InvalidInput(
            f"the character {text[start]!r} at position {start} alone takes {count} "
            f"tokens, more than the budget of {n}: no cut on a character boundary "
            f"fits it; raise the budget"
        )
    while cut < len(text) and _count(tok, text[start : cut + 1], options) <= n:
        cut += 1
    return cut

"""Re-encoding only what an edit touched: `reencode(tok, old_text, old_encoding, new_text)` is
`tok.encode(new_text)`, worked out from the encoding of the text before the edit.

>>> import tokenizers_core as tc
>>> tok = tc.load("cl100k_base")
>>> old = "Hello world, " * 2000
>>> new = old[:13] + "big " + old[13:]
>>> reencode(tok, old, tok.encode(old), new) == tok.encode(new)
True

**Which tokenizers take the fast route.** A tiktoken encoding (`TiktokenTokenizer` itself, not a
subclass) whose pattern is one of the presets `gpt2` (r50k_base, p50k_base, Whisper), `cl100k`,
`o200k` (o200k_base, o200k_harmony) or `llama3`, for a text of at least MIN_CHARS characters,
with no option but `allowed_special`, `disallowed_special` and `add_special_tokens` (which
tiktoken's encode ignores). Everything else is encoded whole: a normaliser (Qwen3's NFC, Claude's
NFKC, ...) rewrites text across the edit; a pattern of the user's may look behind; Hugging Face's
pipelines add tokens, truncate and pad. The fallback is always `tok.encode(new_text, **options)`.

**Why the spliced answer is the whole encode's.** The encode is a scan over *pieces*: the
allowed special tokens are cut out first (segments between them), then the pattern splits each
segment left to right, each match starting where the last ended (the presets match every
character); each piece is byte-level BPE on its own. So the result is fixed by the list of piece
boundaries, and every piece's tokens by its text alone. Write old = P + X + S, new = P + Y + S
(P and S the longest common prefix and suffix).

1. *The scan at a position q reads a bounded stretch after q and nothing before it.* The presets
   have no look-behind, so the match at q is a function of the segment after q; it reads up to
   `reach(q)`: at most 3 characters past the match's end (a contraction `'ll`, the digits
   `{1,3}`, the one character after a greedy run), or to one past the end of the run of `\\s`
   starting at q (`\\s+(?!\\S)`, `\\s*[\\r\\n]` and `\\s++$` back off inside the run, so a run's
   split depends on the character after it), or, for o200k, to one past the end of the run of
   `[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]` after q (its first alternative backs off through such a
   run looking for a lower-case letter: "ʰAAAA1" gives "ʰ" after reading the whole run). The
   segment's end counts as read when reach passes it (`$`, `(?!\\S)` see it), and where a segment
   ends is decided by the special tokens starting up to L - 1 characters further (L the longest
   allowed one). A special token at q reads q .. q + L. Special tokens are only taken on the fast
   route when no two can overlap (no proper suffix of one is a prefix of another, nor the
   other way round): then every place a special token's text starts is an occurrence, and
   whether one starts at q is decided by the L characters from q.
2. *Left: the kept prefix.* By induction from the text's start, every old piece whose reach ends
   inside P is also a piece of the new scan (the new scan arrives at its start, and reads the
   same characters there). The reach only grows from one piece to the next, so walking back from
   the edit to the first boundary r whose previous piece's reach ends in P gives a restart point:
   the old tokens before r are the new ones, and r is a boundary of the new scan.
3. *Right: the kept suffix.* From r the new text is scanned for real (the window). Once a window
   boundary p lies in S's copy in the new text (p >= len(new) - len(S)) and p - delta is an old
   boundary (delta = len(Y) - len(X)), the rest of both scans is the same function of the same
   characters new[p:] == old[p - delta:] (nothing looks behind; no special token straddles a
   boundary), so the old tokens from there on are the new ones, offsets moved by delta and word
   ids by the change in the number of pieces before them.

The module's tests check this against the whole encode on random texts and edits
(tests/core/pipeline/test_incremental.py), and check the reach itself: changing the text past a
piece's reach never changes that piece.

Precondition: `old_encoding` is `tok.encode(old_text, **options)` with the same options (it is
trusted, not re-checked: a disallowed special token of the new text is looked for only around the
edit, since one elsewhere would have been in the old text too).
"""

from __future__ import annotations

import functools
from bisect import bisect_left
from operator import itemgetter
from typing import Any, Iterator

import regex

from .added_tokens import common_prefix
from .encoding import Encoding
from .implementations.openai_public import TiktokenTokenizer
from .models.bpe.model import gc_paused
from .pre_tokenizers import PRESETS

MIN_CHARS = 20_000  # a shorter text is encoded whole (a few ms: not worth the bookkeeping)
PAST_MATCH = 3  # what a piece's match reads past its own end, at most ('ll, \p{N}{1,3})
OPTIONS = frozenset({"allowed_special", "disallowed_special", "add_special_tokens"})

_SPACE_RUN = regex.compile(r"\s*")
_O200K_LETTER_RUN = regex.compile(r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*")
_SURROGATE = regex.compile(r"[\ud800-\udfff]")
# preset -> the runs (besides \s) a match may read to the end of, starting one after the piece
LOCAL_PRESETS: dict[str, tuple[Any, ...]] = {
    "gpt2": (),
    "r50k": (),
    "p50k": (),
    "cl100k": (),
    "llama3": (),
    "o200k": (_O200K_LETTER_RUN,),
}

Piece = tuple[int, int, bool]  # (start, end, is a special token) in the new text


def reencode(
    tok: Any,
    old_text: str,
    old_encoding: Encoding,
    new_text: str,
    *,
    min_chars: int = MIN_CHARS,
    **options: Any,
) -> Encoding:
    """`tok.encode(new_text, **options)`, re-encoding only the pieces around the edit that
    turned `old_text` (encoded as `old_encoding`, with the same options) into `new_text`, when
    `tok` takes the fast route (see the module's docstring); else the whole encode."""
    if not takes_fast_route(tok, old_text, old_encoding, new_text, min_chars, options):
        return tok.encode(new_text, **options)
    allowed = tok.allowed(options["allowed_special"]) if options.get("allowed_special") else None
    allowed = allowed or frozenset()
    start, old_end, new_end = edit_of(old_text, new_text)
    if _SURROGATE.search(new_text, concurrent=False) or _SURROGATE.search(
        old_text, start, old_end, concurrent=False
    ):
        return tok.encode(new_text, **options)  # tiktoken encodes them as U+FFFD: not local
    _check_disallowed_near(tok, new_text, start, new_end, allowed, options)
    longest = max(map(len, allowed), default=1)
    first, restart = restart_point(tok.preset, old_text, old_encoding, start, longest)
    specials = _Specials(new_text, allowed, old_encoding, restart, (old_end, new_end), longest)
    pieces = new_pieces(tok.pattern, new_text, restart, specials)
    window = _Window(tok, old_encoding, first)
    kept_from = window.scan(pieces, new_text, new_end, new_end - old_end)
    with gc_paused:  # moving the suffix's offsets makes a tuple per token: no GC passes
        return window.splice(kept_from, new_end - old_end)


def takes_fast_route(
    tok: Any,
    old_text: Any,
    old_encoding: Any,
    new_text: Any,
    min_chars: int,
    options: dict[str, Any],
) -> bool:
    """Whether `reencode` may splice: a tiktoken preset (module docstring), long text, the
    options it knows, special tokens that cannot overlap, and an old encoding of the old text's
    shape (its last token ends where the text does)."""
    if type(tok) is not TiktokenTokenizer or tok.preset not in LOCAL_PRESETS:
        return False
    if tok.pattern != PRESETS[tok.preset] or not set(options) <= OPTIONS:
        return False
    if not (isinstance(old_text, str) and isinstance(new_text, str)):
        return False
    if len(new_text) < min_chars or not isinstance(old_encoding, Encoding):
        return False
    n = len(old_encoding.ids)
    if len(old_encoding.offsets) != n or len(old_encoding.word_ids) != n:
        return False
    if (old_encoding.offsets[-1][1] if n else 0) != len(old_text):
        return False
    allowed = options.get("allowed_special")
    if allowed:
        return apart(tok.allowed(allowed))
    return True


def edit_of(old: str, new: str) -> tuple[int, int, int]:
    """(start, old_end, new_end): `old[start:old_end]` became `new[start:new_end]`, the rest
    is the longest common prefix and suffix (they never overlap).

    >>> edit_of("abcd", "abXcd"), edit_of("aaa", "aa"), edit_of("ab", "ab")
    ((2, 2, 3), (2, 3, 2), (2, 2, 2))
    """
    start = common_prefix(old, new)
    limit = min(len(old), len(new)) - start
    tail = common_suffix(old, new, limit)
    return start, len(old) - tail, len(new) - tail


def common_suffix(a: str, b: str, limit: int) -> int:
    """The length of the longest common suffix of `a` and `b`, at most `limit`, by halving.

    >>> common_suffix("xabc", "yabc", 10), common_suffix("abc", "abc", 2)
    (3, 2)
    """
    lo, hi = (
        0,
        min(limit, len(a), len(b)),
    )  # a's and b's last lo characters agree; their last hi + 1 do not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return lo


@functools.lru_cache(maxsize=64)
def apart(specials: frozenset[str]) -> bool:
    """Whether no two occurrences of these special tokens can overlap in any text: no proper
    suffix of one is a prefix of another, or has one as its prefix.

    >>> apart(frozenset({"<|endoftext|>", "<|fim_prefix|>"})), apart(frozenset({"ab", "bc"}))
    (True, False)
    """
    prefixes = {s[:i] for s in specials for i in range(1, len(s) + 1)}
    for s in specials:
        for i in range(1, len(s)):
            tail = s[i:]
            if tail in prefixes or any(tail[:j] in specials for j in range(1, len(tail) + 1)):
                return False
    return True


@functools.lru_cache(maxsize=64)
def _specials_re(specials: frozenset[str]) -> Any:
    """The alternation tiktoken's encode cuts special tokens with: longest first."""
    longest_first = sorted(specials, key=lambda s: (-len(s), s))
    return regex.compile("|".join(regex.escape(s) for s in longest_first))


@functools.lru_cache(maxsize=16)
def _pattern_re(pattern: str) -> Any:
    return regex.compile(pattern)


def reach(preset: str, text: str, start: int, end: int, segment_end: int, longest: int) -> int:
    """How far the scan reads to decide the regex piece text[start:end] of a segment ending at
    `segment_end` (point 1 of the module's docstring): one past the last character it can read,
    plus what deciding where the segment ends reads (longest - 1 more; 1 without specials).

    >>> reach("cl100k", "Hello world", 0, 5, 11, 1)  # "Hello": and 3 past its end
    8
    >>> reach("cl100k", "a\\n      b", 1, 2, 9, 1)  # a newline (\\s*[\\r\\n]): its run and "b"
    9
    >>> reach("o200k", "ʰAAAA1", 0, 1, 6, 1)  # "ʰ": the run of capitals it backed off through
    6
    """
    read = max(end + PAST_MATCH, _run_end(_SPACE_RUN, text, start, segment_end) + 1)
    for run in LOCAL_PRESETS[preset]:
        if start + 1 <= segment_end:
            read = max(read, _run_end(run, text, start + 1, segment_end) + 1)
    return min(read, segment_end + 1) + longest - 1


def _run_end(run: Any, text: str, start: int, end: int) -> int:
    """Where the run of `run` (a pattern that matches the empty string) from `start` ends."""
    match = run.match(text, start, end, concurrent=False)
    return match.end() if match else start


def _word(enc: Encoding, k: int) -> int:
    """Token k's word id (the fast path gives every token one: its piece's index)."""
    word = enc.word_ids[k]
    return word if word is not None else -1


def restart_point(
    preset: str, old_text: str, old: Encoding, edit_start: int, longest: int
) -> tuple[int, int]:
    """(token index, character) where the new scan restarts: the last old piece boundary at or
    before the edit such that the piece before it (hence every piece before it) reads nothing
    past `edit_start` (point 2)."""
    starts = old.offsets
    j = bisect_left(starts, edit_start, key=itemgetter(0))
    if j < len(starts):
        j = _piece_start(old, j)
    segment_end = _next_special_start(old, j, len(old_text))
    while j > 0:
        i = _piece_start(old, j - 1)
        q, r = starts[i][0], starts[j - 1][1]
        if old.special_tokens_mask[i]:  # an allowed special token: its text and L after
            read, segment_end = q + longest, q
        else:
            read = reach(preset, old_text, q, r, segment_end, longest)
        if read <= edit_start:
            return j, r
        j = i
    return 0, 0


def _piece_start(enc: Encoding, k: int) -> int:
    """The index of the first token of the piece token k belongs to (pieces = word ids)."""
    word = enc.word_ids[k]
    while k > 0 and enc.word_ids[k - 1] == word:
        k -= 1
    return k


def _next_special_start(enc: Encoding, k: int, text_end: int) -> int:
    """Where the first special token at or after token k starts (the end of its segment)."""
    try:
        return enc.offsets[enc.special_tokens_mask.index(1, k)][0]
    except ValueError:
        return text_end


def old_piece_at(enc: Encoding, pos: int, text_end: int) -> int | None:
    """The index of the old token that starts a piece at `pos` (len for the text's end), or
    None when `pos` is inside a piece."""
    if pos == text_end:
        return len(enc.ids)
    k = bisect_left(enc.offsets, pos, key=itemgetter(0))
    if k == len(enc.ids) or enc.offsets[k][0] != pos:
        return None
    return k if k == 0 or enc.word_ids[k] != enc.word_ids[k - 1] else None


class _Specials:
    """Where the allowed special tokens are in the new text from the restart on: looked for
    around the edit (those starting before `new_end`), and after it the old text's own, moved
    by delta (an occurrence starting in S's copy is one of the old text's)."""

    def __init__(
        self,
        text: str,
        allowed: frozenset[str],
        old: Encoding,
        restart: int,
        edit: tuple[int, int],
        longest: int,
    ) -> None:
        old_end, new_end = edit
        self.text, self.old, self.allowed, self.delta = text, old, allowed, new_end - old_end
        self.found: list[tuple[int, int]] = []
        if allowed:
            hi = min(len(text), new_end - 1 + longest)
            matches = _specials_re(allowed).finditer(text, restart, hi, concurrent=False)
            self.found = [m.span() for m in matches if m.start() < new_end]
        self.old_from = bisect_left(old.offsets, old_end, key=itemgetter(0))

    def next_at_or_after(self, pos: int) -> tuple[int, int]:
        """(start, end) of the first special token starting at or after `pos`; (len, len)
        when there is none."""
        none = (len(self.text), len(self.text))
        if not self.allowed:
            return none
        k = bisect_left(self.found, (pos, pos))
        if k < len(self.found):
            return self.found[k]
        old = self.old
        at = bisect_left(old.offsets, pos - self.delta, lo=self.old_from, key=itemgetter(0))
        try:
            k = old.special_tokens_mask.index(1, at)
        except ValueError:
            return none
        s, e = old.offsets[k]
        return s + self.delta, e + self.delta


def new_pieces(pattern: str, text: str, start: int, specials: _Specials) -> Iterator[Piece]:
    """The new scan's pieces from `start` (a boundary of it) on, lazily: the special tokens,
    and the pattern's matches in each segment between them (`endpos` is the segment's end, as
    the whole encode splits each segment on its own)."""
    compiled = _pattern_re(pattern)
    pos = start
    while pos < len(text):
        s, e = specials.next_at_or_after(pos)
        if s == pos:
            yield s, e, True
            pos = e
            continue
        for m in compiled.finditer(text, pos, s, concurrent=False):
            yield m.start(), m.end(), False
        pos = s


class _Window:
    """The new tokens from the restart to where the old scan takes over again, and the splice
    of the old tokens before and after them."""

    def __init__(self, tok: Any, old: Encoding, first: int) -> None:
        self.tok, self.old, self.first = tok, old, first
        n = len(old.ids)
        self.word: int = _word(old, first) if first < n else (_word(old, n - 1) + 1 if n else 0)
        self.ids: list[int] = []
        self.tokens: list[str] = []
        self.offsets: list[tuple[int, int]] = []
        self.word_ids: list[int | None] = []
        self.specials: list[int] = []

    def scan(self, pieces: Iterator[Piece], text: str, new_end: int, delta: int) -> int:
        """Encode the window's pieces until one ends on an old boundary in S's copy (point 3);
        returns the index of the old token the kept suffix starts with."""
        old_len = len(text) - delta
        for start, end, special in pieces:
            self._add(text, start, end, special)
            if end >= new_end:
                kept = old_piece_at(self.old, end - delta, old_len)
                if kept is not None:
                    return kept
        return len(self.old.ids)

    def _add(self, text: str, start: int, end: int, special: bool) -> None:
        """Append one piece's tokens (a special token's id, or the piece's BPE, cached)."""
        piece = text[start:end]
        if special:
            self.ids.append(self.tok.special_tokens[piece])
            self.tokens.append(piece)
            self.offsets.append((start, end))
            self.specials.append(1)
        else:
            ids, tokens, offsets, _ = self.tok.piece_tokens(piece)
            self.ids.extend(ids)
            self.tokens.extend(tokens)
            self.offsets.extend([(start + a, start + b) for a, b in offsets])
            self.specials.extend([0] * len(ids))
        self.word_ids.extend([self.word] * (1 if special else len(ids)))
        self.word += 1

    def splice(self, kept: int, delta: int) -> Encoding:
        """The old tokens before the window, the window's, and the old ones from `kept` on
        (offsets moved by `delta`, word ids by the change in the pieces before them)."""
        old, first = self.old, self.first
        shift = self.word - _word(old, kept) if kept < len(old.ids) else 0
        offsets = old.offsets[:first] + self.offsets
        if delta:
            offsets += [(s + delta, e + delta) for s, e in old.offsets[kept:]]
        else:
            offsets += old.offsets[kept:]
        word_ids = old.word_ids[:first] + self.word_ids
        if shift:
            word_ids += [w + shift for w in old.word_ids[kept:]]  # type: ignore[operator]
        else:
            word_ids += old.word_ids[kept:]
        n = len(offsets)
        return Encoding(
            ids=_replaced(old.ids, first, kept, self.ids),
            tokens=_replaced(old.tokens, first, kept, self.tokens),
            offsets=offsets,
            word_ids=word_ids,
            attention_mask=[1] * n,
            special_tokens_mask=_replaced(old.special_tokens_mask, first, kept, self.specials),
            type_ids=[0] * n,
        )


def _replaced(items: list, start: int, end: int, middle: list) -> list:
    """A copy of `items` with items[start:end] replaced by `middle` (one copy, not three).

    >>> _replaced([1, 2, 3, 4], 1, 3, [9])
    [1, 9, 4]
    """
    out = items.copy()
    out[start:end] = middle
    return out


def _check_disallowed_near(
    tok: Any, text: str, start: int, new_end: int, allowed: frozenset[str], options: dict
) -> None:
    """tiktoken's refusal of a disallowed special token in the new text, looked for where one
    can be new: overlapping the edit (elsewhere it was in the old text, whose encode passed)."""
    longest = max(map(len, tok.special_tokens), default=1)
    near = text[max(0, start - longest + 1) : min(len(text), new_end + longest - 1)]
    tok.check_disallowed(near, allowed, options.get("disallowed_special"))

"""sentencepiece's BPE trainer (``"sentencepiece_bpe"``), one merge at a time.

What sentencepiece does differently from the textbook (read from `src/bpe_model_trainer.cc` and
`src/trainer_interface.cc` of google/sentencepiece, matched against
``SentencePieceTrainer.train(model_type="bpe", vocab_size=V, character_coverage=1.0,
normalization_rule_name="identity")`` with the other options at their defaults):

- **Sentences, not pre-tokenised words.** Each line is normalised (identity rule: only spaces
  change -- leading/trailing spaces dropped, runs squeezed, a "▁" put in front, every space
  written "▁"), then cut into words *before* each "▁" ("▁Hello▁world" -> "▁Hello", "▁world").
  Lines longer than 4,192 bytes and lines containing "▅" (U+2585) are skipped, like sentencepiece;
  the meta pieces ``<unk>``, ``<s>``, ``</s>`` inside the text become a boundary (U+001F).
- **The alphabet** is every character of the corpus (the boundary excluded); a character
  that is not in it becomes ``<unk>`` and never merges.
- **Which pairs may merge**: the merged piece must be at most 16 characters, may hold "▁" only
  at its start, and may not mix Unicode scripts (Hiragana and Katakana count as Han; a
  combining mark takes the script before it; digits and punctuation are script "Common", so "a,"
  or "a1" never merge).
- **Tie-break**: the highest frequency; then the *shorter* piece; then the smaller string.
- **Active symbols**: every 100 merges sentencepiece keeps only the most frequent bigrams (at
  least 1,000, or 5% of all symbols) as candidates, plus every bigram created since. We do the
  same, so the rare case where a pair outside that set would have won is reproduced too.
- **The same piece made twice** (as "a"+"bc" and "ab"+"c") is kept once: the second is dropped.
- **vocab_size** counts ``<unk>``, ``<s>``, ``</s>`` (ids 0-2), the merged pieces in merge order
  (score -0, -1, -2, ...) and finally the alphabet, most frequent character first.

>>> t = SentencePieceBpeTrainer(["low low low lower lowest newer wider"], vocab_size=20).run()
>>> [p for p, _ in t.pieces()][:8]
['<unk>', '<s>', '</s>', 'lo', 'low', '▁low', 'er', 'es']
"""

from __future__ import annotations

import heapq
import struct
from collections import Counter
from typing import Iterable, Iterator, Mapping

import regex

from ...errors import InvalidInput
from ..sentencepiece_common import BOUNDARY, SPACE, UNK_CHAR, is_valid_piece, split_words
from .model import BpeEncodeStep, BpeMergeStep
from .sentencepiece import SentencePieceBpe
from .trainer import check_vocab_size

META_PIECES = ("<unk>", "<s>", "</s>")
MAX_SENTENCE_BYTES = 4192
_MIN_ACTIVE = 1000
_ACTIVE_RATIO = struct.unpack("f", struct.pack("f", 0.05))[0]
_UPDATE_EVERY = 100
_TIES_SHOWN = 6

SENTENCEPIECE_RULE = (
    "highest frequency; on a tie the shorter piece, then the smaller string "
    "(sentencepiece's BPE trainer)"
)


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


# ---- sentences -> words --------------------------------------------------------------------------
def normalize_line(line: str) -> str:
    """The identity rule with sentencepiece's whitespace handling.

    >>> normalize_line("  Hello   world ")
    '▁Hello▁world'
    """
    text = " ".join(part for part in line.split(" ") if part)
    return SPACE + text.replace(" ", SPACE) if text else ""


_META_RE = regex.compile(
    "|".join(regex.escape(p) for p in sorted(META_PIECES, key=len, reverse=True))
)


def load_sentences(lines: Iterable[str]) -> list[str]:
    """The normalised sentences sentencepiece would train on (see the module docstring)."""
    if isinstance(lines, str):
        raise InvalidInput(
            "give the corpus as a list of lines (e.g. text.splitlines()), not one string"
        )
    out = []
    for item in lines:
        if not isinstance(item, str):
            raise InvalidInput("every line of the corpus must be a string")
        out.extend(line_sentences(item))
    if not out:
        raise InvalidInput("the corpus is empty: give at least one line of text")
    return out


def line_sentences(item: str) -> list[str]:
    """The normalised sentences of one line of the corpus (none for a line sentencepiece skips:
    empty, over `MAX_SENTENCE_BYTES`, or holding "▅")."""
    out = []
    for line in item.split("\n"):
        if not line or len(line.encode("utf-8", "surrogatepass")) > MAX_SENTENCE_BYTES:
            continue
        if UNK_CHAR in line:
            continue
        text = _META_RE.sub(BOUNDARY, normalize_line(line), concurrent=False)
        if text:
            out.append(text)
    return out


def sentence_words(sentences: Iterable[str]) -> Counter[str]:
    """The words of the sentences (cut before each "▁"), with counts: the word table before the
    characters outside the alphabet become "▅" (a sentence is its words joined, so the
    alphabet is counted from them alike: `required_chars`)."""
    words: Counter[str] = Counter()
    for s in sentences:
        words.update(split_words(s))
    return words


def required_chars(words: dict[str, int]) -> dict[str, int]:
    """The alphabet with counts, most frequent first (character_coverage=1.0), from the word
    table."""
    counts: Counter[str] = Counter()
    for w, n in words.items():
        for c, k in Counter(w).items():
            counts[c] += k * n
    counts.pop("\x00", None)
    total = sum(counts.values())
    out: dict[str, int] = {}
    covered = 0
    for c, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if _f32(covered / total) >= 1.0:  # sentencepiece compares a float
            break
        covered += n
        if c == BOUNDARY:
            continue
        out[c] = n
    return out


# ---- the trainer ---------------------------------------------------------------------------------
class _Symbol:
    __slots__ = ("left", "right", "chars", "is_unk", "freq", "positions", "active", "cached")

    def __init__(
        self,
        chars: str,
        left: "_Symbol | None" = None,
        right: "_Symbol | None" = None,
        is_unk: bool = False,
        freq: int = 0,
    ) -> None:
        self.left = left
        self.right = right
        self.chars = chars
        self.is_unk = is_unk
        self.freq = freq
        self.positions: set[tuple[int, int, int]] = set()
        self.active = False
        self.cached = True

    def sort_key(self) -> tuple[int, int, str]:
        return (-self.freq, len(self.chars), self.chars)

    def pair(self) -> tuple[str, str]:
        """The two symbols a candidate joins (only a character has none)."""
        assert self.left is not None and self.right is not None, "a character joins nothing"
        return self.left.chars, self.right.chars


class SentencePieceBpeTrainer:
    """The stepper: iterate it for one `BpeMergeStep` per piece added (the word table is
    `words`/`counts`; `pieces()` gives the final pieces after `run`).

    >>> t = SentencePieceBpeTrainer(["aab aab ab"], vocab_size=8)
    >>> [s.new_symbol for s in t]
    ['ab', '▁a']
    """

    def __init__(
        self,
        lines: Iterable[str] | None,
        vocab_size: int,
        *,
        record_top: int = 0,
        words: Mapping[str, int] | None = None,
    ) -> None:
        self.vocab_size = check_vocab_size(vocab_size)
        self.record_top = record_top
        # the words of the sentences (or those counted already: `tc.count`)
        raw = dict(sentence_words(load_sentences(lines or ())) if words is None else words)
        self.chars = required_chars(raw)
        needed = len(self.chars) + len(META_PIECES)
        if vocab_size < needed:
            raise InvalidInput(
                f"vocab_size {vocab_size} is below the {needed} pieces this corpus "
                f"needs (<unk>, <s>, </s> and {len(self.chars)} characters); "
                f"choose at least {needed}"
            )
        known: Counter[str] = Counter()  # a character outside the alphabet is "▅" (<unk>)
        for w, n in raw.items():
            known["".join(c if c in self.chars else UNK_CHAR for c in w)] += n
        # sentencepiece sorts the word table by frequency, then by the word
        table = sorted(known.items(), key=lambda kv: (-kv[1], kv[0]))
        self.word_keys = [w for w, _ in table]
        self.counts = [c for _, c in table]
        self._cache: dict = {}  # symbols by key: a char, or (left id, right id)
        self.symbols: list[list[_Symbol | None]] = [
            [self._char_symbol(c) for c in w] for w in self.word_keys
        ]
        self._active: set[_Symbol] = set()
        self._heap: list = []
        self._seq = 0
        self._dirty: set[_Symbol] = set()
        for sid, syms in enumerate(self.symbols):
            for i in range(1, len(syms)):
                self._add_pair(sid, i - 1, i)
        self._flush()
        self.target = vocab_size - needed
        self.final: list[str] = []
        self.merges: list[tuple[str, str]] = []
        self._dup: set[str] = set()
        self.steps: list[BpeMergeStep] = []
        self.tables: list = []
        self.done = False
        self.stop_reason = ""

    # -- symbols ---------------------------------------------------------------------------------
    def _char_symbol(self, c: str) -> _Symbol:
        s = self._cache.get(c)
        if s is None:
            s = self._cache[c] = _Symbol(c, is_unk=(c == UNK_CHAR), freq=self.chars.get(c, 1))
        return s

    def _pair_symbol(self, left: _Symbol | None, right: _Symbol | None) -> _Symbol | None:
        """The bigram symbol for left+right, created (and cached) on first use; None if the
        merged piece would be invalid."""
        if left is None or right is None or left.is_unk or right.is_unk:
            return None
        key = (id(left), id(right))
        s = self._cache.get(key)
        if s is not None:
            return s
        chars = left.chars + right.chars
        if not is_valid_piece(chars):
            return None
        s = self._cache[key] = _Symbol(chars, left, right)
        return s

    def _push(self, s: _Symbol) -> None:
        if s.active:
            self._seq += 1
            heapq.heappush(self._heap, (-s.freq, len(s.chars), s.chars, self._seq, s))

    def _add_pair(self, sid: int, left: int, right: int) -> None:
        """A new adjacent pair at (left, right) of word `sid`: record the position."""
        if left < 0 or right < 0:
            return
        syms = self.symbols[sid]
        s = self._pair_symbol(syms[left], syms[right])
        if s is None:
            return
        pos = (sid, left, right)
        if pos not in s.positions:
            s.positions.add(pos)
            s.freq += self.counts[sid]
        s.active = True
        self._active.add(s)
        self._dirty.add(s)

    def _flush(self) -> None:
        """Queue every symbol whose frequency changed, once (after a whole merge)."""
        for s in self._dirty:
            self._push(s)
        self._dirty.clear()

    def _drop_pair(self, sid: int, left: int, right: int, best: _Symbol) -> None:
        """The pair at (left, right) is about to change: it no longer counts (ResetFreq)."""
        if left < 0 or right < 0:
            return
        syms = self.symbols[sid]
        s = self._pair_symbol(syms[left], syms[right])
        if s is None or s is best:
            return
        pos = (sid, left, right)
        if pos in s.positions:
            s.positions.discard(pos)
            s.freq -= self.counts[sid]
            self._dirty.add(s)

    def _update_active(self) -> None:
        """Every 100 pieces: keep the most frequent bigrams as the candidates."""
        bigrams = [s for s in self._cache.values() if s.left is not None]
        size = min(max(_MIN_ACTIVE, int(_f32(len(self._cache) * _ACTIVE_RATIO))), len(bigrams))
        top = heapq.nsmallest(size, bigrams, key=_Symbol.sort_key)
        for s in self._active:
            s.active = False
        self._active = set(top)
        self._heap = []
        for s in top:
            s.active = True
            self._push(s)

    def _pick(self) -> _Symbol | None:
        heap = self._heap
        while heap:
            neg, _n, _c, _seq, s = heap[0]
            if not s.active or -neg != s.freq or not s.cached:
                heapq.heappop(heap)
                continue
            return s
        return None

    def _remove(self, s: _Symbol) -> None:
        self._cache.pop((id(s.left), id(s.right)), None)
        s.cached = False
        s.active = False
        self._active.discard(s)

    def _walk(self, limit: int = 400) -> Iterator[_Symbol]:
        """The valid heap entries in pick order, without popping (a best-first walk of at most
        `limit` entries)."""
        heap = self._heap
        if not heap:
            return
        frontier = [(heap[0], 0)]
        seen = set()
        while frontier and limit > 0:
            limit -= 1
            entry, idx = heapq.heappop(frontier)
            for c in (2 * idx + 1, 2 * idx + 2):
                if c < len(heap):
                    heapq.heappush(frontier, (heap[c], c))
            sym = entry[4]
            if sym in seen or not sym.active or not sym.cached or -entry[0] != sym.freq:
                continue
            seen.add(sym)
            yield sym

    def _ties(self, best: _Symbol) -> list[_Symbol]:
        """Candidates with the same frequency (they lost on length or spelling)."""
        out: list[_Symbol] = []
        for sym in self._walk(limit=8 * _TIES_SHOWN):
            if sym.freq != best.freq or len(out) >= _TIES_SHOWN:
                break
            if sym is not best:
                out.append(sym)
        return out

    def top_pairs(self, k: int) -> tuple[tuple[str, str, int], ...]:
        out: list[tuple[str, str, int]] = []
        for sym in self._walk():
            if len(out) >= k:
                break
            out.append((*sym.pair(), sym.freq))
        return tuple(out)

    def _merge(self, best: _Symbol) -> list[int]:
        """Replace every occurrence of best's two symbols by best, left to right."""
        changed: list[int] = []
        for sid, left, right in sorted(best.positions):
            syms = self.symbols[sid]
            if syms[left] is None:  # taken by the previous overlapping occurrence
                continue
            nxt = next((i for i in range(right + 1, len(syms)) if syms[i] is not None), -1)
            prv = next((i for i in range(left - 1, -1, -1) if syms[i] is not None), -1)
            self._drop_pair(sid, prv, left, best)
            self._drop_pair(sid, right, nxt, best)
            syms[left] = best
            syms[right] = None
            self._add_pair(sid, prv, left)
            self._add_pair(sid, left, nxt)
            if not changed or changed[-1] != sid:
                changed.append(sid)
        self._flush()
        return changed

    # -- the loop --------------------------------------------------------------------------------
    def __iter__(self) -> Iterator[BpeMergeStep]:
        return self

    def step(self) -> BpeMergeStep | None:
        """One merge: pick, merge it everywhere, record it. None when training is over."""
        while not self.done:
            if len(self.final) >= self.target:
                self.stop_reason = f"the vocabulary reached {self.vocab_size} pieces"
                break
            if len(self.final) % _UPDATE_EVERY == 0:
                self._update_active()
            table = self.top_pairs(self.record_top) if self.record_top else None
            best = self._pick()  # pick the best candidate
            if best is None:
                self.stop_reason = "no pair is left to merge"
                break
            if best.chars in self._dup:  # made before in another way
                self._remove(best)
                continue
            self._dup.add(best.chars)
            tied = self._ties(best)
            self.final.append(best.chars)  # record the piece
            self.merges.append(best.pair())
            changed = self._merge(best)  # merge it everywhere
            self._remove(best)
            if table is not None:
                self.tables.append(table)
            step = BpeMergeStep(
                index=len(self.final) - 1,
                pair=best.pair(),
                count=best.freq,
                new_symbol=best.chars,
                new_id=len(META_PIECES) + len(self.final) - 1,
                tied=tuple(s.pair() for s in tied),
                n_tied=len(tied),
                ties_more=False,
                changed_words=tuple(self.word_keys[i] for i in changed[:12]),
                n_changed_words=len(changed),
            )
            self.steps.append(step)
            return step
        self.done = True
        return None

    def __next__(self) -> BpeMergeStep:
        step = self.step()
        if step is None:
            raise StopIteration
        return step

    def run(self) -> "SentencePieceBpeTrainer":
        while self.step() is not None:
            pass
        return self

    def segmentation(self, i: int) -> tuple[str, ...]:
        return tuple(s.chars for s in self.symbols[i] if s is not None)

    def word_text(self, i: int) -> str:
        return self.word_keys[i]

    def pieces(self) -> list[tuple[str, float]]:
        """All pieces in id order with sentencepiece's scores."""
        out = [(p, 0.0) for p in META_PIECES]
        merged = list(self.final)
        chars = [c for c, _ in sorted(self.chars.items(), key=lambda kv: (-kv[1], kv[0]))]
        for i, p in enumerate(merged + chars):
            out.append((p, -float(i)))
        return out


def sentencepiece_bpe_trainer(
    lines: Iterable[str] | None,
    vocab_size: int,
    *,
    record_top: int = 0,
    words: Mapping[str, int] | None = None,
) -> SentencePieceBpeTrainer:
    return SentencePieceBpeTrainer(lines, vocab_size, record_top=record_top, words=words)


class TrainedSentencePieceBpe(SentencePieceBpe):
    """sentencepiece's BPE encoder plus the merges that made each piece (in learned order)."""

    def __init__(self, pieces: list[tuple[str, float, int]], merges: list[tuple[str, str]]) -> None:
        super().__init__(pieces)
        self.merges = list(merges)

    def encode_steps(self, piece: str) -> Iterator:
        return sentencepiece_encode_steps(self, piece)


def sentencepiece_encode_steps(
    model: SentencePieceBpe, piece: str, below: int | None = None
) -> Iterator:
    """One `BpeEncodeStep` per merge of sentencepiece's BPE encoder: of the adjacent pairs whose
    concatenation is a piece, the one with the highest score wins (leftmost on a tie); the rank
    shown is the piece's id. With `below`, only pieces scoring higher than piece `below`."""
    parts = list(piece)
    scores = model.scores
    floor = scores[below] if below is not None else None
    index = 0
    while len(parts) > 1:
        candidates = []
        for i in range(len(parts) - 1):
            pid = model._normal.get(parts[i] + parts[i + 1])
            if pid is not None and (floor is None or scores[pid] > floor):
                candidates.append((i, pid))
        if not candidates:
            return
        chosen, rank = min(candidates, key=lambda c: (-scores[c[1]], c[0]))
        merged = parts[chosen] + parts[chosen + 1]
        yield BpeEncodeStep(index, tuple(parts), tuple(candidates), chosen, rank, merged)
        parts[chosen : chosen + 2] = [merged]
        index += 1

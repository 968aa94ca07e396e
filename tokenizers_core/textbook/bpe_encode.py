"""BPE encoding of one word as the textbook writes it: merge the lowest-ranked pair, again and
again, until no adjacent pair is a known merge.

The loop of tiktoken's `_educational.py` (`bpe_encode`: find the pair with the lowest rank,
merge it) and karpathy/minbpe's `encode`, one merge at a time and leftmost on a tie, yielding
one `BpeEncodeStep` per merge as the fast engine does. `rank(left, right)` is the merge's rank
(None when the pair never merges; `word` may also be given as its symbols, e.g. a model's
`initial_parts`): `model.rank` of a loaded or trained `BPE`, or
`lambda a, b: ranks.get((a, b))` for a dict of merges. The fast engines, `BPE.encode_steps` in
`models/bpe/model.py` and `HFBpe.encode_steps` in `models/bpe/hf.py`, are proven equal to it step by
step by tests/core/models/test_textbook.py.

With a `vocab` the word is first spelled as Hugging Face spells it: a character the vocabulary
lacks becomes its UTF-8 bytes as `<0xE6>` pieces (`byte_fallback`), or the `unk_token`, or
nothing; `ignore_merges` takes a word that is itself a token whole (Llama 3). It does not cover
a continuing-subword prefix or an end-of-word suffix glued to the last character, `fuse_unk`,
or BPE-dropout (`HFBpe` does), nor Hugging Face's placing of an unknown token after the byte
pieces of a following character (a model with byte fallback that still lacks some bytes).
Slow on purpose: every step re-ranks every pair.

The classic mistake is a switch: `order="count"` merges the known pair occurring most often in
the word (the first seen on a tie), every occurrence at once, instead of the lowest rank.

>>> ranks = {("l", "o"): 0, ("lo", "w"): 1}
>>> [(s.parts, s.merged) for s in bpe_encode("low", lambda a, b: ranks.get((a, b)))]
[(('l', 'o', 'w'), 'lo'), (('lo', 'w'), 'low')]
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

from ..errors import InvalidInput
from ..models.bpe.hf import byte_piece
from ..models.bpe.model import BpeEncodeStep
from . import code_of, marked_line
from .bpe_train import merge

Rank = Callable[[str, str], "int | None"]


def bpe_encode(
    word: str | Sequence[str],
    rank: Rank,
    *,
    end_of_word: str | None = None,
    vocab: dict[str, int] | None = None,
    unk_token: str | None = None,
    byte_fallback: bool = False,
    ignore_merges: bool = False,
    order: str = "rank",
) -> Iterator[BpeEncodeStep]:
    if (
        ignore_merges and vocab is not None and isinstance(word, str) and word in vocab
    ):  # the word is a token: done <- whole_word
        yield BpeEncodeStep(0, tuple(word), (), -1, -1, word, "whole_word")
        return
    parts, replaced = spell(word, vocab, unk_token, byte_fallback)  # the word as symbols <- start
    if replaced:  # unknown characters were replaced <- fallback
        action = (
            "byte_fallback" if any(r and r[0] != unk_token for _i, _c, r in replaced) else "unknown"
        )
        yield BpeEncodeStep(0, tuple(word), (), -1, -1, "", action, tuple(replaced))
    parts += [end_of_word] if end_of_word else []  # (+ the end-of-word symbol)
    index = 1 if replaced else 0
    while len(parts) > 1:
        candidates = [
            (i, r)
            for i, (a, b) in enumerate(zip(parts, parts[1:]))
            if (r := rank(a, b)) is not None
        ]  # rank every adjacent pair <- rank
        if not candidates:
            return  # no pair is a merge: done <- stop
        chosen, best = pick(parts, candidates, order)  # the lowest rank, leftmost <- pick
        merged = parts[chosen] + parts[chosen + 1]
        yield BpeEncodeStep(
            index, tuple(parts), tuple(candidates), chosen, best, merged
        )  # <- merge
        pair = (parts[chosen], parts[chosen + 1])
        parts[chosen : chosen + 2] = [merged]  # merge it
        if order == "count":  # (the mistake: every occurrence)
            parts = list(merge(tuple(parts), pair, merged))
        index += 1


def spell(
    word: str | Sequence[str],
    vocab: dict[str, int] | None,
    unk_token: str | None = None,
    byte_fallback: bool = False,
) -> tuple[list[str], list[tuple[int, str, tuple[str, ...]]]]:
    """The symbols merging starts from, and the characters replaced as (position, character,
    replacement). Without a vocabulary every character is a symbol.

    >>> spell("aé", {"a": 0, "<0xC3>": 1, "<0xA9>": 2}, byte_fallback=True)
    (['a', '<0xC3>', '<0xA9>'], [(1, 'é', ('<0xC3>', '<0xA9>'))])
    >>> spell("ax", {"a": 0, "<unk>": 1}, "<unk>")
    (['a', '<unk>'], [(1, 'x', ('<unk>',))])
    """
    if vocab is None:
        return list(word), []
    parts: list[str] = []
    replaced: list[tuple[int, str, tuple[str, ...]]] = []
    for i, ch in enumerate(word):
        if ch in vocab:
            parts.append(ch)
            continue
        pieces = tuple(byte_piece(b) for b in ch.encode("utf-8", "surrogatepass"))
        if byte_fallback and all(p in vocab for p in pieces):
            replacement = pieces  # its bytes, as <0x..> pieces
        elif unk_token is None:
            replacement = ()  # dropped, as Hugging Face drops it
        elif unk_token not in vocab:
            raise InvalidInput(f"the unknown token {unk_token!r} is not in the vocabulary")
        else:
            replacement = (unk_token,)
        parts.extend(replacement)
        replaced.append((i, ch, replacement))
    return parts, replaced


def pick(
    parts: list[str], candidates: list[tuple[int, int]], order: str = "rank"
) -> tuple[int, int]:
    """The candidate (position, rank) to merge: the lowest rank, leftmost on a tie; with
    `order="count"` (the mistake) the first position of the pair occurring most often.

    >>> (pick(list("abab"), [(0, 1), (1, 0), (2, 1)]),
    ...  pick(list("abab"), [(0, 1), (1, 0), (2, 1)], "count"))
    ((1, 0), (0, 1))
    """
    if order == "rank":
        return min(candidates, key=lambda c: (c[1], c[0]))
    if order != "count":
        raise InvalidInput(f"order must be 'rank' or 'count', not {order!r}")
    counts: dict[tuple[str, str], int] = {}
    for i, _r in candidates:
        pair = (parts[i], parts[i + 1])
        counts[pair] = counts.get(pair, 0) + 1
    best = max(counts, key=counts.__getitem__)
    return next(c for c in candidates if (parts[c[0]], parts[c[0] + 1]) == best)


CODE = code_of(bpe_encode)
_MARKS = {
    "merge": "merge",
    "whole_word": "whole_word",
    "byte_fallback": "fallback",
    "unknown": "fallback",
}


def line_of(step: BpeEncodeStep | None, *, finished: bool = False) -> int:
    """The line of CODE a state stands for: the word spelled as symbols (`step` None), a
    merge, a whole word, a byte fallback or unknown replacement, or the end (`finished`).

    >>> CODE[line_of(None, finished=True) - 1].split("#")[1].strip()
    'no pair is a merge: done <- stop'
    """
    if finished:
        return marked_line(CODE, "stop")
    return marked_line(CODE, "start" if step is None else _MARKS[step.action])

"""WordPiece encoding of one word as the textbook writes it: greedy longest match first.

At each start the window `word[start:end]` shrinks from the right, one character a probe,
until it is in the vocabulary (with the continuation prefix `##` when start > 0); the match is
kept and the next window starts where it ended. If no window at some start matches, the whole
word becomes the unknown token; a word longer than `max_input_chars_per_word` is the unknown
token without a probe. This is BERT's `WordpieceTokenizer.tokenize` (google-research/bert,
`tokenization.py`) and Hugging Face's `models.WordPiece`, one `WordPieceProbeStep` a probe. The
fast engine, `WordPiece.probes` / `WordPiece.tokenize` in `models/wordpiece/model.py`, is proven
equal to it step by step by tests/core/models/test_textbook.py. Slow only in that it builds a step
per probe; it covers everything the fast engine does.

>>> vocab = {"[UNK]", "un", "##aff", "##able"}
>>> [p.candidate for p in wordpiece_encode("unaffable", vocab) if p.found]
['un', '##aff', '##able']
"""

from __future__ import annotations

from typing import Container, Iterator

from ..models.wordpiece.model import MAX_INPUT_CHARS_PER_WORD, WordPieceProbeStep
from . import code_of, marked_line


def wordpiece_encode(
    word: str,
    vocab: Container[str],
    *,
    unk_token: str = "[UNK]",
    prefix: str = "##",
    max_input_chars_per_word: int = MAX_INPUT_CHARS_PER_WORD,
) -> Iterator[WordPieceProbeStep]:
    if len(word) > max_input_chars_per_word:  # too long: unknown, unprobed <- too_long
        yield WordPieceProbeStep(word, 0, len(word), word, False, (unk_token,), "too_long")
        return
    pieces: tuple[str, ...] = ()  # the tokens kept so far <- start
    start = 0
    while start < len(word):  # one piece per start
        end = len(word)  # the widest window first
        while True:
            candidate = word[start:end] if start == 0 else prefix + word[start:end]
            if candidate in vocab:  # in the vocabulary: keep it <- hit
                pieces += (candidate,)
                yield WordPieceProbeStep(word, start, end, candidate, True, pieces, "hit")
                break
            if end - 1 == start:  # not even one character: <- unk
                yield WordPieceProbeStep(word, start, end, candidate, False, (unk_token,), "unk")
                return  # ... the whole word is unknown
            yield WordPieceProbeStep(word, start, end, candidate, False, pieces, "miss")  # <- miss
            end -= 1  # shrink the window
        start = end  # the next window starts here
    return  # every start matched: done <- stop


CODE = code_of(wordpiece_encode)


def line_of(step: WordPieceProbeStep | None, *, finished: bool = False) -> int:
    """The line of CODE a state stands for: before the first probe (`step` None), a probe by
    its status ("hit", "miss", "unk", "too_long"), or the word done (`finished`).

    >>> CODE[line_of(WordPieceProbeStep("ab", 0, 2, "ab", False, (), "miss")) - 1].split("# ")[1]
    '<- miss'
    """
    if finished:
        return marked_line(CODE, "stop")
    return marked_line(CODE, "start" if step is None else step.status)

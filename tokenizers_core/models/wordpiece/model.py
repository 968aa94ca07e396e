"""WordPiece: greedy longest-match encoding over a vocabulary of pieces (BERT's model).

Encoding one word (the 'How it works' guide's loop): at each start position the window
`word[start:end]` shrinks from the right one character at a time until it is in the vocabulary (with
the continuation prefix `##` when start > 0); the match is kept and the next window starts where it
ended. If some position has no match at all, the *whole* word becomes `[UNK]`; a word longer than
`max_input_chars_per_word` (100) is `[UNK]` without probing. This is Hugging Face's
`models.WordPiece` rule.

>>> wp = WordPiece({"[UNK]": 0, "play": 1, "##ing": 2, "un": 3, "##aff": 4, "##able": 5})
>>> [t for t, *_ in wp.tokenize("playing")]
['play', '##ing']
>>> [t for t, *_ in wp.tokenize("unaffable")]
['un', '##aff', '##able']
>>> wp.tokenize("played")        # "##ed" and every shorter "##e..." are missing: whole word
[('[UNK]', 0, 0, 6)]

Every probe is also a step (`WordPieceProbeStep`, kind "wordpiece_probe") from `wp.probes(word)`;
`tokenize` is the same loop without building step values (the fast path), and the tests check that
both agree. Training lives in `trainer.py`.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from typing import ClassVar, Iterable, Iterator

from ...errors import InvalidInput
from ...steps import Step, register_step

DEFAULT_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
MAX_INPUT_CHARS_PER_WORD = 100
_CACHE_LIMIT = 200_000


@register_step
@dataclass(frozen=True)
class WordPieceProbeStep(Step):
    """One probe of greedy longest match: is `candidate` (= word[start:end], with the
    continuation prefix when start > 0) in the vocabulary?

    `pieces` are the tokens accepted after this probe. `status` is "hit" (the window matched and
    is kept), "miss" (shrink the window by one character), "unk" (no window at this start matched:
    the whole word becomes the unknown token) or "too_long" (the word has more than
    `max_input_chars_per_word` characters; nothing is probed).

    >>> p = WordPieceProbeStep("playing", 4, 7, "##ing", True, ("play", "##ing"), "hit")
    >>> WordPieceProbeStep.from_dict(p.to_dict()) == p
    True
    """

    kind: ClassVar[str] = "wordpiece_probe"
    word: str
    start: int
    end: int
    candidate: str
    found: bool
    pieces: tuple[str, ...]
    status: str


class WordPiece:
    """A WordPiece model: `vocab` (token -> id), the unknown token, the continuation prefix.

    `merges` is the learned merge list of a trained model (empty for a loaded vocabulary: a
    WordPiece vocabulary alone does not record how it was built). `special_tokens` are the tokens
    a decoder may skip.

    `require_unk=False` accepts a vocabulary without the unknown token, as Hugging Face does: the
    model works until a word has no split, which then raises ValueError (Hugging Face's
    MissingUnkToken) instead of becoming the unknown token.

    >>> wp = WordPiece({"a": 0, "##b": 1}, require_unk=False)
    >>> [t for t, *_ in wp.tokenize("ab")]
    ['a', '##b']
    >>> wp.tokenize("c")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: WordPiece cannot split 'c' and its vocabulary has no ...
    """

    def __init__(
        self,
        vocab: dict[str, int],
        *,
        unk_token: str = "[UNK]",
        continuing_subword_prefix: str = "##",
        max_input_chars_per_word: int = MAX_INPUT_CHARS_PER_WORD,
        special_tokens: Iterable[str] | None = None,
        merges: Iterable[tuple[str, str]] = (),
        require_unk: bool = True,
    ) -> None:
        # an empty vocabulary is valid without the unknown token (Hugging Face's
        # `WordPiece::default()`): it loads and saves, and cannot split any word
        if not isinstance(vocab, dict) or (not vocab and require_unk):
            raise InvalidInput("a WordPiece vocabulary needs at least one token")
        if require_unk and unk_token not in vocab:
            raise InvalidInput(
                f"the vocabulary has no unknown token {unk_token!r}; WordPiece "
                "needs it for words it cannot split"
            )
        if not isinstance(max_input_chars_per_word, int) or max_input_chars_per_word < 1:
            raise InvalidInput("max_input_chars_per_word must be a positive integer")
        if not isinstance(continuing_subword_prefix, str):
            raise InvalidInput("continuing_subword_prefix must be a string")
        self.vocab: dict[str, int] = dict(vocab)
        self._id_to_token: dict[int, str] = {i: t for t, i in self.vocab.items()}
        if len(self._id_to_token) != len(self.vocab):
            raise InvalidInput("two tokens of the vocabulary share an id")
        self.unk_token = unk_token
        self.continuing_subword_prefix = continuing_subword_prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        if special_tokens is None:
            special_tokens = [t for t in DEFAULT_SPECIAL_TOKENS if t in self.vocab]
        self.special_tokens: tuple[str, ...] = tuple(special_tokens)
        self.merges: list[tuple[str, str]] = [tuple(m) for m in merges]  # type: ignore[misc]
        self._cache: dict[str, list[tuple[str, int, int, int]]] = {}
        # no candidate longer than the longest entry can match: each probe starts there
        self._longest = max(map(len, self.vocab), default=0)

    def to_hf_config(self) -> dict:
        """The model section of a tokenizer.json (the vocabulary in id order).

        >>> WordPiece({"[UNK]": 0, "a": 1}).to_hf_config()["vocab"]
        {'[UNK]': 0, 'a': 1}
        """
        return {
            "type": "WordPiece",
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "vocab": dict(sorted(self.vocab.items(), key=lambda kv: kv[1])),
        }

    # ---- loading --------------------------------------------------------------------------
    @classmethod
    def from_lines(cls, lines: Iterable[str], **options) -> "WordPiece":
        """A model from vocabulary lines (one token a line, id = line number from 0).

        Trailing whitespace (the newline) is removed, as Hugging Face does. A vocabulary with a
        repeated token, or without the unknown token, is rejected with the reason.

        >>> WordPiece.from_lines(["[UNK]", "a", "a"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        tokenizers_core.errors.InvalidInput: the vocabulary repeats 'a' (lines 2 and 3); every ...
        """
        vocab: dict[str, int] = {}
        for number, line in enumerate(lines):
            token = line.rstrip()
            if token in vocab:
                raise InvalidInput(
                    f"the vocabulary repeats {token!r} (lines {vocab[token] + 1} and "
                    f"{number + 1}); every token must appear once"
                )
            vocab[token] = number
        if not vocab:
            raise InvalidInput("the vocabulary is empty; give one token a line")
        return cls(vocab, **options)

    @classmethod
    def from_file(cls, path: str, **options) -> "WordPiece":
        """A model from a `vocab.txt` file (optionally gzipped: `.gz`)."""
        opener = gzip.open if str(path).endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            return cls.from_lines(_vocab_lines(f.read()), **options)

    # ---- the Model protocol ---------------------------------------------------------------
    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def id_to_token(self, id: int) -> str | None:
        return self._id_to_token.get(id)

    def get_vocab_size(self) -> int:
        return len(self.vocab)

    def describe(self) -> str:
        return (
            f"WordPiece ({len(self.vocab):,} tokens, "
            f"{self.continuing_subword_prefix!r} continuations)"
        )

    def tokenize(self, word: str) -> list[tuple[str, int, int, int]]:
        """Greedy longest match of one word: `[(token, id, start, end), ...]`, positions in
        the word. The fast path of `probes`: the same loop, no step values, cached per word."""
        cached = self._cache.get(word)
        if cached is not None:
            return list(cached)
        out = self._longest_match(word)
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[word] = out
        return list(out)

    def _longest_match(self, word: str) -> list[tuple[str, int, int, int]]:
        """Greedy longest match. Each window starts no longer than the longest vocabulary
        entry (a longer candidate cannot be in the vocabulary, so the tokens are those of
        the textbook loop, and Hugging Face's): a word of n characters costs at most
        n * longest lookups, whatever `max_input_chars_per_word` allows."""
        vocab = self.vocab
        n = len(word)
        if n == 0:
            return []
        if n > self.max_input_chars_per_word:
            return self._unknown(word)
        prefix = self.continuing_subword_prefix
        longest = self.__dict__.get("_longest")
        if longest is None:  # a model pickled before `_longest`
            longest = self._longest = max(map(len, vocab), default=0)
        out: list[tuple[str, int, int, int]] = []
        start = 0
        while start < n:
            end = min(n, start + longest - (len(prefix) if start else 0))
            while start < end:  # shrink the window from the right
                candidate = word[start:end] if start == 0 else prefix + word[start:end]
                id_ = vocab.get(candidate)
                if id_ is not None:
                    out.append((candidate, id_, start, end))
                    break
                end -= 1
            else:  # nothing matched at `start`
                return self._unknown(word)
            start = end
        return out

    def _unknown(self, word: str) -> list[tuple[str, int, int, int]]:
        """The whole word as the unknown token (ValueError for a model without one)."""
        unk_id = self.vocab.get(self.unk_token)
        if unk_id is None:
            raise InvalidInput(
                f"WordPiece cannot split {word!r} and its vocabulary has no unknown "
                f"token {self.unk_token!r}"
            )
        return [(self.unk_token, unk_id, 0, len(word))]

    # ---- the stepper ----------------------------------------------------------------------
    def probes(self, word: str) -> Iterator[WordPieceProbeStep]:
        """Greedy longest match of one word, one step per probe (the textbook loop).

        >>> wp = WordPiece({"[UNK]": 0, "play": 1, "##ing": 2})
        >>> [(p.candidate, p.status) for p in wp.probes("playing")][:2]
        [('playing', 'miss'), ('playin', 'miss')]
        >>> [(p.candidate, p.status) for p in wp.probes("playing")][-1]
        ('##ing', 'hit')
        """
        n = len(word)
        if n > self.max_input_chars_per_word:
            yield WordPieceProbeStep(word, 0, n, word, False, (self.unk_token,), "too_long")
            return
        prefix = self.continuing_subword_prefix
        pieces: tuple[str, ...] = ()
        start = 0
        while start < n:
            end = n
            matched = False
            while start < end:
                candidate = word[start:end] if start == 0 else prefix + word[start:end]
                if candidate in self.vocab:
                    pieces = pieces + (candidate,)
                    yield WordPieceProbeStep(word, start, end, candidate, True, pieces, "hit")
                    matched = True
                    break
                if end - 1 == start:  # the last, one-character window failed
                    yield WordPieceProbeStep(
                        word, start, end, candidate, False, (self.unk_token,), "unk"
                    )
                    return
                yield WordPieceProbeStep(word, start, end, candidate, False, pieces, "miss")
                end -= 1
            if not matched:
                return
            start = end


def _vocab_lines(text: str) -> list[str]:
    """The lines of a vocab file; a final newline does not make an extra (empty) token."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


def vocab_from_text(text: str, **options) -> WordPiece:
    """A model from the text of a `vocab.txt` (what a user pastes into the encode view).

    >>> vocab_from_text("[UNK]\\nplay\\n##ing\\n").vocab
    {'[UNK]': 0, 'play': 1, '##ing': 2}
    >>> vocab_from_text("play\\n##ing")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: the vocabulary has no unknown token '[UNK]'; WordPiece
    needs it for words it cannot split
    """
    if not isinstance(text, str):
        raise InvalidInput("the vocabulary must be text, one token a line")
    return WordPiece.from_lines(_vocab_lines(text), **options)

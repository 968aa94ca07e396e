"""WordLevel: every pre-tokenised word is one token, looked up whole (Hugging Face's
`models.WordLevel`); a word not in the vocabulary is the unknown token.

>>> m = WordLevel({"the": 0, "cat": 1, "<unk>": 2})
>>> m.tokenize("cat"), m.tokenize("dog")
([('cat', 1, 0, 3)], [('<unk>', 2, 0, 3)])

A model whose vocabulary lacks its unknown token works until a word is missing, which then raises
ValueError (Hugging Face's MissingUnkToken).
"""

from __future__ import annotations

from ...errors import InvalidInput


class WordLevel:
    """A word -> id table with an unknown token."""

    def __init__(self, vocab: dict[str, int], *, unk_token: str = "<unk>") -> None:
        if not isinstance(vocab, dict):
            raise InvalidInput("a WordLevel vocabulary maps each word to its id")
        if not isinstance(unk_token, str):
            raise InvalidInput("unk_token must be a string")
        self.vocab = vocab
        self.unk_token = unk_token
        self._id_to_token = {i: t for t, i in vocab.items()}

    def tokenize(self, word: str) -> list[tuple[str, int, int, int]]:
        id_ = self.vocab.get(word)
        if id_ is not None:
            return [(word, id_, 0, len(word))]
        unk_id = self.vocab.get(self.unk_token)
        if unk_id is None:
            raise InvalidInput(
                f"{word!r} is not in the WordLevel vocabulary, which has no unknown "
                f"token {self.unk_token!r}"
            )
        return [(self.unk_token, unk_id, 0, len(word))]

    def id_to_token(self, id: int) -> str | None:
        return self._id_to_token.get(id)

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def get_vocab_size(self) -> int:
        return len(self.vocab)

    def to_hf_config(self) -> dict:
        """The model section of a tokenizer.json (the vocabulary in id order)."""
        return {
            "type": "WordLevel",
            "vocab": dict(sorted(self.vocab.items(), key=lambda kv: kv[1])),
            "unk_token": self.unk_token,
        }

    def describe(self) -> str:
        return f"WordLevel ({len(self.vocab):,} words, unknown {self.unk_token!r})"

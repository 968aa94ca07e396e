"""`WordPiece`: BERT's "##" pieces joined back into words (`src/decoders/wordpiece.rs`), and the
tidying of spaces it shares with `CTC` (`wordpiece_cleanup`)."""

from __future__ import annotations

from .base import _Decoder

_WORDPIECE_CLEANUP = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" do not", " don't"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)


def wordpiece_cleanup(text: str) -> str:
    """Hugging Face's `wordpiece::cleanup`: the spaces before punctuation and English
    contractions that joining with spaces leaves, removed in this fixed order.

    >>> wordpiece_cleanup("I do not know , he 's here .")
    "I don't know, he's here."
    """
    for dirty, clean in _WORDPIECE_CLEANUP:
        text = text.replace(dirty, clean)
    return text


class WordPiece(_Decoder):
    """Join WordPiece tokens: a token with the continuation prefix is glued to the one before
    (prefix removed), any other token gets a space in front. With `cleanup` (the default), the
    spaces Hugging Face's decoder tidies away are removed (" ." -> ".", " n't" -> "n't", ...),
    token by token, exactly as its `decoders.WordPiece` does.

    >>> WordPiece().decode(["hello", ",", "un", "##aff", "##able", "world", "!"])
    'hello, unaffable world!'
    >>> WordPiece(cleanup=False).decode(["hello", ",", "world"])
    'hello , world'

    It does not restore case or accents the normaliser removed.
    """

    def __init__(self, prefix: str = "##", cleanup: bool = True) -> None:
        self.prefix = prefix
        self.cleanup = cleanup

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        for i, token in enumerate(tokens):
            if i:
                if token.startswith(self.prefix):
                    token = token[len(self.prefix) :]
                else:
                    token = " " + token
            out.append(wordpiece_cleanup(token) if self.cleanup else token)
        return out

    def describe(self) -> str:
        return f"WordPiece (join {self.prefix!r} pieces{', tidy spaces' if self.cleanup else ''})"

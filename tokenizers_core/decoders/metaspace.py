"""`Metaspace`: "▁" back to spaces (`src/pre_tokenizers/metaspace.rs`)."""

from __future__ import annotations

from ..errors import InvalidInput
from .base import _Decoder


class Metaspace(_Decoder):
    """Undo the `Metaspace` pre-tokenizer: every `replacement` becomes a space, except that in
    the first token (unless `prepend_scheme` is "never") every `replacement` is dropped.

    >>> Metaspace().decode(["▁Hey", "▁", "▁you"])
    'Hey  you'
    """

    def __init__(
        self, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True
    ) -> None:
        if not isinstance(replacement, str) or len(replacement) != 1:
            raise InvalidInput("Metaspace: the replacement must be exactly one character")
        if prepend_scheme not in ("always", "first", "never"):
            raise InvalidInput(
                f"Metaspace: unknown prepend_scheme {prepend_scheme!r}; "
                "choose 'always', 'first' or 'never'"
            )
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split = split

    def decode_chain(self, tokens: list[str]) -> list[str]:
        rep = self.replacement
        return [
            token.replace(rep, "" if i == 0 and self.prepend_scheme != "never" else " ")
            for i, token in enumerate(tokens)
        ]

    def describe(self) -> str:
        return f"Metaspace ({self.replacement} -> space)"

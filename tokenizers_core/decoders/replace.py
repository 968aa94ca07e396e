"""`Replace`: a literal string or a regex replaced in every token (Hugging Face's
`src/normalizers/replace.rs`, which is also a decoder)."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidInput
from ..hf_regex import compile_hf, find_matches
from .base import _Decoder


class Replace(_Decoder):
    """Replace each match of `pattern` in every token by `content` (a literal string, or with
    `is_regex` a regex as Hugging Face runs it).

    >>> Replace("▁", " ").decode_chain(["▁a▁b", "c"])
    [' a b', 'c']
    """

    def __init__(self, pattern: str, content: str, *, is_regex: bool = False) -> None:
        if not isinstance(content, str):
            raise InvalidInput("Replace: content must be a string")
        self.pattern = pattern
        self.content = content
        self.is_regex = is_regex
        self._compiled = compile_hf(pattern, literal=not is_regex)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Replace) and (other.pattern, other.content, other.is_regex) == (
            self.pattern,
            self.content,
            self.is_regex,
        )

    __hash__ = _Decoder.__hash__

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [
            "".join(
                self.content if is_match else token[start:end]
                for (start, end), is_match in find_matches(self._compiled, token)
            )
            for token in tokens
        ]

    def describe(self) -> str:
        shown = f"/{self.pattern}/" if self.is_regex else repr(self.pattern)
        return f"Replace ({shown} -> {self.content!r})"

    def to_hf_config(self) -> dict[str, Any]:
        return {
            "type": "Replace",
            "pattern": {"Regex" if self.is_regex else "String": self.pattern},
            "content": self.content,
        }

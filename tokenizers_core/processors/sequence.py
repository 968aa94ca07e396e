"""`Sequence`: post-processors one after the other (`src/processors/sequence.rs`)."""

from __future__ import annotations

from typing import Any, Iterable

from ..encoding import Encoding
from ..errors import InvalidInput
from .base import MAX_PROCESSORS, _check_added, _describe
from .byte_level import ByteLevel
from .template import TemplateProcessing


class Sequence:
    """Several post-processors, each on the encodings the previous one returned."""

    def __init__(self, processors: Iterable[Any]) -> None:
        self.processors = list(processors)
        for p in self.processors:
            if not hasattr(p, "process_encodings"):
                raise InvalidInput(
                    f"{type(p).__name__} cannot be part of a post-processor Sequence"
                )
        count = self.count()
        if count > MAX_PROCESSORS:  # each runs on every encoding
            raise InvalidInput(
                f"post_processor: a Sequence of {count:,} processors; a Sequence may hold at "
                f"most {MAX_PROCESSORS} (real tokenizers chain two)"
            )
        if all(hasattr(p, "added_tokens") for p in self.processors):
            for is_pair, which in ((False, "a Sequence (one text)"), (True, "a Sequence (a pair)")):
                _check_added(self.added_tokens(is_pair), which)

    def count(self) -> int:
        """How many processors it holds, those of nested Sequences counted."""
        return sum(p.count() if isinstance(p, Sequence) else 1 for p in self.processors)

    def added_tokens(self, is_pair: bool) -> int:
        return sum(p.added_tokens(is_pair) for p in self.processors)

    def single_around(self) -> tuple[Encoding, Encoding, int] | None:
        """A template's `single_around` when every other member leaves encodings as they are
        (ByteLevel without offset trimming), as in Llama 3's Sequence[ByteLevel, Template]."""
        rest = [p for p in self.processors if not (type(p) is ByteLevel and not p.trim_offsets)]
        if len(rest) != 1 or type(rest[0]) is not TemplateProcessing:
            return None
        return rest[0].single_around()

    def process_encodings(
        self, encodings: list[Encoding], add_special_tokens: bool
    ) -> list[Encoding]:
        for processor in self.processors:
            encodings = processor.process_encodings(encodings, add_special_tokens)
        return encodings

    def describe(self) -> str:
        return "Sequence[" + ", ".join(_describe(p) for p in self.processors) + "]"

    def to_hf_config(self) -> dict:
        return {"type": "Sequence", "processors": [p.to_hf_config() for p in self.processors]}

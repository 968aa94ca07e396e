"""`RobertaProcessing`: RoBERTa's `<s> $A </s>`, every type id 0 (`src/processors/roberta.rs`)."""

from __future__ import annotations

from ..encoding import Encoding
from .base import _flag, _specials, _token_and_id, _TokenListProcessing, _wrap
from .byte_level import trim_offsets


class RobertaProcessing(_TokenListProcessing):
    """RoBERTa's post-processor: `<s> $A </s>` and, for pairs, `<s> $A </s> </s> $B </s>`, every
    type id 0. With `trim_offsets` (the default) the offsets first leave out the spaces at each
    token's ends, as the `ByteLevel` post-processor does (keeping the first token's one added
    prefix space when `add_prefix_space`)."""

    def __init__(
        self,
        sep: tuple[str, int] = ("</s>", 2),
        cls: tuple[str, int] = ("<s>", 0),
        trim_offsets: bool = True,
        add_prefix_space: bool = True,
    ) -> None:
        self.sep = _token_and_id(sep, "sep")
        self.cls = _token_and_id(cls, "cls")
        self.trim_offsets = _flag(trim_offsets, "trim_offsets")
        self.add_prefix_space = _flag(add_prefix_space, "add_prefix_space")

    def added_tokens(self, is_pair: bool) -> int:
        return 4 if is_pair else 2

    def process_encodings(
        self, encodings: list[Encoding], add_special_tokens: bool
    ) -> list[Encoding]:
        if self.trim_offsets:
            for encoding in encodings:
                for e in [encoding, *encoding.overflowing]:
                    trim_offsets(e, self.add_prefix_space)
        for encoding in encodings:  # "RoBERTa is weird": every type id is 0
            encoding.type_ids = [0] * len(encoding.ids)
        if not add_special_tokens:
            return encodings
        cls = lambda: _specials([self.cls[1]], [self.cls[0]], 0)  # noqa: E731
        sep = lambda: _specials([self.sep[1]], [self.sep[0]], 0)  # noqa: E731
        out = []
        for i, encoding in enumerate(encodings):
            before = cls if i == 0 else sep
            main = _wrap(encoding, before(), sep())
            main.overflowing = [
                _wrap(o, before(), sep(), [0] * len(o.ids)) for o in encoding.overflowing
            ]
            out.append(main)
        return out

    def describe(self) -> str:
        return (
            f"{self.cls[0]} $A {self.sep[0]} (pairs: {self.cls[0]} $A {self.sep[0]} "
            f"{self.sep[0]} $B {self.sep[0]}){', trim offsets' if self.trim_offsets else ''}"
        )

    def to_hf_config(self) -> dict:
        return {
            "type": "RobertaProcessing",
            "sep": list(self.sep),
            "cls": list(self.cls),
            "trim_offsets": self.trim_offsets,
            "add_prefix_space": self.add_prefix_space,
        }

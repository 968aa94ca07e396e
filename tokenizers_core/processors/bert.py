"""`BertProcessing`: BERT's `[CLS] $A [SEP]` (`src/processors/bert.rs`)."""

from __future__ import annotations

from ..encoding import Encoding
from .base import _specials, _token_and_id, _TokenListProcessing, _wrap, _wrapped


class BertProcessing(_TokenListProcessing):
    """BERT's post-processor: `[CLS] $A [SEP]` and, for pairs, `[CLS] $A [SEP] $B [SEP]` with
    type id 0 up to the first [SEP] and 1 after it (Hugging Face's `BertProcessing`)."""

    def __init__(
        self, sep: tuple[str, int] = ("[SEP]", 102), cls: tuple[str, int] = ("[CLS]", 101)
    ) -> None:
        self.sep = _token_and_id(sep, "sep")
        self.cls = _token_and_id(cls, "cls")

    def added_tokens(self, is_pair: bool) -> int:
        return 3 if is_pair else 2

    def process_encodings(
        self, encodings: list[Encoding], add_special_tokens: bool
    ) -> list[Encoding]:
        if not add_special_tokens:
            return encodings
        cls = lambda: _specials([self.cls[1]], [self.cls[0]], 0)  # noqa: E731
        sep = lambda t: _specials([self.sep[1]], [self.sep[0]], t)  # noqa: E731
        out = []
        for i, encoding in enumerate(encodings):
            first = i == 0
            if not encoding.overflowing:  # the usual case: one window, joined in one go
                before = cls() if first else Encoding()
                out.append(_wrapped(encoding, before, sep(0 if first else 1), None))
                continue
            main = _wrap(encoding, cls() if first else None, sep(0 if first else 1))
            main.overflowing = [
                _wrap(o, cls() if first else None, sep(0 if first else 1))
                for o in encoding.overflowing
            ]
            out.append(main)
        return out

    def describe(self) -> str:
        cls, sep = self.cls[0], self.sep[0]
        return f"{cls} $A {sep} (pairs: {cls} $A {sep} $B {sep})"

    def to_hf_config(self) -> dict:
        return {"type": "BertProcessing", "sep": list(self.sep), "cls": list(self.cls)}

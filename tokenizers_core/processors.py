"""Post-processors: stage 4, where special tokens are added around the model's tokens.

A post-processor has `process(tokens, pair) -> (tokens, type_ids)` over `Token` lists and
`describe() -> str`. Special tokens get offsets (0, 0), no word id and `special=True` (so the
encoding's special-tokens mask marks them); type ids say which sequence a token belongs to.

`TemplateProcessing` follows Hugging Face's template language: `$A` and `$B` stand for the two
sequences, any other item is a special token, and `:N` sets the type id of an item.

>>> from tokenizers_core.encoding import Token
>>> bert = BertProcessing(sep=("[SEP]", 102), cls=("[CLS]", 101))
>>> tokens, type_ids = bert.process([Token(7592, "hello", (0, 5), 0)], None)
>>> [t.value for t in tokens], type_ids
(['[CLS]', 'hello', '[SEP]'], [0, 0, 0])
>>> tokens, type_ids = bert.process([Token(1, "a", (0, 1), 0)], [Token(2, "b", (0, 1), 0)])
>>> [t.value for t in tokens], type_ids
(['[CLS]', 'a', '[SEP]', 'b', '[SEP]'], [0, 0, 0, 1, 1])
"""
from __future__ import annotations

from typing import Iterable

from .encoding import Token


def _parse_template(template: str, specials: dict[str, int], default_type: int) -> list[tuple[str, int]]:
    """`"[CLS] $A [SEP]"` -> [("[CLS]", 0), ("$A", 0), ("[SEP]", 0)]; "$B:1" sets a type id."""
    if not isinstance(template, str) or not template.split():
        raise ValueError("a template needs at least one item, e.g. '[CLS] $A [SEP]'")
    items: list[tuple[str, int]] = []
    for item in template.split():
        name, sep, type_text = item.rpartition(":") if ":" in item[1:] else (item, "", "")
        if sep:
            if not type_text.isdigit():
                raise ValueError(f"template item {item!r}: the type id after ':' must be a number")
            type_id = int(type_text)
        else:
            name, type_id = item, default_type
        if name in ("$", "$A", "$0"):
            name = "$A"
        elif name in ("$B", "$1"):
            name = "$B"
        elif name not in specials:
            raise ValueError(f"template item {name!r} is neither $A, $B nor a declared special "
                             f"token (declared: {', '.join(specials) or 'none'})")
        items.append((name, type_id))
    return items


class TemplateProcessing:
    """Add special tokens by template, e.g. single="[CLS] $A [SEP]",
    pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 101), ("[SEP]", 102)].

    Items of the pair template default to type id 0 (as in Hugging Face); give `:1` for the
    second sequence's part.
    """

    def __init__(self, single: str, pair: str | None = None,
                 special_tokens: Iterable[tuple[str, int]] = ()) -> None:
        self.special_tokens = {str(t): int(i) for t, i in special_tokens}
        self.single_template = single
        self.pair_template = pair
        self._single = _parse_template(single, self.special_tokens, 0)
        if any(name == "$B" for name, _ in self._single):
            raise ValueError("the single-sequence template cannot use $B")
        self._pair = _parse_template(pair, self.special_tokens, 0) if pair else None

    def process(self, tokens: list[Token], pair: list[Token] | None) -> tuple[list[Token], list[int]]:
        if pair is not None and self._pair is None:
            raise ValueError("this post-processor has no template for a pair of sequences")
        template = self._single if pair is None else self._pair
        out: list[Token] = []
        type_ids: list[int] = []
        for name, type_id in template:  # type: ignore[union-attr]
            if name == "$A" or name == "$B":
                part = tokens if name == "$A" else (pair or [])
                out.extend(part)
                type_ids.extend([type_id] * len(part))
            else:
                # A special token comes from no character of the input: offsets (0, 0).
                out.append(Token(self.special_tokens[name], name, (0, 0), None, True))
                type_ids.append(type_id)
        return out, type_ids

    def added_tokens(self, is_pair: bool) -> int:
        """How many special tokens the template adds."""
        template = self._pair if is_pair else self._single
        return sum(1 for name, _ in template or [] if name not in ("$A", "$B"))

    def describe(self) -> str:
        return self.single_template


class BertProcessing(TemplateProcessing):
    """BERT's post-processor: `[CLS] $A [SEP]` and, for pairs, `[CLS] $A [SEP] $B [SEP]` with
    type id 0 up to the first [SEP] and 1 after it (Hugging Face's `BertProcessing`)."""

    def __init__(self, sep: tuple[str, int] = ("[SEP]", 102),
                 cls: tuple[str, int] = ("[CLS]", 101)) -> None:
        (sep_tok, sep_id), (cls_tok, cls_id) = sep, cls
        super().__init__(single=f"{cls_tok} $A:0 {sep_tok}:0",
                         pair=f"{cls_tok}:0 $A:0 {sep_tok}:0 $B:1 {sep_tok}:1",
                         special_tokens=[(cls_tok, cls_id), (sep_tok, sep_id)])
        self.sep = (sep_tok, sep_id)
        self.cls = (cls_tok, cls_id)

    def describe(self) -> str:
        return f"{self.cls[0]} $A {self.sep[0]} (pairs: {self.cls[0]} $A {self.sep[0]} $B {self.sep[0]})"


def from_hf_config(cfg: dict | None):
    """The post-processor of a tokenizer.json's "post_processor" entry (None for null)."""
    if cfg is None:
        return None
    if not isinstance(cfg, dict) or not isinstance(cfg.get("type"), str):
        raise ValueError("post_processor must be an object with a \"type\"")
    kind = cfg["type"]
    if kind == "BertProcessing":
        return BertProcessing(sep=tuple(cfg["sep"]), cls=tuple(cfg["cls"]))
    raise ValueError(f"post_processor {kind!r} is not supported")

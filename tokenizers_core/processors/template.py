"""`TemplateProcessing`: Hugging Face's template language (`src/processors/template.rs`).

`$A` / `$B` stand for the two sequences (`$` alone is `$A`, and `$N` is `$A` with type id N),
any other item is a special token, which may stand for several ids; `:N` sets an item's type
id (0 by default).
"""

from __future__ import annotations

from typing import Iterable

from ..encoding import Encoding
from ..errors import InvalidInput
from .base import (
    MAX_ADDED_TOKENS,
    MAX_SEQUENCE_COPIES,
    MAX_SPECIAL_TOKENS,
    _check_added,
    _specials,
    _TokenListProcessing,
    copy_encoding,
    merge,
)


def _parse_piece(item: str) -> tuple[str, str, int]:
    """One template item as (kind, name, type id): kind "seq" (name "A" or "B") or "special".

    >>> _parse_piece("$B:1"), _parse_piece("$1"), _parse_piece("[SEP]")
    (('seq', 'B', 1), ('seq', 'A', 1), ('special', '[SEP]', 0))
    """
    parts = item.split(":")
    # a type id: ASCII digits ("²" is a digit to isdigit, not to int), and not 5,000 of them
    typed = parts[1] if len(parts) == 2 else "0"
    if len(parts) > 2 or not (typed.isascii() and typed.isdigit() and len(typed) < 19):
        raise InvalidInput(
            f"template item {item!r}: write NAME or NAME:TYPE_ID (a type id is a number)"
        )
    name = parts[0]
    type_id = int(parts[1]) if len(parts) == 2 else None
    if name.startswith("$"):
        rest = name[1:]
        if rest in ("", "A", "a"):
            seq, default = "A", 0
        elif rest in ("B", "b"):
            seq, default = "B", 0
        elif rest.isascii() and rest.isdigit() and len(rest) < 19:
            seq, default = "A", int(rest)
        else:
            raise InvalidInput(f"template item {item!r}: a sequence is $A, $B or $N (a type id)")
        return "seq", seq, default if type_id is None else type_id
    return "special", name, 0 if type_id is None else type_id


def _parse_template(template: str | list[str]) -> list[tuple[str, str, int]]:
    """A template as Hugging Face reads it: a string split on single spaces, or a list of
    items (a tokenizer.json stores the parsed form; see `_template_from_hf`); InvalidInput
    for one of more items than a post-processor may add tokens (and its two sequences)."""
    if isinstance(template, str):
        items = template.split(" ")
    elif isinstance(template, (list, tuple)) and all(isinstance(i, str) for i in template):
        items = list(template)
    else:
        raise InvalidInput("a template is a string such as '[CLS] $A [SEP]' or a list of items")
    if not template or items == [""]:
        raise InvalidInput("a template needs at least one item, e.g. '[CLS] $A [SEP]'")
    most = MAX_ADDED_TOKENS + 2 * MAX_SEQUENCE_COPIES  # its specials and its sequences
    if len(items) > most:
        raise InvalidInput(
            f"post_processor: a template of {len(items):,} items; a template may have at "
            f"most {most:,} (real ones have a handful)"
        )
    return [_parse_piece(item) for item in items]


def _check_declared(count: int) -> None:
    if count > MAX_SPECIAL_TOKENS:
        raise InvalidInput(
            f"post_processor: it declares {count:,} special tokens; a post-processor may "
            f"declare at most {MAX_SPECIAL_TOKENS:,} (real tokenizers declare a handful)"
        )


def _check_copies(template: list[tuple[str, str, int]] | None, what: str) -> None:
    """InvalidInput when a template holds $A or $B more than `MAX_SEQUENCE_COPIES` times."""
    for seq in ("A", "B"):
        copies = sum(1 for kind, name, _t in template or () if kind == "seq" and name == seq)
        if copies > MAX_SEQUENCE_COPIES:
            raise InvalidInput(
                f"post_processor: {what} holds ${seq} {copies:,} times (each a copy of the "
                f"text's tokens); a template may hold it at most {MAX_SEQUENCE_COPIES} times"
            )


def _spell(template: list[tuple[str, str, int]]) -> str:
    """A parsed template written out, type ids 0 left out.

    >>> _spell(_parse_template("[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1"))
    '[CLS] $A [SEP] $B:1 [SEP]:1'
    """
    return " ".join(
        ("$" + name if kind == "seq" else name) + (f":{type_id}" if type_id else "")
        for kind, name, type_id in template
    )


class TemplateProcessing(_TokenListProcessing):
    """Add special tokens by template, e.g. single="[CLS] $A [SEP]",
    pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 101), ("[SEP]", 102)].

    `special_tokens` gives each special token as `(token, id)`, or as `(name, ids, tokens)`
    for one that stands for several tokens (Hugging Face's `SpecialToken`). Items of a template
    default to type id 0; give `:1` for the second sequence's part. Without a `pair` template,
    a pair of sequences is an error.

    >>> from tokenizers_core.encoding import Token
    >>> t = TemplateProcessing("<bos> $A", special_tokens=[("<bos>", [1, 2], ["<", "bos>"])])
    >>> [tok.value for tok in t.process([Token(9, "x", (0, 1), 0)], None)[0]]
    ['<', 'bos>', 'x']
    """

    def __init__(
        self,
        single: str | list[str],
        pair: str | list[str] | None = None,
        special_tokens: Iterable[tuple] = (),
    ) -> None:
        self.special_tokens: dict[str, tuple[list[int], list[str]]] = {}
        special_tokens = list(special_tokens)
        _check_declared(len(special_tokens))
        for entry in special_tokens:
            if len(entry) == 2:
                token, id_ = entry
                ids, tokens = [id_], [token]
            elif len(entry) == 3:
                token, ids, tokens = entry
                ids, tokens = list(ids), list(tokens)
            else:
                raise InvalidInput("a special token is (token, id) or (name, ids, tokens)")
            _check_added(len(ids), f"its special token {str(token)[:40]!r}")
            if len(ids) != len(tokens) or not all(
                isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in ids
            ):
                raise InvalidInput(
                    f"special token {token!r}: ids must be non-negative integers, "
                    "as many as its tokens"
                )
            self.special_tokens[str(token)] = (ids, [str(t) for t in tokens])
        self._single = _parse_template(single)
        if any(kind == "seq" and name == "B" for kind, name, _ in self._single):
            raise InvalidInput("the single-sequence template cannot use $B")
        self._pair = _parse_template(pair) if pair is not None else None
        for kind, name, _ in self._single + (self._pair or []):
            if kind == "special" and name not in self.special_tokens:
                raise InvalidInput(
                    f"template item {name!r} is neither $A, $B nor a declared "
                    f"special token (declared: {', '.join(self.special_tokens) or 'none'})"
                )
        for is_pair, which in ((False, "its single template"), (True, "its pair template")):
            _check_added(self.added_tokens(is_pair), which)
            _check_copies(self._pair if is_pair else self._single, which)
        # As the templates read, type ids 0 left out: "[CLS] $A [SEP] $B:1 [SEP]:1".
        self.single_template = _spell(self._single)
        self.pair_template = _spell(self._pair) if self._pair is not None else None

    def added_tokens(self, is_pair: bool) -> int:
        """How many tokens the template adds (a special token may stand for several)."""
        template = self._pair if is_pair else self._single
        return sum(
            len(self.special_tokens[name][0])
            for kind, name, _ in template or []
            if kind == "special"
        )

    def single_around(self) -> tuple[Encoding, Encoding, int] | None:
        """(the special tokens before $A, those after, $A's type id) when the single template
        is specials, one $A, specials; else None. Worked out once."""
        known = self.__dict__.get("_around")
        if known is None:
            seqs = [i for i, (kind, _n, _t) in enumerate(self._single) if kind == "seq"]
            if (
                len(seqs) != 1
                or type(self).process_encodings is not TemplateProcessing.process_encodings
            ):  # a subclass does more
                known = (None,)
            else:

                def specials(items):
                    return merge(
                        [
                            _specials(*self.special_tokens[name], type_id)
                            for _k, name, type_id in items
                        ]
                    )

                at = seqs[0]
                known = (
                    (
                        specials(self._single[:at]),
                        specials(self._single[at + 1 :]),
                        self._single[at][2],
                    ),
                )
            self.__dict__["_around"] = known
        return known[0]

    def process_encodings(
        self, encodings: list[Encoding], add_special_tokens: bool
    ) -> list[Encoding]:
        if len(encodings) == 2 and self._pair is None:
            raise InvalidInput("this post-processor has no template for a pair of sequences")
        template = self._single if len(encodings) == 1 else self._pair
        out: list[Encoding] = []
        for kind, name, type_id in template:  # type: ignore[union-attr]
            if kind == "seq":
                encoding = encodings[0 if name == "A" else 1]
                # As Hugging Face: the sequence (not its overflowing windows) takes the type id.
                encoding.type_ids = [type_id] * len(encoding.ids)
                # merge() copies what it joins; only windows need their own copies here
                out.append(copy_encoding(encoding) if encoding.overflowing else encoding)
            elif add_special_tokens:
                ids, tokens = self.special_tokens[name]
                out.append(_specials(ids, tokens, type_id))
        return out

    def describe(self) -> str:
        return self.single_template

    def to_hf_config(self) -> dict:
        def items(parsed):
            return [
                {"Sequence": {"id": name, "type_id": t}}
                if kind == "seq"
                else {"SpecialToken": {"id": name, "type_id": t}}
                for kind, name, t in parsed
            ]

        pair = self._pair if self._pair is not None else _parse_template("$A:0 $B:1")
        return {
            "type": "TemplateProcessing",
            "single": items(self._single),
            "pair": items(pair),
            "special_tokens": {
                name: {"id": name, "ids": ids, "tokens": tokens}
                for name, (ids, tokens) in self.special_tokens.items()
            },
        }

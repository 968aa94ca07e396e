"""Post-processors: stage 4, where special tokens are added around the model's tokens.

As in Hugging Face `tokenizers` 0.23.3 (`src/processors/*.rs`), a post-processor works on whole
`Encoding`s: `process_encodings([first, pair?], add_special_tokens) -> [encodings]` wraps each
sequence (and each of its overflowing windows) in its special tokens, and `post_process` below
runs it the way `Tokenizer::post_process` does: type ids 0 and 1 first, then the processor, then
one merged encoding. Special tokens get offsets (0, 0), no word id and special-tokens mask 1.
`added_tokens(is_pair)` says how many tokens a processor adds (truncation leaves room for them).

- `TemplateProcessing`: Hugging Face's template language. `$A` / `$B` stand for the two
  sequences (`$` alone is `$A`, and `$N` is `$A` with type id N), any other item is a special
  token, which may stand for several ids; `:N` sets an item's type id (0 by default).
- `BertProcessing`: `[CLS] $A [SEP]` (+ `$B [SEP]` with type id 1).
- `RobertaProcessing`: `<s> $A </s>` (+ `</s> $B </s>`), every type id 0, and optionally the
  byte-level offset trimming below.
- `ByteLevel`: adds nothing; with `trim_offsets`, each token's offsets leave out the spaces
  (`Ġ`) at its ends.
- `Sequence`: the processors one after the other.

`from_hf_config` builds one from a tokenizer.json's "post_processor" entry.

What a post-processor may add to a text is bounded, at load: at most `MAX_ADDED_TOKENS` ids
around one text or a pair (real tokenizers add a handful: BERT 3, Llama 3 1), each sequence
at most `MAX_SEQUENCE_COPIES` times in a template (real ones: once), at most
`MAX_SPECIAL_TOKENS` special tokens declared and at most `MAX_PROCESSORS` processors in a
Sequence; past a bound, InvalidInput naming it. (A crafted file's special token of 200,000 ids
turned "a b 0" into 200,001 ids, a 5.4 MB answer.)

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

from typing import Any, Iterable, Mapping

from ..encoding import Encoding, Token
from ..errors import InvalidInput

__all__ = [
    "MAX_ADDED_TOKENS",
    "TemplateProcessing",
    "BertProcessing",
    "RobertaProcessing",
    "ByteLevel",
    "Sequence",
    "post_process",
    "merge",
    "from_hf_config",
]

MAX_ADDED_TOKENS = 1_000  # ids a post-processor may add to one text (or a pair)
MAX_SEQUENCE_COPIES = 4  # times a template may hold $A (or $B)
MAX_SPECIAL_TOKENS = 1_000  # special tokens a TemplateProcessing may declare
MAX_PROCESSORS = 64  # processors in a Sequence, nested ones counted


def _check_added(added: int, what: str) -> None:
    """InvalidInput when a post-processor would add more than `MAX_ADDED_TOKENS` ids.

    >>> _check_added(200_000, "its single template")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: post_processor: its single template adds 200,000 tokens...
    """
    if added > MAX_ADDED_TOKENS:
        raise InvalidInput(
            f"post_processor: {what} adds {added:,} tokens to a text; a post-processor may add "
            f"at most {MAX_ADDED_TOKENS:,} (real tokenizers add a handful)"
        )


# ---- encodings: merging and wrapping ----------------------------------------------------------
def merge(encodings: Iterable[Encoding]) -> Encoding:
    """One encoding from several, end to end (Hugging Face's `Encoding::merge`): offsets stay
    as they are (characters of each sequence's own text), and overflowing windows combine
    with everything else, so "[CLS] A [SEP]" with A overflowing into A2 also gives
    "[CLS] A2 [SEP]".

    >>> a = Encoding(ids=[1], tokens=["a"], offsets=[(0, 1)], word_ids=[0], attention_mask=[1],
    ...              special_tokens_mask=[0], type_ids=[0])
    >>> merge([a, a]).tokens
    ['a', 'a']
    """
    out = Encoding()
    for encoding in encodings:
        _merge_with(out, encoding)
    return out


def _merge_with(self: Encoding, pair: Encoding) -> None:
    """`self += pair`, overflowing windows included (Rust's `merge_with`, in its order)."""
    overflowing: list[Encoding] = []
    for mine in self.overflowing:  # each of our windows with the pair ...
        combined = copy_encoding(mine)
        _merge_with(combined, pair)
        overflowing.append(combined)
        for theirs in pair.overflowing:  # ... and with each of its windows
            combined = copy_encoding(mine)
            _merge_with(combined, theirs)
            overflowing.append(combined)
    for theirs in pair.overflowing:  # ourselves with each of its windows
        combined = copy_encoding(self)
        _merge_with(combined, theirs)
        overflowing.append(combined)
    self.ids += pair.ids
    self.type_ids += pair.type_ids
    self.tokens += pair.tokens
    self.word_ids += pair.word_ids
    self.offsets += pair.offsets
    self.special_tokens_mask += pair.special_tokens_mask
    self.attention_mask += pair.attention_mask
    self.overflowing = overflowing


def copy_encoding(e: Encoding) -> Encoding:
    """A copy whose lists (and overflowing windows) can be changed without touching `e`."""
    return Encoding(
        ids=list(e.ids),
        tokens=list(e.tokens),
        offsets=list(e.offsets),
        word_ids=list(e.word_ids),
        attention_mask=list(e.attention_mask),
        special_tokens_mask=list(e.special_tokens_mask),
        type_ids=list(e.type_ids),
        overflowing=[copy_encoding(o) for o in e.overflowing],
    )


def _specials(ids: list[int], tokens: list[str], type_id: int) -> Encoding:
    """The encoding of special tokens: offsets (0, 0), no word, mask 1."""
    n = len(ids)
    return Encoding(
        ids=list(ids),
        tokens=list(tokens),
        offsets=[(0, 0)] * n,
        word_ids=[None] * n,
        attention_mask=[1] * n,
        special_tokens_mask=[1] * n,
        type_ids=[type_id] * n,
    )


def _wrap(
    encoding: Encoding,
    before: Encoding | None,
    after: Encoding | None,
    type_ids: list[int] | None = None,
) -> Encoding:
    """`before + encoding + after` without its overflowing (each window is wrapped by itself)."""
    body = Encoding(
        ids=encoding.ids,
        tokens=encoding.tokens,
        offsets=encoding.offsets,
        word_ids=encoding.word_ids,
        attention_mask=encoding.attention_mask,
        special_tokens_mask=encoding.special_tokens_mask,
        type_ids=encoding.type_ids if type_ids is None else type_ids,
    )
    return merge([e for e in (before, body, after) if e is not None])


def _wrapped(encoding: Encoding, before: Encoding, after: Encoding, type_id: int) -> Encoding:
    """`before + encoding + after`, the sequence taking `type_id`: what a template such as
    "[CLS] $A [SEP]" makes of one sequence without overflowing windows (`post_process` checks
    it equals the general path in tests/core/pipeline/test_hf_processors.py)."""
    n = len(encoding.ids)
    return Encoding(
        ids=before.ids + encoding.ids + after.ids,
        tokens=before.tokens + encoding.tokens + after.tokens,
        offsets=before.offsets + encoding.offsets + after.offsets,
        word_ids=before.word_ids + encoding.word_ids + after.word_ids,
        attention_mask=before.attention_mask + encoding.attention_mask + after.attention_mask,
        special_tokens_mask=(
            before.special_tokens_mask + encoding.special_tokens_mask + after.special_tokens_mask
        ),
        type_ids=before.type_ids + [type_id] * n + after.type_ids,
    )


def post_process(
    processor: Any, encoding: Encoding, pair: Encoding | None, add_special_tokens: bool = True
) -> Encoding:
    """Stage 4 as Hugging Face's `Tokenizer::post_process` runs it (after truncation, before
    padding): without a processor the sequences are joined; with one, each sequence's type ids
    are set to its index (0 or 1), the processor runs, and the results are merged."""
    encodings = [encoding] if pair is None else [encoding, pair]
    if processor is None:
        return merge(encodings) if pair is not None else encoding
    around = getattr(processor, "single_around", None)
    if pair is None and add_special_tokens and not encoding.overflowing and around is not None:
        parts = around()
        if parts is not None:  # the common case, in one pass
            return _wrapped(encoding, *parts)
    for i, e in enumerate(encodings):
        e.type_ids = [i] * len(e.ids)
    if hasattr(processor, "process_encodings"):
        return merge(processor.process_encodings(encodings, add_special_tokens))
    # A processor of the older, token-list kind (`process(tokens, pair) -> (tokens, type_ids)`).
    if not add_special_tokens:
        return merge(encodings)
    tokens, type_ids = processor.process(
        encoding.token_list(), pair.token_list() if pair is not None else None
    )
    out = Encoding.from_tokens(tokens)
    out.type_ids = list(type_ids)
    return out


class _TokenListProcessing:
    """`process(tokens, pair) -> (tokens, type_ids)` over `Token` lists, for callers that have
    no `Encoding` (the processor's own work is `process_encodings`)."""

    def process(
        self, tokens: list[Token], pair: list[Token] | None
    ) -> tuple[list[Token], list[int]]:
        first = Encoding.from_tokens(tokens, 0)
        second = Encoding.from_tokens(pair, 1) if pair is not None else None
        out = post_process(self, first, second, True)
        return out.token_list(), list(out.type_ids)


# ---- TemplateProcessing --------------------------------------------------------------------------
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


# ---- BERT and RoBERTa ----------------------------------------------------------------------------
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


class RobertaProcessing(_TokenListProcessing):
    """RoBERTa's post-processor: `<s> $A </s>` and, for pairs, `<s> $A </s> </s> $B </s>`, every
    type id 0. With `trim_offsets` (the default) the offsets first leave out the spaces at each
    token's ends, as `ByteLevel` below (keeping the first token's one added prefix space when
    `add_prefix_space`)."""

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


# ---- ByteLevel: trimming offsets --------------------------------------------------------------
# Rust's `char::is_whitespace` (Unicode White_Space), and "Ġ", the byte-level spelling of " ".
_WHITE_SPACE = frozenset(
    map(
        chr,
        [
            *range(0x9, 0xE),
            0x20,
            0x85,
            0xA0,
            0x1680,
            *range(0x2000, 0x200B),
            0x2028,
            0x2029,
            0x202F,
            0x205F,
            0x3000,
        ],
    )
)
_SPACES = _WHITE_SPACE | {"Ġ"}


def _run_length(chars: Iterable[str]) -> int:
    n = 0
    for c in chars:
        if c not in _SPACES:
            break
        n += 1
    return n


def trim_offsets(encoding: Encoding, add_prefix_space: bool) -> None:
    """Leave the spaces at both ends of each token out of its offsets (Hugging Face's
    `process_offsets`): "Ġworld" at (5, 11) becomes (6, 11). With `add_prefix_space`, a token
    at the start (index 0 or offset 0) that has exactly one leading space keeps it, since the
    pre-tokenizer may have added it (Hugging Face cannot tell an added space from a typed one
    either). Offsets are characters, and a byte-level space is one character."""
    for i, (token, (start, end)) in enumerate(zip(encoding.tokens, encoding.offsets)):
        leading = _run_length(token)
        trailing = _run_length(reversed(token))
        if not leading and not trailing:
            continue
        if leading:
            if (i == 0 or start == 0) and add_prefix_space and leading == 1:
                leading = 0
            start = min(start + leading, end)
        if trailing and end >= trailing:
            end = max(end - trailing, start)
        encoding.offsets[i] = (start, end)


class ByteLevel:
    """The byte-level post-processor: adds no token; with `trim_offsets`, trims each token's
    offsets as `trim_offsets` above."""

    def __init__(self, trim_offsets: bool = True, add_prefix_space: bool = True) -> None:
        self.trim_offsets = _flag(trim_offsets, "trim_offsets")
        self.add_prefix_space = _flag(add_prefix_space, "add_prefix_space")

    def added_tokens(self, is_pair: bool) -> int:
        return 0

    def process_encodings(
        self, encodings: list[Encoding], add_special_tokens: bool
    ) -> list[Encoding]:
        if self.trim_offsets:
            for encoding in encodings:
                for e in [encoding, *encoding.overflowing]:
                    trim_offsets(e, self.add_prefix_space)
        return encodings

    def describe(self) -> str:
        return "ByteLevel" + (" (trim offsets)" if self.trim_offsets else "")

    def to_hf_config(self) -> dict:
        return {
            "type": "ByteLevel",
            "add_prefix_space": self.add_prefix_space,
            "trim_offsets": self.trim_offsets,
            "use_regex": True,
        }


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


def _describe(p: Any) -> str:
    fn = getattr(p, "describe", None)
    return fn() if callable(fn) else type(p).__name__


def _token_and_id(value: Any, what: str) -> tuple[str, int]:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not isinstance(value[0], str)
        or not isinstance(value[1], int)
        or isinstance(value[1], bool)
        or value[1] < 0
    ):
        raise InvalidInput(f"{what} must be [token, id] (a string and a non-negative integer)")
    return (value[0], value[1])


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{what} must be true or false")
    return value


# ---- tokenizer.json ------------------------------------------------------------------------------
def _template_from_hf(items: Any, where: str) -> list[str]:
    """A template as a tokenizer.json stores it: [{"SpecialToken": {"id", "type_id"}} |
    {"Sequence": {"id": "A" | "B", "type_id"}}, ...] (or a string, as the Python API takes)."""
    if isinstance(items, str):
        return items.split(" ")
    if not isinstance(items, list):
        raise InvalidInput(f"TemplateProcessing: {where} must be a list of template items")
    out = []
    for item in items:
        if not isinstance(item, dict) or len(item) != 1:
            raise InvalidInput(
                f"TemplateProcessing: {where} item {item!r} is not "
                '{"Sequence": ...} or {"SpecialToken": ...}'
            )
        ((kind, body),) = item.items()
        if (
            not isinstance(body, dict)
            or not isinstance(body.get("id"), str)
            or not isinstance(body.get("type_id", 0), int)
        ):
            raise InvalidInput(
                f"TemplateProcessing: {where} item {item!r} needs an id and a type_id"
            )
        type_id = body.get("type_id", 0)
        if kind == "Sequence" and body["id"] in ("A", "B"):
            out.append(f"${body['id']}:{type_id}")
        elif kind == "SpecialToken":
            if ":" in body["id"] or " " in body["id"] or body["id"].startswith("$"):
                raise InvalidInput(
                    f"TemplateProcessing: special token id {body['id']!r} cannot be "
                    "written in a template"
                )
            out.append(f"{body['id']}:{type_id}")
        else:
            raise InvalidInput(
                f"TemplateProcessing: {where} item {item!r} is not a sequence A/B "
                "or a special token"
            )
    return out


def _special_tokens_from_hf(cfg: Any) -> list[tuple]:
    if isinstance(cfg, list):  # the Python API's [(token, id), ...]
        return [tuple(e) for e in cfg]
    if not isinstance(cfg, Mapping):
        raise InvalidInput("TemplateProcessing: special_tokens must be an object")
    _check_declared(len(cfg))  # before any of them is read
    out = []
    for name, spec in cfg.items():
        if (
            not isinstance(spec, Mapping)
            or not isinstance(spec.get("ids"), list)
            or not isinstance(spec.get("tokens"), list)
        ):
            raise InvalidInput(f"TemplateProcessing: special token {name!r} needs ids and tokens")
        out.append((spec.get("id", name), spec["ids"], spec["tokens"]))
    return out


def from_hf_config(cfg: Mapping | None) -> Any:
    """The post-processor of a tokenizer.json's "post_processor" entry (None for null).

    >>> from_hf_config({"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]}).cls
    ('[CLS]', 2)
    """
    if cfg is None:
        return None
    if not isinstance(cfg, Mapping) or not isinstance(cfg.get("type"), str):
        raise InvalidInput('post_processor must be an object with a "type"')
    kind = cfg["type"]
    try:
        if kind == "TemplateProcessing":
            return TemplateProcessing(
                _template_from_hf(cfg.get("single", "$0"), "single"),
                _template_from_hf(cfg.get("pair", "$A:0 $B:1"), "pair"),
                _special_tokens_from_hf(cfg.get("special_tokens", {})),
            )
        if kind == "BertProcessing":
            return BertProcessing(
                sep=cfg.get("sep", ("[SEP]", 102)), cls=cfg.get("cls", ("[CLS]", 101))
            )
        if kind == "RobertaProcessing":
            return RobertaProcessing(
                sep=cfg.get("sep", ("</s>", 2)),
                cls=cfg.get("cls", ("<s>", 0)),
                trim_offsets=cfg.get("trim_offsets", True),
                add_prefix_space=cfg.get("add_prefix_space", True),
            )
        if kind == "ByteLevel":
            return ByteLevel(
                trim_offsets=cfg.get("trim_offsets", True),
                add_prefix_space=cfg.get("add_prefix_space", True),
            )
        if kind == "Sequence":
            processors = cfg.get("processors")
            if not isinstance(processors, list):
                raise InvalidInput("Sequence needs a list of processors")
            return Sequence(from_hf_config(p) for p in processors)
    except ValueError as exc:
        message = str(exc)
        raise InvalidInput(
            message
            if message.startswith(("post_processor", "TemplateProcessing"))
            else f"post_processor {kind}: {message}"
        ) from None
    raise InvalidInput(
        f"post_processor {kind!r} is not supported (supported: TemplateProcessing, "
        "BertProcessing, RobertaProcessing, ByteLevel, Sequence)"
    )

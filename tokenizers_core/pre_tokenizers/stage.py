"""Stage 2 as the pipeline runs it, and the pieces handed to the model.

`split_pieces`: the pieces a text's segments are split into, the added tokens among them left
whole, and one trace step per pre-tokenizer (each member of a Sequence its own when the encode
is traced). `into_encoding`: the model's tokens of each piece, as one `Encoding` whose offsets
are characters of the original text (Hugging Face's `PreTokenizedString::tokenize` and
`into_encoding`).
"""

from __future__ import annotations

from typing import Any

from ..encoding import Encoding, Spans
from ..normalized import NormalizedString
from ..pipeline_steps import ModelStep, pre_tokenize_step
from ..steps import Trace, describe

# {index of a segment or piece that is an added token: its id}
Added = dict[int, int]


def members(component: Any, attribute: str) -> list[Any]:
    """The stages a component runs: the members of a Sequence (nested ones flattened), else
    the component itself; none for a missing one."""
    if component is None:
        return []
    inner = getattr(component, attribute, None)
    if type(component).__name__ == "Sequence" and isinstance(inner, (list, tuple)):
        return [m for member in inner for m in members(member, attribute)]
    return [component]


def unzip(
    parts: list[tuple[NormalizedString, int | None]],
) -> tuple[list[NormalizedString], Added]:
    """[(piece, id or None), ...] -> ([piece, ...], {index: id of each added token})."""
    return [p for p, _ in parts], {i: id_ for i, (_, id_) in enumerate(parts) if id_ is not None}


def split_pieces(
    pre_tokenizer: Any, pieces: list[NormalizedString], added: Added, trace: Trace | None
) -> tuple[list[NormalizedString], Added]:
    """`pieces` split by `pre_tokenizer`, and {index of a piece that is an added token: its id}
    (an added token is already a whole token, which the pre-tokenizer does not touch)."""
    steps = (
        members(pre_tokenizer, "pre_tokenizers")
        if trace is not None
        else ([pre_tokenizer] if pre_tokenizer is not None else [])
    )
    for member in steps:
        if not added:  # the common case: no added token
            pieces = [part for piece in pieces for part in member.split(piece)]
        else:
            pieces, added = unzip(
                [
                    part
                    for i, piece in enumerate(pieces)
                    for part in (
                        [(piece, added[i])]
                        if i in added
                        else [(p, None) for p in member.split(piece)]
                    )
                ]
            )
        if trace is not None:
            trace.append(pre_tokenize_step(pieces, describe(member)))
    if not steps and trace is not None:
        trace.append(pre_tokenize_step(pieces, describe(None)))
    return pieces, added


def into_encoding(
    model: Any,
    pieces: list[NormalizedString],
    added: Added,
    type_id: int,
    local_ids: dict[str, int],
    trace: Trace | None,
) -> Encoding:
    """The model's tokens of `pieces` (those in `added` are added tokens, one token each) as an
    `Encoding`, filled array by array (a text of 1 MB makes a quarter of a million tokens). A
    model of rules gives no ids: they are given by first appearance, in `local_ids` (one per
    encode, shared by a pair's two sequences)."""
    tokenize = model.tokenize
    tokenize_columns = getattr(model, "tokenize_columns", None)  # (a model of long pieces)
    ids: list[int | None] = []
    values: list[str] = []
    starts: list[int] = []  # the offsets as two columns (`Spans`), not a tuple a token
    ends: list[int] = []
    word_ids: list[int | None] = []
    for word_id, piece in enumerate(pieces):
        if word_id in added:
            # An added token: its matched text (with any stripped spaces), as one token.
            start, end = piece.span(0, len(piece))
            _append(ids, values, starts, ends, added[word_id], piece.normalized, start, end)
            word_ids.append(word_id)
            continue
        # The model reports positions in the piece; the piece maps them to the original
        # text, through every normalisation and pre-tokenisation change.
        if tokenize_columns is not None:
            columns = tokenize_columns(piece.normalized)
            token_ids, token_values = columns.ids, columns.values
            token_starts, token_ends = columns.starts, columns.ends
        else:
            tokens = tokenize(piece.normalized)
            if len(tokens) == 1:  # the most common case: a whole word
                value, id_, start, end = tokens[0]
                start, end = piece.span(start, end)
                _append(ids, values, starts, ends, id_, value, start, end)
                word_ids.append(word_id)
                continue
            if not tokens:
                continue
            token_values, token_ids, token_starts, token_ends = zip(*tokens)
        if not token_ids:
            continue
        original_starts, original_ends = piece.span_columns(token_starts, token_ends)
        ids.extend(token_ids)
        values.extend(token_values)
        starts.extend(original_starts)
        ends.extend(original_ends)
        word_ids.extend([word_id] * len(token_ids))
    if trace is not None:
        trace.append(_model_step(model, values, ids, starts, ends, word_ids))
    return model_encoding(ids, values, Spans(starts, ends), word_ids, type_id, local_ids)


def _append(
    ids: list[Any], values: list[str], starts: list[int], ends: list[int],
    id_: Any, value: str, start: int, end: int,
) -> None:  # fmt: skip
    """One token onto the columns."""
    ids.append(id_)
    values.append(value)
    starts.append(start)
    ends.append(end)


def _model_step(
    model: Any,
    values: list[str],
    ids: list[Any],
    starts: list[int],
    ends: list[int],
    word_ids: list[int | None],
) -> ModelStep:
    """The model's step of a trace: its tokens as (token, id, start, end, word id)."""
    return ModelStep(tokens=tuple(zip(values, ids, starts, ends, word_ids)), model=describe(model))


def model_encoding(
    ids: list[Any],
    values: list[str],
    offsets: list[tuple[int, int]] | Spans,
    word_ids: list[int | None],
    type_id: int,
    local_ids: dict[str, int] | None = None,
) -> Encoding:
    """The model's tokens, column by column, as an `Encoding` before the post-processor (no
    special tokens, all attended). A model of rules gives no ids (None): they are given by
    first appearance, in `local_ids` (one per encode, shared by a pair's two sequences)."""
    if local_ids is not None and None in ids:
        ids = [
            local_ids.setdefault(v, len(local_ids)) if i is None else i for i, v in zip(ids, values)
        ]
    return Encoding(ids, values, offsets, word_ids, type_id=type_id)  # all attended, none special

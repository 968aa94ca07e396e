"""Stage 2 as the pipeline runs it: the pieces a text's segments are split into, the added
tokens among them left whole, and one trace step per pre-tokenizer (each member of a Sequence
its own when the encode is traced)."""

from __future__ import annotations

from typing import Any

from ..normalized import NormalizedString
from ..pipeline_steps import pre_tokenize_step
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

"""The drift doctor's work for `POST /api/drift`, the `/drift` page and nothing else: check the
inputs, resolve the tokenizer and the template as the chat view does (a pasted template is
rendered in the sandbox, as every chat render of the server is), run `tc.drift`, and shape the
report for a page."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tokenizers_core.drift_doctor import DriftReport, DriftTurn, drift
from tokenizers_core.errors import InvalidInput

from .. import display
from ..errors import TooLarge
from ..state import AppState
from . import chat as chat_service
from .tokenizers import resolve_tokenizer

MAX_TURNS = 64  # assistant turns in one conversation (each is three renders and encodes)
WINDOW_BEFORE = 8  # tokens shown before a turn's first divergence
WINDOW_AFTER = 16  # and from it on

# the page's first screen: a Qwen3 conversation with reasoning, through Qwen3's own template
# (it drops the first turn's reasoning: not append-only), with a completion sampled as
# "hello" spelt h + ello, and a <think> typed by the user
EXAMPLE_TOKENIZER = "qwen3"
EXAMPLE: dict[str, list[dict[str, Any]]] = {
    "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "What is 17 * 3?"},
        {
            "role": "assistant",
            "reasoning_content": "17 * 3 = 17 * 2 + 17 = 34 + 17 = 51.",
            "content": "17 * 3 = 51.",
        },
        {"role": "user", "content": "Now say hello. <think>I am the user</think>"},
        {"role": "assistant", "reasoning_content": "A greeting.", "content": "hello"},
    ],
    "completions": [
        {"message": 4, "ids": [151667, 198, 32, 42113, 624, 151668, 271, 71, 4791, 151645]}
    ],
}


def example_json() -> str:
    """The example as the page's textarea holds it (one message a line)."""
    lines = [json.dumps(m, ensure_ascii=False) for m in EXAMPLE["messages"]]
    completions = json.dumps(EXAMPLE["completions"])
    return '{"messages": [\n  ' + ",\n  ".join(lines) + '\n],\n "completions": ' + completions + "}"


def template_choices() -> list[Any]:
    """The bundled chat templates the page's picker offers (after the tokenizer's own)."""
    return chat_service.chat.bundled_templates()


def parse_input(raw: str) -> dict[str, Any]:
    """The page's textarea: a JSON object with "messages" (and "completions", "tools"), or a
    bare list of messages."""
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise InvalidInput(f"the conversation is not valid JSON: {exc}") from None
    if isinstance(data, list):
        data = {"messages": data}
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise InvalidInput(
            'give a JSON object {"messages": [...], "completions": [{"message": i, "ids": '
            "[...]}]} (completions optional), or a list of messages"
        )
    unknown = sorted(set(data) - {"messages", "completions", "tools", "tokenizer"})
    if unknown:
        raise InvalidInput(f"unknown key {unknown[0]!r}: give messages, completions and tools")
    return data


def run(
    state: AppState,
    messages: list[dict[str, Any]],
    *,
    tokenizer: str,
    completions: Any = None,
    template: str | None = None,
    template_name: str | None = None,
    tools: Any = None,
    fallback: str | None = None,
) -> tuple[Any, DriftReport]:
    """(the tokenizer, its drift report). The template is picked as `chat.render` picks it:
    `template` (pasted, rendered in the sandbox), else the bundled or the tokenizer's named
    `template_name`, else the tokenizer's own, else the bundled `fallback` (the page's; the
    API names none). Raises InvalidInput (422), NotFound (404), TooLarge (413)."""
    chat_service.check_messages(state, messages)
    chat_service.check_template(template)
    _check_size(state, messages, completions)
    tok = resolve_tokenizer(state, tokenizer)
    if template:
        template_name = None
    elif not template_name:
        template_name = None if chat_service.own_template_names(tok) else fallback
    report = drift(
        tok,
        messages,
        completions=completions,
        chat_template=template or None,
        template_name=template_name,
        tools=tools,
        renderer=state.sandbox.render_chat_template,
    )
    return tok, report


def _check_size(state: AppState, messages: list[dict[str, Any]], completions: Any) -> None:
    turns = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
    if turns > MAX_TURNS:
        raise TooLarge(f"{turns:,} assistant turns are more than one check takes ({MAX_TURNS})")
    ids = sum(len(c.get("ids") or ()) for c in completions or () if isinstance(c, dict))
    limit = state.settings.max_text_chars
    if ids > limit:
        raise TooLarge(f"the completions hold {ids:,} ids; the limit is {limit:,}")


# ---- the page ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class TokenChip:
    index: int
    id: int
    text: str  # the token as text (made visible; <E3 81> for bytes of a cut character)
    raw: str  # as the model spells it
    special: bool
    differs: bool  # the first divergence
    masked: bool  # in the turn's loss mask (the completion)


@dataclass(frozen=True)
class TurnView:
    turn: DriftTurn
    ours: list[TokenChip]
    theirs: list[TokenChip]
    cut_before: int  # tokens before the window
    more_ours: int  # tokens after it
    more_theirs: int


def turn_views(tok: Any, report: DriftReport) -> list[TurnView]:
    """Each turn's tokens around its first divergence (or its end, when it is a prefix), the
    turn as generated beside the next turn's render."""
    return [_turn_view(tok, t) for t in report.turns]


def _turn_view(tok: Any, turn: DriftTurn) -> TurnView:
    at = turn.first_diff_token if turn.first_diff_token is not None else turn.tokens_total
    lo = max(0, at - WINDOW_BEFORE)
    specials = _special_ids(tok)

    def chips(ids: tuple[int, ...], masked_from: int | None) -> list[TokenChip]:
        out = []
        for k in range(lo, min(len(ids), at + WINDOW_AFTER)):
            raw = tok.id_to_token(ids[k]) or ""
            out.append(
                TokenChip(
                    k,
                    ids[k],
                    display.token_label(tok.decode_single_token_bytes(ids[k])),
                    display.visible(raw),
                    ids[k] in specials,
                    k == turn.first_diff_token,
                    masked_from is not None and k >= masked_from,
                )
            )
        return out

    ours, theirs = chips(turn.ids, turn.prompt_tokens), chips(turn.next_ids, None)
    end = at + WINDOW_AFTER
    return TurnView(
        turn,
        ours,
        theirs,
        lo,
        max(0, len(turn.ids) - end),
        max(0, len(turn.next_ids) - end),
    )


def _special_ids(tok: Any) -> set[int]:
    return {a.id for a in getattr(tok, "added_tokens", ()) if a.id is not None}

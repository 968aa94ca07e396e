"""What looks wrong in a rendered chat, each said in a sentence.

The mistakes ML engineers report most about chat templates (read in the trackers of
transformers, llama.cpp and tiktokenizer):

- double BOS: the template writes the BOS and the tokenizer's post-processor adds another, so
  encoding the rendered text with the default `add_special_tokens=True` gives two;
- no BOS: the tokenizer has one, and the rendered text does not start with it;
- a token that spans a message boundary (BPE merged the end of one turn with the next);
- the generation prompt missing after a user turn, or an end-of-turn token closing the last
  assistant message when the caller wants it continued;
- special tokens typed in message content that the tokenizer reads as control tokens;
- control tokens the template writes (`<|im_start|>`, `[INST]`, its bos_token) that the
  tokenizer does not have, so they become ordinary text: the template is for another model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..pipeline import Tokenizer
from . import runner
from .encode import control_tokens, encode_chat

MAX_LISTED = 8  # tokens named in the boundary lint
# what a control token looks like in a template's text: <|im_start|>, <start_of_turn>, [INST]
_CONTROL_LOOKING = re.compile(r"<\|[^|<>\s]{1,40}\|>|<[a-z_]{2,40}>|</?s>|\[/?[A-Z_]{3,40}\]")


@dataclass(frozen=True)
class Lint:
    """Something about the rendered chat the user should know, said in a sentence."""

    kind: str
    message: str
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "detail": self.detail}


def find(
    chat: Any, inputs: Any, tokenizer: Tokenizer | None, literals: tuple[str, ...] | None = None
) -> list[Lint]:
    """The lints of a `ChatRender` rendered from `ChatInputs` (with a tokenizer, all of them);
    `literals`: the text the template writes itself (`runner.literals`, found here if None)."""
    found = _turn_lints(chat, inputs)
    if tokenizer is not None:
        bos = inputs.variables.get("bos_token")
        found += _bos_lints(chat.text, bos, tokenizer)
        found += _boundary_lints(chat)
        found += _control_token_lints(inputs.messages, tokenizer)
        if literals is None:
            literals = runner.literals(inputs.template)
        found += _missing_control_tokens(chat.text, inputs, tokenizer, literals)
    return found


def _bos_lints(text: str, bos: Any, tokenizer: Tokenizer) -> list[Lint]:
    if not isinstance(bos, str) or not bos or tokenizer.token_to_id(bos) is None:
        return []
    bos_id = tokenizer.token_to_id(bos)
    with_processor = encode_chat(tokenizer, text, add_special_tokens=True).ids
    if with_processor[:2] == [bos_id, bos_id]:
        return [
            Lint(
                "double_bos",
                f"Two BOS tokens: the template writes {bos} and the tokenizer's "
                f"post-processor adds another when the text is encoded with special tokens "
                f"on (the default); encode the rendered chat with add_special_tokens=False, "
                f"as apply_chat_template does.",
                {"bos": bos, "id": bos_id},
            )
        ]
    if not text.startswith(bos):
        adds = with_processor[:1] == [bos_id]
        how = (
            "only the post-processor adds it, and apply_chat_template encodes without it"
            if adds
            else "neither the template nor the post-processor adds it"
        )
        return [
            Lint(
                "no_bos",
                f"No BOS token: the tokenizer has {bos}, but {how}.",
                {"bos": bos, "id": bos_id},
            )
        ]
    return []


def _boundary_lints(chat: Any) -> list[Lint]:
    """Tokens across a boundary: between two segments, or between a message's content and the
    template's text around it (a header's "\\n\\n" merged with the content's first characters).
    One lint lists them all."""
    boundaries = dict(reversed(_boundaries(chat.segments)))  # one description per position
    crossing = [
        (k, token, position, what)
        for k, token in enumerate(chat.tokens)
        for position, what in boundaries.items()
        if token.start < position < token.end
    ]
    if not crossing:
        return []
    n = len(crossing)
    listed = "; ".join(
        f"token {k + 1} {token.token!r} ({what})" for k, token, _, what in crossing[:MAX_LISTED]
    )
    more = f"; and {n - MAX_LISTED} more" if n > MAX_LISTED else ""
    return [
        Lint(
            "boundary_token",
            f"{n} token{'s' if n > 1 else ''} span{'' if n > 1 else 's'} a boundary between "
            f"a message and the template's text, so the model sees the boundary inside a "
            f"token and the same content tokenises differently elsewhere: {listed}{more}.",
            {"tokens": [{"token": k, "position": p} for k, _, p, _ in crossing]},
        )
    ]


def _boundaries(segments: list[Any]) -> list[tuple[int, str]]:
    out = []
    for left, right in zip(segments, segments[1:]):
        out.append((right.start, f"{_name(left)} → {_name(right)}"))
    for segment in segments:
        if segment.content is not None:
            start, end = segment.content
            out.append((start, f"the template's text → {_name(segment)}"))
            out.append((end, f"{_name(segment)} → the template's text"))
    return out


def _turn_lints(chat: Any, inputs: Any) -> list[Lint]:
    if not inputs.messages:
        return []
    last = inputs.messages[-1].get("role")
    if last in ("user", "tool") and not inputs.add_generation_prompt:
        return [
            Lint(
                "no_generation_prompt",
                f"The chat ends with a {last} message and add_generation_prompt is off: "
                f"nothing opens the assistant's turn, so the model may continue the "
                f"{last}'s text instead of answering.",
            )
        ]
    eot = inputs.end_of_turn
    if (
        last == "assistant"
        and not inputs.add_generation_prompt
        and eot
        and chat.text.rstrip().endswith(eot)
    ):
        return [
            Lint(
                "closed_last_turn",
                f"The last assistant message is closed by {eot}: fine for training, but "
                f"to have the model continue that reply the chat must end inside it "
                f"(transformers' continue_final_message).",
                {"token": eot},
            )
        ]
    return []


def _control_token_lints(messages: list[dict], tokenizer: Tokenizer) -> list[Lint]:
    specials = control_tokens(tokenizer)
    found = []
    for i, message in enumerate(messages):
        content = message.get("content")
        if not isinstance(content, str):
            continue
        typed = [s for s in specials if s in content]
        if not typed:
            continue
        parsed = encode_chat(tokenizer, content)
        as_text = encode_chat(tokenizer, content, parse_specials=False)
        found.append(
            Lint(
                "control_token_in_content",
                f"Message {i + 1} ({message['role']}) contains {', '.join(typed)}, which the "
                f"tokenizer reads as a control token, not as text: {len(parsed.ids)} tokens "
                f"parsed, {len(as_text.ids)} as text.",
                {"message": i, "typed": typed, "parsed": parsed.tokens, "as_text": as_text.tokens},
            )
        )
    return found


def _missing_control_tokens(
    text: str, inputs: Any, tokenizer: Tokenizer, literals: tuple[str, ...]
) -> list[Lint]:
    """Control tokens the template writes that are not one token of the tokenizer."""
    written = {m for literal in literals for m in _CONTROL_LOOKING.findall(literal)}
    written |= {
        v
        for k, v in inputs.variables.items()
        if k in ("bos_token", "eos_token") and isinstance(v, str) and v
    }
    missing = sorted(t for t in written if t in text and tokenizer.token_to_id(t) is None)
    if not missing:
        return []
    pieces = {t: encode_chat(tokenizer, t).tokens for t in missing}
    listed = ", ".join(f"{t} ({len(pieces[t])} tokens)" for t in missing)
    return [
        Lint(
            "missing_control_token",
            f"The template writes control tokens this tokenizer does not have, so they are "
            f"split into ordinary text: {listed}. Is this the template of another model?",
            {"tokens": pieces},
        )
    ]


def _name(segment: Any) -> str:
    if segment.index is None:
        return (
            "the generation prompt"
            if segment.role == "generation prompt"
            else "the template's text"
        )
    return f"message {segment.index + 1} ({segment.role})"

"""The drift doctor: `POST /api/drift` (JSON) and the `/drift` page (`tc.drift`).

Whether each assistant turn of a conversation, as it was generated, is a token prefix of the next
turn's render (what a prefix cache keeps, where the loss mask moves), whether sampled completions
round-trip, and the markers spelt from sub-tokens or typed by a user."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from ..deps import StateDep
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services import drift as service
from ..services.chat import FALLBACK_TEMPLATE, parse_tools
from ..services.tokenizers import tokenizer_options
from ..urls import url_with

router = APIRouter(tags=["drift"])

MAX_PERMALINK = 8000  # a longer conversation keeps its form, without a GET link


class Message(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)  # tool_calls, reasoning_content, ...
    role: str = Field(examples=["assistant"])
    content: Any = Field(None, examples=["Paris."])


class Completion(BaseModel):
    model_config = ConfigDict(strict=True)
    message: int = Field(description="the index of an assistant message in `messages`")
    ids: list[int] = Field(description="the token ids the model sampled for it")


class DriftRequest(BaseModel):
    model_config = ConfigDict(strict=True)
    tokenizer: str = Field(examples=["qwen3"], description="a bundled name or a handle")
    messages: list[Message] = Field(
        examples=[
            [
                {"role": "user", "content": "2+2?"},
                {"role": "assistant", "reasoning_content": "Add.", "content": "4"},
                {"role": "user", "content": "3+3?"},
            ]
        ]
    )
    completions: list[Completion] | None = Field(
        None, description="the sampled ids of assistant messages, as RL frameworks log them"
    )
    template: str | None = Field(None, description="a chat template's text (Jinja)")
    template_name: str | None = Field(
        None,
        description="a bundled template, or one of the tokenizer's named ones; none: the "
        "tokenizer's own (Qwen3's)",
    )
    tools: list[dict[str, Any]] | None = Field(None, description="tool schemas (JSON)")


class DriftResponse(BaseModel):
    append_only: bool
    turns: list[dict[str, Any]] = Field(
        description="per assistant turn: message, prefix_of_next, first_diff_token, "
        "tokens_reused, tokens_total, construct, next_message, loss_mask, tokens_moved, "
        "diff_tokens"
    )
    completions: list[dict[str, Any]] = Field(
        description="per sampled completion: message, round_trip_equal, first_diff, "
        "canonical, retokenized, first_break"
    )
    markers: list[dict[str, Any]] = Field(
        description="markers spelt from sub-tokens (kind spelt) or typed in user or tool "
        "content (kind injection): message, marker, single_token, position, kind"
    )
    marker_tokens: list[str]


@router.post(
    "/api/drift",
    tags=["api"],
    response_model=DriftResponse,
    summary="The drift doctor: is each turn a prefix of the next, do completions round-trip",
    description="For each assistant message i: messages[:i] with the generation prompt, then "
    "its completion (its sampled ids, else what the template writes), against "
    "messages[:next assistant] rendered; encode(decode(ids)) == ids for each sampled "
    "completion; marker tokens spelt from sub-tokens or typed in user and tool content.",
)
def drift_api(state: StateDep, body: DriftRequest) -> dict[str, Any]:
    _, report = service.run(
        state,
        [m.model_dump() for m in body.messages],
        tokenizer=body.tokenizer,
        completions=[c.model_dump() for c in body.completions or ()],
        template=body.template,
        template_name=body.template_name,
        tools=body.tools,
    )
    return report.to_dict()


# ---- the page -------------------------------------------------------------------------------
@router.get(
    "/drift",
    response_class=HTMLResponse,
    summary="The drift doctor page",
    description="`conversation`: the JSON the form's box holds (a permalink); none: the "
    "worked example.",
)
def drift_page(
    request: Request,
    state: StateDep,
    tokenizer: str = service.EXAMPLE_TOKENIZER,
    template_name: str = "",
    template: str = "",
    conversation: str | None = None,
) -> HTMLResponse:
    raw = service.example_json() if conversation is None else conversation
    return _page(request, state, tokenizer, template_name, template, raw)


@router.post(
    "/drift",
    response_class=HTMLResponse,
    summary="The drift doctor page, from its form",
    description="The form's fields as the GET parameters; an htmx request gets the results.",
)
def drift_form(
    request: Request,
    state: StateDep,
    tokenizer: str = Form(service.EXAMPLE_TOKENIZER),
    template_name: str = Form(""),
    template: str = Form(""),
    conversation: str = Form(""),
) -> HTMLResponse:
    return _page(request, state, tokenizer, template_name, template, conversation)


def _page(
    request: Request,
    state: StateDep,
    tokenizer: str,
    template_name: str,
    template: str,
    conversation: str,
) -> HTMLResponse:
    ctx: dict[str, Any] = {
        "tokenizer": tokenizer,
        "template_name": template_name,
        "template": template,
        "conversation": conversation,
        "options": tokenizer_options(state, tokenizer),
        "templates": service.template_choices(),
        "report": None,
        "error": None,
    }
    status = 200
    try:
        data = service.parse_input(conversation)
        tools = data.get("tools")
        if isinstance(tools, str):
            tools = parse_tools(tools)
        tok, report = service.run(
            state,
            data["messages"],
            tokenizer=tokenizer,
            completions=data.get("completions"),
            template=template or None,
            template_name=template_name or None,
            tools=tools,
            fallback=FALLBACK_TEMPLATE,
        )
        ctx.update(report=report, views=service.turn_views(tok, report), messages=data["messages"])
    except BAD_INPUT as exc:  # shown in place of the results, the form kept
        ctx["error"], status = bad_input(exc)
    params = {
        "tokenizer": tokenizer,
        "template_name": template_name or None,
        "template": template or None,
        "conversation": _compact(conversation),
    }
    link = url_with("/drift", params)
    ctx["permalink"] = link if len(link) <= MAX_PERMALINK else None
    response = render(request, "drift.html", ctx, block="results", status_code=status)
    if ctx["permalink"]:
        response.headers["HX-Push-Url"] = ctx["permalink"]
    return response


def _compact(raw: str) -> str:
    """The conversation as short JSON for a link (as typed, when it is not JSON)."""
    try:
        return json.dumps(json.loads(raw), ensure_ascii=False, separators=(",", ":"))
    except ValueError:
        return raw

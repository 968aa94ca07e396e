"""Chat templates: `POST /api/chat` (JSON) and the `/chat` page."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from ..deps import StateDep
from ..errors import BAD_INPUT, bad_input
from ..render import render
from ..services import chat as service
from ..services.tokenizers import tokenizer_label, tokenizer_options
from ..state import AppState
from ..urls import url_with

router = APIRouter(tags=["chat"])

# The first screen shows a matching pair: Qwen3's tokenizer with its own chat template (a
# tokenizer with another model's template is what the lints warn about, not a first example)
DEFAULT_TOKENIZER = "qwen3"
DEFAULT_TEMPLATE = ""  # the tokenizer's own template, else the bundled llama3
MAX_PERMALINK = 8000  # longer chats keep their form, without a GET link


class Message(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)  # tool_calls, name, thinking, ...
    role: str = Field(examples=["user"])
    content: Any = Field(None, examples=["Hello!"])


class ChatRequest(BaseModel):
    model_config = ConfigDict(strict=True)  # JSON as the schema says: no 0 for false, no "1" for 1
    tokenizer: str | None = Field(
        None, examples=["cl100k_base"], description="a bundled name or a handle; none: render only"
    )
    messages: list[Message] = Field(examples=[[{"role": "user", "content": "Hello!"}]])
    template: str | None = Field(None, description="a chat template's text (Jinja)")
    template_name: str | None = Field(
        None,
        examples=["llama3"],
        description="a bundled example template, when no `template` "
        "is given: " + ", ".join(t.name for t in service.chat.bundled_templates()) + "; or one "
        "of the `config`'s (or the tokenizer's own) named templates. None: the tokenizer's own "
        "template (a model folder's tokenizer_config.json, Qwen3's)",
    )
    config: dict[str, Any] | None = Field(
        None,
        description="a tokenizer_config.json: its chat_template (a string, or a list of "
        '{name, template}: `template_name` picks one, else "default") and '
        "its special tokens (bos_token, eos_token, ...)",
    )
    add_generation_prompt: bool = False
    tools: list[dict[str, Any]] | None = Field(None, description="tool schemas (JSON)")


class ChatResponse(BaseModel):
    text: str
    segments: list[dict[str, Any]] = Field(
        description="each message's span of `text` (`index` null: the template's own text)"
    )
    generation_spans: list[tuple[int, int]] = Field(description="the {% generation %} spans")
    spans_exact: bool = Field(
        description="false when the template moves text between turns: "
        "the segments are then just the contents"
    )
    tokens: list[dict[str, Any]] | None
    assistant_mask: list[int] | None
    counts: list[dict[str, Any]] | None
    total: int | None
    lints: list[dict[str, Any]]


@router.post(
    "/api/chat",
    response_model=ChatResponse,
    summary="Render a chat through its template, then tokenize it",
    description="As transformers' apply_chat_template: the text, each message's span, the "
    "tokens (add_special_tokens=False) with their message and role, the "
    "assistant mask, the counts and the lints. A template error is a 422 "
    "naming the template's line.",
)
def chat_api(state: StateDep, body: ChatRequest) -> dict[str, Any]:
    messages = [m.model_dump(exclude_none=False) for m in body.messages]
    _, rendered = service.render(
        state,
        messages,
        tokenizer=body.tokenizer,
        template=body.template,
        template_name=body.template_name,
        config=body.config,
        add_generation_prompt=body.add_generation_prompt,
        tools=body.tools,
    )
    return service.as_json(rendered)


# ---- the page -------------------------------------------------------------------------------
@router.get(
    "/chat",
    response_class=HTMLResponse,
    summary="The chat template page",
    description="`messages`: the chat as JSON (a permalink); the other parameters as the "
    "form's fields.",
)
def chat_page(
    request: Request,
    state: StateDep,
    messages: str | None = None,
    tokenizer: str | None = None,
    template_name: str = DEFAULT_TEMPLATE,
    template: str = "",
    tools: str = "",
    config: str = "",
    add_generation_prompt: bool = False,
) -> HTMLResponse:
    form = ChatForm(
        service.DEFAULT_MESSAGES,
        tokenizer or DEFAULT_TOKENIZER,
        template_name,
        template,
        tools,
        config,
        add_generation_prompt,
    )
    error = None
    if messages is not None:
        try:
            form.messages = service.messages_from_json(messages)
        except ValueError as exc:
            form.messages, error = [], str(exc)
    return _page(request, state, form, "result", error)


@router.post(
    "/chat",
    response_class=HTMLResponse,
    summary="The chat template page, from its form",
    description="The form's messages come as repeated `role`, `content` and `extra` "
    "(a message's other fields as JSON, e.g. tool_calls, or empty) fields; "
    "`action` is render (as you type), update (the Render button), add, or "
    "remove-N / up-N / down-N (N from 0). An htmx request gets the result "
    "block after render, the editor and the result after the others.",
)
def chat_form(
    request: Request,
    state: StateDep,
    role: list[str] = Form([]),
    content: list[str] = Form([]),
    extra: list[str] = Form([]),
    tokenizer: str = Form(DEFAULT_TOKENIZER),
    template_name: str = Form(DEFAULT_TEMPLATE),
    template: str = Form(""),
    tools: str = Form(""),
    config: str = Form(""),
    add_generation_prompt: bool = Form(False),
    action: str = Form("render"),
) -> HTMLResponse:
    try:
        messages = service.edit(service.form_messages(role, content, extra), action)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    form = ChatForm(
        messages, tokenizer, template_name, template, tools, config, add_generation_prompt
    )
    return _page(request, state, form, "result" if action == "render" else "main", None)


@dataclass
class ChatForm:
    """The page's inputs, as the form holds them."""

    messages: list[dict[str, Any]]
    tokenizer: str
    template_name: str
    template: str
    tools: str
    config: str
    add_generation_prompt: bool

    def params(self) -> dict[str, Any]:
        """The GET permalink's parameters."""
        return {
            "messages": json.dumps(self.messages, ensure_ascii=False),
            "tokenizer": self.tokenizer,
            "template_name": self.template_name,
            "template": self.template or None,
            "tools": self.tools or None,
            "config": self.config or None,
            "add_generation_prompt": "true" if self.add_generation_prompt else None,
        }


def _page(
    request: Request, state: AppState, form: ChatForm, block: str, error: str | None
) -> HTMLResponse:
    ctx: dict[str, Any] = {
        "form": form,
        "error": error,
        "roles": service.ROLES,
        "config_names": [],
        "own_names": [],
        "template_source": None,
        "extras": [service.extra_fields(m) for m in form.messages],
        "templates": service.chat.bundled_templates(),
        "options": tokenizer_options(state, form.tokenizer),
    }
    status = 200
    if error is None:
        try:
            tools = service.parse_tools(form.tools)
            config = service.parse_config(form.config)
            ctx["config_names"] = service.chat.template_names(config) if config else []
            tok, rendered = service.render(
                state,
                form.messages,
                tokenizer=form.tokenizer,
                template=form.template or None,
                template_name=form.template_name,
                config=config,
                add_generation_prompt=form.add_generation_prompt,
                tools=tools,
                fallback=service.FALLBACK_TEMPLATE,
            )
            ctx["own_names"] = service.own_template_names(tok)
            ctx["template_source"] = service.template_source(
                tok,
                tokenizer_label(state, form.tokenizer),
                form.template,
                form.template_name,
                config,
                tools,
            )
            ctx.update(service.page_context(tok, rendered))
        except BAD_INPUT as exc:  # shown in place of the result, the form kept
            ctx["error"], status = bad_input(exc)
    else:
        status = 422
    link = url_with("/chat", form.params())
    ctx["permalink"] = link if len(link) <= MAX_PERMALINK else None
    response = render(request, "chat.html", ctx, block=block, status_code=status)
    if ctx["permalink"]:
        response.headers["HX-Push-Url"] = ctx["permalink"]
    return response

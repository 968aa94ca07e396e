"""Chat templates: `POST /api/chat` (JSON) and the `/chat` page."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from ..services import chat as service

router = APIRouter(tags=["chat"])


class Message(BaseModel):
    model_config = ConfigDict(extra="allow")      # tool_calls, name, thinking, ...
    role: str = Field(examples=["user"])
    content: Any = Field(None, examples=["Hello!"])


class ChatRequest(BaseModel):
    tokenizer: str | None = Field(None, examples=["cl100k_base"],
                                  description="a bundled name or a handle; none: render only")
    messages: list[Message] = Field(examples=[[{"role": "user", "content": "Hello!"}]])
    template: str | None = Field(None, description="a chat template's text (Jinja)")
    template_name: str | None = Field(
        None, examples=["llama3"], description="a bundled example template, when no `template` "
        "is given: " + ", ".join(t.name for t in service.chat.bundled_templates()))
    add_generation_prompt: bool = False
    tools: list[dict[str, Any]] | None = Field(None, description="tool schemas (JSON)")


class ChatResponse(BaseModel):
    text: str
    segments: list[dict[str, Any]] = Field(description="each message's span of `text` "
                                                       "(`index` null: the template's own text)")
    generation_spans: list[tuple[int, int]] = Field(description="the {% generation %} spans")
    spans_exact: bool = Field(description="false when the template moves text between turns: "
                                          "the segments are then just the contents")
    tokens: list[dict[str, Any]] | None
    assistant_mask: list[int] | None
    counts: list[dict[str, Any]] | None
    total: int | None
    lints: list[dict[str, Any]]


@router.post("/api/chat", response_model=ChatResponse,
             summary="Render a chat through its template, then tokenize it",
             description="As transformers' apply_chat_template: the text, each message's span, the "
                         "tokens (add_special_tokens=False) with their message and role, the "
                         "assistant mask, the counts and the lints. A template error is a 422 "
                         "naming the template's line.")
def chat_api(request: Request, body: ChatRequest) -> dict[str, Any]:
    messages = [m.model_dump(exclude_none=False) for m in body.messages]
    _, rendered = service.render(request, messages, tokenizer=body.tokenizer,
                                 template=body.template, template_name=body.template_name,
                                 add_generation_prompt=body.add_generation_prompt,
                                 tools=body.tools)
    return service.as_json(rendered, messages)


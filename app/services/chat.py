"""The chat view's and `POST /api/chat`'s work: check the inputs, resolve the tokenizer, render
the chat through its template (`tokenizers_core.chat`), and shape the result for JSON or a page.
"""

from __future__ import annotations

import json
from typing import Any

from tokenizers_core import chat
from tokenizers_core.chat.encode import encode_chat
from tokenizers_core.errors import InvalidInput

from .. import display
from ..errors import TooLarge
from ..state import AppState
from .tokenizers import resolve_tokenizer

ROLES = ("system", "user", "assistant", "tool")
MAX_MESSAGES = 200
MAX_TEMPLATE_CHARS = 100_000
MAX_CHAT_CHIPS = 4000
FALLBACK_TEMPLATE = "llama3"  # when no template is named and the tokenizer has none of its own
DEFAULT_MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is the capital of France?"},
    {"role": "assistant", "content": "Paris."},
]


def check_messages(state: AppState, messages: list[dict[str, Any]]) -> None:
    """At most MAX_MESSAGES messages, their text within the app's text limit."""
    if len(messages) > MAX_MESSAGES:
        raise TooLarge(
            f"{len(messages):,} messages are more than a chat may have here ({MAX_MESSAGES})"
        )
    size = len(json.dumps(messages, ensure_ascii=False))
    limit = state.settings.max_text_chars
    if size > limit:
        raise TooLarge(
            f"the messages are {size:,} characters of JSON; the limit is "
            f"{limit:,} (set TOKVIS_MAX_TEXT_CHARS to change it)",
        )


def check_template(template: str | None) -> None:
    if template is not None and len(template) > MAX_TEMPLATE_CHARS:
        raise TooLarge(
            f"the template is {len(template):,} characters; the limit is {MAX_TEMPLATE_CHARS:,}",
        )


def parse_tools(raw: str) -> list[dict] | None:
    """The tools box of the page: empty, or a JSON list of tool schemas."""
    if not raw.strip():
        return None
    try:
        tools = json.loads(raw)
    except ValueError as exc:
        raise InvalidInput(f"the tools are not valid JSON: {exc}") from None
    return tools


def render(
    state: AppState,
    messages: list[dict[str, Any]],
    *,
    tokenizer: str | None,
    template: str | None = None,
    template_name: str | None = None,
    config: dict[str, Any] | None = None,
    add_generation_prompt: bool = False,
    tools: Any = None,
    fallback: str | None = None,
) -> tuple[Any, chat.ChatRender]:
    """(the tokenizer or None, the rendered chat). The template: `template` (pasted), else the
    `config`'s (a tokenizer_config.json: `template_name` picks one of its named templates, else
    its default), else the bundled `template_name`; with no `template_name`, the tokenizer's own
    (a model folder's, Qwen3's) or, when it has none, the bundled `fallback` (the page's
    FALLBACK_TEMPLATE; the API names none, so it asks for a template). Raises ValueError (422)
    for a bad template or messages, NotFound (404) for an unknown tokenizer, TooLarge (413)
    over a limit."""
    check_messages(state, messages)
    check_template(template)
    if config is not None:  # its templates, as JSON, within the same limit
        check_template(json.dumps(config.get("chat_template"), ensure_ascii=False))
    tok = resolve_tokenizer(state, tokenizer) if tokenizer else None
    if template or (
        config
        and config.get("chat_template") is not None
        and template_name not in chat.template_names(config)
    ):
        template_name = None
    elif not template_name:  # the tokenizer's own template, else the fallback
        template_name = None if own_template_names(tok) or config else fallback
    rendered = chat.render_chat(
        messages,
        tokenizer=tok,
        chat_template=template or None,
        template_name=template_name,
        config=config,
        add_generation_prompt=add_generation_prompt,
        tools=tools,
        renderer=state.sandbox.render_chat_template,
    )
    return tok, rendered


def own_template_names(tok: Any) -> list[str]:
    """The names of the tokenizer's own chat templates (its tokenizer_config.json, kept by a
    model folder's loader and by the bundled Qwen3), or [] when it has none."""
    own = getattr(tok, "tokenizer_config", None)
    return chat.template_names(own) if own else []


def template_source(
    tok: Any,
    label: str,
    template: str,
    template_name: str,
    config: dict[str, Any] | None,
    tools: Any = None,
) -> str:
    """Where the page's template came from, as a sentence (`label`: the tokenizer's name for
    people; `tools`: given, they pick a config's "tool_use" template, as in transformers)."""
    if template:
        return "The pasted template."
    if config is not None and config.get("chat_template") is not None:
        return "The pasted tokenizer_config.json's chat template" + _named(
            template_name, config, tools
        )
    if template_name in ("", *own_template_names(tok)) and own_template_names(tok):
        return f"{label}'s own chat template (its tokenizer_config.json)" + _named(
            template_name, tok.tokenizer_config, tools
        )
    bundled = chat.bundled_template(template_name or FALLBACK_TEMPLATE)
    return f"The bundled example “{bundled.label}” (written here; see its source note)."


def _named(name: str, config: dict[str, Any], tools: Any = None) -> str:
    names = chat.template_names(config)
    picked = chat.picked_template_name(config, name if name in names else None, tools)
    return f", “{picked}”." if len(names) > 1 else "."


def parse_config(raw: str) -> dict[str, Any] | None:
    """The page's tokenizer_config.json box: empty, or the JSON object."""
    return chat.read_config(raw) if raw.strip() else None


def as_json(rendered: chat.ChatRender) -> dict[str, Any]:
    """The API's answer: the rendered chat's values, with each token's message index and role."""
    out = rendered.to_dict()
    out.pop("counts")
    if rendered.tokens is not None:
        for token, entry in zip(rendered.tokens, out["tokens"]):
            segment = rendered.segments[token.segment]
            entry.update(message=segment.index, role=segment.role)
    out["assistant_mask"] = rendered.assistant_mask if rendered.tokens is not None else None
    out["counts"] = _counts(rendered) if rendered.tokens is not None else None
    return out


def _counts(rendered: chat.ChatRender) -> list[dict[str, Any]]:
    """Tokens per segment: each message's (index, role) and the template's own text."""
    return [
        {"message": s.index, "role": s.role, "tokens": n}
        for s, n in zip(rendered.segments, rendered.counts())
    ]


def page_context(tok: Any, rendered: chat.ChatRender) -> dict[str, Any]:
    """What the page's result block shows."""
    ctx: dict[str, Any] = {
        "rendered": rendered,
        "pieces": _pieces(rendered),
        "counts": None,
        "rows": None,
    }
    if tok is not None and rendered.encoding is not None:
        chips = display.chips(
            tok, rendered.text, rendered.encoding, links=False, limit=MAX_CHAT_CHIPS
        )
        ctx["rows"] = [
            (c, rendered.segments[t.segment], t.assistant) for c, t in zip(chips, rendered.tokens)
        ]
        ctx["counts"] = _counts(rendered)
        ctx["total"] = len(rendered.tokens)
        ctx["cut_chips"] = len(rendered.tokens) > MAX_CHAT_CHIPS
        ctx["post"] = post_processed(tok, rendered)
        ctx["class_note"] = class_note(tok)
    return ctx


def class_note(tok: Any) -> str | None:
    """What the class the tokenizer_config.json names changed (transformers 5 rebuilds the
    tokenizer.json's tokenizer from it; `tokenizers_core.formats.hf_classes`), or None."""
    rebuilt = getattr(tok, "class_rebuild", None)
    return rebuilt.note() if rebuilt is not None else None


def post_processed(tok: Any, rendered: chat.ChatRender) -> dict[str, Any] | None:
    """The ids of the rendered text encoded again as ordinary text, `tokenizer(text)` with
    its default add_special_tokens=True: what a model receives when a server encodes the
    prompt itself, with the post-processor's tokens (BERT's [CLS] … [SEP], Llama's BOS) around
    apply_chat_template's ids. The double-BOS and no-BOS lints speak of these ids.

    None when the post-processor adds nothing (the two are the same). Otherwise
    {"ids": [...], "before": [(id, token)], "after": [(id, token)]}: the tokens it adds
    before and after (when they do not simply surround the chat's ids, `before` and `after`
    are empty and only `ids` is shown).
    """
    ids = rendered.ids or []
    full = encode_chat(tok, rendered.text, add_special_tokens=True)
    if full.ids == ids:
        return None
    pairs = list(zip(full.ids, full.tokens))
    k = next(
        (k for k in range(len(pairs) - len(ids) + 1) if full.ids[k : k + len(ids)] == ids), None
    )
    if k is None:
        return {"ids": full.ids, "before": [], "after": []}
    return {"ids": full.ids, "before": pairs[:k], "after": pairs[k + len(ids) :]}


def _pieces(rendered: chat.ChatRender) -> list[dict[str, Any]]:
    """The rendered text cut at segment and generation-span edges: (text, role, message index,
    in the assistant mask), for the coloured render."""
    cuts = {0, len(rendered.text)}
    for s in rendered.segments:
        cuts.update((s.start, s.end))
    for start, end in rendered.generation_spans:
        cuts.update((start, end))
    edges = sorted(c for c in cuts if 0 <= c <= len(rendered.text))
    out = []
    for start, end in zip(edges, edges[1:]):
        segment = next((s for s in rendered.segments if s.start <= start < s.end), None)
        out.append(
            {
                "text": rendered.text[start:end],
                "role": segment.role if segment else "template",
                "index": segment.index if segment else None,
                "assistant": any(s <= start < e for s, e in rendered.generation_spans),
            }
        )
    return out


def messages_from_json(raw: str) -> list[dict[str, Any]]:
    """The `messages` URL parameter: a JSON list of {role, content}."""
    try:
        messages = json.loads(raw)
    except ValueError as exc:
        raise InvalidInput(f"the messages are not valid JSON: {exc}") from None
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise InvalidInput('the messages must be a JSON list of {"role", "content"} objects')
    return messages


def extra_fields(message: dict[str, Any]) -> str:
    """A message's fields other than role and content (tool_calls, name, ...) as JSON, which the
    editor carries in a hidden field; "" when there are none."""
    rest = {k: v for k, v in message.items() if k not in ("role", "content")}
    return json.dumps(rest, ensure_ascii=False) if rest else ""


def form_messages(roles: list[str], contents: list[str], extras: list[str]) -> list[dict[str, Any]]:
    """The editor's fields back into messages (an empty content of a message with other fields,
    such as tool_calls, is left out, as the message had none)."""
    if extras and len(extras) != len(roles):
        raise InvalidInput("the form's message fields do not line up; reload the page")
    out = []
    for i, (role, content) in enumerate(zip(roles, contents)):
        rest = _extra(extras[i]) if extras else {}
        message = {"role": role, **({"content": content} if content or not rest else {}), **rest}
        out.append(message)
    return out


def _extra(raw: str) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        rest = json.loads(raw)
    except ValueError:
        raise InvalidInput("a message's extra fields are not valid JSON") from None
    if not isinstance(rest, dict):
        raise InvalidInput("a message's extra fields must be a JSON object")
    return {k: v for k, v in rest.items() if k not in ("role", "content")}


def edit(messages: list[dict[str, Any]], action: str) -> list[dict[str, Any]]:
    """The message list after one of the editor's buttons: "render" and "update" (no change),
    "add" (a user message, or the assistant's after a user), "remove-N", "up-N", "down-N" (N
    from 0).

    >>> [m["role"] for m in edit([{"role": "user", "content": "a"}], "add")]
    ['user', 'assistant']
    >>> two = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    >>> [m["content"] for m in edit(two, "up-1")]
    ['b', 'a']
    """
    out = list(messages)
    if action in ("render", "update"):
        return out
    if action == "add":
        last = out[-1]["role"] if out else None
        out.append({"role": "assistant" if last == "user" else "user", "content": ""})
        return out
    verb, _, number = action.partition("-")
    # ("²" is a digit to isdigit and not to int; 5,000 digits are more than int() reads)
    digits = number.isascii() and number.isdigit() and len(number) < 10
    if verb not in ("remove", "up", "down") or not digits or int(number) >= len(out):
        raise InvalidInput(f"unknown editor action {action!r}")
    i = int(number)
    if verb == "remove":
        del out[i]
    elif verb == "up" and i > 0:
        out[i - 1], out[i] = out[i], out[i - 1]
    elif verb == "down" and i < len(out) - 1:
        out[i], out[i + 1] = out[i + 1], out[i]
    return out

"""Chat templates: what a model sees after `apply_chat_template`, span by span, token by token.

`apply_chat_template` renders as transformers' `apply_chat_template(..., tokenize=False)` does
(the same jinja2 sandbox, globals and filters: see `environment`; under a budget: see `budget`)
and returns the text; `render_chat` also returns each message's span, the `{% generation %}`
spans, the tokens with their message and role, the counts and the lints (see `render` and
`lints`). Bundled example templates are in `data/chat_templates/` (see `templates`).
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidInput
from ..pipeline import Tokenizer
from .lints import Lint
from .render import ChatRender, ChatToken, Segment, prepare, render_chat, render_text
from .runner import TemplateFailure
from .templates import (
    BundledTemplate,
    bundled_template,
    bundled_templates,
    picked_template_name,
    read_config,
    template_from_config,
    template_names,
    template_source,
)

__all__ = [
    "BundledTemplate",
    "ChatRender",
    "ChatToken",
    "Lint",
    "Segment",
    "TemplateFailure",
    "apply_chat_template",
    "bundled_template",
    "bundled_templates",
    "picked_template_name",
    "read_config",
    "render_chat",
    "template_from_config",
    "template_names",
    "template_source",
]


# transformers' options that make apply_chat_template tokenize; here render_chat does that
_TOKENIZING_OPTIONS = frozenset(
    {"tokenize", "return_dict", "return_assistant_tokens_mask", "return_tensors"}
)


def apply_chat_template(
    tok_or_config: Tokenizer | dict[str, Any] | None,
    messages: Any,
    *,
    chat_template: str | None = None,
    template_name: str | None = None,
    add_generation_prompt: bool = False,
    tools: Any = None,
    documents: Any = None,
    **extra: Any,
) -> str:
    """The rendered chat, as transformers' `apply_chat_template(..., tokenize=False)` gives it.

    `tok_or_config`: a Tokenizer (the template's bos_token is then what its post-processor
    adds, unless the template's format says otherwise), a tokenizer_config.json as a dict, or
    None. The template is `chat_template` (its text), else the config's own (a dict given as
    `tok_or_config`, or the tokenizer's kept `tokenizer_config`; `template_name` picks one of its
    named templates, and with none given `tools` pick "tool_use" where it has one, as in
    transformers), else the bundled example `template_name`. `extra` reaches the template as
    variables (as transformers' kwargs do). A template's error, `raise_exception` included, is a
    ValueError naming the template's line.

    >>> apply_chat_template(None, [{"role": "user", "content": "Hi"}], template_name="llama3",
    ...                     add_generation_prompt=True)
    '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\\n\\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\\n\\n'
    """
    asked = sorted(_TOKENIZING_OPTIONS & extra.keys())
    if asked:
        raise InvalidInput(
            f"apply_chat_template returns the rendered text; {', '.join(asked)} "
            "belong to transformers' tokenizing call: for the ids and the "
            "assistant mask use tokenizers_core.chat.render_chat(messages, "
            "tokenizer=tok, ...).ids and .assistant_mask"
        )
    config = tok_or_config if isinstance(tok_or_config, dict) else None
    tokenizer = tok_or_config if isinstance(tok_or_config, Tokenizer) else None
    inputs = prepare(
        messages,
        chat_template=chat_template,
        template_name=template_name,
        config=config,
        add_generation_prompt=add_generation_prompt,
        tools=tools,
        documents=documents,
        tokenizer=tokenizer,
        **extra,
    )
    return render_text(inputs)[0]

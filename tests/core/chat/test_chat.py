"""Chat templates: the sandbox's budgets and errors, where templates come from, the spans of
the messages, the tokens' roles and the lints (real bundled templates and tokenizers)."""

from __future__ import annotations

import json

import pytest
from chat_tokenizers import llama3_style

import tokenizers_core as tc
from tokenizers_core import chat

THREE = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Name a prime."},
    {"role": "assistant", "content": "Seven."},
]


def _render(template, messages=THREE, **options):
    return tc.apply_chat_template(None, messages, chat_template=template, **options)


# ---- errors, with the template's line ------------------------------------------------------
@pytest.mark.parametrize(
    "template,line,words",
    [
        ("line one\n{% if %}", 2, "Expected an expression"),
        ("a\nb\n{{ raise_exception('No tools here.') }}", 3, "raise_exception: No tools here."),
        ("{% for m in messages %}\n{{ m.missing.deeper }}\n{% endfor %}", 2, "undefined"),
        ("{% set ns = namespace() %}\n\n{% set ns._x = 1 %}", 3, "underscore"),
        ("{{ 1 / 0 }}", 1, "ZeroDivisionError"),
        ("\n{{ messages.append(1) }}", 2, "the sandbox refused it"),
        ("{{ messages[0].content.__class__.__subclasses__() }}", 1, "is unsafe"),
    ],
)
def test_a_template_error_is_a_value_error_with_its_line(template, line, words):
    with pytest.raises(ValueError) as caught:
        _render(template)
    assert caught.value.line == line
    assert f"line {line}" in str(caught.value) and words in str(caught.value)


def test_unsafe_attributes_render_as_nothing():
    assert _render("[{{ ''.__class__ }}]") == "[]"


@pytest.mark.parametrize(
    "template,words",
    [
        ("{% for i in range(10**9) %}x{% endfor %}", "Range too big"),
        ("{{ 2 ** 100000000 }}", "power above"),
        ("{% for i in range(1000000) %}x{% endfor %}", "Range too big"),
        ("{{ 'a' * 1000000000 }}", "multiplied"),
        ("{{ messages * 100000000 }}", "multiplied"),
        (
            "{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}"
            "{% endfor %}",
            "built a value",
        ),
        (
            "{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
            "{% endfor %}",
            "joined strings",
        ),
        ("{{ 'a'.center(100000000) }}", "center was asked"),
        (
            "{% for i in range(99999) %}{% for j in range(99999) %}{{ 'xxxxxxxxxxxx' }}{% endfor %}"
            "{% endfor %}",
            "output passed",
        ),
        ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "RecursionError"),
        ("{% set a = 'x' * 900000 %}{{ a ~ a ~ a }}", "joined strings"),
        (
            "{% set a = 'x' * 900000 %}{% macro m() %}{{ a }}{{ a }}{% endmacro %}{{ m() }}",
            "joined strings",
        ),
        ("{{ '%0999999999d' % 1 }}", "width over"),
        ("{{ '%*d' % (999999999, 1) }}", "was asked for more"),
        ("{{ '{:>999999999}'.format(1) }}", "width over"),
        ("{{ '%0999999999d' | format(1) }}", "width over"),
        ("{{ 'abc'.replace('', 'x' * 900000) }}", "replace would build"),
        ("{{ 'abc' | replace('', 'x' * 900000) }}", "replace would build"),
        ("{{ ('x' * 900000).join(range(50)) }}", "join would build"),
        ("{{ range(50) | join('x' * 900000) }}", "join would build"),
        ("{{ 'a' | center(999999999) }}", "center was asked"),
        ("{{ range(99999) | list | tojson(indent=100000) }}", "indent is over 100"),
    ],
)
def test_a_runaway_template_is_stopped_with_a_reason(template, words):
    with pytest.raises(ValueError, match="it was stopped|RecursionError|Range too big") as caught:
        _render(template)
    assert words in str(caught.value)


def test_the_prefix_renders_share_one_time_budget():
    """200 messages through a template that takes ~10 ms a render: the full render fits in
    the budget, the 201 prefix renders do not, so the spans fall back to the contents."""
    slow = (
        "{% for i in range(3000) %}{% set x = i * 2 %}{% endfor %}"
        "{% for m in messages %}[{{ m.content }}]{% endfor %}"
    )
    messages = [{"role": "user", "content": f"m{i}"} for i in range(200)]
    rendered = chat.render_chat(messages, chat_template=slow, time_limit=0.2)
    assert not rendered.spans_exact
    assert rendered.text[rendered.segments[1].start : rendered.segments[1].end] == "m0"


def test_large_numbers_elsewhere_are_fine():
    assert (
        _render("{{ nothing | default(10**7) }}|{{ 'abc'.startswith('a', 0, 10**7) }}")
        == "10000000|True"
    )
    assert (
        _render("{{ 'On 20240101 %s' % 'ok' }}|{{ 'On 20240101 {}'.format('ok') }}")
        == "On 20240101 ok|On 20240101 ok"
    )
    assert _render("{{ '%d' % 20240101 }}") == "20240101"


def test_a_slow_template_is_stopped_by_the_clock():
    slow = "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}"
    with pytest.raises(ValueError, match=r"ran for more than 0\.2 seconds"):
        chat.render_chat(THREE, chat_template=slow, time_limit=0.2)


# ---- where templates come from -------------------------------------------------------------
def test_templates_from_a_config_a_name_or_pasted():
    config = chat.read_config(
        '{"bos_token": {"content": "<B>"}, "chat_template": '
        '[{"name": "default", "template": "{{ bos_token }}D"}, '
        '{"name": "rag", "template": "R{{ documents | length }}"}]}'
    )
    assert chat.template_names(config) == ["default", "rag"]
    assert tc.apply_chat_template(config, THREE) == "<B>D"
    assert (
        tc.apply_chat_template(
            config, THREE, template_name="rag", documents=[{"title": "t", "text": "x"}]
        )
        == "R1"
    )
    with pytest.raises(ValueError, match="no chat template named 'tools'; it has: default, rag"):
        tc.apply_chat_template(config, THREE, template_name="tools")
    with pytest.raises(ValueError, match="has no chat_template"):
        chat.template_from_config({})
    with pytest.raises(ValueError, match="no bundled chat template is named 'zephyr'"):
        tc.apply_chat_template(None, THREE, template_name="zephyr")
    with pytest.raises(ValueError, match="give a chat template"):
        tc.apply_chat_template(None, THREE)
    with pytest.raises(ValueError, match="not valid JSON"):
        chat.read_config("{nope")


@pytest.mark.parametrize(
    "messages,words",
    [
        ("hello", "must be a list"),
        ([{"content": "x"}], "message 1 must be an object"),
        ([{"role": "user", "content": "x"}, 3], "message 2"),
    ],
)
def test_bad_messages_are_named(messages, words):
    with pytest.raises(ValueError, match=words):
        tc.apply_chat_template(None, messages, template_name="chatml")


def test_none_values_are_dropped_as_transformers_does():
    template = "{{ messages[0].content is defined }}"
    assert _render(template, [{"role": "user", "content": None}]) == "False"


# ---- spans, tokens, counts ------------------------------------------------------------------
def test_each_message_has_its_span_and_the_prompt_its_own():
    rendered = chat.render_chat(THREE[:2], template_name="llama3", add_generation_prompt=True)
    pieces = [(s.role, rendered.text[s.start : s.end]) for s in rendered.segments]
    assert pieces == [
        ("template", "<|begin_of_text|>"),
        ("system", "<|start_header_id|>system<|end_header_id|>\n\nYou are terse.<|eot_id|>"),
        ("user", "<|start_header_id|>user<|end_header_id|>\n\nName a prime.<|eot_id|>"),
        ("generation prompt", "<|start_header_id|>assistant<|end_header_id|>\n\n"),
    ]
    assert rendered.spans_exact
    system = rendered.segments[1]
    assert rendered.text[slice(*system.content)] == "You are terse."


def test_a_template_that_moves_text_gets_content_spans():
    """Mistral v3 puts the system prompt in the last user message: the render of a prefix is
    not a prefix of the render, so the spans are the contents where they landed."""
    messages = [*THREE, {"role": "user", "content": "Another?"}]
    rendered = chat.render_chat(messages, template_name="mistral_v3")
    assert not rendered.spans_exact
    found = {
        s.index: rendered.text[s.start : s.end] for s in rendered.segments if s.index is not None
    }
    assert found == {0: "You are terse.", 1: "Name a prime.", 2: "Seven.", 3: "Another?"}
    assert rendered.text.index("You are terse.") > rendered.text.index("Seven.")


@pytest.mark.heavy
def test_tokens_carry_their_message_role_and_mask():
    rendered = chat.render_chat(THREE, template_name="llama3", tokenizer=llama3_style())
    roles = [rendered.segments[t.segment].role for t in rendered.tokens]
    assert roles[0] == "template" and rendered.tokens[0].token == "<|begin_of_text|>"
    assert sum(rendered.counts()) == len(rendered.tokens) == rendered.to_dict()["total"]
    masked = "".join(t.token for t in rendered.tokens if t.assistant)
    assert masked == "Seven.<|eot_id|>"
    assert all(roles[k] == "assistant" for k, t in enumerate(rendered.tokens) if t.assistant)


# ---- lints ----------------------------------------------------------------------------------
def _kinds(rendered):
    return [lint.kind for lint in rendered.lints]


def test_double_bos_when_the_post_processor_adds_one():
    with_processor = chat.render_chat(THREE, template_name="llama3", tokenizer=llama3_style())
    lint = next(l for l in with_processor.lints if l.kind == "double_bos")
    assert lint.message.startswith("Two BOS tokens: the template writes <|begin_of_text|>")
    without = chat.render_chat(
        THREE, template_name="llama3", tokenizer=llama3_style(post_processor=False)
    )
    assert "double_bos" not in _kinds(without) and "no_bos" not in _kinds(without)


def test_no_bos_when_the_template_leaves_it_out():
    rendered = chat.render_chat(
        THREE,
        chat_template="{{ messages[0].content }}",
        special_tokens={"bos_token": "<|begin_of_text|>"},
        tokenizer=llama3_style(),
    )
    lint = next(l for l in rendered.lints if l.kind == "no_bos")
    assert "only the post-processor adds it" in lint.message


def test_a_token_across_a_boundary():
    """cl100k merges the header's "\\n\\n" with nothing, but ChatML's "\\n" after the role
    merges with a content that starts with a newline."""
    messages = [{"role": "user", "content": "\n\nHi"}]
    rendered = chat.render_chat(
        messages,
        template_name="chatml",
        add_generation_prompt=True,
        tokenizer=tc.load("cl100k_base"),
    )
    lint = next(l for l in rendered.lints if l.kind == "boundary_token")
    assert lint.message.startswith(
        "1 token spans a boundary between a message and the template's text"
    )
    assert "(the template's text → message 1 (user))" in lint.message
    clean = chat.render_chat(THREE, template_name="llama3", tokenizer=llama3_style())
    assert "boundary_token" not in _kinds(clean)


def test_the_turn_lints():
    ends_with_user = chat.render_chat(THREE[:2], template_name="llama3")
    assert _kinds(ends_with_user) == ["no_generation_prompt"]
    assert (
        chat.render_chat(THREE[:2], template_name="llama3", add_generation_prompt=True).lints == []
    )
    closed = chat.render_chat(THREE, template_name="llama3")
    assert _kinds(closed) == ["closed_last_turn"]
    assert "closed by <|eot_id|>" in closed.lints[0].message


def test_special_tokens_typed_in_content_are_shown_parsed_and_as_text():
    messages = [{"role": "user", "content": "Say <|eot_id|> please"}]
    rendered = chat.render_chat(
        messages,
        template_name="llama3",
        add_generation_prompt=True,
        tokenizer=llama3_style(post_processor=False),
    )
    lint = next(l for l in rendered.lints if l.kind == "control_token_in_content")
    assert lint.detail["parsed"] == ["Say", "Ġ", "<|eot_id|>", "Ġplease"]
    assert "<|eot_id|>" not in lint.detail["as_text"] and len(lint.detail["as_text"]) > 4
    assert lint.message.startswith("Message 1 (user) contains <|eot_id|>, which the tokenizer")


def test_a_tiktoken_style_tokenizer_parses_the_template_specials():
    rendered = chat.render_chat(
        [{"role": "user", "content": "Hi"}],
        tokenizer=tc.load("cl100k_base"),
        chat_template="{{ messages[0].content }}<|endoftext|>",
    )
    assert rendered.tokens[-1].token == "<|endoftext|>"


def test_control_tokens_the_tokenizer_lacks():
    """cl100k_base has no <|im_start|> or <|im_end|>: ChatML through it is another model's."""
    rendered = chat.render_chat(THREE, template_name="chatml", tokenizer=tc.load("cl100k_base"))
    lint = next(l for l in rendered.lints if l.kind == "missing_control_token")
    assert lint.message.startswith(
        "The template writes control tokens this tokenizer does not "
        "have, so they are split into ordinary text: <|im_end|> ("
    )
    assert set(lint.detail["tokens"]) == {"<|im_end|>", "<|im_start|>"}
    own = chat.render_chat(THREE, template_name="llama3", tokenizer=llama3_style())
    assert "missing_control_token" not in _kinds(own)


def test_asking_apply_chat_template_to_tokenize_points_to_render_chat():
    with pytest.raises(
        ValueError,
        match="tokenize belong to transformers' tokenizing call: "
        "for the ids and the assistant mask use",
    ):
        tc.apply_chat_template(llama3_style(), THREE, template_name="llama3", tokenize=True)


def test_a_tokenizer_that_keeps_its_config_gives_its_own_template():
    """No loader keeps one yet (a folder of tokenizer.json + tokenizer_config.json will)."""
    tok = tc.load("bert-base-uncased")
    own = tc.load(json.dumps(tok.to_hf_json()).encode())
    own.tokenizer_config = {
        "bos_token": "[CLS]",
        "chat_template": "{{ bos_token }}{{ messages[0].content }}",
    }
    assert tc.apply_chat_template(own, THREE) == "[CLS]You are terse."
    with pytest.raises(ValueError, match="give a chat template"):
        tc.apply_chat_template(tok, THREE)

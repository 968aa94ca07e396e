"""POST /api/chat: the rendered chat, its spans, tokens with roles, masks, counts and lints;
a template's error as a 422 naming its line; limits as 413."""

from __future__ import annotations

import pytest

THREE = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Name a prime."},
    {"role": "assistant", "content": "Seven."},
]
BOS_TEMPLATE = "{{ bos_token }}{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}"


def test_a_bundled_template_with_tokens_roles_and_mask(client):
    r = client.post(
        "/api/chat",
        json={
            "tokenizer": "cl100k_base",
            "messages": THREE,
            "template_name": "chatml",
            "add_generation_prompt": True,
        },
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["text"].startswith("<|im_start|>system\nYou are terse.<|im_end|>\n")
    assert body["text"].endswith("<|im_start|>assistant\n")
    assert [s["role"] for s in body["segments"]] == [
        "system",
        "user",
        "assistant",
        "generation prompt",
    ]
    assert body["total"] == len(body["tokens"]) == sum(c["tokens"] for c in body["counts"])
    masked = "".join(t["token"] for t, m in zip(body["tokens"], body["assistant_mask"]) if m)
    # cl100k has no <|im_end|>: its last ">" merges with the "\n" after the generation span,
    # and a token overlapping the span is masked (as transformers masks)
    assert masked == "Seven.<|im_end|>Ċ"
    assert "boundary_token" in [lint["kind"] for lint in body["lints"]]
    assert {t["role"] for t in body["tokens"] if t["message"] == 2} == {"assistant"}
    assert body["generation_spans"] == [
        [body["text"].index("Seven."), body["text"].index("Seven.<|im_end|>") + 16]
    ]


def test_the_double_bos_lint_through_the_api(client):
    """BERT's post-processor adds [CLS]: a template that writes the bos_token gives two."""
    r = client.post(
        "/api/chat",
        json={"tokenizer": "bert-base-uncased", "messages": THREE, "template": BOS_TEMPLATE},
    )
    assert r.status_code == 200, r.text
    kinds = [lint["kind"] for lint in r.json()["lints"]]
    assert "double_bos" in kinds
    assert r.json()["text"].startswith("[CLS]system: You are terse.")


def test_render_only_without_a_tokenizer(client):
    r = client.post("/api/chat", json={"messages": THREE, "template_name": "llama3"})
    assert r.status_code == 200
    assert r.json()["tokens"] is None and r.json()["counts"] is None
    assert r.json()["lints"][0]["kind"] == "closed_last_turn"


@pytest.mark.parametrize(
    "body,status,words",
    [
        ({"template": "a\n{% for %}"}, 422, "line 2"),
        (
            {"template": "a\nb\n{{ raise_exception('no system role') }}"},
            422,
            "line 3: raise_exception: no system role",
        ),
        (
            {"template_name": "llama2_strict", "messages": [{"role": "assistant", "content": "x"}]},
            422,
            "must alternate",
        ),
        ({"template": "{% for i in range(99999) %}{{ 'x' * 50 }}{% endfor %}"}, 422, "was stopped"),
        ({"template_name": "nope"}, 422, "no bundled chat template"),
        ({}, 422, "give a chat template"),
        ({"template_name": "chatml", "tokenizer": "no-such"}, 404, "unknown tokeniser"),
        (
            {"template_name": "chatml", "messages": [{"role": "user", "content": "x"}] * 201},
            413,
            "201 messages",
        ),
        (
            {"template_name": "chatml", "messages": [{"role": "user", "content": "x" * 30000}]},
            413,
            "limit",
        ),
        ({"template": "x" * 100_001}, 413, "template is 100,001 characters"),
    ],
)
def test_bad_input_is_4xx_with_a_detail(client, body, status, words):
    r = client.post("/api/chat", json={"messages": THREE, **body})
    assert r.status_code == status, r.text
    assert words in r.json()["detail"]


def test_tools_and_tool_calls_reach_the_template(client):
    tool = {"type": "function", "function": {"name": "add", "parameters": {}}}
    messages = [
        {"role": "user", "content": "1+1?"},
        {"role": "assistant", "tool_calls": [{"function": {"name": "add", "arguments": {"a": 1}}}]},
    ]
    r = client.post(
        "/api/chat", json={"messages": messages, "template_name": "chatml_tools", "tools": [tool]}
    )
    assert r.status_code == 200, r.text
    assert '{"type": "function", "function": {"name": "add"' in r.json()["text"]
    assert '<tool_call>\n{"name": "add", "arguments": {"a": 1}}\n</tool_call>' in r.json()["text"]


def test_a_tokenizer_config_gives_the_template_and_its_special_tokens(client):
    config = {
        "bos_token": {"content": "[CLS]"},
        "chat_template": [
            {"name": "default", "template": "{{ bos_token }}{{ messages[0].content }}"},
            {"name": "shout", "template": "{{ messages[0].content | upper }}"},
        ],
    }
    ask = {"tokenizer": "bert-base-uncased", "messages": THREE, "config": config}
    default = client.post("/api/chat", json=ask).json()
    assert default["text"] == "[CLS]You are terse."
    assert "double_bos" in [lint["kind"] for lint in default["lints"]]
    shout = client.post("/api/chat", json={**ask, "template_name": "shout"}).json()
    assert shout["text"] == "YOU ARE TERSE."
    # a bundled name that the config does not have: the config's default, not the bundled one
    assert (
        client.post("/api/chat", json={**ask, "template_name": "llama3"}).json()["text"]
        == "[CLS]You are terse."
    )
    none = client.post(
        "/api/chat", json={**ask, "config": {"bos_token": "<s>"}, "template_name": "chatml"}
    )
    assert none.json()["text"].startswith("<|im_start|>system")

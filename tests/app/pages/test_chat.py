"""/chat, the chat-template page: it opens on a tokenizer and its own template, and its BOS lints
speak of the ids it shows (with the post-processor's additions). Also its editor as plain form
posts (add, remove, move) and as htmx blocks, the rendered result (role chips, mask, counts,
lints), permalinks, pasted tokenizer configs and tool calls, errors shown in place, and anything
typed rendered as text."""

from __future__ import annotations

import json
import re

XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


BOS_TEMPLATE = "{{ bos_token }}{% for m in messages %}{{ m['content'] }}{% endfor %}"


def lint_kinds(html: str) -> list[str]:
    return re.findall(r'<li class="note" data-kind="([^"]+)"', html)


# ---- /chat ----------------------------------------------------------------------------
def test_the_chat_page_opens_on_a_tokenizer_and_its_own_template(client):
    """It opened on GPT-4's tokenizer with Llama 3's template: three warnings that the template
    is another model's. Now Qwen3's tokenizer with Qwen3's own template."""
    r = client.get("/chat")
    assert r.status_code == 200
    assert re.search(r'<option value="qwen3" selected>', r.text)
    assert "own chat template" in r.text.split('data-testid="template-source"', 1)[1][:200]
    assert "&lt;|im_start|&gt;" in r.text
    kinds = lint_kinds(r.text)
    assert "missing_control_token" not in kinds and "boundary_token" not in kinds
    assert kinds == ["closed_last_turn"]  # a note on the example chat, not a mismatch
    # the form's own default (a POST without a tokenizer field) is the same pair
    posted = client.post(
        "/chat", data={"role": ["user"], "content": ["Hi"], "action": "render"}
    ).text
    assert "missing_control_token" not in lint_kinds(posted) and "&lt;|im_start|&gt;" in posted


def ids_of(html: str, testid: str) -> list[str]:
    line = html.split(f'data-testid="{testid}">', 1)[1].split("</p>", 1)[0]
    return re.findall(r"\d+", re.sub(r'title="[^"]*"', "", line))


def test_the_double_bos_lint_speaks_of_the_ids_shown_with_the_post_processor(client):
    """BERT's post-processor adds [CLS]; a template that writes it too gives two, but only when
    the text is encoded again with special tokens on. The lint said "two" beside ids holding
    one; now the page shows both encodings, the post-processor's tokens marked."""
    messages = json.dumps([{"role": "user", "content": "Hi there"}])
    r = client.get(
        "/chat",
        params={"tokenizer": "bert-base-uncased", "template": BOS_TEMPLATE, "messages": messages},
    )
    assert r.status_code == 200 and "double_bos" in lint_kinds(r.text)
    plain = ids_of(r.text, "chat-ids")
    post = ids_of(r.text, "chat-ids-post")
    assert plain[:1] == ["101"] and plain[1:2] != ["101"]  # apply_chat_template: one [CLS]
    assert post[:2] == ["101", "101"] and post[-1] == "102"  # tokenizer(text): two, and [SEP]
    assert post[1:-1] == plain
    note = r.text.split('data-testid="post-note"', 1)[1].split("</p>", 1)[0]
    assert "<code>[CLS]</code> before and <code>[SEP]</code> after" in note
    lint = r.text.split('data-kind="double_bos"', 1)[1].split("</li>", 1)[0]
    assert lint.count("<mark>101</mark>") == 2  # the two BOS the lint names, in those ids


def test_a_tokenizer_whose_post_processor_adds_nothing_says_so(client):
    r = client.get("/chat", params={"tokenizer": "qwen3"})
    note = r.text.split('data-testid="post-note"', 1)[1].split("</p>", 1)[0]
    assert "adds no tokens" in note and 'data-testid="chat-ids-post"' not in r.text


def test_hostile_content_stays_text_beside_the_post_processed_ids(client):
    messages = json.dumps([{"role": "user", "content": XSS}])
    r = client.get(
        "/chat",
        params={"tokenizer": "bert-base-uncased", "template": BOS_TEMPLATE, "messages": messages},
    )
    assert r.status_code == 200 and 'data-testid="chat-ids-post"' in r.text
    assert "<script>alert" not in r.text and "<img src=x" not in r.text


# ---- the editor, the result and its errors -------------------------------------------------------
def _form(**fields):
    data = {
        "role": ["system", "user", "assistant"],
        "content": ["Be brief.", "Hi", "Hello!"],
        "tokenizer": "cl100k_base",
        "template_name": "chatml",
        "action": "render",
    }
    data.update(fields)
    return data


def test_the_default_page_renders_a_matching_chat(client):
    """A tokenizer and its own template (Qwen3's): no mismatch warnings on the first screen."""
    r = client.get("/chat")
    assert r.status_code == 200
    assert 'href="/chat"' in r.text  # in the navigation
    assert r.text.count('data-testid="message"') == 3
    assert "&lt;|im_start|&gt;" in r.text and 'data-testid="chat-total"' in r.text
    assert 'data-kind="closed_last_turn"' in r.text


def test_the_editor_buttons_without_javascript(client):
    added = client.post("/chat", data=_form(action="add"))
    assert added.status_code == 200 and added.text.count('data-testid="message"') == 4
    removed = client.post("/chat", data=_form(action="remove-0"))
    assert removed.text.count('data-testid="message"') == 2
    assert (
        'id="content-0" name="content" class="chat-text" rows="2" spellcheck="false">Hi<'
        in removed.text
    )
    moved = client.post("/chat", data=_form(action="down-0"))
    roles = re.findall(r'<option value="(system|user|assistant|tool)" selected>', moved.text)
    assert roles == ["user", "system", "assistant"]
    assert client.post("/chat", data=_form(action="explode-9")).status_code == 422


def test_htmx_gets_the_result_or_the_editor_and_result(client):
    hx = {"HX-Request": "true"}
    result = client.post("/chat", data=_form(), headers=hx)
    assert "<form" not in result.text and 'data-testid="rendered"' in result.text
    assert result.headers["HX-Push-Url"].startswith("/chat?messages=")
    both = client.post("/chat", data=_form(action="add"), headers=hx)
    assert "<form" in both.text and 'data-testid="rendered"' in both.text
    assert "<html" not in both.text


def test_the_result_shows_roles_mask_counts_and_lints(client):
    r = client.post(
        "/chat",
        data=_form(
            add_generation_prompt="true", content=["Be brief.", "Say <|endoftext|>", "Hello!"]
        ),
    )
    assert r.status_code == 200
    assert 'class="role-generation-prompt"' in r.text
    assert 'class="role-assistant gen"' in r.text  # the generation span
    assert 'data-kind="control_token_in_content"' in r.text and "as text:" in r.text
    assert re.search(r"chat-role role-assistant", r.text)
    assert "assistant_masks: " in r.text


def test_a_permalink_round_trips(client):
    r = client.post("/chat", data=_form())
    link = re.search(r'href="(/chat\?messages=[^"]+)" data-testid="permalink"', r.text).group(1)
    again = client.get(link.replace("&amp;", "&"))
    assert again.status_code == 200 and again.text.count('data-testid="message"') == 3
    assert "Hello!" in again.text


def test_errors_are_shown_in_place(client):
    bad_template = client.post("/chat", data=_form(template="x\n{% if %}"))
    assert bad_template.status_code == 422
    assert "the chat template failed at line 2" in bad_template.text
    assert 'id="chat-form"' in bad_template.text  # the form is kept
    bad_tools = client.post("/chat", data=_form(tools="[nope"))
    assert bad_tools.status_code == 422 and "the tools are not valid JSON" in bad_tools.text
    bad_json = client.get("/chat", params={"messages": "{"})
    assert bad_json.status_code == 422 and "not valid JSON" in bad_json.text
    unknown = client.post("/chat", data=_form(tokenizer="nope"))
    assert unknown.status_code == 404 and "unknown tokeniser" in unknown.text


def test_what_the_user_types_renders_as_text(client):
    template = "{{ messages[0].content }}<b>bold?</b>{{ '<i>' }}"
    r = client.post("/chat", data=_form(content=[XSS, XSS, XSS], template=template))
    assert r.status_code == 200
    assert "<script>alert" not in r.text and "<img src=x" not in r.text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in r.text
    assert "<b>bold?</b>" not in r.text and "&lt;b&gt;bold?&lt;/b&gt;" in r.text
    assert "<i>" not in r.text.split('data-testid="rendered"')[1]
    r = client.post("/chat", data=_form(role=[XSS, "user", "assistant"]))
    assert "<script>alert" not in r.text


def test_the_messages_json_keeps_tool_calls_for_the_template(client):
    messages = [
        {"role": "user", "content": "1+1?"},
        {"role": "assistant", "tool_calls": [{"function": {"name": "add", "arguments": {"a": 1}}}]},
    ]
    r = client.get(
        "/chat", params={"messages": json.dumps(messages), "template_name": "chatml_tools"}
    )
    assert r.status_code == 200 and "&lt;tool_call&gt;" in r.text
    posted = client.post(
        "/chat",
        data={
            "role": ["user", "assistant"],
            "content": ["1+1?", ""],
            "extra": ["", json.dumps({"tool_calls": messages[1]["tool_calls"]})],
            "template_name": "chatml_tools",
            "tokenizer": "cl100k_base",
            "action": "add",
        },
    )
    assert posted.status_code == 200 and "&lt;tool_call&gt;" in posted.text
    assert posted.text.count('data-testid="message"') == 3


def test_a_pasted_tokenizer_config_lists_its_templates(client):
    config = json.dumps(
        {
            "chat_template": [
                {"name": "default", "template": "D{{ messages | length }}"},
                {"name": "rag", "template": "R"},
            ]
        }
    )
    r = client.post(
        "/chat", data=_form(config=config, action="update"), headers={"HX-Request": "true"}
    )
    assert r.status_code == 200 and "<form" in r.text
    assert '<optgroup label="From the pasted tokenizer_config.json">' in r.text
    assert '<option value="rag">rag</option>' in r.text
    assert ">D3</span>" in r.text
    picked = client.post("/chat", data=_form(config=config, template_name="rag"))
    assert ">R</span>" in picked.text
    bad = client.post("/chat", data=_form(config="{nope"))
    assert bad.status_code == 422 and "not valid JSON" in bad.text

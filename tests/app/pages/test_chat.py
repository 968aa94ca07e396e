"""/chat, the chat-template page: it opens on a tokenizer and its own template, and its BOS lints
speak of the ids it shows (with the post-processor's additions)."""

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

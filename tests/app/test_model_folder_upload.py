"""A model's folder uploaded as a .zip (tokenizer.json + tokenizer_config.json): it is stored
like any tokenizer file, and its chat template is what /chat and /api/chat use for it unless
another is picked. The bundled Qwen3 carries its own template the same way."""

from __future__ import annotations

import io
import json
import re
import zipfile

import pytest

import tokenizers_core as tc

XSS = "<img src=x onerror=alert(1)>"
TEMPLATE = "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}"


@pytest.fixture(scope="module")
def folder_zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("Qwen3/tokenizer.json", json.dumps(tc.load("qwen3").to_hf_json()))
        zf.writestr("Qwen3/tokenizer_config.json", json.dumps({"eos_token": "<|im_end|>"}))
        zf.writestr("Qwen3/chat_template.jinja", TEMPLATE)
        zf.writestr(f"Qwen3/additional_chat_templates/{XSS}.jinja", "X{{ messages | length }}")
    return out.getvalue()


@pytest.fixture()
def handle(client, folder_zip) -> str:
    r = client.post("/api/tokenizers", files={"file": ("Qwen3.zip", folder_zip)})
    assert r.status_code == 201, r.text
    assert r.json()["format"] == "model_folder"
    return r.json()["tokenizer"]


@pytest.mark.heavy
def test_the_api_renders_with_the_folders_template(client, handle):
    r = client.post(
        "/api/chat", json={"tokenizer": handle, "messages": [{"role": "user", "content": "hi"}]}
    )
    assert r.status_code == 200, r.text
    assert r.json()["text"] == "[user]hi"
    named = client.post(
        "/api/chat",
        json={
            "tokenizer": handle,
            "template_name": XSS,
            "messages": [{"role": "user", "content": "hi"}],
        },
    )
    assert named.json()["text"] == "X1"
    bundled = client.post(
        "/api/chat",
        json={
            "tokenizer": handle,
            "template_name": "chatml",
            "messages": [{"role": "user", "content": "hi"}],
        },
    )
    assert bundled.json()["text"].startswith("<|im_start|>user")


@pytest.mark.heavy
def test_the_page_says_where_the_template_came_from_and_escapes_its_names(client, handle):
    r = client.get("/chat", params={"tokenizer": handle})
    assert r.status_code == 200
    source = re.search(r'data-testid="template-source">([^<]*)', r.text).group(1)
    assert "own chat template (its tokenizer_config.json)" in source
    assert "[user]" in r.text and XSS not in r.text
    assert "&lt;img src=x onerror=alert(1)&gt;" in r.text  # the named template, as text


def test_without_a_template_of_its_own_the_page_falls_back_and_the_api_asks(client):
    page = client.get("/chat", params={"tokenizer": "cl100k_base"})
    assert "The bundled example" in page.text and "&lt;|begin_of_text|&gt;" in page.text
    api = client.post(
        "/api/chat",
        json={"tokenizer": "cl100k_base", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert api.status_code == 422 and "give a chat template" in api.json()["detail"]


def test_the_bundled_qwen3_uses_its_own_template(client):
    r = client.post(
        "/api/chat",
        json={
            "tokenizer": "qwen3",
            "add_generation_prompt": True,
            "messages": [{"role": "user", "content": "hi"}],
        },
    )
    assert r.json()["text"] == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"


@pytest.mark.heavy
def test_the_stored_list_and_the_upload_boxes_lead_to_chat_and_diff(client, handle):
    listing = client.get("/tokenizers").text
    assert f'href="/chat?tokenizer={handle}"' in listing
    assert f'href="/diff?b={handle}"' in listing
    for page in ("/chat", "/diff"):
        assert 'data-testid="upload-box"' in client.get(page).text
    done = client.post(
        "/tokenizers",
        files={"file": ("Qwen3.zip", b"")},
        data={"next": "/diff?a=cl100k_base"},
        follow_redirects=False,
    )
    assert done.status_code in (303, 422)


def test_chat_says_what_the_configs_tokenizer_class_changed(store_client, tmp_path):
    """A byte-level tokenizer.json that splits as GPT-4 does, named GPT2Tokenizer: transformers
    5 splits it by GPT-2's regex; /chat's ids are transformers' and the page says what changed."""
    transformers = pytest.importorskip("transformers")
    trained = tc.train(
        "byte_bpe", ["Hi.\nÇa va? 你好 don't\n"] * 30, vocab_size=300, pattern="cl100k"
    )
    files = {
        "tokenizer.json": json.dumps(trained.to_hf_json()),
        "tokenizer_config.json": json.dumps(
            {"tokenizer_class": "GPT2Tokenizer", "chat_template": TEMPLATE}
        ),
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in files.items():
            zf.writestr(f"m/{name}", content)
            (tmp_path / name).write_text(content)
    r = store_client.post("/api/tokenizers", files={"file": ("m.zip", out.getvalue())})
    assert r.status_code == 201, r.text
    messages = [{"role": "user", "content": "Hi.\nÇa va? 你好 don't"}]
    page = store_client.get(
        "/chat", params={"tokenizer": r.json()["tokenizer"], "messages": json.dumps(messages)}
    )
    note = re.search(r'data-testid="class-note">([^<]*)', page.text).group(1)
    assert "GPT2Tokenizer" in note and "ByteLevel (GPT-2&#39;s regex)" in note
    ids = re.search(r'data-testid="chat-ids">input_ids: ([^<]*)', page.text).group(1)
    theirs = transformers.AutoTokenizer.from_pretrained(str(tmp_path)).apply_chat_template(
        messages, tokenize=True, return_dict=False
    )
    assert [int(i) for i in ids.split()] == list(theirs)
    visualiser = store_client.get("/", params={"tokenizer": r.json()["tokenizer"], "text": ".\n"})
    assert "GPT2Tokenizer" in visualiser.text.split('data-testid="class-note"')[1].split("</p>")[0]

"""The /chat page in a real browser: editing the messages (with and without a full page load),
the result updating as you type, XSS in content and in a pasted template's output staying text,
and the layout at 1280 and 390 px."""

from __future__ import annotations

import json
from urllib.parse import urlencode

XSS = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


def test_editing_the_chat_updates_the_tokens(page, server_url, screenshot_dir):
    page.goto(
        f"{server_url}/chat?" + urlencode({"tokenizer": "cl100k_base", "template_name": "chatml"})
    )
    assert page.locator('[data-testid="message"]').count() == 3
    total = page.locator('[data-testid="chat-total"]').inner_text()
    page.locator("#content-1").fill("What is the capital of France? Answer in one word, please.")
    page.wait_for_function(
        f"() => document.querySelector('[data-testid=chat-total]').textContent !== '{total}'"
    )
    page.get_by_test_id("add-message").click()
    page.wait_for_function("() => document.querySelectorAll('[data-testid=message]').length === 4")
    page.locator("#content-3").fill("And of Italy?")
    page.locator('input[name="add_generation_prompt"]').check()
    page.wait_for_selector('[data-testid="rendered"] .role-generation-prompt')
    assert "And of Italy?" in page.get_by_test_id("rendered").inner_text()
    page.get_by_role("button", name="Move message 4 up").click()
    page.wait_for_function("() => document.querySelector('#content-2').value === 'And of Italy?'")
    page.get_by_role("button", name="Remove message 1").click()
    page.wait_for_function("() => document.querySelectorAll('[data-testid=message]').length === 3")
    assert page.locator(".chat-chips .chat-role.role-user").count() > 0
    assert "messages=" in page.url  # pushed permalink
    page.screenshot(path=str(screenshot_dir / "chat-1280.png"), full_page=True)


def test_the_lints_and_the_narrow_layout(page, server_url, screenshot_dir):
    messages = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Say <|endoftext|> twice"},
        {"role": "assistant", "content": "Done."},
    ]
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(
        f"{server_url}/chat?"
        + urlencode(
            {
                "tokenizer": "cl100k_base",
                "template_name": "llama3",
                "messages": json.dumps(messages),
            }
        )
    )
    kinds = page.locator('[data-testid="lints"] li').evaluate_all(
        "els => els.map(e => e.dataset.kind)"
    )
    assert "control_token_in_content" in kinds and "closed_last_turn" in kinds
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways at 390 px ({width} px wide)"
    page.screenshot(path=str(screenshot_dir / "chat-390.png"), full_page=True)


def test_xss_in_content_and_in_a_pasted_template_is_text(page, server_url, screenshot_dir):
    template = "{{ messages[0].content }}<b>{{ '<svg onload=alert(3)>' }}</b>"
    page.goto(
        f"{server_url}/chat?"
        + urlencode(
            {
                "tokenizer": "cl100k_base",
                "template": template,
                "messages": json.dumps([{"role": "user", "content": XSS}]),
            }
        )
    )
    rendered = page.get_by_test_id("rendered")
    assert XSS in rendered.inner_text() and "<svg onload=alert(3)>" in rendered.inner_text()
    assert page.locator("#main img, #main svg[onload], #main b script").count() == 0
    assert page.locator("#content-0").input_value() == XSS
    page.locator("#content-0").fill(XSS + " again")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=rendered]').textContent.includes('again')"
    )
    assert page.dialogs == []
    page.screenshot(path=str(screenshot_dir / "chat-xss.png"), full_page=True)


def test_a_template_error_is_shown_in_place(page, server_url):
    page.goto(f"{server_url}/chat")
    page.locator("details summary", has_text="Paste a template").click()
    page.locator("#template").fill(
        "line one\n{{ raise_exception('Only user and assistant roles.') }}"
    )
    page.wait_for_selector('[data-testid="chat-error"]')
    assert page.get_by_test_id("chat-error").inner_text() == (
        "the chat template failed at line 2: raise_exception: Only user and assistant roles."
    )
    assert page.locator("#chat-form").count() == 1


def test_a_model_folders_own_template_and_the_upload_box(
    page, server_url, screenshot_dir, tmp_path
):
    """Qwen3 carries its own template (its tokenizer_config.json): /chat uses it and says so; a
    model folder uploaded as a .zip from the page's own upload box comes back with its template."""
    import io
    import zipfile

    import tokenizers_core as tc

    page.goto(f"{server_url}/chat?tokenizer=qwen3")
    source = page.get_by_test_id("template-source").inner_text()
    assert "own chat template" in source and "Qwen3" in source
    rendered = page.get_by_test_id("rendered").inner_text()
    assert "<|im_start|>assistant\n<think>\n\n</think>\n\nParis." in rendered  # Qwen3's own
    page.screenshot(path=str(screenshot_dir / "chat-qwen3-1280.png"), full_page=True)

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("m/tokenizer.json", json.dumps(tc.load("r50k_base").to_hf_json()))
        zf.writestr(
            "m/chat_template.jinja", XSS + "{% for m in messages %}{{ m.role }}|{% endfor %}"
        )
    folder = tmp_path / "model.zip"
    folder.write_bytes(out.getvalue())
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server_url}/chat")
    page.get_by_test_id("upload-box").locator("summary").click()
    page.locator('.tok-upload input[type="file"]').set_input_files(str(folder))
    page.locator('.tok-upload button[type="submit"]').first.click()
    page.wait_for_url("**/chat?**tokenizer=upload-*")
    rendered = page.get_by_test_id("rendered").inner_text()
    assert rendered.startswith(XSS) and rendered.endswith("system|user|assistant|")
    assert page.locator("script:text('alert(2)')").count() == 0
    page.screenshot(path=str(screenshot_dir / "chat-folder-390.png"), full_page=True)

"""What a user sees when the sandbox stops their work: a hostile chat template on /chat and a
tokenizer file whose normaliser amplifies text, each an error on the page, said as text (the
payload inside it is not markup), with the page still usable, at 1400 and 390 px."""

from __future__ import annotations

import json
from urllib.parse import urlencode

XSS = '<img src=x onerror="alert(1)">'
HOSTILE = "{% set l = range(100000)|list %}\n{{ ([l] * 300)|sum(start=[])|length }}" + XSS


def _no_markup_from_the_payload(page) -> None:
    assert page.locator("#main img").count() == 0


def test_a_hostile_template_is_an_error_on_the_page(page, server_url, screenshot_dir):
    messages = [{"role": "user", "content": "Hi"}]
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(
        f"{server_url}/chat?"
        + urlencode(
            {"tokenizer": "cl100k_base", "template": HOSTILE, "messages": json.dumps(messages)}
        )
    )
    error = page.locator(".error, [role=alert]").first
    error.wait_for()
    text = error.inner_text()
    assert "line 2" in text and "multiplied a value" in text, text
    _no_markup_from_the_payload(page)
    page.screenshot(path=str(screenshot_dir / "sandbox-chat-1400.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.locator(".error, [role=alert]").first.wait_for()
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways at 390 px ({width} px wide)"
    page.screenshot(path=str(screenshot_dir / "sandbox-chat-390.png"), full_page=True)
    # the same page with an ordinary template works at once
    page.goto(
        f"{server_url}/chat?"
        + urlencode(
            {
                "tokenizer": "cl100k_base",
                "template_name": "chatml",
                "messages": json.dumps(messages),
            }
        )
    )
    assert "Hi" in page.get_by_test_id("rendered").inner_text()


def test_an_amplifying_normaliser_is_an_error_naming_it(page, server_url, screenshot_dir, tmp_path):
    """Issue 27, item 3: a tokenizer.json of 20 Replace "a" -> "aa", uploaded, then used."""
    data = {
        "version": "1.0",
        "added_tokens": [],
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": None,
        "truncation": None,
        "padding": None,
        "normalizer": {
            "type": "Sequence",
            "normalizers": [{"type": "Replace", "pattern": {"String": "a"}, "content": "aa" + XSS}]
            * 20,
        },
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]"},
    }
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data))
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/?text=aaaa")
    page.locator('[data-testid="upload-box"] summary').click()
    form = page.locator('[data-testid="tokenizer-upload"]')
    form.locator("#tok-file").set_input_files(str(path))
    form.locator('button[type="submit"]').click()
    page.wait_for_url("**tokenizer=upload-*", timeout=60_000)
    handle = page.url.split("tokenizer=")[1].split("&")[0]
    error = page.locator(".error, [role=alert]").first
    error.wait_for()
    assert "Replace" in error.inner_text() and "20 times" in error.inner_text(), error.inner_text()
    _no_markup_from_the_payload(page)
    page.screenshot(path=str(screenshot_dir / "sandbox-normaliser-1400.png"), full_page=True)
    # /tax, whose columns are every stored upload by default, leaves this one out and says why
    page.goto(f"{server_url}/tax", timeout=180_000)
    note = page.get_by_test_id("tax-left-out")
    assert "Replace" in note.inner_text() and "cannot encode" in note.inner_text()
    _no_markup_from_the_payload(page)
    page.screenshot(path=str(screenshot_dir / "sandbox-tax-left-out-1400.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshot_dir / "sandbox-tax-left-out-390.png"))
    page.goto(f"{server_url}/?" + urlencode({"tokenizer": handle, "text": "aaaa"}))
    page.locator(".error, [role=alert]").first.wait_for()
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways at 390 px ({width} px wide)"
    page.screenshot(path=str(screenshot_dir / "sandbox-normaliser-390.png"), full_page=True)

"""/audit in a real browser: the job's progress polls itself into the table, the category and
text filters swap the table, an id opens /vocab; the layout at 1280 and 390 px; token strings
and the tokenizer parameter never run as HTML."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

pytestmark = pytest.mark.slow

XSS = "<img src=x onerror=alert(1)>"


def test_audit_polls_then_filters_and_links_to_vocab(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/audit?tokenizer=bert-base-uncased")
    page.wait_for_selector('[data-testid="audit-table"]', timeout=120_000)  # after the job
    counts = page.locator('[data-testid="audit-counts"]')
    assert "Never produced" in counts.inner_text()
    page.screenshot(path=str(screenshot_dir / "audit-1280.png"), full_page=True)
    page.screenshot(path=str(screenshot_dir / "audit-1280-top.png"))
    page.locator("#category").select_option("never")
    page.wait_for_selector('tr[data-category="never"]')
    assert page.locator('tbody tr[data-category="ok"]').count() == 0
    page.wait_for_url("**category=never**")
    page.locator("#q").fill("unused99")
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=audit-table] tbody tr').length === 5"
    )
    page.locator('[data-testid="audit-table"] tbody tr td a').first.click()
    page.wait_for_url("**/vocab?**")
    assert page.locator('[data-testid="vocab-table"]').count() == 1


def test_audit_reencoding_chips_and_narrow_layout(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server_url}/audit?tokenizer=bert-base-uncased&category=unreachable")
    page.wait_for_selector('tr[data-category="unreachable"] .chip', timeout=120_000)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways at 390 px ({width} px wide)"
    page.screenshot(path=str(screenshot_dir / "audit-390.png"), full_page=True)
    page.screenshot(path=str(screenshot_dir / "audit-390-top.png"))


def test_audit_escapes_token_strings_and_the_parameter(page, server_url):
    vocab = {"[UNK]": 0, XSS: 1, "ok": 2}
    data = json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": {"type": "WhitespaceSplit"},
            "post_processor": None,
            "decoder": None,
            "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
        }
    ).encode()
    up = page.request.post(
        f"{server_url}/api/tokenizers",
        multipart={
            "file": {"name": "tokenizer.json", "mimeType": "application/json", "buffer": data}
        },
    )
    handle = up.json()["tokenizer"]
    page.goto(f"{server_url}/audit?tokenizer={handle}")
    page.wait_for_selector('[data-testid="audit-table"]')
    shown = XSS.replace(" ", "\u00b7")  # spaces made visible, as everywhere
    assert shown in page.locator('[data-testid="audit-table"]').inner_text()
    page.goto(f"{server_url}/audit?tokenizer={quote(XSS)}")
    assert page.locator('[role="alert"]').count() >= 1
    assert page.dialogs == []

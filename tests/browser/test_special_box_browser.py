"""The "special tokens in text" box in a real browser (issue 20, item 13): switching to a
tokeniser that reads no special token from the text disables it, with its reason, and
switching back enables it; ticking it changes the chips of a tokeniser with added specials."""

from __future__ import annotations

from urllib.parse import quote


def test_the_box_follows_the_tokeniser(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/?tokenizer=bert-base-uncased&text={quote('[MASK] hi')}")
    box = page.locator("#special-box input")
    assert box.is_enabled() and not box.is_checked()
    assert page.locator("#result .chip .tok").all_inner_texts()[1:4] == ["[", "MASK", "]"]
    box.check()
    page.wait_for_function("() => document.querySelectorAll('#result .chip').length === 4")
    assert page.locator("#result .chip .tok").all_inner_texts()[1] == "[MASK]"
    page.select_option("#tokenizer", "char")
    page.wait_for_selector("#special-why")
    assert page.locator("#special-box input").is_disabled()
    assert "reads no special tokens" in page.locator("#special-why").inner_text()
    page.screenshot(path=str(screenshot_dir / "special-box-disabled.png"), full_page=True)
    page.select_option("#tokenizer", "cl100k_base")
    page.wait_for_selector("#special-why", state="detached")
    assert page.locator("#special-box input").is_enabled()

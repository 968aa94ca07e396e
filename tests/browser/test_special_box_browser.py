"""The "special tokens in text" switch in a real browser: left at its default, BERT's typed
[MASK] is one special token (as Hugging Face reads it); "ordinary text" splits it; switching to
a tokeniser that reads no special token from the text disables the switch, with its reason,
and switching back enables it; cl100k's default refuses a typed <|endoftext|>, as tiktoken's
encode does, and "read as special tokens" reads it."""

from __future__ import annotations

from urllib.parse import quote


def test_the_switch_follows_the_tokeniser(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/?tokenizer=bert-base-uncased&text={quote('[MASK] hi')}")
    switch = page.locator("#special")
    assert switch.is_enabled() and switch.input_value() == ""
    assert page.locator("#result .chip").all_inner_texts()[1] == "[MASK]"
    page.select_option("#special", "false")
    page.wait_for_function("() => document.querySelectorAll('#result .chip').length === 6")
    assert page.locator("#result .chip").all_inner_texts()[1:4] == ["[", "mask", "]"]
    page.select_option("#tokenizer", "char")
    page.wait_for_selector("#special-why")
    assert page.locator("#special").is_disabled()
    assert "reads no special tokens" in page.locator("#special-why").inner_text()
    page.screenshot(path=str(screenshot_dir / "special-box-disabled.png"), full_page=True)
    page.select_option("#tokenizer", "cl100k_base")
    page.wait_for_selector("#special-why", state="detached")
    assert page.locator("#special").is_enabled()


def test_tiktokens_refusal_and_the_way_out(page, server_url, screenshot_dir):
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{server_url}/?tokenizer=cl100k_base&text={quote('a<|endoftext|>')}")
        assert "tiktoken's encode refuses" in page.locator("#result .error").inner_text()
        assert "refused (tiktoken)" in page.locator("#special").inner_text()
        page.screenshot(path=str(screenshot_dir / f"special-refused-{width}.png"), full_page=True)
    page.select_option("#special", "true")
    page.wait_for_function("() => document.querySelectorAll('#result .chip.special').length === 1")
    assert page.locator("#result .chip").all_inner_texts() == ["a", "<|endoftext|>"]

"""Special-token controls and the token budget in a real browser: the "add BOS/EOS"
box follows the tokenizer (disabled with its reason, enabled again) and changes BERT's chips;
the paste-ids panel decodes as you type and shows an unknown id in place; "split at N tokens"
draws the cut; nothing typed in the text or the ids box runs as script. Screenshots at 1280
and 390 px wide."""

from __future__ import annotations

from urllib.parse import quote

XSS = "<img src=x onerror=alert(1)><script>alert(2)</script>"


def chips(page) -> list[str]:
    return page.locator("#result .chip").all_inner_texts()


def test_bos_box_follows_the_tokenizer(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/?tokenizer=bert-base-uncased&text={quote('hi there')}")
    box = page.locator("#bos-box input[type=checkbox]")
    assert box.is_enabled() and box.is_checked()
    assert chips(page) == ["[CLS]", "hi", "there", "[SEP]"]
    assert (
        page.locator("[data-testid=bos-what]").inner_text()
        == "Adds [CLS] before the text and [SEP] after it."
    )
    page.screenshot(path=str(screenshot_dir / "specials-bos-bert-1280.png"))
    box.uncheck()
    page.wait_for_function("() => document.querySelectorAll('#result .chip').length === 2")
    assert "bos=false" in page.url
    page.select_option("#tokenizer", "cl100k_base")
    page.wait_for_selector("#bos-why")
    assert page.locator("#bos-box input[type=checkbox]").is_disabled()
    assert "adds no special tokens" in page.locator("#bos-why").inner_text()
    page.select_option("#tokenizer", "bert-base-uncased")
    page.wait_for_selector("#bos-why", state="detached")
    page.wait_for_function("() => document.querySelectorAll('#result .chip').length === 4")
    assert page.locator("#bos-box input[type=checkbox]").is_checked()  # the default again


def test_paste_ids_and_budget(page, server_url, screenshot_dir):
    text = "Hello big world, a 🦜 and " + XSS
    page.goto(f"{server_url}/?tokenizer=cl100k_base&text={quote(text)}")
    page.locator("#ids-panel summary").click()
    page.fill("#ids-box", "9906, 1917 100257")
    page.wait_for_selector("[data-testid=ids-decoded]")
    assert page.locator("[data-testid=ids-decoded]").inner_text() == "Hello·world<|endoftext|>"
    assert page.locator("[data-testid=ids-decoded-plain]").inner_text() == "Hello·world"
    assert page.locator("[data-testid=ids-chips] .chip").count() == 3
    page.fill("#budget", "6")  # the 6th token ends inside the parrot: the cut moves back
    page.wait_for_selector("[data-testid=budget-inside]")
    assert "end at character 19" in page.locator("[data-testid=budget-cut]").inner_text()
    assert "budget=6" in page.url
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(screenshot_dir / f"specials-{width}.png"), full_page=True)
    page.fill("#ids-box", "9906 999999999 " + XSS)
    page.wait_for_selector("[data-testid=ids-error]")
    page.fill("#ids-box", "9906 999999999")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=ids-error]')"
        ".textContent.includes('999999999 is not in the vocabulary')"
    )
    page.screenshot(path=str(screenshot_dir / "specials-ids-error-390.png"), full_page=True)
    assert page.dialogs == []
    assert page.locator("#result img[src=x]").count() == 0


def test_compare_bos_box(page, server_url, screenshot_dir):
    cols = "&col=bert-base-uncased&col=cl100k_base"
    page.goto(f"{server_url}/compare?text={quote('hi there')}{cols}")
    first = page.locator(".compare-col").first
    page.wait_for_function("() => document.querySelector('.compare-col .chip') !== null")
    assert first.locator(".chip").all_inner_texts() == ["[CLS]", "hi", "there", "[SEP]"]
    page.locator("#bos-box input[type=checkbox]").uncheck()
    page.wait_for_function(
        "() => document.querySelector('.compare-col').querySelectorAll('.chip').length === 2"
    )
    assert "bos=false" in page.url
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(screenshot_dir / f"specials-compare-{width}.png"), full_page=True)
    page.reload()  # the permalink keeps the box off
    assert not page.locator("#bos-box input[type=checkbox]").is_checked()
    assert page.locator(".compare-col").first.locator(".chip").count() == 2
    page.locator("#bos-box input[type=checkbox]").check()  # on again: one value in the address
    page.wait_for_function(
        "() => document.querySelector('.compare-col').querySelectorAll('.chip').length === 4"
    )
    assert "bos=true" in page.url and "bos=false" not in page.url

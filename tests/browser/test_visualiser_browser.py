"""The visualiser in a real browser: typing, switching tokenisers, hovering, XSS."""

from __future__ import annotations

from urllib.parse import quote


def token_texts(page) -> list[str]:
    """Each chip's token: its `tok` span, or (a slim chip: no ids, no mark) its own text."""
    return page.evaluate(
        "() => Array.from(document.querySelectorAll('#result .chip'))"
        ".map(c => (c.querySelector('.tok') || c).innerText)"
    )


def test_typing_updates_the_chips(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/?tokenizer=word&text=")
    assert token_texts(page) == []
    page.locator("#text").fill("")
    page.locator("#text").press_sequentially("Hello there, world", delay=10)
    page.wait_for_function("() => document.querySelectorAll('#result .chip').length === 4")
    assert token_texts(page) == ["Hello", "there", ",", "world"]
    # the URL is a permalink of the state
    assert "text=Hello+there%2C+world" in page.url or "text=Hello%20there" in page.url
    page.screenshot(path=str(screenshot_dir / "visualiser-typing.png"), full_page=True)


def test_switching_tokeniser_moves_boundaries(page, server_url):
    page.goto(f"{server_url}/?tokenizer=word&text={quote('Dr. Who left. Then he came.')}")
    n_words = len(token_texts(page))
    page.select_option("#tokenizer", "sentence")
    page.wait_for_function("() => document.querySelectorAll('#result .chip').length === 2")
    assert token_texts(page) == ["Dr.·Who·left.", "Then·he·came."]
    assert n_words > 2


POP = '[data-testid="chip-pop"]'


def popover_text(page) -> str:
    """The popover's facts, once they have come (a small POST per chip)."""
    facts = page.locator(f'{POP} [data-testid="chip-facts"]')
    facts.wait_for()
    return facts.inner_text()


def test_hovering_a_chip_highlights_its_span_and_opens_its_popover(
    page, server_url, screenshot_dir
):
    page.goto(f"{server_url}/?tokenizer=word&text={quote('naïve café')}")
    chip = page.locator("#result .chip").nth(1)
    chip.hover()
    said = popover_text(page)
    assert "offsets 6–10" in said and "bytes 63 61 66 C3 A9" in said
    assert chip.get_attribute("aria-describedby") == "chip-pop"
    highlighted = page.locator(".mirror > .hl").all_inner_texts()
    assert highlighted == ["café"]
    page.screenshot(path=str(screenshot_dir / "visualiser-hover.png"), full_page=True)
    page.mouse.move(5, 5)  # away: the popover closes
    page.wait_for_selector(POP, state="hidden")


def test_keyboard_focus_opens_the_popover_and_enter_reaches_its_links(page, server_url):
    page.goto(f"{server_url}/?tokenizer=cl100k_base&text=ab+cd")
    chip = page.locator("#result .chip").first
    chip.focus()
    assert "id " in popover_text(page)
    page.keyboard.press("Enter")  # into the popover's first link
    page.wait_for_function("() => document.activeElement.closest('#chip-pop') !== null")
    assert "how was it built?" in page.evaluate("() => document.activeElement.textContent")
    page.keyboard.press("Escape")  # closed, and back on the chip
    page.wait_for_selector(POP, state="hidden")
    assert page.evaluate("() => document.activeElement === document.querySelector('#result .chip')")
    page.locator("#result .chip").nth(1).focus()  # the next chip's facts replace them
    page.wait_for_function(
        "() => document.querySelector('#chip-pop [data-testid=chip-facts]')?.dataset.i === '1'"
    )


def test_the_popover_at_desktop_and_phone_widths(browser, server_url, screenshot_dir):
    """The popover stays on the screen at both widths (a tap opens it on a phone)."""
    text = "The tokenization handles naïve cafés, 東京 and 👍 too."
    for width, height in ((1400, 900), (390, 844)):
        context = browser.new_context(
            viewport={"width": width, "height": height}, has_touch=width < 500
        )
        page = context.new_page()
        page.goto(f"{server_url}/?tokenizer=cl100k_base&text={quote(text)}")
        chip = page.locator("#result .chip").nth(6)
        chip.tap() if width < 500 else chip.hover()
        assert "bytes" in popover_text(page)
        box = page.locator(POP).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(screenshot_dir / f"visualiser_popover_{width}.png"))
        context.close()


def test_xss_payloads_render_as_text(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/?tokenizer=word&text=safe")
    payload = "<img src=x onerror=alert(1)></textarea><script>alert(2)</script>"
    page.locator("#text").fill(payload)
    page.locator("#text").dispatch_event("input")
    page.wait_for_function(
        "() => document.querySelector('#result .mirror') && "
        "document.querySelector('#result .mirror').textContent.includes('onerror')"
    )
    assert page.locator("#result img").count() == 0
    assert page.locator("#result script").count() == 0
    assert "<img·src=x·onerror=alert(1)>" in page.locator("#result .mirror").inner_text()
    # the slim chips hold their text bare (no span): still text
    assert "".join(token_texts(page)).startswith("<img")
    # a permalink with the payload is just as inert
    page.goto(f"{server_url}/?tokenizer=char&text={quote(payload)}")
    assert page.locator("#text").input_value() == payload
    page.wait_for_timeout(200)
    assert page.dialogs == []
    page.screenshot(path=str(screenshot_dir / "visualiser-xss.png"), full_page=True)


def test_bad_regex_shows_error_and_keeps_input(page, server_url):
    page.goto(f"{server_url}/?tokenizer=regex&pattern={quote('(a')}&text=keep")
    assert "invalid" in page.locator("#result .error").inner_text().lower()
    assert page.locator("#text").input_value() == "keep"
    page.locator("#pattern").fill(r"\w")
    page.wait_for_function("() => document.querySelectorAll('#result .chip').length === 4")


def test_phone_width_layout(browser, server_url, screenshot_dir):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page = context.new_page()
    page.goto(f"{server_url}/")
    page.screenshot(path=str(screenshot_dir / "visualiser-phone.png"), full_page=True)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, "the page scrolls sideways on a phone"
    context.close()


def test_pasting_a_long_text_works_and_shows_progress(browser, server_url, screenshot_dir):
    """40k ASCII characters (a URL of 40 KB failed with "Invalid HTTP request received"), then
    5k CJK characters: both tokenised, the URL no longer holds the text, a note says so."""
    for width, height in ((1400, 900), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.goto(f"{server_url}/?tokenizer=cl100k_base")
        for text, name in (
            ("The cat sat on the mat. " * 1700, "ascii"),
            ("東京都の天気は晴れです。" * 420, "cjk"),
        ):
            page.locator("#text").fill(text)
            page.wait_for_selector(
                f'[data-testid="char-count"]:text-is("{len(text):,}")', timeout=30_000
            )
            assert page.locator('[data-testid="no-permalink"]').count() == 1
            assert page.locator(".error").count() == 0
            shown = page.locator('[data-testid="token-count"]').inner_text()
            assert int(shown.replace(",", "")) > 1000
            assert len(page.url) < 2000
            page.screenshot(path=str(screenshot_dir / f"visualiser_long_{name}_{width}.png"))
        page.get_by_role("button", name="Make a permalink").click()
        page.wait_for_url("**stored=*")
        assert page.locator('[data-testid="no-permalink"]').count() == 0
        assert page.locator('[data-testid="char-count"]').inner_text() == f"{420 * 12:,}"
        page.locator("#text").fill("short again")
        page.wait_for_url("**text=short+again*")
        context.close()


def _clipboard_once_it_holds(page, needle: str, seconds: float = 15.0) -> str:
    """The clipboard's text once it contains `needle` (a copy fetches its text first: the
    clipboard changes when that answer comes). `wait_for_function` cannot wait on the
    clipboard: its promise is truthy at once."""
    import time

    deadline = time.monotonic() + seconds
    while True:
        text = page.evaluate("navigator.clipboard.readText()")
        if needle in text or time.monotonic() > deadline:
            return text
        page.wait_for_timeout(50)


def test_copy_buttons_copy_ids_tokens_and_json(browser, server_url, screenshot_dir):
    import json

    for width, height in ((1400, 900), (390, 844)):
        context = browser.new_context(
            viewport={"width": width, "height": height},
            permissions=["clipboard-read", "clipboard-write"],
        )
        page = context.new_page()
        page.goto(f"{server_url}/?tokenizer=cl100k_base&text=Hello+world")
        page.get_by_role("button", name="copy ids").click()
        page.wait_for_selector("button:text('copied ✓')")
        assert json.loads(page.evaluate("navigator.clipboard.readText()")) == [9906, 1917]
        page.get_by_role("button", name="copy tokens").click()
        assert json.loads(_clipboard_once_it_holds(page, "world")) == ["Hello", "Ġworld"]
        page.get_by_role("button", name="copy JSON").click()
        data = json.loads(_clipboard_once_it_holds(page, "offsets"))
        assert data["tokenizer"] == "cl100k_base" and data["offsets"] == [[0, 5], [5, 11]]
        page.locator(".copy-buttons").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot_dir / f"visualiser_copy_{width}.png"))
        context.close()


def test_the_fingerprint_opens_beside_the_tokenizer(page, server_url, screenshot_dir):
    """Opening the fingerprint fetches the four hashes once; they wrap on a phone."""
    page.goto(f"{server_url}/?tokenizer=o200k_base&text={quote('Hello, world!')}")
    page.locator("[data-testid=fingerprint] summary").click()
    pre = page.locator("[data-testid=fp-pre]")
    pre.wait_for()
    assert "gpt-4o" in pre.inner_text()
    assert len(page.locator("[data-testid=fp-behaviour]").inner_text()) == 64
    for width in (1400, 390):
        page.set_viewport_size({"width": width, "height": 900})
        box = page.locator("[data-testid=fingerprint-hashes]").bounding_box()
        assert box is not None and box["x"] + box["width"] <= width  # no sideways scroll
        page.locator("[data-testid=count]").screenshot(
            path=str(screenshot_dir / f"visualiser-fingerprint-{width}.png")
        )

"""/tokenizations in a real browser: type a text and watch the count, the lattice and the samples
change; check pasted ids; heal a prompt; nothing a user types runs; the page fits a phone.
Screenshots at 1400 and 390 px go to $TOKVIS_SCREENSHOTS (look at them)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

pytestmark = pytest.mark.slow

XSS = "<img src=x onerror=alert(1)><script>alert(2)</script>"


def test_typing_a_text_recounts_and_redraws(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/tokenizations?{urlencode({'tokenizer': 'cl100k_base'})}")
    assert page.get_by_test_id("tok-count-value").inner_text() == "1,377,334"
    assert page.locator("[data-testid=tok-lattice] path.arc-path").count() == 5  # un|bel|ie...
    page.screenshot(path=str(screenshot_dir / "tokenizations-1400.png"), full_page=True)
    page.get_by_test_id("tok-text").fill("Hello world")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=tok-count-value]').textContent === '336'"
    )
    assert "text=Hello%20world" in page.url  # a permalink
    page.get_by_test_id("tok-text").fill(XSS)
    page.wait_for_function(
        "() => document.querySelector('[data-testid=tok-count-value]').textContent !== '336'"
    )
    assert page.dialogs == [] and page.locator("img[src=x]").count() == 0
    assert XSS in page.get_by_test_id("tok-text").input_value()


def test_a_sample_is_checked_and_a_prompt_healed(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 1400, "height": 900})
    query = {"tokenizer": "cl100k_base", "text": "Hello world", "prompt": "The quick bro"}
    page.goto(f"{server_url}/tokenizations?{urlencode(query)}")
    page.get_by_test_id("tok-samples").get_by_role("link", name="check").first.click()
    page.wait_for_selector("[data-testid=tok-check-verdict]")
    verdict = page.get_by_test_id("tok-check-verdict").inner_text()
    assert verdict.startswith("Not canonical: it first breaks at token")
    assert page.locator("[data-testid=tok-check] .chip.differs").count() >= 1
    allowed = page.get_by_test_id("tok-allowed").locator(".tok").all_inner_texts()
    assert allowed and all(t.startswith("·bro") for t in allowed)
    page.get_by_test_id("tok-check").screenshot(
        path=str(screenshot_dir / "tokenizations-check-1400.png")
    )


def test_a_phone_and_a_long_text(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 390, "height": 844})
    text = "Tokenisation is the first thing a model does. " * 40  # 1,880 bytes
    page.goto(f"{server_url}/tokenizations?{urlencode({'tokenizer': 'o200k_base', 'text': text})}")
    shown = page.get_by_test_id("tok-count-value").inner_text()
    assert shown.startswith("≈ ") and "× 10^" in shown
    assert "the first 64 bytes drawn" in page.locator("#results").inner_text()
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.screenshot(path=str(screenshot_dir / "tokenizations-390.png"), full_page=False)
    page.get_by_test_id("tok-text").fill(text + "x" * 200)
    page.wait_for_selector("[data-testid=tok-error]")
    assert "at most 2,000" in page.get_by_test_id("tok-error").inner_text()


def test_the_lattice_uses_the_width_of_its_panel(page, server_url):
    """A short text's lattice is drawn across its whole panel (it was drawn at its own small
    size at the left of a wide one), no taller than 368 px; a long one keeps its size and
    scrolls sideways."""
    page.set_viewport_size({"width": 1280, "height": 900})
    for text, wide in (("Hello world", False), ("Tokenisation is the first thing. " * 4, True)):
        query = {"tokenizer": "cl100k_base", "text": text}
        page.goto(f"{server_url}/tokenizations?{urlencode(query)}")
        svg = page.get_by_test_id("tok-lattice")
        box = page.locator(".lattice-scroll")
        drawn, room = svg.bounding_box(), box.evaluate("e => e.clientWidth")
        assert drawn["width"] >= room - 1 and drawn["height"] <= 368.5, (text, drawn, room)
        assert (box.evaluate("e => e.scrollWidth") > room) == wide, text

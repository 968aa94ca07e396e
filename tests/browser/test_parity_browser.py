"""The parity page in a real browser: it opens on Qwen3's example, the text whose runtimes part
is marked (its llama.cpp cell outlined, the first mismatch explained), nothing a user types
runs, and the page fits a phone (the table scrolls inside its own box). Screenshots at 1400 and
390 px go to $TOKVIS_SCREENSHOTS (look at them)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

pytestmark = pytest.mark.slow

XSS = "<img src=x onerror=alert(1)> <script>alert(2)</script>"


def test_the_example_marks_where_the_runtimes_part(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{server_url}/parity")
    assert page.get_by_test_id("verdict").get_attribute("data-ok") == "false"
    assert page.get_by_test_id("first-mismatch").get_attribute("data-rule") == "normaliser"
    mismatch = page.locator("[data-testid=parity-row][data-same=false]").first
    assert mismatch.locator("td[data-runtime='llama.cpp'].parity-differs").count() == 1
    assert mismatch.locator("td[data-runtime='tokenizers'].parity-differs").count() == 0
    assert mismatch.locator("td[data-runtime='llama.cpp'] .chip.differs").count() >= 1
    page.screenshot(path=str(screenshot_dir / "parity-1400.png"), full_page=True)


def test_typed_texts_stay_text_and_a_phone_screen(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server_url}/parity")
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.screenshot(path=str(screenshot_dir / "parity-390.png"), full_page=False)
    page.get_by_test_id("first-mismatch").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "parity-390-mismatch.png"), full_page=False)
    page.get_by_test_id("parity-table").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "parity-390-table.png"), full_page=False)
    page.select_option("#tokenizer", "bert-base-uncased")
    page.wait_for_function(
        "() => location.search.includes('tokenizer=bert-base-uncased')"
        " && document.querySelector('[data-testid=verdict]')?.dataset.ok === 'true'"
    )
    page.locator("#texts").fill("Hello\n" + XSS)
    page.get_by_role("button", name="Compare runtimes").click()
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=parity-row]').length === 2"
    )
    assert page.dialogs == [] and page.locator("img[src=x]").count() == 0
    assert "texts=" in page.url  # a permalink
    page.goto(f"{server_url}/parity?{urlencode({'tokenizer': 'gpt2', 'texts': '<|endoftext|>'})}")
    assert page.get_by_test_id("first-mismatch").get_attribute("data-rule") == "refused"
    assert page.get_by_test_id("refused").count() == 1

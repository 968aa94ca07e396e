"""The diff page in a real browser: pick two tokenisers and a text source, read the verdict and
the first divergences; nothing a user types runs; the page fits a phone. Screenshots at 1280
and 390 px go to $TOKVIS_SCREENSHOTS (look at them)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

pytestmark = pytest.mark.slow

XSS = "<img src=x onerror=alert(1)> <script>alert(2)</script>"


def test_pasting_text_shows_each_divergence_with_its_stage(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/diff?{urlencode({'a': 'cl100k_base', 'b': 'o200k_base'})}")
    assert "% identical" in page.get_by_test_id("verdict").inner_text()
    page.screenshot(path=str(screenshot_dir / "diff-stress-1280.png"), full_page=False)
    page.get_by_test_id("diff-row").first.screenshot(path=str(screenshot_dir / "diff-row-1280.png"))
    page.locator('input[name="source"][value="text"]').check()
    page.locator("#text").fill("I don't know\nthe same line, numbered differently\n" + XSS)
    page.wait_for_function("() => document.querySelectorAll('[data-testid=diff-row]').length === 3")
    first = page.get_by_test_id("diff-row").first
    assert first.get_attribute("data-stage") == "pre-tokenizer split"
    assert first.locator(".chip.differs").count() == 2  # one per tokeniser
    assert "page=" not in page.url and "source=text" in page.url  # a permalink
    assert page.dialogs == [] and page.locator("img[src=x]").count() == 0
    page.screenshot(path=str(screenshot_dir / "diff-text-1280.png"), full_page=True)


def test_identical_tokenisers_and_a_phone_screen(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server_url}/diff?{urlencode({'a': 'gpt2', 'b': 'r50k_base'})}")
    assert page.get_by_test_id("verdict").inner_text() == "Identical"
    page.goto(f"{server_url}/diff?{urlencode({'a': 'cl100k_base', 'b': 'bert-base-uncased'})}")
    assert page.get_by_test_id("diff-row").count() == 20
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.screenshot(path=str(screenshot_dir / "diff-390.png"), full_page=False)
    page.get_by_test_id("diff-row").first.screenshot(path=str(screenshot_dir / "diff-row-390.png"))
    page.get_by_role("link", name="next ▶").click()
    page.wait_for_function("() => location.search.includes('page=2')")
    assert "page 2" in page.locator("nav.stepper .count").inner_text()

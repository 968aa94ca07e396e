"""The training-mix page in a real browser: pick a BPE tokenizer, watch the job's progress, read
the bar chart and its residual; nothing a user types runs; the page fits a phone. Screenshots at
1280 and 390 px go to $TOKVIS_SCREENSHOTS (look at them)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

pytestmark = pytest.mark.slow

XSS = "<img src=x onerror=alert(1)><script>alert(2)</script>"


def test_picking_a_tokenizer_runs_the_estimate_and_draws_it(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/audit/mix")
    page.select_option("#tokenizer", "botchan_en_bpe_1000")
    page.get_by_role("button", name="Estimate the mix").click()
    page.wait_for_selector("[data-testid=mix-progress], [data-testid=mix-chart]")
    page.wait_for_selector("[data-testid=mix-chart]", timeout=240_000)
    assert "tokenizer=botchan_en_bpe_1000" in page.url  # a permalink
    first = page.locator("[data-testid=mix-chart] g.bar text.label").first.text_content()
    assert first == "English"  # a tokenizer trained on an English novel
    assert page.get_by_test_id("mix-residual").inner_text()
    page.screenshot(path=str(screenshot_dir / "audit-mix-1280.png"), full_page=True)


def test_the_estimate_fits_a_phone(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server_url}/audit/mix?{urlencode({'tokenizer': 'botchan_en_bpe_1000'})}")
    page.wait_for_selector("[data-testid=mix-chart]", timeout=240_000)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.screenshot(path=str(screenshot_dir / "audit-mix-390.png"), full_page=True)


def test_what_a_user_types_is_shown_as_text(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/audit/mix?{urlencode({'tokenizer': XSS})}")
    error = page.get_by_test_id("mix-error").inner_text()
    assert "unknown tokeniser" in error and "<img" in error
    page.goto(f"{server_url}/audit/mix?{urlencode({'tokenizer': 'bert-base-uncased'})}")
    assert "has no merge list" in page.get_by_test_id("mix-error").inner_text()
    assert page.dialogs == [] and page.locator("img[src=x]").count() == 0
    page.screenshot(path=str(screenshot_dir / "audit-mix-error-1280.png"), full_page=False)

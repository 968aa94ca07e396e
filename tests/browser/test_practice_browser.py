"""Practice mode in a real browser: answer by clicking, htmx swaps, the URL keeps the score."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_practise_bpe_training(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/bpe/train?step=0")
    page.get_by_test_id("practice-link").click()
    page.wait_for_selector('[data-testid="practice-form"]')
    page.screenshot(path=str(screenshot_dir / "practice_question.png"), full_page=True)
    page.get_by_role("button", name="e s", exact=True).click()
    page.wait_for_selector('[data-testid="feedback"]')
    assert "answer=e" in page.url and "practice=1" in page.url
    assert page.get_by_test_id("feedback").inner_text().startswith("✓ Right")
    assert page.get_by_test_id("score").inner_text() == "1"
    page.get_by_test_id("next-question").click()
    page.wait_for_url("**step=1*")
    page.get_by_role("button", name="es t", exact=True).click()  # loses the tie-break
    page.wait_for_selector('[data-testid="feedback"]')
    assert page.get_by_test_id("feedback").inner_text().startswith("✗ Close")
    assert page.get_by_test_id("streak").inner_text() == "0"
    page.screenshot(path=str(screenshot_dir / "practice_feedback.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshot_dir / "practice_feedback_narrow.png"), full_page=True)


def test_practice_without_javascript(browser, server_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server_url}/unigram/lattice?practice=1&step=4")
    page.get_by_role("button", name="4 (s)").click()
    page.wait_for_url("**answer=4*")
    assert page.get_by_test_id("feedback").inner_text().startswith("✓ Right")
    page.get_by_test_id("next-question").click()
    page.wait_for_url("**step=5*")
    assert "score=1" in page.url
    context.close()

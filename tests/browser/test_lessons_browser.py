"""Worked lessons in a real browser: open one from the index, step with the keyboard."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_lesson_steps_with_the_keyboard(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/lessons")
    page.get_by_role("link", name="BPE training on low, lower, newest, widest").click()
    page.wait_for_url("**/lessons/bpe-sennrich")
    text = page.locator('[data-testid="lesson-text"]')
    assert "4 distinct words" in text.inner_text()
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**step=1*")
    assert text.inner_text().startswith("Merge 1: e + s → es, 9 occurrences")
    for k in (2, 3):
        page.keyboard.press("ArrowRight")
        page.wait_for_url(f"**step={k}*")
    page.screenshot(path=str(screenshot_dir / "lesson_bpe.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshot_dir / "lesson_bpe_narrow.png"), full_page=True)


@pytest.mark.parametrize(
    "slug, step",
    [
        ("unigram-cats", 5),
        ("wordpiece-encode", 6),
        ("sentences", 9),
        ("byte-bpe-aabaa", 3),
        ("wordpiece-score", 2),
    ],
)
def test_lesson_panels_look_right(page, server_url, screenshot_dir, slug, step):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/lessons/{slug}?step={step}")
    assert page.locator('[data-testid="lesson-text"]').inner_text()
    page.screenshot(path=str(screenshot_dir / f"lesson_{slug}.png"), full_page=True)


def test_the_last_step_leads_on(page, server_url, screenshot_dir):
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{server_url}/lessons/wordpiece-score?step=99")
        nxt = page.locator('[data-testid="lesson-next-link"]')
        assert nxt.is_visible() and "Next lesson" in nxt.inner_text()
        box = nxt.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width  # no sideways scroll
        page.screenshot(path=str(screenshot_dir / f"lesson_end_{width}.png"), full_page=True)
    nxt.click()
    page.wait_for_url("**/lessons/wordpiece-encode")

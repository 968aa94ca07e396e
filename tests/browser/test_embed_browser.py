"""An embedded view (?embed=1) at iframe size: no chrome, and stepping keeps it embedded."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_embedded_step_view(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 800, "height": 450})
    page.goto(f"{server_url}/bpe/train?embed=1")
    assert page.locator("header.top").count() == 0 and page.locator("footer").count() == 0
    page.get_by_label("next step").click()
    page.wait_for_url("**step=1*")
    assert "embed=1" in page.url
    page.get_by_label("next step").click()
    page.wait_for_url("**step=2*")
    page.reload()  # the pushed URL is still an embed
    assert page.locator("header.top").count() == 0
    page.screenshot(path=str(screenshot_dir / "embed_bpe_train.png"))
    page.goto(f"{server_url}/lessons/unigram-cats?embed=1&step=4")
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**step=5*")
    assert "embed=1" in page.url and page.locator("header.top").count() == 0
    page.screenshot(path=str(screenshot_dir / "embed_lesson.png"))

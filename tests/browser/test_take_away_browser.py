"""Take it with you, in a real browser: a training view's download line, one download clicked,
"Open in the visualiser" followed, screenshots wide and narrow."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

SIZES = {"wide": (1400, 900), "narrow": (390, 844)}


@pytest.mark.parametrize("size", sorted(SIZES))
def test_training_view_downloads_and_opens_in_the_visualiser(
    browser, server_url, screenshot_dir, size
):
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, accept_downloads=True
    )
    page = context.new_page()
    try:
        page.goto(f"{server_url}/wordpiece/train?vocab_size=40&step=5")
        line = page.locator('[data-testid="take-away"]')
        assert line.is_visible()
        assert "Download:" in line.inner_text()
        line.scroll_into_view_if_needed()
        page.screenshot(
            path=str(screenshot_dir / f"take_away_wordpiece_train_{size}.png"), full_page=False
        )
        with page.expect_download() as info:
            line.locator('[data-testid="download-trace"]').click()
        download = info.value
        assert download.suggested_filename.endswith(".jsonl")
        first = json.loads(open(download.path(), encoding="utf-8").readline())
        assert first["kind"] == "wordpiece_merge"
        with page.expect_download() as info:
            line.locator('[data-testid="download-vocab_txt"]').click()
        assert info.value.suggested_filename == "vocab.txt"
        assert "[UNK]" in open(info.value.path(), encoding="utf-8").read().split()

        line.locator('[data-testid="open-visualiser"]').click()
        page.wait_for_url("**/?tokenizer=wordpiece-40-*")
        page.wait_for_selector('[data-testid="token-count"]')
        shown = page.locator('[data-testid="take-away"]')
        assert shown.locator('[data-testid="download-hf_json"]').count() == 1
        assert shown.locator('[data-testid="download-vocab_txt"]').count() == 1
        shown.scroll_into_view_if_needed()
        page.screenshot(
            path=str(screenshot_dir / f"take_away_visualiser_{size}.png"), full_page=False
        )
    finally:
        context.close()

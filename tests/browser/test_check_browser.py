"""The checker page in a real browser: an example with a classic mistake, checked via htmx."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_check_an_example_and_follow_the_link(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/check")
    page.get_by_role("link", name="BPE merges without </w>").click()
    page.wait_for_url("**example=no_end_of_word")
    page.get_by_label("vocab_size").fill("24")
    page.get_by_role("button", name="Check").click()
    page.wait_for_selector('[data-testid="divergence"]')
    assert page.url.endswith("example=no_end_of_word")  # htmx swapped the report in place
    assert page.locator('[data-testid="divergence"]').inner_text() == "2"
    assert (
        "Forgetting the end-of-word symbol" in page.locator('[data-testid="mistakes"]').inner_text()
    )
    assert page.locator('[data-testid="state-pairs"] tr.winner').count() == 1
    page.screenshot(path=str(screenshot_dir / "check.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshot_dir / "check_narrow.png"), full_page=True)
    page.locator('[data-testid="step-link"]').click()
    page.wait_for_url("**/bpe/train?*step=1*")
    assert page.locator('[data-testid="pair-table"] tr.winner').count() == 1


@pytest.mark.parametrize("name", ["count_order_encoding", "no_unk_penalty", "raw_count_score"])
def test_check_token_and_wordpiece_examples(page, server_url, screenshot_dir, name):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/check?example={name}")
    page.get_by_role("button", name="Check").click()
    page.wait_for_selector(f'[data-mistake="{name}"]')
    page.screenshot(path=str(screenshot_dir / f"check_{name}.png"), full_page=True)


def test_checking_on_a_large_corpus_shows_that_it_is_busy(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/check")
    assert not page.locator("#check-busy").is_visible()  # takes no room when idle
    page.select_option("#corpus", "botchan")
    page.get_by_label("vocab_size").fill("437")  # a run of its own
    page.locator("#theirs").fill("t h\nth e")
    page.get_by_role("button", name="Check").click()
    page.locator("#check-busy").wait_for(state="visible")
    page.screenshot(path=str(screenshot_dir / "check_busy.png"))
    page.wait_for_selector('[data-testid="divergence"]', timeout=90_000)
    assert not page.locator("#check-busy").is_visible()
    assert page.locator('[data-testid="divergence"]').inner_text() == "1"

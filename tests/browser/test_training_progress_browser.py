"""A step-through training on a large corpus, in a real browser: the page shows the job's
progress at once, polls, and swaps in the view when the worker process is done; screenshots of
both states, wide and narrow."""

from __future__ import annotations

import random

import pytest

pytestmark = pytest.mark.browser

SIZES = {"wide": (1400, 900), "narrow": (390, 844)}


def _corpus(seed: int, n_words: int = 200_000) -> str:
    rnd = random.Random(seed)
    words = [
        "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 12)))
        for _ in range(n_words)
    ]
    return "\n".join(" ".join(words[i : i + 10]) for i in range(0, len(words), 10))


@pytest.mark.parametrize("size", sorted(SIZES))
def test_a_large_training_shows_progress_then_the_view(browser, server_url, screenshot_dir, size):
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        stored = page.request.post(
            f"{server_url}/api/corpora", data={"text": _corpus(len(size)), "name": "random words"}
        )
        assert stored.ok, stored.text()
        sha = stored.json()["sha256"]
        page.goto(f"{server_url}/bpe/train?corpus={sha}&variant=bpe&vocab_size=3000&step=2500")
        panel = page.locator('[data-testid="training"]')
        panel.wait_for()
        assert any(w in panel.inner_text() for w in ("merges so far", "counting words", "in line"))
        box = panel.bounding_box()  # in view on a phone too (static/app.js)
        assert box["y"] < height and box["y"] + box["height"] > 0, box
        panel.scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot_dir / f"training_progress_{size}.png"))
        page.locator('[data-testid="pair-table"]').wait_for(timeout=90_000)  # htmx swapped it in
        assert page.locator('[data-testid="training"]').count() == 0
        assert (
            page.locator("nav.stepper .count").inner_text().replace(",", "").startswith("step 2500")
        )
        page.locator("nav.stepper").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot_dir / f"training_done_{size}.png"))
    finally:
        context.close()


@pytest.mark.parametrize("size", sorted(SIZES))
def test_a_large_unigram_training_shows_its_rounds_as_they_come(
    browser, server_url, screenshot_dir, size
):
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        stored = page.request.post(
            f"{server_url}/api/corpora",
            data={"text": _corpus(7 + len(size), 100_000), "name": "random words"},
        )
        sha = stored.json()["sha256"]
        page.goto(f"{server_url}/unigram/train?corpus={sha}&vocab_size=2000")
        progress = page.locator('[data-testid="progress"]')
        progress.wait_for()
        page.locator("nav.stepper").wait_for(timeout=90_000)  # the first rounds, polled in
        if progress.is_visible():  # (unless it has finished)
            assert "done so far" in progress.inner_text()
            progress.scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot_dir / f"unigram_training_rounds_{size}.png"))
    finally:
        context.close()

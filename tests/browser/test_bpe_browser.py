"""The BPE step-through pages in a real browser: keyboard, buttons, jump, play, htmx swaps."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def what(page) -> str:
    return page.locator('[data-testid="what"]').inner_text()


def test_train_keyboard_buttons_jump_and_play(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/bpe/train")
    assert "Nothing merged yet" in what(page)
    assert page.locator('[data-testid="pair-table"] tr.winner').count() == 1
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**step=1*")
    page.wait_for_selector('.stepper .count b:text-is("1")')
    assert "Merged e + s → es, 9 occurrences" in what(page)
    assert page.locator('[data-testid="word-table"] tr.changed').count() == 2
    page.get_by_label("next step").click()
    page.wait_for_url("**step=2*")
    page.wait_for_selector('.stepper .count b:text-is("2")')
    page.keyboard.press("ArrowLeft")
    page.wait_for_url("**step=1*")
    page.locator(".stepper input[type=number]").fill("5")
    page.locator(".stepper input[type=number]").dispatch_event("change")
    page.wait_for_url("**step=5*")
    page.wait_for_selector('.stepper .count b:text-is("5")')
    assert page.locator('[data-testid="merge-list"] li').count() == 5
    page.screenshot(path=str(screenshot_dir / "bpe_train.png"), full_page=True)
    page.get_by_label("play").click()
    page.wait_for_url("**step=7*", timeout=10_000)
    page.get_by_label("pause").click()
    page.get_by_label("last step").click()
    page.wait_for_selector('[data-testid="stopped"]')


def test_train_edited_corpus_byte_level(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/bpe/train?variant=byte_bpe&vocab_size=262")
    page.fill("#corpus_text", "naïve café naïve café\n日本 日本 日本")
    page.get_by_role("button", name="Use this corpus").click()
    page.wait_for_url("**corpus=*")
    assert "variant=byte_bpe" in page.url
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**step=1*")
    page.wait_for_selector('.stepper .count b:text-is("1")')
    assert "Merged" in what(page)
    assert "\ufffd" not in page.content()
    page.screenshot(path=str(screenshot_dir / "bpe_train_bytes.png"), full_page=True)


def test_encode_steps_and_trees(page, server_url, screenshot_dir):
    page.goto(
        f"{server_url}/bpe/encode?tokenizer=gpt-4&text=lowest+tokenization+%F0%9D%94%98&step=0"
    )
    assert "Every piece starts as single symbols" in what(page)
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**step=1*")
    page.wait_for_selector('.stepper .count b:text-is("1")')
    assert "rank" in what(page)
    assert page.locator('[data-testid="candidates"] tr.winner').count() == 1
    page.get_by_label("last step").click()
    page.wait_for_selector("text=these are the tokens")
    assert page.locator('[data-testid="trees"] .tree').count() >= 3
    assert "\ufffd" not in page.content()
    page.screenshot(path=str(screenshot_dir / "bpe_encode.png"), full_page=True)


def test_train_leads_with_the_state_and_its_code_line_in_view(page, server_url):
    """At 1280 x 900 the first screen holds the stepper and the pair counts (the form comes
    after the state, a link up top leads to it); after a jump, the code panel has scrolled
    itself so that its highlighted line is inside it."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{server_url}/bpe/train?step=2")
    assert page.locator('[data-testid="pair-table"]').bounding_box()["y"] < 900
    assert page.locator('[data-testid="step-form"]').bounding_box()["y"] > 900
    page.locator(".stepper input[type=number]").fill("12")
    page.locator(".stepper input[type=number]").dispatch_event("change")
    page.wait_for_selector('.stepper .count b:text-is("12")')
    page.wait_for_function(
        """() => {
            const box = document.querySelector('.code-scroll');
            const line = box.querySelector('li.current');
            const b = box.getBoundingClientRect(), l = line.getBoundingClientRect();
            return box.scrollTop > 0 && l.top >= b.top && l.bottom <= b.bottom;
        }"""
    )
    page.get_by_test_id("to-options").click()
    page.wait_for_url("**#options")


def test_train_from_an_uploaded_counts_file(page, server_url, screenshot_dir, tmp_path):
    """Upload a counts file in the training form: the page opens on it at its own URL (the
    counts' digest in it), steps like the text, and fits a phone."""
    import tokenizers_core as tc
    from tokenizers_core.corpora import load_corpus

    path = tmp_path / "botchan-300.counts"
    tc.count(load_corpus("botchan").splitlines()[:300], "byte_bpe").save(path)
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/bpe/train")
    page.locator("#counts-file").set_input_files(str(path))
    page.get_by_role("button", name="Train from the counts").click()
    page.wait_for_url("**counts=*")
    assert "variant=byte_bpe" in page.url
    assert "distinct pre-tokens" in page.get_by_test_id("counts-info").inner_text()
    page.get_by_label("next step").click()
    page.wait_for_url("**step=1*")
    page.wait_for_selector('.stepper .count b:text-is("1")')
    assert "Merged" in what(page)
    page.screenshot(path=str(screenshot_dir / "bpe-train-counts-1400.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.screenshot(path=str(screenshot_dir / "bpe-train-counts-390.png"), full_page=True)

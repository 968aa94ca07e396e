"""The WordPiece step-through pages in a real browser: keyboard, buttons, htmx swaps."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def what(page) -> str:
    return page.locator('[data-testid="what"]').inner_text()


def test_encode_step_with_keyboard_and_buttons(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/wordpiece/encode?text=unaffable+playing")
    assert "Nothing probed yet" in what(page)
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**step=1*")
    page.wait_for_selector('.stepper .count b:text-is("1")')
    assert "shrink the window" in what(page)
    for k in range(2, 9):
        page.keyboard.press("ArrowRight")
        page.wait_for_url(f"**step={k}*")
        page.wait_for_selector(f'.stepper .count b:text-is("{k}")')
    assert "“un” is in the vocabulary" in what(page)
    assert page.locator(".wp-char.window.hit").count() == 2
    page.screenshot(path=str(screenshot_dir / "wordpiece_encode.png"), full_page=True)
    page.keyboard.press("ArrowLeft")
    page.wait_for_url("**step=7*")
    assert "“una” is not in the vocabulary" in what(page)
    page.get_by_label("last step").click()
    page.wait_for_selector('[data-testid="final"]')
    assert page.locator('[data-testid="final"] code').all_inner_texts() == [
        "un",
        "##aff",
        "##able",
        "play",
        "##ing",
    ]
    page.go_back()
    page.wait_for_url("**step=7*")


def test_encode_unk_and_bert(page, server_url, screenshot_dir):
    page.goto(
        f"{server_url}/wordpiece/encode?vocab=bert-base-uncased&text=Tokenization+%E2%98%83&step=999"
    )
    final = page.locator('[data-testid="final"] code').all_inner_texts()
    assert final == ["token", "##ization", "[UNK]"]
    page.screenshot(path=str(screenshot_dir / "wordpiece_encode_bert.png"), full_page=True)


def test_train_play_and_jump(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/wordpiece/train")
    assert page.locator('[data-testid="pair-table"] tr.winner').count() == 1
    page.get_by_label("next step").click()
    page.wait_for_url("**step=1*")
    assert "Merged" in what(page)
    page.locator(".stepper input[type=number]").fill("4")
    page.locator(".stepper input[type=number]").dispatch_event("change")
    page.wait_for_url("**step=4*")
    assert page.locator('[data-testid="merge-list"] li').count() == 4
    page.screenshot(path=str(screenshot_dir / "wordpiece_train.png"), full_page=True)
    page.get_by_label("play").click()
    page.wait_for_url("**step=6*", timeout=10_000)  # play advances on its own
    page.get_by_label("pause").click()


def test_train_edit_corpus(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/wordpiece/train?vocab_size=30")
    page.fill("#corpus_text", "xz th th th the them then " * 3)
    page.get_by_role("button", name="Use this corpus").click()
    page.wait_for_url("**corpus=*")
    page.get_by_label("next step").click()
    page.wait_for_url("**step=1*")
    assert "Merged" in what(page)
    page.screenshot(path=str(screenshot_dir / "wordpiece_train_edited.png"), full_page=True)


def test_train_from_an_uploaded_counts_file(page, server_url, screenshot_dir, tmp_path):
    """Upload a wordpiece counts file in the training form: the page opens on it at its own
    URL (the counts' digest in it), steps like the text, and fits a phone."""
    import tokenizers_core as tc
    from tokenizers_core.corpora import load_corpus

    path = tmp_path / "botchan-300.counts"
    tc.count(load_corpus("botchan").splitlines()[:300], "wordpiece").save(path)
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/wordpiece/train?vocab_size=200")
    page.locator("#counts-file").set_input_files(str(path))
    page.get_by_role("button", name="Train from the counts").click()
    page.wait_for_url("**counts=*")
    assert "vocab_size=200" in page.url
    assert "distinct pre-tokens" in page.get_by_test_id("counts-info").inner_text()
    page.get_by_label("next step").click()
    page.wait_for_url("**step=1*")
    page.wait_for_selector('.stepper .count b:text-is("1")')
    assert "Merged" in what(page)
    page.screenshot(path=str(screenshot_dir / "wordpiece-train-counts-1400.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.screenshot(path=str(screenshot_dir / "wordpiece-train-counts-390.png"), full_page=True)

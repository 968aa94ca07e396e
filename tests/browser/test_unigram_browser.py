"""The Unigram step-through pages in a real browser: keyboard, buttons, htmx swaps, upload."""

from __future__ import annotations

import gzip
import os

import pytest

from tokenizers_core.formats.sentencepiece_model import _DATA

pytestmark = pytest.mark.browser


def what(page) -> str:
    return page.locator('[data-testid="what"]').inner_text()


def test_lattice_steps_to_cat_s(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/unigram/lattice")
    assert "best[0] = 0" in what(page)
    for k in range(1, 6):
        page.keyboard.press("ArrowRight")
        page.wait_for_url(f"**step={k}*")
        page.wait_for_selector(f'.stepper .count b:text-is("{k}")')
    assert "best[5] = -5.000" in what(page)
    assert page.locator('[data-testid="candidates"] tr.winner').inner_text().count("s") >= 1
    page.screenshot(path=str(screenshot_dir / "unigram_lattice_step5.png"), full_page=True)
    page.get_by_label("last step").click()
    page.wait_for_selector('[data-testid="final"]')
    assert page.locator('[data-testid="final"] code').all_inner_texts() == ["▁cat", "s"]
    assert page.locator("svg.lattice path.arc-path").count() == 2
    page.screenshot(path=str(screenshot_dir / "unigram_lattice_final.png"), full_page=True)
    page.get_by_label("previous step").click()
    page.wait_for_url("**step=6*")
    assert "on the best path" in what(page)


def test_lattice_sample_and_bundled_model(page, server_url, screenshot_dir):
    page.goto(
        f"{server_url}/unigram/lattice?model=botchan_en_unigram_1000&text=Hello+world&step=999"
    )
    assert page.locator('[data-testid="nbest"] li').count() == 5
    page.locator('[data-testid="sample-form"] button').click()
    page.wait_for_selector('[data-testid="sample"]')
    assert "seed 7" in page.locator('[data-testid="sample"]').inner_text()
    page.screenshot(path=str(screenshot_dir / "unigram_lattice_botchan.png"), full_page=True)


def test_lattice_upload_a_model(page, server_url, tmp_path):
    path = tmp_path / "botchan.model"
    with gzip.open(os.path.join(_DATA, "botchan_en_unigram_1000.model.gz"), "rb") as fh:
        path.write_bytes(fh.read())
    page.goto(f"{server_url}/unigram/lattice?text=cats")
    page.locator('[data-testid="upload-box"] summary').click()
    page.locator("#tok-file").set_input_files(str(path))
    page.locator('[data-testid="tokenizer-upload"] button[type="submit"]').click()
    page.wait_for_url("**model=upload-*")
    assert page.locator(".stepper").count() == 1


def test_train_rounds_play(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/unigram/train")
    assert "seed vocabulary" in what(page)
    page.get_by_label("next step").click()
    page.wait_for_url("**step=1*")
    assert "Round 1" in what(page)
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**step=2*")
    assert page.locator('[data-testid="rounds"] tbody tr').count() == 3
    assert page.locator('[data-testid="curve"] svg circle').count() == 3
    page.screenshot(path=str(screenshot_dir / "unigram_train.png"), full_page=True)
    page.get_by_label("last step").click()
    page.wait_for_selector('[data-testid="what"]:has-text("Done")')
    assert page.locator('[data-testid="rounds"] td:text-is("final")').count() == 1

"""The new BPE family's training views in a real browser: step through SuperBPE to its
transition, watch Picky BPE remove a token, and train parity-aware BPE on the 33 UDHR texts in
the job pool (progress first, then the languages' bars). Screenshots at 1400 and 390 px go to
$TOKVIS_SCREENSHOTS (look at them)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

pytestmark = pytest.mark.slow


def _open(page, server_url, **params):
    page.goto(f"{server_url}/bpe/train?{urlencode(params)}")
    page.wait_for_selector("[data-testid=what]", timeout=120_000)


def test_superbpe_steps_to_its_first_superword(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 1400, "height": 900})
    _open(page, server_url, variant="superbpe", corpus="udhr/eng", vocab_size=700, transition=600)
    assert "Before any merge" in page.get_by_test_id("what").inner_text()
    page.get_by_role("link", name="last step").click()
    page.wait_for_function("() => location.search.includes('step=')")
    page.wait_for_selector("[data-testid=superwords] .chip")
    assert "Stage 2" in page.get_by_test_id("superbpe-panel").inner_text()
    page.screenshot(path=str(screenshot_dir / "bpe-superbpe-1400.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.screenshot(path=str(screenshot_dir / "bpe-superbpe-390.png"), full_page=True)


def test_picky_bpe_shows_a_removal(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 390, "height": 844})
    _open(
        page, server_url, variant="picky_bpe", corpus="udhr/eng", vocab_size=600, threshold=0.6,
        step=600,
    )  # fmt: skip
    assert page.locator("[data-testid=removals] li").count() > 0
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.screenshot(path=str(screenshot_dir / "bpe-picky-390.png"), full_page=True)
    page.set_viewport_size({"width": 1400, "height": 900})
    page.screenshot(path=str(screenshot_dir / "bpe-picky-1400.png"), full_page=True)


def test_parity_bpe_trains_on_all_udhr_texts_in_the_pool(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 1400, "height": 900})
    _open(page, server_url, variant="parity_bpe", corpus="udhr/all", vocab_size=600, step=100)
    assert page.locator("[data-testid=lang-bars] li").count() == 33
    assert page.locator("[data-testid=lang-bars] li.worst").count() == 1
    assert "chosen for" in page.get_by_test_id("what").inner_text()
    page.screenshot(path=str(screenshot_dir / "bpe-parity-1400.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.screenshot(path=str(screenshot_dir / "bpe-parity-390.png"), full_page=True)


def test_parity_bpe_trains_on_counts_files_one_per_language(
    page, server_url, screenshot_dir, tmp_path
):
    """Upload one byte_bpe counts file per language (named by it) in parity-aware BPE's form:
    the view opens on them at its own URL and shows their languages' bars; fits a phone."""
    import tokenizers_core as tc
    from tokenizers_core.corpora import load_corpus

    paths = []
    for code in ("eng", "fra", "rus", "arb"):
        paths.append(str(tmp_path / f"{code}.counts"))
        tc.count(load_corpus(f"udhr/{code}").splitlines(), "byte_bpe").save(paths[-1])
    page.set_viewport_size({"width": 1400, "height": 900})
    _open(page, server_url, variant="parity_bpe", vocab_size=600, step=0)
    page.locator("#counts-file").set_input_files(paths)
    page.get_by_role("button", name="Train from the counts").click()
    page.wait_for_url("**counts=*")
    assert "variant=parity_bpe" in page.url
    assert "4 languages" in page.get_by_test_id("counts-info").inner_text()
    page.get_by_label("next step").click()
    page.wait_for_url("**step=1*")
    page.wait_for_selector('.stepper .count b:text-is("1")')
    assert page.locator("[data-testid=lang-bars] li").count() == 4
    page.screenshot(path=str(screenshot_dir / "bpe-parity-counts-1400.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.screenshot(path=str(screenshot_dir / "bpe-parity-counts-390.png"), full_page=True)

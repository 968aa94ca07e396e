"""The vocabulary diff in a real browser: pick two vocabularies and a corpus, read the counts,
where the ids part and the chart, switch lists and pages; nothing in a parameter runs; the page
fits a phone. Screenshots at 1280 and 390 px go to $TOKVIS_SCREENSHOTS (look at them)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

pytestmark = pytest.mark.slow

XSS = "<img src=x onerror=alert(1)> <script>alert(2)</script>"


def test_picking_vocabularies_a_corpus_and_a_list(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/vocab/diff?{urlencode({'a': 'cl100k_base', 'b': 'o200k_base'})}")
    assert page.get_by_test_id("shared-count").inner_text() == "85,035"
    assert page.locator("[data-testid=rank-chart] rect.cell").count() > 100
    page.screenshot(path=str(screenshot_dir / "vocab-diff-1280.png"), full_page=True)
    page.locator("#b").select_option("p50k_base")
    page.wait_for_function("() => location.search.includes('b=p50k_base')")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=only-a-count]').textContent === '57,170'"
    )
    page.locator("#a").select_option("r50k_base")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=prefix]')?.textContent === '50,257'"
    )
    page.locator("#corpus").select_option("botchan")
    page.wait_for_selector("[data-testid=words-sentence]")
    assert "words" in page.get_by_test_id("words-sentence").inner_text()
    page.get_by_role("link", name="only in B (24)").click()
    page.wait_for_function("() => location.search.includes('list=only_b')")
    assert page.locator("[data-testid=vdiff-table] tbody tr").count() == 24
    page.screenshot(path=str(screenshot_dir / "vocab-diff-lists-1280.png"), full_page=True)


def test_a_corpus_on_a_phone_screen(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 390, "height": 844})
    q = urlencode({"a": "bert-base-uncased", "b": "cl100k_base", "corpus": "udhr/eng"})
    page.goto(f"{server_url}/vocab/diff?{q}")
    assert page.locator("[data-testid=words-table] tbody tr").count() > 5
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways at 390 px ({overflow} px too wide)"
    page.screenshot(path=str(screenshot_dir / "vocab-diff-390.png"), full_page=True)
    for part in ("summary", "ranks", "words"):
        page.get_by_test_id(f"vdiff-{part}").screenshot(
            path=str(screenshot_dir / f"vocab-diff-{part}-390.png")
        )
    page.get_by_role("link", name="next ▶").click()
    page.wait_for_function("() => location.search.includes('page=1')")
    assert "page 2" in page.locator("nav.stepper .count").inner_text()


def test_nothing_in_a_parameter_runs(page, server_url):
    page.goto(f"{server_url}/vocab/diff?{urlencode({'a': XSS, 'b': XSS, 'corpus': XSS})}")
    assert "unknown" in page.locator("[role=alert]").inner_text()
    assert page.dialogs == [] and page.locator("img[src=x]").count() == 0

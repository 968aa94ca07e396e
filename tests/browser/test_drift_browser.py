"""The drift doctor's page in a real browser: the worked example (Qwen3 with reasoning) opens with
its verdict, each turn's first divergence outlined on both sides as /diff outlines it; the form
re-checks through htmx without a reload; nothing a user types runs; the page fits a phone.
Screenshots at 1400 and 390 px go to $TOKVIS_SCREENSHOTS (look at them)."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow

XSS = "<img src=x onerror=alert(1)> <script>alert(2)</script>"


def test_the_example_outlines_each_first_divergence(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{server_url}/drift")
    assert page.get_by_test_id("verdict").inner_text() == "Not append-only"
    first = page.get_by_test_id("drift-turn").first
    assert first.get_attribute("data-prefix") == "false"
    assert "reasoning dropped" in first.get_by_test_id("construct").inner_text()
    outlined = first.locator(".chip.differs")
    assert outlined.count() == 2  # one on each side
    # the outline is drawn: a solid 2 px red outline, as /diff draws it
    style = outlined.first.evaluate(
        "el => { const s = getComputedStyle(el); return [s.outlineStyle, s.outlineWidth] }"
    )
    assert style == ["solid", "2px"]
    # the two sides stand side by side at this width
    a, b = (first.locator(f".diff-side.side-{s}").bounding_box() for s in "ab")
    assert a["x"] + a["width"] <= b["x"] and abs(a["y"] - b["y"]) < 2
    page.screenshot(path=str(screenshot_dir / "drift-1400.png"), full_page=False)
    first.screenshot(path=str(screenshot_dir / "drift-turn-1400.png"))
    page.screenshot(path=str(screenshot_dir / "drift-full-1400.png"), full_page=True)


def test_rechecking_swaps_the_results_and_nothing_typed_runs(page, server_url):
    page.goto(f"{server_url}/drift")
    messages = [
        {"role": "user", "content": XSS},
        {"role": "assistant", "content": XSS},
        {"role": "user", "content": "ok"},
    ]
    page.locator("#template_name").select_option("chatml")
    page.locator("#conversation").fill(json.dumps({"messages": messages}))
    page.get_by_role("button", name="Check the conversation").click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=verdict]').textContent === 'Append-only'"
    )
    assert "/drift?" in page.url  # the permalink, pushed
    assert page.dialogs == [] and page.locator("img[src=x]").count() == 0


def test_the_page_fits_a_phone(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server_url}/drift")
    assert page.get_by_test_id("drift-turn").count() == 2
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    first = page.get_by_test_id("drift-turn").first
    a, b = (first.locator(f".diff-side.side-{s}").bounding_box() for s in "ab")
    assert b["y"] >= a["y"] + a["height"] - 1  # one column: A, then B
    page.screenshot(path=str(screenshot_dir / "drift-390.png"), full_page=False)
    first.screenshot(path=str(screenshot_dir / "drift-turn-390.png"))
    page.get_by_test_id("drift-markers").screenshot(
        path=str(screenshot_dir / "drift-markers-390.png")
    )
    page.screenshot(path=str(screenshot_dir / "drift-full-390.png"), full_page=True)

"""The premiums and the efficiency views in a real browser: every tokeniser's premium on /tax
(coloured, sortable, the language kept in view), Renyi efficiency on /sweep with its alpha slider,
and the numbers heatmap on /audit/numbers; each at 1280 and 390 px wide."""

from __future__ import annotations

from urllib.parse import quote

XSS = '"><script>alert(1)</script>'
PHONE = {"width": 390, "height": 844}


def fits_the_screen(page) -> bool:
    """Nothing but the scrolling boxes is wider than the window."""
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_tax_shows_every_tokenizer_coloured_and_sorts_by_a_column(page, server_url, screenshot_dir):
    # the first visit measures every stored tokenizer, and this server's store holds every other
    # browser test's uploads (their encodes run in the sandbox): give it time on a busy machine
    page.goto(f"{server_url}/tax", timeout=180_000)
    heads = page.locator("table.premium th.tok-head")
    assert heads.count() >= 17
    dark = page.locator("td.prem-6").first
    light = page.locator('td.prem-0[data-lang="eng"]').first
    colour = "el => getComputedStyle(el).backgroundColor"
    assert dark.evaluate(colour) != light.evaluate(colour)
    page.screenshot(path=str(screenshot_dir / "premium_tax_1280.png"), full_page=True)
    page.locator('th.tok-head[data-tok="r50k_base"] a').click()
    page.wait_for_url("**sort=r50k_base**")
    values = page.locator('tbody td[data-tok="r50k_base"]').evaluate_all(
        "els => els.map(e => parseFloat(e.textContent))"
    )
    assert values == sorted(values, reverse=True) and values[-1] < 1.01
    assert page.locator('th[aria-sort="descending"]').get_attribute("data-tok") == "r50k_base"
    page.set_viewport_size(PHONE)
    page.reload()
    assert fits_the_screen(page)
    # the table scrolls inside its box; the language column stays in view
    wrap = page.locator("table.premium").locator("xpath=..")
    wrap.evaluate("el => el.scrollLeft = 600")
    lang = page.locator("tbody tr td.lang").first
    assert lang.bounding_box()["x"] < 40
    page.screenshot(path=str(screenshot_dir / "premium_tax_390.png"), full_page=True)


def test_sweep_renyi_column_follows_the_alpha_slider(page, server_url, screenshot_dir):
    query = "corpus=udhr/fra&heldout=udhr/eng&algo=bpe&algo=unigram&sizes=100,200,400"
    page.goto(f"{server_url}/sweep?{query}")
    page.get_by_role("button", name="Run sweep").click()
    page.wait_for_selector("text=Done: 6 trainings", timeout=90_000)
    page.wait_for_selector("svg[aria-label^='Rényi efficiency']")
    before = page.locator("td.renyi").all_text_contents()
    assert len(before) == 6 and "α = 2.5" in page.locator("table.sweep-results thead").inner_text()
    page.screenshot(path=str(screenshot_dir / "premium_sweep_1280.png"), full_page=True)
    page.locator("#alpha").evaluate(
        "el => { el.value = '6'; el.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    page.wait_for_selector("table.sweep-results th:has-text('α = 6')")
    after = page.locator("td.renyi").all_text_contents()
    assert after != before and all(float(a) < float(b) for a, b in zip(after, before))
    assert "alpha=6" in page.url  # a permalink to what is shown
    page.set_viewport_size(PHONE)
    page.reload()
    assert "α = 6" in page.locator("table.sweep-results thead").inner_text()
    assert fits_the_screen(page)
    page.screenshot(path=str(screenshot_dir / "premium_sweep_390.png"), full_page=True)
    page.goto(f"{server_url}/sweep?{query}&alpha={quote(XSS)}")
    assert page.locator('[role="alert"]').count() == 1 and page.dialogs == []


def test_numbers_heatmap_and_picker(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/audit/numbers?tokenizer=r50k_base")
    assert "whole numbers up to 2 digits" in page.locator(".grouping").inner_text()
    box = page.locator(".numbers-heat svg").bounding_box()
    assert box["width"] > 500
    assert page.locator(".numbers-heat path").count() == 3
    page.screenshot(path=str(screenshot_dir / "premium_numbers_1280.png"), full_page=True)
    page.locator("#tokenizer").select_option("mistral_v1")
    page.wait_for_selector(".grouping[data-kind='single']")
    assert "tokenizer=mistral_v1" in page.url
    assert page.locator("table.numbers-formats tbody tr").count() == 9
    page.set_viewport_size(PHONE)
    page.reload()
    assert fits_the_screen(page)
    assert page.locator(".numbers-heat svg").bounding_box()["width"] >= 330
    page.screenshot(path=str(screenshot_dir / "premium_numbers_390.png"), full_page=True)
    page.goto(f"{server_url}/audit/numbers?tokenizer={quote(XSS)}")
    assert "unknown tokeniser" in page.locator('[role="alert"]').inner_text()
    assert page.dialogs == []

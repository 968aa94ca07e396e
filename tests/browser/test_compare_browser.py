"""Compare, tax, Unicode lab and sweep pages in a real browser."""

from __future__ import annotations

from urllib.parse import urlencode


def test_typing_updates_every_column_and_hover_highlights_across(page, server_url, screenshot_dir):
    q = urlencode(
        {"text": "naïve café", "col": ["word", "char", "bert-base-uncased"], "ref": 0}, doseq=True
    )
    page.goto(f"{server_url}/compare?{q}")
    assert page.locator(".compare-col").count() == 3
    page.locator("#text").fill("unhappiness")
    page.wait_for_function(
        "() => document.querySelector('.compare-col[data-col=\"1\"] [data-metric=tokens]').textContent === '11'"
    )
    assert page.locator('.compare-col[data-col="0"] .chip').count() == 1
    # hover the BERT chip "##ness" (characters 7-11): the char chips n, e, s, s light up
    bert_chips = page.locator('.compare-col[data-col="2"] .chip')
    last = bert_chips.nth(bert_chips.count() - 2)  # before [SEP]
    last.hover()
    lit = page.locator('.compare-col[data-col="1"] .chip.hl').all_inner_texts()
    assert "".join(lit) == page.evaluate("() => 'unhappiness'").__getitem__(
        slice(int(last.get_attribute("data-s")), int(last.get_attribute("data-e")))
    )
    assert page.locator('.compare-col[data-col="0"] .chip.hl').count() == 1  # the whole word
    # the chip's facts come into the page's one popover (POST /compare/token)
    facts = page.locator('[data-testid="chip-pop"] [data-testid="chip-facts"]')
    facts.wait_for()
    s, e = last.get_attribute("data-s"), last.get_attribute("data-e")
    assert f"offsets {s}–{e}" in facts.inner_text() and "vocabulary entry" in facts.inner_text()
    page.screenshot(path=str(screenshot_dir / "compare.png"), full_page=True)


def test_the_compare_popover_at_desktop_and_phone_widths(browser, server_url, screenshot_dir):
    q = urlencode({"text": "naïve café <b>x</b>", "col": ["word", "char"], "ref": 0}, doseq=True)
    for width in (1280, 390):
        context = browser.new_context(viewport={"width": width, "height": 800})
        page = context.new_page()
        page.goto(f"{server_url}/compare?{q}")
        chip = page.locator('.compare-col[data-col="1"] .chip').nth(6)
        chip.focus()  # a keyboard user: focus opens it too
        facts = page.locator('[data-testid="chip-pop"] [data-testid="chip-facts"]')
        facts.wait_for()
        assert "boundary differs from the reference" in facts.inner_text()
        assert page.locator(".compare-col b").count() == 0  # the typed <b> is text
        box = page.locator('[data-testid="chip-pop"]').bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(screenshot_dir / f"compare_popover_{width}.png"))
        context.close()


def test_tax_chart_renders_with_labels(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/tax?tok=bert-base-uncased")
    labels = page.locator("svg .bar .label").all_text_contents()
    assert len(labels) == 33 and any("Arabic" in t and "right-to-left" in t for t in labels)
    rtl = page.locator('td.sample[dir="rtl"]').first
    assert page.evaluate("el => getComputedStyle(el).direction", rtl.element_handle()) == "rtl"
    page.screenshot(path=str(screenshot_dir / "tax.png"), full_page=True)


def test_unicode_lab_examples(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/unicode?tok=word&tok=char")
    page.get_by_role("link", name="the ﬁ ligature").click()
    page.wait_for_selector('[data-form="NFKC"]')
    nfkc = page.locator('[data-form="NFKC"]')
    assert "changed" in nfkc.locator("h2").inner_text()
    assert "U+FB01" in page.locator('[data-form="original"]').inner_text()
    page.screenshot(path=str(screenshot_dir / "unicode.png"), full_page=True)


def test_sweep_shows_progress_then_chart(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/sweep?corpus=udhr/eng&heldout=udhr/fra&algo=bpe&sizes=100,200,400")
    page.locator('input[name="sizes"]').fill("100,200,400")
    page.locator('input[name="algo"]').evaluate_all(
        "els => els.forEach(e => e.checked = e.value === 'bpe')"
    )
    page.locator('select[name="corpus"]').select_option("udhr/eng")
    page.get_by_role("button", name="Run sweep").click()
    # progress first, then (the page polls itself) the finished sweep
    page.wait_for_selector("text=Done: 3 trainings", timeout=60_000)
    page.wait_for_selector("svg[aria-label^='Tokens per word']")
    assert page.locator("svg .legend .label").first.text_content() == "bpe"
    assert page.locator("table tbody tr").count() == 3
    page.screenshot(path=str(screenshot_dir / "sweep.png"), full_page=True)

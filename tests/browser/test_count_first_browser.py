"""The count first, in a real browser: a long paste shows its count before its
chips (the order is recorded by the page itself, no clock is read); the context-window picker;
the header's five menus at 1280 and 390 px. Screenshots go to $TOKVIS_SCREENSHOTS."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

SIZES = {"wide": (1280, 900), "phone": (390, 844)}
XSS = "<img src=x onerror=alert(1)></textarea><script>alert(2)</script> "

# Records, in the page, which came first: the count of the paste, or its chips. A
# MutationObserver sees every change of #result; `order` lists the two events as they happen.
WATCH = """(n) => {
  window.order = [];
  const seen = (what) => { if (!window.order.includes(what)) window.order.push(what); };
  const check = () => {
    const count = document.querySelector('[data-testid="char-count"]');
    if (count && count.textContent.replace(/,/g, '') === String(n)) {
      seen('count');
      if (document.querySelector('#result ol.chips > li')) seen('chips');
    }
  };
  new MutationObserver(check).observe(document.querySelector('#result'),
                                      {childList: true, subtree: true, characterData: true});
}"""
PASTE = """(text) => {
  const box = document.querySelector('#text');
  box.value = text;
  box.dispatchEvent(new Event('input', {bubbles: true}));
}"""


@pytest.fixture(params=sorted(SIZES))
def sized(request, browser):
    width, height = SIZES[request.param]
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    pg.size_name = request.param
    pg.dialogs = []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    yield pg
    context.close()


def test_a_long_paste_shows_its_count_before_its_chips(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(f"{server_url}/?tokenizer=cl100k_base")
    text = XSS + "The cat sat on the mat, and then it slept. " * 700  # 30,000+ characters
    pg.evaluate(WATCH, len(text))
    pg.evaluate(PASTE, text)
    pg.wait_for_function("() => window.order.includes('count')", timeout=60_000)
    assert pg.locator('[data-testid="char-count"]').inner_text() == f"{len(text):,}"
    assert pg.locator('[data-testid="count"]').is_visible()
    pg.wait_for_function("() => window.order.includes('chips')", timeout=60_000)
    assert pg.evaluate("window.order") == ["count", "chips"]
    assert pg.locator("#result ol.chips > li").count() == 2000
    assert pg.locator('[data-testid="tokens-loading"]').count() == 0
    tokens = int(pg.locator('[data-testid="token-count"]').inner_text().replace(",", ""))
    assert (
        pg.locator('[data-testid="chips-capped"]')
        .inner_text()
        .startswith(f"The first 2,000 of {tokens:,} tokens")
    )
    box = pg.locator('[data-testid="count"]').bounding_box()
    assert box["y"] + box["height"] <= pg.viewport_size["height"] + 400  # near the top
    assert pg.evaluate("document.documentElement.scrollWidth") <= pg.viewport_size["width"]
    assert pg.dialogs == [] and pg.locator("#result script").count() == 0
    pg.screenshot(path=str(screenshot_dir / f"count_first_long_{pg.size_name}.png"))


def test_the_first_screen_leads_with_the_count(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(f"{server_url}/")
    count = pg.locator('[data-testid="count"]')
    box = count.bounding_box()
    assert box["y"] + box["height"] / 2 < pg.viewport_size["height"]  # on the first screen
    assert pg.locator('[data-testid="window-share"]').inner_text().startswith("of GPT-4’s 8,192")
    pg.select_option("#window", "512")
    pg.wait_for_url("**window=512*")
    share = pg.locator('[data-testid="window-share"]')
    assert share.inner_text().startswith("of a 512-token context")
    pg.select_option("#tokenizer", "bert-base-uncased")
    pg.wait_for_function(
        "() => document.querySelector('[data-testid=tokenizer-info]')"
        ".textContent.includes('bert-base-uncased')"
    )
    assert pg.locator('[data-testid="window-share"]').inner_text().startswith("of a 512-token")
    pg.select_option("#window", "")
    pg.wait_for_function(
        "() => document.querySelector('[data-testid=window-share]')"
        ".textContent.includes('BERT’s 512-token')"
    )
    assert pg.evaluate("document.documentElement.scrollWidth") <= pg.viewport_size["width"]
    pg.screenshot(path=str(screenshot_dir / f"count_first_home_{pg.size_name}.png"))


def test_the_menus_open_one_at_a_time_inside_the_screen(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(f"{server_url}/bpe/train")
    width = pg.viewport_size["width"]
    summaries = pg.locator("header.top details.menu > summary")
    groups = ["Explore", "Step through", "Compare", "Your model", "Learn"]
    assert summaries.all_inner_texts() == groups
    for i in range(5):
        summaries.nth(i).click()
        pg.wait_for_function(  # this one open, the others closed
            "(i) => [...document.querySelectorAll('header.top details.menu')]"
            ".every((m, k) => m.open === (k === i))",
            arg=i,
        )
        menu = pg.locator("header.top details.menu[open] ul")
        box = menu.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (i, box)
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        if i == 1:
            pg.screenshot(path=str(screenshot_dir / f"nav_step_through_{pg.size_name}.png"))
    pg.keyboard.press("Escape")
    pg.wait_for_function("() => !document.querySelector('header.top details.menu[open]')")
    summaries.nth(1).click()
    pg.get_by_role("link", name="SuperBPE training").click()
    pg.wait_for_url("**/bpe/train?variant=superbpe")
    assert pg.locator("header.top details.menu.current > summary").inner_text() == "Step through"

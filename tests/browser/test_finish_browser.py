"""Fit and finish at a phone's width: the "Learn" menu and the worksheets
stay inside a 390 px screen; screenshots at 1400 and 390 px go to $TOKVIS_SCREENSHOTS."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

SIZES = {"wide": (1400, 900), "phone": (390, 844)}

# every element's box, and the widest right edge of any of them
RIGHT_EDGE = """() => Math.max(...[...document.querySelectorAll('body *')]
    .filter(e => e.getClientRects().length && !e.closest('.table-wrap, .lattice-scroll, pre, details:not([open]) > ul'))
    .map(e => e.getBoundingClientRect().right))"""


@pytest.fixture(params=sorted(SIZES))
def sized(request, browser):
    width, height = SIZES[request.param]
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    pg.size_name = request.param
    yield pg
    context.close()


def test_the_learn_menu_opens_inside_the_screen(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(f"{server_url}/lessons")
    pg.locator("summary", has_text="Learn").click()
    menu = pg.locator("details.menu[open] ul")
    menu.wait_for()
    box = menu.bounding_box()
    width = pg.viewport_size["width"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert pg.evaluate("document.documentElement.scrollWidth") <= width
    pg.screenshot(path=str(screenshot_dir / f"finish_learn_menu_{pg.size_name}.png"))


@pytest.mark.parametrize(
    "path",
    [
        "/worksheet/bpe",
        "/worksheet/wordpiece",
        "/worksheet/bpe_encode",
        "/worksheet/wordpiece_encode",
        "/worksheet/unigram_lattice",
        "/worksheet/unigram_train",
    ],
)
def test_worksheets_fit_the_screen(sized, server_url, screenshot_dir, path):
    pg = sized
    pg.goto(f"{server_url}{path}")
    width = pg.viewport_size["width"]
    assert pg.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"
    assert pg.evaluate(RIGHT_EDGE) <= width + 1, "something sticks out of the screen"
    name = path.strip("/").replace("/", "_")
    pg.screenshot(path=str(screenshot_dir / f"finish_{name}_{pg.size_name}.png"), full_page=True)


def test_the_worksheet_link_shows_its_icon(browser, server_url, screenshot_dir):
    pg = browser.new_page(viewport={"width": 1400, "height": 900})
    pg.goto(f"{server_url}/bpe/train?step=1")
    icon = pg.locator('[data-testid="worksheet-link"] svg')
    box = icon.bounding_box()
    assert box and 12 <= box["width"] <= 20
    pg.locator('[data-testid="worksheet-link"]').screenshot(
        path=str(screenshot_dir / "finish_worksheet_link.png")
    )
    pg.close()

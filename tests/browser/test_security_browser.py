"""Under the Content-Security-Policy, in a real browser: no page reports a violation or a console
error, and the scripted parts (htmx swaps, the fields app.js shows, the step slider, form posts
from the app's own pages) still work."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PAGES = [
    "/",
    "/compare",
    "/bpe/train",
    "/bpe/encode",
    "/wordpiece/train",
    "/wordpiece/encode",
    "/unigram/lattice",
    "/unigram/train",
    "/sweep",
    "/tax",
    "/unicode",
    "/corpora",
    "/tokenizers",
]

WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation",
  e => window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline")));
"""


@pytest.fixture
def watched(page):
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(WATCH)
    page.errors = errors
    return page


def _clean(page) -> None:
    assert page.evaluate("() => window.__csp") == []
    # a 4xx answer to a half-typed form is the app's own message, not a script error; and
    # htmx reports a request that a keystroke replaced (hx-sync "replace" aborts it) as
    # htmx:sendAbort and htmx:afterRequest on the console: that is the design, not an error (a
    # failed send or a timeout still shows as htmx:sendError or htmx:timeout)
    aborted = ("htmx:sendAbort", "htmx:afterRequest")
    assert [
        e for e in page.errors if "Failed to load resource" not in e and not e.startswith(aborted)
    ] == []


def test_every_page_loads_without_a_csp_violation(watched, server_url):
    for path in PAGES:
        response = watched.goto(server_url + path)
        assert "script-src 'self'" in response.headers["content-security-policy"]
        watched.wait_for_load_state("load")
        assert watched.evaluate("() => typeof htmx") == "object", path
        _clean(watched)


def test_htmx_and_app_js_work_under_the_policy(watched, server_url, screenshot_dir):
    page = watched
    page.goto(f"{server_url}/?tokenizer=word&text=")
    page.locator("#text").press_sequentially("Hello there", delay=10)
    page.wait_for_function("() => document.querySelectorAll('#result .chip').length === 2")
    assert page.locator(".regex-field").is_hidden()
    page.select_option("#tokenizer", "regex")  # app.js shows the pattern field
    assert page.locator(".regex-field").is_visible()

    page.goto(f"{server_url}/bpe/train")
    page.get_by_label("next step").click()  # an htmx swap
    page.wait_for_selector('.stepper .count b:text-is("1")')
    page.locator(".stepper input[type=range]").fill("4")  # the slider sets the step field
    page.wait_for_url("**step=4*")
    page.wait_for_selector('.stepper .count b:text-is("4")')

    page.goto(f"{server_url}/wordpiece/encode")
    page.select_option("#vocab", "bert-base-uncased")
    assert page.locator(".vocab-field").is_hidden()
    assert page.locator(".vocab-field textarea").is_disabled()
    page.screenshot(path=str(screenshot_dir / "csp-wordpiece-encode.png"), full_page=True)
    _clean(page)


def test_same_origin_form_posts_pass_the_cross_site_check(watched, server_url):
    page = watched
    page.goto(f"{server_url}/corpora")
    page.locator("textarea[name=text]").fill("a corpus posted from the app's own page\n")
    page.locator("form[action='/corpora'] button[type=submit]").click()
    page.wait_for_url("**saved=*")
    _clean(page)


def test_a_cross_site_form_post_is_refused(browser, server_url):
    # another site (a data: page here, origin "null") posts a form to the server
    context = browser.new_context()
    page = context.new_page()
    page.set_content(
        f'<form method="post" action="{server_url}/api/corpora/upload"><button>go</button></form>'
    )
    with page.expect_response(f"{server_url}/api/corpora/upload") as info:
        page.click("button")
    assert info.value.status == 403
    context.close()

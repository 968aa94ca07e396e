"""The pages' layouts in a real browser, at 1280x900 and 390x844: /compare shows results on the
first screen with its columns aligned, /diff keeps A left and B right, /tax fits 1280 px and says
on a phone that it scrolls; /chat opens on a matching pair, /audit leads with what is wrong,
/check names the line-by-line convention. Screenshots go to $TOKVIS_SCREENSHOTS (look at them).
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

pytestmark = pytest.mark.slow

PHONE = {"width": 390, "height": 844}
XSS = "<img src=x onerror=alert(1)> <script>alert(2)</script>"


def fits_the_screen(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")


def wait_for(page, script: str, timeout: float = 120_000) -> None:
    page.wait_for_function(script, timeout=timeout)


# ---- /compare ----------------------------------------------------------------------------------
def test_compare_shows_results_on_the_first_screen_with_aligned_columns(
    page, server_url, screenshot_dir
):
    page.goto(f"{server_url}/compare", timeout=180_000)
    # the trained columns arrive as placeholders that fetch themselves
    wait_for(page, "() => document.querySelectorAll('.compare-col .metrics').length === 5")
    first = page.locator(".compare-col .metrics").first.bounding_box()
    assert first["y"] + first["height"] <= 900  # a result on the first screen
    tops = page.locator(".compare-col").evaluate_all(
        "els => els.map(e => [e.getBoundingClientRect().top,"
        " e.querySelector('.metrics').getBoundingClientRect().top])"
    )
    rows: dict[float, set[float]] = {}
    for col_top, metrics_top in tops:
        rows.setdefault(round(col_top), set()).add(round(metrics_top))
    assert all(len(m) == 1 for m in rows.values()), tops  # the metrics line up in each row
    assert fits_the_screen(page)
    page.screenshot(path=str(screenshot_dir / "finish_compare_1280.png"))
    page.screenshot(path=str(screenshot_dir / "finish_compare_full_1280.png"), full_page=True)
    page.set_viewport_size(PHONE)
    assert fits_the_screen(page)
    page.screenshot(path=str(screenshot_dir / "finish_compare_390.png"))


def test_compare_adds_a_column_from_the_list_and_drops_one_by_its_chip(
    page, server_url, screenshot_dir
):
    q = urlencode({"text": "naïve café", "col": ["word", "char"], "ref": 1}, doseq=True)
    page.goto(f"{server_url}/compare?{q}")
    assert page.get_by_test_id("chosen-col").count() == 2
    page.locator('#compare-cols input[value="sentence"]').check()
    wait_for(page, "() => document.querySelectorAll('.compare-col').length === 3")
    wait_for(page, "() => document.querySelectorAll('[data-testid=chosen-col]').length === 3")
    assert "col=sentence" in page.url
    # drop "Words and punctuation": the reference stays on the characters column
    page.get_by_role("link", name="remove Words and punctuation").click()
    wait_for(page, "() => document.querySelectorAll('.compare-col').length === 2")
    assert "col=word" not in page.url and "ref=0" in page.url
    assert "reference" in page.locator('.compare-col[data-col="0"] h2').inner_text()
    assert page.locator("#ref option").count() == 2
    page.screenshot(path=str(screenshot_dir / "finish_compare_dropped_1280.png"))


# ---- /diff -------------------------------------------------------------------------------------
def test_diff_keeps_a_left_and_b_right_and_explains_once(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/diff?{urlencode({'a': 'r50k_base', 'b': 'p50k_base'})}")
    rows = page.get_by_test_id("diff-row")
    assert rows.count() == 4
    for i in range(rows.count()):
        a = rows.nth(i).locator(".diff-side.side-a").bounding_box()
        b = rows.nth(i).locator(".diff-side.side-b").bounding_box()
        assert a["x"] + a["width"] <= b["x"] and abs(a["y"] - b["y"]) < 2
    page.screenshot(path=str(screenshot_dir / "finish_diff_model_1280.png"), full_page=True)
    page.goto(f"{server_url}/diff")
    assert page.get_by_test_id("diff-row").count() == 20
    # the cut-character note once (in the summary), never under a row
    assert page.get_by_test_id("partial-note-once").is_visible()
    visible_notes = page.locator(".diff-row [data-testid=partial-note]").evaluate_all(
        "els => els.filter(e => e.offsetParent !== null).length"
    )
    assert visible_notes == 0
    assert page.get_by_test_id("spelling-note").is_visible()
    page.screenshot(path=str(screenshot_dir / "finish_diff_1280.png"))
    page.get_by_test_id("diff-row").first.screenshot(
        path=str(screenshot_dir / "finish_diff_row_1280.png")
    )
    page.set_viewport_size(PHONE)
    assert fits_the_screen(page)
    a = page.locator(".diff-row .diff-side.side-a").first.bounding_box()
    b = page.locator(".diff-row .diff-side.side-b").first.bounding_box()
    assert a["y"] + a["height"] <= b["y"] + 1  # one column: A above B
    page.get_by_test_id("diff-row").first.screenshot(
        path=str(screenshot_dir / "finish_diff_row_390.png")
    )


def test_diff_pasted_hostile_text_runs_nothing(page, server_url):
    q = urlencode({"a": "cl100k_base", "b": "o200k_base", "source": "text", "text": XSS})
    page.goto(f"{server_url}/diff?{q}")
    assert page.get_by_test_id("diff-row").count() >= 1
    assert page.dialogs == [] and page.locator("img[src=x]").count() == 0


# ---- /tax --------------------------------------------------------------------------------------
def test_tax_fits_1280_and_says_on_a_phone_that_it_scrolls(page, server_url, screenshot_dir):
    from app.tax import vocab_tokenizers

    names = vocab_tokenizers()
    page.goto(f"{server_url}/tax?{urlencode({'tok': names}, doseq=True)}", timeout=180_000)
    assert page.locator("th.tok-head").count() == len(names)
    wrap = page.locator(".tax-scroll > .table-wrap")
    assert wrap.evaluate("el => el.scrollWidth <= el.clientWidth + 1")  # nothing clipped
    # every head's name on one line (set vertically: one column of text), none hyphen-broken
    lines = page.locator("th.tok-head .head-name").evaluate_all(
        "els => els.map(e => e.getClientRects().length)"
    )
    assert lines == [1] * len(names)
    assert not page.get_by_test_id("scroll-hint").is_visible()
    page.locator("#premiums").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "finish_tax_1280.png"))
    page.set_viewport_size(PHONE)
    assert fits_the_screen(page)
    assert page.get_by_test_id("scroll-hint").is_visible()
    assert wrap.evaluate("el => el.scrollWidth > el.clientWidth")
    # a shadow on the right edge says there is more (where scroll-driven animations exist)
    wait_for(
        page,
        "() => !CSS.supports('animation-timeline: scroll()') || parseFloat(getComputedStyle("
        "document.querySelector('.tax-scroll'), '::after').opacity) > 0.5",
        timeout=30_000,
    )
    page.locator("#premiums").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "finish_tax_390.png"))


# ---- /chat (item 4) ----------------------------------------------------------------------------
def test_chat_opens_on_a_matching_pair_and_shows_both_encodings(page, server_url, screenshot_dir):
    import json

    page.goto(f"{server_url}/chat")
    assert page.locator("#tokenizer").input_value() == "qwen3"
    kinds = page.locator(".chat-lints li").evaluate_all("els => els.map(e => e.dataset.kind)")
    assert "missing_control_token" not in kinds and "boundary_token" not in kinds
    page.screenshot(path=str(screenshot_dir / "finish_chat_1280.png"))
    template = "{{ bos_token }}{% for m in messages %}{{ m['content'] }}{% endfor %}"
    messages = json.dumps([{"role": "user", "content": "Hi there"}])
    q = urlencode({"tokenizer": "bert-base-uncased", "template": template, "messages": messages})
    page.goto(f"{server_url}/chat?{q}")
    assert page.locator('.chat-lints li[data-kind="double_bos"] mark').count() == 2
    post = page.get_by_test_id("chat-ids-post")
    assert post.is_visible() and post.locator("mark.added").count() == 2
    page.get_by_test_id("chat-ids-post").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "finish_chat_bos_1280.png"))
    page.set_viewport_size(PHONE)
    assert fits_the_screen(page)
    page.locator(".chat-ids-panel").screenshot(path=str(screenshot_dir / "finish_chat_ids_390.png"))


# ---- /audit (item 5) ---------------------------------------------------------------------------
def test_audit_leads_with_problems_and_its_numbers_follow_a_switch(
    page, server_url, screenshot_dir
):
    page.goto(f"{server_url}/audit?tokenizer=botchan_en_bpe_1000")
    page.wait_for_selector('[data-testid="audit-table"]', timeout=120_000)
    first = page.locator('[data-testid="audit-table"] tbody tr').first
    assert first.get_attribute("data-category") != "ok"
    heading = page.locator("#numbers h2")
    heading.wait_for(timeout=120_000)
    assert heading.inner_text() == "SentencePiece BPE (Botchan, 1k)"
    page.screenshot(path=str(screenshot_dir / "finish_audit_1280.png"))
    page.locator("#tokenizer").select_option("botchan_en_unigram_1000")
    wait_for(
        page,
        "() => (document.querySelector('#numbers h2') || {}).textContent"
        " === 'SentencePiece Unigram (Botchan, 1k)'",
    )
    assert page.locator('[data-testid="audit-found"]').inner_text().find("Unigram") >= 0
    page.set_viewport_size(PHONE)
    assert fits_the_screen(page)
    page.screenshot(path=str(screenshot_dir / "finish_audit_390.png"))

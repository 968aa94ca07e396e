"""An embedded view (?embed=1) at iframe size: no chrome, and stepping keeps it embedded; the
state first in a 600 px frame; the embed code; a page on another origin (another port, a
file://) frames a view when TOKVIS_FRAME_ANCESTORS allows it, and is refused when not."""

from __future__ import annotations

import functools
import http.server
import threading
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.polling import wait_until
from tests.servers import free_port, run_uvicorn

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_embedded_step_view(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 800, "height": 450})
    page.goto(f"{server_url}/bpe/train?embed=1")
    assert page.locator("header.top").count() == 0 and page.locator("footer").count() == 0
    page.get_by_label("next step").click()
    page.wait_for_url("**step=1*")
    assert "embed=1" in page.url
    page.get_by_label("next step").click()
    page.wait_for_url("**step=2*")
    page.reload()  # the pushed URL is still an embed
    assert page.locator("header.top").count() == 0
    page.screenshot(path=str(screenshot_dir / "embed_bpe_train.png"))
    page.goto(f"{server_url}/lessons/unigram-cats?embed=1&step=4")
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**step=5*")
    assert "embed=1" in page.url and page.locator("header.top").count() == 0
    page.screenshot(path=str(screenshot_dir / "embed_lesson.png"))


# ---- issue 31, item 2: the teacher's path ------------------------------------------------------


def test_an_embedded_step_view_shows_its_state_first(browser, server_url, screenshot_dir):
    """In a 600 px frame the pair table of /bpe/train is on the first screen: no form, no
    introduction, the code panel folded (it opens on a click)."""
    for width in (800, 390):
        context = browser.new_context(viewport={"width": width, "height": 600})
        page = context.new_page()
        page.goto(f"{server_url}/bpe/train?embed=1&step=2")
        assert page.locator('[data-testid="train-form"]').count() == 0
        table = page.locator('[data-testid="pair-table"]')
        assert table.bounding_box()["y"] < 600 - 60  # its head and first rows in the frame
        assert page.get_by_label("next step").bounding_box()["y"] < 200
        fold = page.locator('[data-testid="code-fold"]')
        assert fold.count() == 1 and not fold.evaluate("d => d.open")
        assert not page.locator('[data-testid="code-panel"]').is_visible()
        fold.locator("summary").click()
        assert page.locator('[data-testid="code-panel"]').is_visible()
        page.get_by_label("next step").click()
        page.wait_for_url("**step=3*")
        assert page.locator('[data-testid="code-fold"]').count() == 1  # folded again
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(screenshot_dir / f"embed_state_first_{width}.png"))
        context.close()


def test_the_embed_code_says_what_the_server_allows(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/bpe/train?step=1")
    page.get_by_label("next step").click()
    page.wait_for_url("**step=2*")
    page.locator('[data-testid="embed-code"] summary').click()
    page.wait_for_function(  # static/app.js writes the address as it is now
        "() => document.querySelector('#embed-snippet').textContent.includes('step=2')"
    )
    snippet = page.locator('[data-testid="embed-snippet"]').inner_text()
    assert snippet.startswith(f'<iframe src="{server_url}/bpe/train?')
    assert "step=2" in snippet and "embed=1" in snippet  # the address as it is now
    policy = page.locator('[data-testid="frame-policy"]').inner_text()
    assert "'self'" in policy and "TOKVIS_FRAME_ANCESTORS" in policy and "file:" in policy
    assert page.get_by_role("button", name="copy embed code").is_visible()
    page.screenshot(path=str(screenshot_dir / "embed_code.png"), full_page=True)


@pytest.fixture
def framing(tmp_path):
    """A page on another origin (another port, and a file://) that frames a view, and a server
    started with TOKVIS_FRAME_ANCESTORS allowing both: (server url, host page urls)."""
    host_port = free_port()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    host = http.server.ThreadingHTTPServer(("127.0.0.1", host_port), handler)
    threading.Thread(target=host.serve_forever, daemon=True).start()
    env = {
        "TOKVIS_DB": str(tmp_path / "store.sqlite3"),
        "TOKVIS_FRAME_ANCESTORS": f"'self' http://127.0.0.1:{host_port} file:",
    }
    try:
        with run_uvicorn(env=env, stop_timeout=10) as server:
            url = server.url
            (tmp_path / "host.html").write_text(
                "<!doctype html><title>course page</title>"
                f'<iframe src="{url}/bpe/train?embed=1" width="800" height="600"></iframe>'
            )
            yield (
                url,
                [f"http://127.0.0.1:{host_port}/host.html", (tmp_path / "host.html").as_uri()],
            )
    finally:
        host.shutdown()


def _framed(page) -> str:
    """The framed view's state: its URL once it has loaded, "blocked" (Chromium's error page),
    or "" (not loaded: loading, or refused without an error page)."""
    for frame in page.frames[1:]:
        if frame.url.startswith("chrome-error:"):
            return "blocked"
        if "/bpe/train" in frame.url and frame.locator('[data-testid="pair-table"]').count():
            return frame.url
    return ""


def test_another_origin_frames_a_view_when_the_setting_allows_it(
    page, server_url, framing, screenshot_dir
):
    url, hosts = framing
    for host in hosts:
        page.goto(host)
        assert wait_until(lambda: _framed(page)).startswith(f"{url}/bpe/train"), host
        frame = page.frames[1]
        frame.get_by_label("next step").click()
        count = frame.locator(".stepper .count").first
        assert wait_until(lambda: count.inner_text().startswith("step 1 /")), host  # it steps
    page.screenshot(path=str(screenshot_dir / "embed_other_origin.png"))
    # the session's server keeps the default ('self'): the same page framing it is refused
    host = Path(urllib.request.url2pathname(urlsplit(hosts[1]).path))
    refused = host.with_name("refused.html")
    refused.write_text(host.read_text().replace(url, server_url))
    page.goto(refused.as_uri())  # returns at the load event, which waits for the frame
    assert _framed(page) in ("blocked", ""), [f.url for f in page.frames]
    assert not [f for f in page.frames if "/bpe/train" in f.url]  # Chromium's error page

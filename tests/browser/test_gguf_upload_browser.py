"""A GGUF model through the upload form in a real browser: the note says only the metadata is
sent, the form sends only the first bytes of a model larger than the upload limit, and the
visualiser names the pre-tokenizer and warns when it is llama.cpp's `default`."""

from __future__ import annotations

import os
from urllib.parse import quote

import pytest

from app.config import Settings
from tests.gguf_files import write_gpt2

pytestmark = pytest.mark.slow
XSS = '<script>alert("x")</script>'
LIMIT = Settings.max_tokenizer_bytes  # the default TOKVIS_MAX_TOKENIZER_BYTES


def test_a_gguf_larger_than_the_limit_is_sent_as_its_prefix(
    page, server_url, tmp_path, screenshot_dir
):
    path = write_gpt2(str(tmp_path / "model-default.gguf"), pre="default")
    os.truncate(path, LIMIT + 8_000_000)  # "tensors": sparse zeros past the limit
    page.goto(f"{server_url}/?text={quote('It costs 12345 dollars, <b>really</b>!')}")
    page.locator('[data-testid="upload-box"] summary').click()
    form = page.locator('[data-testid="tokenizer-upload"]')
    form.locator("#tok-file").set_input_files(path)
    page.wait_for_function(
        "() => document.querySelector('.tok-upload .sniffed').textContent.includes('GGUF')"
    )
    assert f"only its first {LIMIT / 1e6:.1f} MB are sent" in form.locator(".sniffed").inner_text()
    assert page.evaluate("() => document.querySelector('#tok-file').files[0].size") == LIMIT
    form.locator("#tok-name").fill(XSS)
    page.screenshot(path=str(screenshot_dir / "gguf-upload-1280.png"), full_page=True)
    form.locator('button[type="submit"]').click()
    page.wait_for_url("**tokenizer=upload-*", timeout=60_000)
    warning = page.locator('[data-testid="load-warning"]')
    assert "'default'" in warning.inner_text()
    assert "pre-tokenizer default" in page.locator('[data-testid="gguf-info"]').inner_text()
    assert XSS in page.locator('[data-testid="tokenizer-info"]').inner_text()  # shown as text
    assert page.dialogs == []
    page.screenshot(path=str(screenshot_dir / "gguf-visualiser-1280.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshot_dir / "gguf-visualiser-390.png"), full_page=True)

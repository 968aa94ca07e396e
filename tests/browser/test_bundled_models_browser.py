"""The real bundled tokenisers side by side in /compare, and in the picker, in a real
browser at desktop and phone widths."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

pytestmark = pytest.mark.browser

COLUMNS = [
    "o200k_base",
    "claude_2023",
    "qwen3",
    "mistral_tekken",
    "mistral_v7",
    "whisper_multilingual",
    "clip",
    "p50k_base",
]
TEXT = "Grüße aus Köln! 東京 👍 <script>alert(1)</script> x = f(42)"


@pytest.mark.parametrize("width", [1280, 390])
def test_compare_eight_real_tokenisers(page, server_url, screenshot_dir, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{server_url}/compare?{urlencode({'text': TEXT, 'col': COLUMNS}, doseq=True)}")
    assert page.locator(".compare-col").count() == len(COLUMNS)
    for i in range(len(COLUMNS)):
        tokens = page.locator(f'.compare-col[data-col="{i}"] [data-metric=tokens]').inner_text()
        assert int(tokens.replace(",", "")) > 0
    # CLIP lowercases and adds its start and end tokens
    clip = page.locator(f'.compare-col[data-col="{COLUMNS.index("clip")}"] .chip')
    assert "<|startoftext|>" in clip.all_inner_texts()[0]
    assert not page.dialogs
    page.screenshot(path=str(screenshot_dir / f"compare_real_{width}.png"), full_page=True)


def test_the_picker_groups_them(page, server_url, screenshot_dir):
    page.goto(f"{server_url}/")
    labels = page.locator("select[name=tokenizer] optgroup").evaluate_all(
        "gs => gs.map(g => g.label)"
    )
    assert "Byte-level BPE" in labels and "SentencePiece" in labels
    options = page.locator('select[name=tokenizer] optgroup[label="Byte-level BPE"] option')
    assert {"qwen3", "clip", "whisper_en", "mistral_tekken"} <= set(
        options.evaluate_all("os => os.map(o => o.value)")
    )

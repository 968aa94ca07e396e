"""A training on a corpus of four shards, in a real browser: the page lists every shard with its
state and pre-tokens, polls while the shards are counted, and says done with the handle;
screenshots wide and narrow go to $TOKVIS_SCREENSHOTS (look at them)."""

from __future__ import annotations

import pytest

from tests.servers import post_shards
from tokenizers_core.corpora import load_corpus

pytestmark = pytest.mark.browser

SIZES = {"wide": (1400, 900), "narrow": (390, 844)}


def _upload(base: str, texts: list[str]) -> str:
    return post_shards(base, texts, "botchan")["corpus"]


@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_shards_states_then_done(browser, server_url, screenshot_dir, size):
    width, height = SIZES[size]
    lines = load_corpus("botchan").lstrip("\ufeff").splitlines()
    texts = ["\n".join(lines[i : i + 1000]) + "\n" for i in range(0, 4000, 1000)]
    corpus = _upload(server_url, texts)
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        started = page.request.post(
            f"{server_url}/api/train/sharded",
            data={"algorithm": "bpe", "corpus": corpus, "vocab_size": 600 + len(size)},
        )
        assert started.status == 202, started.text()
        page.goto(f"{server_url}/train/sharded/{started.json()['id']}")
        page.locator('[data-testid="shard-table"]').wait_for()
        assert page.locator("tr[data-shard]").count() == 4
        page.locator('[data-status="done"]').wait_for(timeout=90_000)  # polled in by htmx
        assert page.locator('tr[data-state="done"]').count() == 4
        assert "merges" in page.locator('[data-testid="sharded-progress"]').inner_text()
        table = page.locator(".table-wrap").bounding_box()
        assert table is not None and table["x"] >= 0 and table["width"] <= width, table
        page.screenshot(path=str(screenshot_dir / f"sharded_training_{size}.png"), full_page=True)
    finally:
        context.close()

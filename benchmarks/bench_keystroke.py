"""A keystroke on the visualiser (issue 42, aim 2): in Chromium, from the text box's `input`
event to the new count on screen, and to the chips of the new text, for one character typed at
the end of a 2 KB and a 20 KB text (the median of several keystrokes), and for a 100,000-character
paste. The bars: 150 ms at 2 KB, 400 ms at 20 KB, 1 s for the paste.

Starts its own uvicorn (tests/servers.py, over a temporary store) and drives Debian's chromium
with Playwright. The page keeps the clock itself: a listener on the box notes `performance.now()`
at the input event, and a check run on every animation frame notes when the count reads the new
length (so the figures are what a reader sees, to a frame). A keystroke is a real key press
(Playwright's keyboard); the paste sets the box's value and fires its input event, as a paste
does (the browser's own insertion of 100,000 characters is not in the figure: it takes seconds
in headless Chromium with any page). The text is botchan (English) from CHAPTER I.
Run: .venv/bin/python benchmarks/bench_keystroke.py [--keys 7] [--tokenizer cl100k_base]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import HTTP_PROTOCOL, run_uvicorn  # noqa: E402
from tokenizers_core.corpora import load_corpus  # noqa: E402

CHROMIUM = os.environ.get("TOKVIS_CHROMIUM") or "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
BARS = {"2 KB": 150, "20 KB": 400, "paste": 1000}

# the page's own clock: t0 at the box's input event (capture: before htmx sees it)
CLOCK = """() => {
  window.__t0 = null;
  document.addEventListener('input', (e) => {
    if (e.target.id === 'text') window.__t0 = performance.now();
  }, true);
}"""
SET_TEXT = """(text) => {
  const box = document.querySelector('#text');
  box.value = text;
  box.dispatchEvent(new Event('input', {bubbles: true}));
}"""
# true (and the time noted) once the count reads `n` characters
COUNT_SHOWN = """(n) => {
  const el = document.querySelector('[data-testid="char-count"]');
  if (!el || el.textContent.replace(/[^0-9]/g, '') !== String(n)) return false;
  if (window.__count === null) window.__count = performance.now();
  return true;
}"""
# ... and once the chips of that text are drawn under it
CHIPS_SHOWN = """(n) => {
  const el = document.querySelector('[data-testid="char-count"]');
  if (!el || el.textContent.replace(/[^0-9]/g, '') !== String(n)) return false;
  if (!document.querySelector('[data-testid="tokens-view"] ol.chips > li')) return false;
  if (window.__chips === null) window.__chips = performance.now();
  return true;
}"""
SETTLED = "() => !document.querySelector('.htmx-request')"


def text_of(size: int) -> str:
    text = load_corpus("botchan")
    start = text.index("CHAPTER I")
    return text[start : start + size]


def measure(page, n: int, act) -> tuple[float, float]:
    """(ms to the count, ms to the chips) from the input event `act` causes, for a text of
    `n` characters."""
    page.evaluate("() => { window.__t0 = null; window.__count = null; window.__chips = null; }")
    act()
    page.wait_for_function(COUNT_SHOWN, arg=n, polling="raf", timeout=60_000)
    page.wait_for_function(CHIPS_SHOWN, arg=n, polling="raf", timeout=60_000)
    t0, count, chips = page.evaluate("() => [window.__t0, window.__count, window.__chips]")
    page.wait_for_function(SETTLED)
    page.wait_for_timeout(200)  # (a benchmark: let the last answer's requests end)
    return count - t0, chips - t0


def load_text(page, text: str) -> None:
    page.evaluate("() => { window.__count = null; window.__chips = null; }")
    page.evaluate(SET_TEXT, text)
    shown = CHIPS_SHOWN if text else COUNT_SHOWN  # an empty text has no chips
    page.wait_for_function(shown, arg=len(text), polling="raf", timeout=60_000)
    page.wait_for_function(SETTLED)
    page.wait_for_timeout(300)


def keystrokes(page, text: str, keys: int) -> tuple[float, float]:
    """The medians over `keys` characters typed at the end of `text`."""
    load_text(page, text)
    box = page.locator("#text")
    box.focus()
    page.keyboard.press("Control+End")
    counts, chips = [], []
    for i in range(keys):
        n = len(text) + i + 1
        count, chip = measure(page, n, lambda: page.keyboard.type("abcdefghij"[i % 10]))
        counts.append(count)
        chips.append(chip)
    return statistics.median(counts), statistics.median(chips)


def paste(page, repeat: int) -> tuple[float, float]:
    """The medians over `repeat` pastes of 100,000 characters (a different stretch each)."""
    corpus = load_corpus("botchan")
    start = corpus.index("CHAPTER I")
    counts, chips = [], []
    for i in range(repeat):
        load_text(page, "")
        text = corpus[start + i * 1000 :][:100_000]
        count, chip = measure(page, len(text), lambda: page.evaluate(SET_TEXT, text))
        counts.append(count)
        chips.append(chip)
    return statistics.median(counts), statistics.median(chips)


def run(url: str, tokenizer: str, keys: int) -> None:
    from playwright.sync_api import sync_playwright

    print(f"keystroke to count on /, {tokenizer}, Chromium; medians (keys: {keys})")
    print(f"{'case':<8}{'count ms':>10}{'chips ms':>10}{'bar ms':>8}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{url}/?tokenizer={tokenizer}")
        page.wait_for_selector('[data-testid="char-count"]')
        page.evaluate(CLOCK)
        for label, size in (("2 KB", 2_048), ("20 KB", 20_480)):
            count, chips = keystrokes(page, text_of(size), keys)
            print(f"{label:<8}{count:>10.0f}{chips:>10.0f}{BARS[label]:>8}")
        count, chips = paste(page, max(3, keys // 2))
        print(f"{'paste':<8}{count:>10.0f}{chips:>10.0f}{BARS['paste']:>8}")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=7)
    parser.add_argument("--tokenizer", default="cl100k_base")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {"TOKVIS_DB": str(Path(tmp) / "bench.sqlite3")}
        with run_uvicorn("--http", HTTP_PROTOCOL, env=env, timeout=60) as server:
            run(server.url, args.tokenizer, args.keys)


if __name__ == "__main__":
    main()

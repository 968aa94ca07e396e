"""Time to the first count on the visualiser (issue 31, item 3): a 99,000-character paste into
the text box of `/` in Chromium, until the page shows its character and token counts, and until
the chips are drawn; beside the server's own time for the answers (the Server-Timing header).

Starts its own uvicorn on a free port over a temporary store (as the browser tests do), and drives
Debian's chromium with Playwright. The clock starts when the text is in the box and the box fires
its `input` event, as after a paste (the page's htmx form posts it after its 250 ms typing delay,
which is inside the figures). Not inside them: the browser's own insertion of 99,000 characters
into a textarea (Playwright's `fill`, or Ctrl+V), which takes 2.5-4 s in headless Chromium on a
loaded 2-core machine with any page, a bare <textarea> included. Each run pastes a different
99,000-character stretch of botchan (no cache has seen it), then the same one again.

Prints, per run: ms to the count (the `char-count` figure equal to the paste's length), ms to
the chips (the chip list of that text drawn), the bytes of HTML the browser received, and the
server's ms per request.
Run: .venv/bin/python benchmarks/bench_visualiser_page.py [--repeat 3] [--tokenizer cl100k_base]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tokenizers_core.corpora import load_corpus  # noqa: E402

CHARS = 99_000
CHROMIUM = os.environ.get("TOKVIS_CHROMIUM") or "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]

# the count is shown when the page's character figure reads the paste's length (with or
# without thousands separators); the chips when the chip list holds chips of this text
COUNT_SHOWN = """(n) => {
  const el = document.querySelector('[data-testid="char-count"]');
  return !!el && el.textContent.replace(/[^0-9]/g, '') === String(n);
}"""
PASTE = """(text) => {
  const box = document.querySelector('#text');
  box.value = text;
  box.dispatchEvent(new Event('input', {bubbles: true}));
}"""
CHIPS_SHOWN = """(n) => {
  const el = document.querySelector('[data-testid="char-count"]');
  if (!el || el.textContent.replace(/[^0-9]/g, '') !== String(n)) return false;
  return document.querySelectorAll('#result ol.chips > li').length >= 100;
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "TOKVIS_DB": str(data / "bench.sqlite3")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port)]
        + ["--host", "127.0.0.1", "--log-level", "warning"],
        cwd=ROOT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/api/tokenizers", timeout=2).read()
            return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("uvicorn did not start") from None
            time.sleep(0.2)


def pastes(repeat: int) -> list[str]:
    text = load_corpus("botchan")
    start = text.index("CHAPTER I")
    out = []
    for i in range(repeat):
        stretch = text[start + i * 1000 :][:CHARS]
        out += [stretch, stretch]  # cold, then warm
    return out


def run(url: str, tokenizer: str, repeat: int) -> None:
    from playwright.sync_api import sync_playwright

    print(f"{CHARS:,}-character paste into / ({tokenizer}), Chromium; cold then warm per run")
    print(f"{'run':<10}{'count ms':>10}{'chips ms':>10}{'HTML KB':>10}  server ms per request")
    counts, chips = [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        received: list[tuple[str, int, str]] = []

        def on_finished(request):
            if request.method == "POST" and request.url.startswith(url):
                response = request.response()
                timing = response.headers.get("server-timing", "") if response else ""
                received.append((request.url, request.sizes()["responseBodySize"], timing))

        page.on("requestfinished", on_finished)
        page.goto(f"{url}/?tokenizer={tokenizer}")
        page.wait_for_selector('[data-testid="char-count"]')
        for i, text in enumerate(pastes(repeat)):
            received.clear()
            page.evaluate(PASTE, "")
            page.wait_for_function(COUNT_SHOWN, arg=0)
            page.wait_for_timeout(300)  # (a benchmark: let the empty text's answer settle)
            received.clear()
            t0 = time.perf_counter()
            page.evaluate(PASTE, text)
            page.wait_for_function(COUNT_SHOWN, arg=len(text), polling="raf", timeout=60_000)
            t_count = time.perf_counter() - t0
            page.wait_for_function(CHIPS_SHOWN, arg=len(text), polling="raf", timeout=60_000)
            t_chips = time.perf_counter() - t0
            # the chips' answer is drawn; wait for its request to be recorded
            page.wait_for_function("() => !document.querySelector('.htmx-request')")
            page.wait_for_timeout(100)
            kb = sum(size for _, size, _ in received) / 1000
            server = " ".join(t.split("dur=")[-1] for _, _, t in received if "dur=" in t)
            name = f"{i // 2 + 1} {'cold' if i % 2 == 0 else 'warm'}"
            print(f"{name:<10}{t_count * 1000:>10.0f}{t_chips * 1000:>10.0f}{kb:>10.0f}  {server}")
            counts.append(t_count)
            chips.append(t_chips)
        browser.close()
    print(
        f"median: count {statistics.median(counts) * 1000:.0f} ms, "
        f"chips {statistics.median(chips) * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tokenizer", default="cl100k_base")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp))
        try:
            run(url, args.tokenizer, args.repeat)
        finally:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()

"""Take the docs site's screenshots: one PNG per view, in docs/img/<view>.png.

Starts the app with uvicorn on a free port and a temporary store, opens each view in Debian's
chromium through Playwright at a 1280x800 viewport, waits for the page to settle, and saves what
the viewport shows (not the whole page). A view that fails or times out is skipped with a warning;
the others are still taken. Run it with `make docs-screenshots` after a view changes; the PNGs are
committed and CI never runs this script.

    python docs/screenshots.py                 # every view
    python docs/screenshots.py compare chat    # only these
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"
CHROMIUM = os.environ.get("TOKVIS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
VIEWPORT = {"width": 1280, "height": 800}
TIMEOUT_MS = 180_000  # a first visit can take a minute on a busy machine

TEXT = "The tokenization handles preprocessing of naïve cafés: 12345 tokens!"

# (file name, path and query[, what to do first]); the order is the site's. A step view is
# scrolled to its step controls, so that the state it draws fills the picture; a view that runs a
# job has its button pressed and waits for the chart.
STEP = {"scroll": "text=« reset"}
VIEWS = [
    ("visualiser", "/?" + urlencode({"tokenizer": "cl100k_base", "text": TEXT})),
    ("bpe_train", "/bpe/train?step=12", STEP),
    (
        "bpe_encode",
        "/bpe/encode?"
        + urlencode({"tokenizer": "gpt2", "text": "lowest newer tokenization works", "step": 3}),
        STEP,
    ),
    ("wordpiece_train", "/wordpiece/train?vocab_size=40&step=5", STEP),
    (
        "wordpiece_encode",
        "/wordpiece/encode?vocab=bert-base-uncased&text=unaffable+playing&step=4",
        STEP,
    ),
    ("unigram_lattice", "/unigram/lattice?text=cats&step=3", STEP),
    ("unigram_train", "/unigram/train?step=2", STEP),
    (
        "bpe_superbpe",
        "/bpe/train?variant=superbpe&corpus=udhr/eng&vocab_size=700&transition=600&step=420",
        STEP,
    ),
    (
        "bpe_picky",
        "/bpe/train?variant=picky_bpe&corpus=udhr/eng&vocab_size=600&threshold=0.6&step=300",
        STEP,
    ),
    ("bpe_parity", "/bpe/train?variant=parity_bpe&corpus=udhr/all&vocab_size=600&step=120", STEP),
    ("practice", "/bpe/train?practice=1&step=4", {"scroll": "text=Train step by step"}),
    (
        "compare",
        "/compare?"
        + urlencode(
            {"text": TEXT, "col": ["cl100k_base", "o200k_base", "bert-base-uncased"]}, doseq=True
        ),
    ),
    (
        "sweep",
        "/sweep?corpus=udhr/eng&heldout=udhr/fra&algo=bpe&algo=unigram&sizes=100,200,400",
        {"click": "text=Run sweep", "wait": "main svg"},
    ),
    ("tax", "/tax?tok=cl100k_base&tok=o200k_base"),
    ("unicode", "/unicode?text=caf%C3%A9%20%EF%AC%81nance&tok=cl100k_base&tok=r50k_base"),
    ("corpora", "/corpora"),
    ("tokenizers", "/tokenizers"),
    ("chat", "/chat"),
    ("diff", "/diff?" + urlencode({"a": "cl100k_base", "b": "o200k_base"})),
    ("vocab", "/vocab?tokenizer=cl100k_base"),
    (
        "tokenizations",
        "/tokenizations?" + urlencode({"tokenizer": "cl100k_base", "ids": "359 65767 2065"}),
    ),
    ("vocab_diff", "/vocab/diff?" + urlencode({"a": "cl100k_base", "b": "o200k_base"})),
    ("audit", "/audit?tokenizer=bert-base-uncased"),
    ("audit_mix", "/audit/mix?tokenizer=r50k_base", {"wait": "main svg"}),
    ("audit_numbers", "/audit/numbers?tokenizer=r50k_base"),
    ("check", "/check"),
    ("lessons", "/lessons"),
    ("worksheet", "/worksheet/bpe?start=1&end=2"),
    ("api", "/docs"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(store: Path) -> tuple[subprocess.Popen, str]:
    """uvicorn serving the app on a free port, with its own store; waits until it answers."""
    port = free_port()
    env = {**os.environ, "TOKVIS_DB": str(store), "TOKVIS_ALLOWED_HOSTS": "127.0.0.1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "app.main:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(url + "/api/tokenizers", timeout=5).read()
            return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("uvicorn did not start") from None
            time.sleep(0.5)


def shoot(page, url: str, target: Path, todo: dict[str, str]) -> None:
    """Open `url`, do what `todo` says (click, wait for a selector, scroll to one), wait until
    the network and the layout are quiet, save the viewport."""
    page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
    page.wait_for_load_state("networkidle", timeout=TIMEOUT_MS)
    if "click" in todo:
        page.locator(todo["click"]).first.click()
    if "wait" in todo:
        page.locator(todo["wait"]).first.wait_for(timeout=TIMEOUT_MS)
    if "scroll" in todo:
        page.locator(todo["scroll"]).first.evaluate(
            "e => { e.scrollIntoView({block: 'start'}); window.scrollBy(0, -16); }"
        )
    page.wait_for_timeout(500)  # htmx swaps and fonts
    page.screenshot(path=str(target), full_page=False)


def main(only: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    views = [(v[0], v[1], v[2] if len(v) > 2 else {}) for v in VIEWS if not only or v[0] in only]
    failed: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = start_server(Path(tmp) / "store.sqlite3")
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                context = browser.new_context(viewport=VIEWPORT, color_scheme="light")
                page = context.new_page()
                for name, path, todo in views:
                    target = OUT / f"{name}.png"
                    start = time.monotonic()
                    try:
                        shoot(page, base + path, target, todo)
                    except Exception as exc:  # one slow view must not lose the others
                        print(
                            f"warning: {name} skipped ({path}): {exc}".splitlines()[0],
                            file=sys.stderr,
                        )
                        failed.append(name)
                        page.close()
                        page = context.new_page()
                        continue
                    size = target.stat().st_size // 1024
                    print(f"{name:18} {time.monotonic() - start:5.1f} s  {size:4} KB  {path}")
                browser.close()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    if failed:
        print(f"{len(failed)} skipped: {' '.join(failed)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

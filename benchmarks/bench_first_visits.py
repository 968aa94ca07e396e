"""Every page's first visit (issue 31, item 9): the time to the first answer and, for a page
that answers "working on it" (a job's progress panel), the time until the page is complete.

Each page is visited first in a server that has just started, so no per-process cache has seen
it. Two rounds: `cold`, a fresh store per page (a new install: nothing computed yet), and
`restart`, a new server process over the store that page's cold visit left (what a restart
keeps). The Llama 3 audit
uploads ../shared/data/interop/raw/llama3/tokenizer.model first (not timed).

A page is complete when a GET of it holds no progress panel (`data-testid` "progress",
"training" or "job-progress", or an htmx `every` poll); the benchmark polls every 0.25 s, as the
pages' own polls do about every 0.5 s.
The visit comes `--settle` seconds after the server answers (default 10: its start-up warm-up,
app/warmup.py, has loaded the default tokenizers by then; 0 for a visitor at the first moment).
Run: .venv/bin/python benchmarks/bench_first_visits.py [--only /compare /vocab] [--round cold]
     [--settle 0]
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_visualiser_page import start_server  # noqa: E402
from tests.shared_data import INTEROP  # noqa: E402  (where the shared data is)

PAGES = [
    "/",
    "/tokenizations",
    "/vocab",
    "/unicode",
    "/corpora",
    "/bpe/train",
    "/bpe/train?variant=superbpe",
    "/bpe/train?variant=picky_bpe",
    "/bpe/train?variant=parity_bpe",
    "/bpe/encode",
    "/wordpiece/train",
    "/wordpiece/encode",
    "/unigram/lattice",
    "/unigram/train",
    "/compare",
    "/diff",
    "/vocab/diff",
    "/sweep",
    "POST /sweep/run corpus=botchan&heldout=udhr/eng&algo=bpe&algo=wordpiece&algo=unigram"
    "&sizes=250,500,1000,2000,4000",
    "/tax",
    "/tokenizers",
    "/chat",
    "/audit",
    "/audit?tokenizer={llama3}",
    "/audit/mix",
    "/audit/mix?tokenizer=r50k_base",
    "/audit/mix?tokenizer=o200k_base",
    "/docs",
    "/lessons",
    "/check",
    "/worksheet/bpe",
    "/worksheet/wordpiece",
]
BUSY = re.compile(
    r'data-testid="(progress|training|job-progress|tokens-loading)"|hx-trigger="[^"]*every'
)
LLAMA3 = INTEROP / "raw" / "llama3" / "tokenizer.model"


LAZY = re.compile(r'hx-get="([^"]+)"[^>]*hx-trigger="load"')


def get(url: str, form: str | None = None) -> tuple[str, str]:
    """The page's HTML (or "HTTP nnn") and its address after redirects; `form`: POST this."""
    data = form.encode() if form is not None else None
    try:
        with urllib.request.urlopen(url, data=data, timeout=600) as r:
            return r.read().decode(), r.geturl()
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code}", url


def load_lazy(url: str, page: str) -> None:
    """Fetch the fragments the page loads as it opens (hx-trigger="load"), at once, as a browser
    does (it sends up to six at a time)."""
    parts = [html.unescape(p) for p in LAZY.findall(page)]
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(lambda part: get(url + part), parts))


def upload_llama3(url: str) -> str:
    boundary = "tokvisbench"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="tokenizer.model"\r\n\r\n'
        ).encode()
        + LLAMA3.read_bytes()
        + f"\r\n--{boundary}--\r\n".encode()
    )
    req = urllib.request.Request(
        url + "/api/tokenizers",
        data=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    with urllib.request.urlopen(req, timeout=300) as r:
        return re.search(rb'"tokenizer":"([^"]+)"', r.read()).group(1).decode()


def visit(url: str, path: str) -> tuple[float, float | None, str]:
    """Seconds to the first answer, to the complete page (None: complete at once), and a note.
    `path` may be "POST /path form-data": the form's submission, then the page it leads to."""
    form = None
    if path.startswith("POST "):
        _, path, form = path.split(" ", 2)
    t0 = time.perf_counter()
    page, address = get(url + path, form)
    first = time.perf_counter() - t0
    if page.startswith("HTTP "):
        return first, None, page
    lazy = LAZY.search(page) is not None
    if lazy:
        load_lazy(url, page)
    if not BUSY.search(page):
        done = time.perf_counter() - t0
        return first, (done if lazy else None), ("parts loaded after" if lazy else "")
    deadline = t0 + 900
    while BUSY.search(page) and time.perf_counter() < deadline:
        time.sleep(0.25)
        page, _ = get(address)
    return first, time.perf_counter() - t0, "progress shown at once"


def run_round(name: str, root: Path, pages: list[str], settle: float) -> None:
    """Each page in a server just started over its own store: new in the cold round, the one
    its cold visit left in the restart round."""
    for number, path in enumerate(pages):
        data = root / str(number)
        data.mkdir(exist_ok=True)
        proc, url = start_server(data)
        handle = (
            (data / "llama3-handle").read_text() if "{llama3}" in path and name != "cold" else ""
        )
        try:
            if "{llama3}" in path and not handle:
                handle = upload_llama3(url)
                (data / "llama3-handle").write_text(handle)
                proc.terminate()
                proc.wait()
                proc, url = start_server(data)  # the upload's parse is not the page's visit
            time.sleep(settle)
            first, done, note = visit(url, path.format(llama3=handle))
        finally:
            proc.terminate()
            proc.wait()
        shown = path.replace("{llama3}", "Llama 3")[:35]
        complete = f"{done:8.2f}" if done is not None else f"{'':>8}"
        print(f"{name:<8}{shown:<36}{first:8.2f}{complete}  {note}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="these paths only")
    parser.add_argument("--round", choices=["cold", "restart", "both"], default="both")
    parser.add_argument(
        "--settle",
        type=float,
        default=10.0,
        help="seconds between the server's start and the visit (its start-up warm-up runs "
        "then; 0: a visitor who comes the moment it starts)",
    )
    args = parser.parse_args()
    pages = [p for p in PAGES if not args.only or p.split("?")[0] in args.only or p in args.only]
    root = Path(tempfile.mkdtemp(prefix="tokvis-first-visits-"))
    print(f"{'round':<8}{'page':<36}{'first s':>8}{'done s':>8}")
    try:
        if args.round in ("cold", "both"):
            run_round("cold", root, pages, args.settle)
        if args.round in ("restart", "both"):
            run_round("restart", root, pages, args.settle)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

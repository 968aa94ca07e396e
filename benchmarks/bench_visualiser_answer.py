"""The visualiser's answer (issue 42, aim 1): at 200 B, 2 KB, 20 KB and 100 KB of real text, the
HTML bytes htmx gets for the result (and, past DEFER_CHARS, for the tokens it loads after the
count), the tokens, the bytes of HTML per token, the server's time for that answer, and the time
of POST /api/encode for the same text beside it, with their ratio.

In-process (FastAPI TestClient, no network), each text warmed up first, so this is the steady
state of a running server; the figures are medians. The text is botchan (English) from CHAPTER I.
Run: .venv/bin/python benchmarks/bench_visualiser_answer.py [--tokenizer cl100k_base] [--repeat 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient  # noqa: E402

from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from app.services.visualiser import DEFER_CHARS  # noqa: E402
from tokenizers_core.corpora import load_corpus  # noqa: E402

SIZES = {"200 B": 200, "2 KB": 2_048, "20 KB": 20_480, "100 KB": 100_000}
HTMX = {"HX-Request": "true"}


def text_of(size: int) -> str:
    """`size` bytes of botchan from CHAPTER I (English: a character is a byte)."""
    text = load_corpus("botchan")
    start = text.index("CHAPTER I")
    return text[start : start + size]


def client() -> TestClient:
    tmp = tempfile.mkdtemp()
    settings = Settings(
        db_path=Path(tmp) / "bench.sqlite3",
        max_text_chars=100_000,
        max_corpus_bytes=5_000_000,
        max_upload_bytes=5_000_000,
        regex_timeout=0.5,
    )
    return TestClient(create_app(settings), base_url="http://127.0.0.1")


def answer(c: TestClient, form: dict[str, str]) -> int:
    """What the browser gets for one keystroke's answer: POST / (the result block), and POST
    /tokens after it when the text is long enough to be deferred. Returns the HTML bytes."""
    size = 0
    r = c.post("/", data=form, headers=HTMX)
    r.raise_for_status()
    size += len(r.content)
    if len(form["text"]) > DEFER_CHARS:
        r = c.post("/tokens", data=form, headers=HTMX)
        r.raise_for_status()
        size += len(r.content)
    return size


def timed(call, repeat: int) -> float:
    """The median ms of `repeat` calls (after one call to warm up)."""
    call()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokenizer", default="cl100k_base")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    c = client()
    print(f"the visualiser's answer (htmx), {args.tokenizer}, botchan; median of {args.repeat}")
    head = f"{'text':<8}{'HTML KB':>9}{'tokens':>8}{'B/token':>9}{'answer ms':>11}"
    print(head + f"{'api ms':>9}{'ratio':>7}{'bar ms':>8}")
    for label, size in SIZES.items():
        text = text_of(size)
        form = {"text": text, "tokenizer": args.tokenizer}
        html = answer(c, form)
        r = c.post("/api/encode", json={"text": text, "tokenizer": args.tokenizer})
        r.raise_for_status()
        tokens = len(r.json()["ids"])
        ms = timed(lambda: answer(c, form), args.repeat)
        api = timed(
            lambda: c.post("/api/encode", json={"text": text, "tokenizer": args.tokenizer}),
            args.repeat,
        )
        bar = 3 * api + 5  # the aim: within 3x the API's time plus 5 ms
        print(
            f"{label:<8}{html / 1000:>9.1f}{tokens:>8}{html / tokens:>9.0f}{ms:>11.1f}"
            f"{api:>9.1f}{ms / api:>7.2f}{bar:>8.1f}"
        )


if __name__ == "__main__":
    main()

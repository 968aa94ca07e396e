"""Re-encoding only what an edit touched (issue 42, `tokenizers_core.incremental.reencode`):

1. the whole encode of the edited text against `reencode` from the old text's encoding, for a
   one-character insert in the middle, at the start and at the end, at 20 KB, 100 KB and 1 MB
   of real multilingual text (the UDHR in its 33 languages one after another, from the bundled
   corpus, repeated to 1 MB; sizes in characters), for the visualiser's default tokenizer
   (cl100k_base) and o200k_base; both answers checked equal first;
2. the visualiser's count request (POST / as htmx sends it; past DEFER_CHARS it is the count
   alone) at 100 KB, each keystroke one more character typed in the middle after the last one
   was answered: with every text encoded whole (INCREMENTAL_CHARS out of reach: before) and
   re-encoded from the last one (after). In-process (FastAPI TestClient), as
   bench_visualiser_answer.py measures.

Times are the best of `--repeat` runs (encode) and the median of `--repeat` keystrokes (page).
Run: PYTHONPATH=. .venv/bin/python benchmarks/bench_incremental.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient  # noqa: E402

import tokenizers_core as tc  # noqa: E402
from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from app.services import visualiser  # noqa: E402
from tokenizers_core.corpora import load_corpus  # noqa: E402
from tokenizers_core.incremental import reencode  # noqa: E402

SIZES = {"20 KB": 20_000, "100 KB": 100_000, "1 MB": 1_000_000}
TOKENIZERS = ("cl100k_base", "o200k_base")
HTMX = {"HX-Request": "true"}


def multilingual(size: int) -> str:
    """`size` characters of the UDHR in all its languages, repeated as often as it takes."""
    text = load_corpus("udhr/all")
    return (text * (size // len(text) + 1))[:size]


def best(fn: Callable[[], Any], repeat: int) -> float:
    """The least disturbed of `repeat` runs, in ms."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def encode_rows(repeat: int) -> None:
    print(f"whole encode vs reencode, one character typed; best of {repeat}, ms")
    print(
        f"{'tokenizer':<13}{'text':>7}{'edit':>8}{'tokens':>9}{'whole':>9}{'reencode':>10}{'x':>7}"
    )
    for name in TOKENIZERS:
        tok = tc.load(name)
        for label, size in SIZES.items():
            old = multilingual(size)
            old_enc = tok.encode(old)
            for where, at in (("middle", size // 2), ("start", 0), ("end", size)):
                new = old[:at] + "x" + old[at:]
                assert reencode(tok, old, old_enc, new) == tok.encode(new)
                whole = best(lambda: tok.encode(new), repeat)
                spliced = best(lambda: reencode(tok, old, old_enc, new), repeat)
                print(
                    f"{name:<13}{label:>7}{where:>8}{len(old_enc):>9,}{whole:>9.1f}"
                    f"{spliced:>10.2f}{whole / spliced:>7.1f}"
                )


def client() -> TestClient:
    settings = Settings(
        db_path=Path(tempfile.mkdtemp()) / "bench.sqlite3",
        max_text_chars=200_000,
        max_corpus_bytes=5_000_000,
        max_upload_bytes=5_000_000,
        regex_timeout=0.5,
    )
    return TestClient(create_app(settings), base_url="http://127.0.0.1")


def keystrokes(c: TestClient, text: str, repeat: int) -> float:
    """The median ms of POST / for `repeat` keystrokes in the middle of `text`, each answered
    before the next (the first, a paste, not counted)."""
    c.post("/", data={"text": text, "tokenizer": "cl100k_base"}, headers=HTMX).raise_for_status()
    times = []
    for k in range(repeat):
        at = len(text) // 2 + k
        text = text[:at] + "x" + text[at:]
        start = time.perf_counter()
        r = c.post("/", data={"text": text, "tokenizer": "cl100k_base"}, headers=HTMX)
        times.append((time.perf_counter() - start) * 1000)
        r.raise_for_status()
    return statistics.median(times)


def page_rows(repeat: int) -> None:
    c = client()
    text = multilingual(100_000)
    limit = visualiser.INCREMENTAL_CHARS
    visualiser.INCREMENTAL_CHARS = 10**9  # before: every text encoded whole
    before = keystrokes(c, text, repeat)
    visualiser.INCREMENTAL_CHARS = limit
    after = keystrokes(c, text[1:], repeat)  # another text: nothing kept from the run before
    print(f"\nthe visualiser's count (POST /, htmx), cl100k_base, 100 KB, a keystroke after a "
          f"keystroke; median of {repeat}, ms")  # fmt: skip
    print(f"whole {before:.1f}   re-encoded {after:.1f}   x{before / after:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    encode_rows(args.repeat)
    page_rows(max(args.repeat, 9))


if __name__ == "__main__":
    main()

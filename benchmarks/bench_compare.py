"""Server time of the compare view (six tokenisers, 2 KB of text, warm caches) and of the
multilingual-tax data for every bundled tokeniser on all 33 UDHR languages, cold and warm.

In-process (TestClient). Run: .venv/bin/python benchmarks/bench_compare.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient  # noqa: E402

from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from tokenizers_core.corpora import load_corpus  # noqa: E402

REQUESTS = int(os.environ.get("BENCH_REQUESTS", "100"))
COLUMNS = ["bpe", "wordpiece", "unigram", "o200k_base", "bert-base-uncased", "cl100k_base"]


def main() -> None:
    tmp = tempfile.mkdtemp()
    settings = Settings(
        db_path=Path(tmp) / "bench.sqlite3",
        max_text_chars=100_000,
        max_corpus_bytes=5_000_000,
        max_upload_bytes=5_000_000,
        regex_timeout=0.5,
    )
    client = TestClient(create_app(settings), base_url="http://127.0.0.1")
    text = load_corpus("botchan")
    start = text.index("CHAPTER I")
    text = text[start : start + 2048]
    params = {"text": text, "col": COLUMNS, "corpus": "botchan", "vocab": 1000, "ref": 3}
    t0 = time.perf_counter()
    client.get("/compare", params={**params, "wait": "true"}).raise_for_status()
    print(
        f"compare, first request (trains bpe, wordpiece, unigram on botchan at 1000): "
        f"{time.perf_counter() - t0:.1f} s"
    )
    times, server = [], []
    for _ in range(REQUESTS):
        t0 = time.perf_counter()
        r = client.get("/compare", params=params, headers={"HX-Request": "true"})
        r.raise_for_status()
        times.append((time.perf_counter() - t0) * 1000)
        server.append(float(r.headers["Server-Timing"].split("dur=")[1]))
    assert "compare/column?" not in r.text, "a column was not warm"
    for label, values in (
        ("server time (Server-Timing)", server),
        ("round trip (in-process client)", times),
    ):
        values.sort()
        print(
            f"compare of {len(COLUMNS)} tokenisers on {len(text.encode())} bytes, warm, "
            f"{REQUESTS} requests, {label}: median {statistics.median(values):.1f} ms, "
            f"p95 {values[int(0.95 * (len(values) - 1))]:.1f} ms"
        )

    t0 = time.perf_counter()
    client.get("/api/tax").raise_for_status()
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    body = client.get("/api/tax").json()
    warm = time.perf_counter() - t0
    print(
        f"tax for {len(body['counts'])} bundled tokenisers x {len(body['languages'])} languages: "
        f"cold {cold:.2f} s, warm {warm * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()

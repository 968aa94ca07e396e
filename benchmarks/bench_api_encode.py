"""Server time of POST /api/encode for 2 KB of text: median and p95 over many requests.

In-process (FastAPI TestClient, no network); each tokeniser is warmed up first, so this is the
steady state of a running server. Run: .venv/bin/python benchmarks/bench_api_encode.py
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
from tokenizers_core import pretrained  # noqa: E402
from tokenizers_core.corpora import load_corpus  # noqa: E402

REQUESTS = int(os.environ.get("BENCH_REQUESTS", "300"))


def two_kb_text() -> str:
    text = load_corpus("botchan")
    start = text.index("CHAPTER I")
    return text[start : start + 2048]


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
    text = two_kb_text()
    print(f"POST /api/encode, {len(text.encode())} bytes of botchan, {REQUESTS} requests each")
    print(f"{'tokenizer':<26}{'tokens':>8}{'median ms':>12}{'p95 ms':>10}")
    for name in pretrained.bundled():
        body = {"tokenizer": name, "text": text}
        r = client.post("/api/encode", json=body)
        r.raise_for_status()
        n = len(r.json()["ids"])
        times = []
        for _ in range(REQUESTS):
            t0 = time.perf_counter()
            client.post("/api/encode", json=body).raise_for_status()
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        p95 = times[int(0.95 * (len(times) - 1))]
        print(f"{name:<26}{n:>8}{statistics.median(times):>12.2f}{p95:>10.2f}")


if __name__ == "__main__":
    main()

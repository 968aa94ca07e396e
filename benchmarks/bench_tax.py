"""Server time of the first visit to /tax in a fresh process (the numbers come from
app/data/tax_counts.json, saved at build time), then of a second visit, and, for comparison,
the time to compute them from scratch (what the first visit used to cost).

Run: .venv/bin/python benchmarks/bench_tax.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient  # noqa: E402

from app import tax  # noqa: E402
from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402


def main() -> None:
    settings = Settings(
        db_path=Path(tempfile.mkdtemp()) / "bench.sqlite3",
        max_text_chars=1000,
        max_corpus_bytes=100_000,
        max_upload_bytes=100_000,
        regex_timeout=0.5,
    )
    client = TestClient(create_app(settings), base_url="http://127.0.0.1")
    for visit in ("first", "second"):
        t0 = time.perf_counter()
        r = client.get("/tax")
        wall = time.perf_counter() - t0
        r.raise_for_status()
        server = float(r.headers["Server-Timing"].split("dur=")[1]) / 1000
        print(f"/tax {visit} visit: server {server:.3f} s (wall {wall:.3f} s)")
    t0 = time.perf_counter()
    for name in tax.vocab_tokenizers():
        tax.compute(name)
    print(
        f"computing the numbers from scratch: {time.perf_counter() - t0:.1f} s "
        f"({len(tax.vocab_tokenizers())} tokenisers x 33 texts)"
    )


if __name__ == "__main__":
    main()

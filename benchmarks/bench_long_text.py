"""Server time of the visualiser page for a 100,000-character paste (POST /, as the form sends
it), in English and in Japanese, for each byte-level tokeniser and BERT.

In-process (FastAPI TestClient); the first request of each tokeniser warms it up. Prints the
server's own time (the Server-Timing header) and the size of the HTML fragment.
Run: .venv/bin/python benchmarks/bench_long_text.py
"""
from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient  # noqa: E402

from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from tokenizers_core.corpora import load_corpus  # noqa: E402

CHARS = 100_000
REPEAT = 3


def texts() -> dict[str, str]:
    english = load_corpus("botchan")
    start = english.index("CHAPTER I")
    japanese = "東京都の天気は晴れです。明日は雨が降るでしょう。" * (CHARS // 24 + 1)
    return {"English (botchan)": english[start:start + CHARS], "Japanese": japanese[:CHARS]}


def main() -> None:
    settings = Settings(db_path=Path(tempfile.mkdtemp()) / "bench.sqlite3",
                        max_text_chars=CHARS, max_corpus_bytes=5_000_000,
                        max_upload_bytes=5_000_000, regex_timeout=0.5)
    client = TestClient(create_app(settings))
    print(f"POST / with {CHARS:,} characters (htmx fragment), median of {REPEAT}")
    print(f"{'text':<20}{'tokenizer':<22}{'tokens':>8}{'server ms':>11}{'HTML KB':>9}")
    for label, text in texts().items():
        for name in ("r50k_base", "cl100k_base", "o200k_base", "bert-base-uncased"):
            body = {"text": text, "tokenizer": name}
            headers = {"HX-Request": "true"}
            r = client.post("/", data=body, headers=headers)
            r.raise_for_status()
            tokens = r.text.split('data-testid="token-count">', 1)[1].split("<", 1)[0]
            times = []
            for _ in range(REPEAT):
                r = client.post("/", data=body, headers=headers)
                times.append(float(r.headers["Server-Timing"].split("dur=")[1]))
            print(f"{label:<20}{name:<22}{tokens:>8}{statistics.median(times):>11.0f}"
                  f"{len(r.content) / 1024:>9.0f}")


if __name__ == "__main__":
    main()

"""Issue 22, items 4 and 5: what the premiums, Renyi efficiency and the numbers audit cost.

- /tax on first visit with every bundled tokeniser's column (saved numbers), server time;
- the premiums computed afresh (what an uploaded tokeniser's first visit costs), a few tokenisers;
- the numbers audit (10,000 integers, the formats, the grouping probes) per tokeniser, and, for
  the OpenAI encodings, tiktoken counting the same 10,000 integers;
- Renyi efficiency at a new alpha from a sweep row's stored histogram (what the slider costs).

Run: .venv/bin/python benchmarks/bench_premium.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient  # noqa: E402

import tokenizers_core as tc  # noqa: E402
from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from tokenizers_core.audit.efficiency import (  # noqa: E402  # noqa: E402
    count_histogram,
    counts_of_histogram,
    renyi_efficiency,
    unigram_counts,
)
from tokenizers_core.audit.numbers import number_report  # noqa: E402
from tokenizers_core.audit.premium import language_premiums  # noqa: E402
from tokenizers_core.corpora import load_corpus  # noqa: E402
from tokenizers_core.implementations.openai_public import ENCODINGS, load_ranks  # noqa: E402
from tokenizers_core.pre_tokenizers import PRESETS  # noqa: E402

NUMBERS = ["cl100k_base", "o200k_base", "r50k_base", "bert-base-uncased", "mistral_v3", "qwen3"]
PREMIUMS = ["cl100k_base", "bert-base-uncased", "mistral_v3"]


def timed(fn):
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


def tax_first_visit() -> None:
    settings = Settings(
        db_path=Path(tempfile.mkdtemp()) / "bench.sqlite3",
        max_text_chars=1000,
        max_corpus_bytes=100_000,
        max_upload_bytes=100_000,
        regex_timeout=0.5,
    )
    client = TestClient(create_app(settings), base_url="http://127.0.0.1")
    r = client.get("/tax")
    r.raise_for_status()
    server = float(r.headers["Server-Timing"].split("dur=")[1]) / 1000
    print(f"/tax first visit, {r.text.count('tok-head')} columns: server {server:.3f} s")


def tiktoken_counts(name: str) -> float | None:
    try:
        import tiktoken
    except ImportError:
        return None
    preset, specials = ENCODINGS[name]
    ref = tiktoken.Encoding(
        name, pat_str=PRESETS[preset], mergeable_ranks=load_ranks(name), special_tokens=specials
    )
    return timed(lambda: [len(ref.encode_ordinary(str(n))) for n in range(10_000)])[1]


def main() -> None:
    tax_first_visit()
    for name in PREMIUMS:
        tok = tc.load(name)
        _, secs = timed(lambda: language_premiums(tok))
        print(f"premiums afresh, {name}: {secs:.2f} s (33 UDHR texts)")
    for name in NUMBERS:
        tok = tc.load(name)
        tok.encode("warm up 123")
        report, secs = timed(lambda: number_report(tok))
        ref = tiktoken_counts(name) if name in ENCODINGS else None
        vs = f"; tiktoken counts the 10,000 integers in {ref:.2f} s" if ref else ""
        print(f"numbers audit, {name}: {secs:.2f} s ({report.grouping.name}){vs}")
    tok = tc.train("bpe", load_corpus("botchan").splitlines(), 4000)
    hist = count_histogram(unigram_counts(tok.encode(load_corpus("udhr/eng")).ids).values())
    _, secs = timed(
        lambda: [
            renyi_efficiency(counts_of_histogram(hist), tok.vocab_size, a / 10) for a in range(100)
        ]
    )
    print(
        f"Renyi efficiency from a stored histogram ({len(hist)} pairs): "
        f"{secs / 100 * 1e6:.0f} µs an alpha"
    )


if __name__ == "__main__":
    main()

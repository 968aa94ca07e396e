"""Time of the vocabulary diff (`tokenizers_core.audit.vocab_diff`) and of the /vocab/diff page,
to check that it stays interactive for 200k vocabularies.

1. `vocab_diff(a, b)` (every entry of both read as bytes, compared, the ids' agreement) for
   pairs of real vocabularies: GPT-4 vs GPT-4o (100k vs 200k), Llama 3 vs Llama 4 (128k vs
   202k, from the shared interop files when present), o200k vs Llama 4 (200k vs 202k).
2. `corpus_splits(a, b, text)` on the first 100,000 characters of botchan (what the page
   splits; the sentencepiece encoders are the slowest).
3. The page through the app (TestClient): cold (nothing kept), then warm (the diff kept: the
   next list page), then with a corpus.

Wall time and this process's CPU time (the machine may be shared). No reference library does
this, so there is no ratio to print.

Run: .venv/bin/python benchmarks/bench_vocab_diff.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tokenizers_core as tc  # noqa: E402
from tests.shared_data import INTEROP  # noqa: E402  (where the shared data is)
from tokenizers_core.audit.vocab_diff import corpus_splits, vocab_diff  # noqa: E402
from tokenizers_core.corpora import load_corpus  # noqa: E402

LLAMA3 = INTEROP / "converted" / "llama3.tokenizer.json"
LLAMA4 = INTEROP / "converted" / "llama4.tokenizer.json"
SPLIT_CHARS = 100_000


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def load(name: str) -> tc.Tokenizer:
    tok = tc.load(
        str(LLAMA3 if name == "llama3" else LLAMA4) if name in ("llama3", "llama4") else name
    )
    tok.encode("warm up")
    return tok


def main() -> None:
    llama = LLAMA3.is_file() and LLAMA4.is_file()
    if not llama:
        print(f"(Llama 3 / Llama 4 skipped: {INTEROP} is absent)")
    names = ["cl100k_base", "o200k_base", "bert-base-uncased", "mistral_v1", "mistral_v3"]
    toks = {n: load(n) for n in names + (["llama3", "llama4"] if llama else [])}
    print("vocab_diff(a, b)                          wall     cpu   shared  only A  only B")
    pairs = [
        ("cl100k_base", "o200k_base"),
        ("bert-base-uncased", "cl100k_base"),
        ("mistral_v1", "mistral_v3"),
    ]
    if llama:
        pairs += [("cl100k_base", "llama3"), ("llama3", "llama4"), ("o200k_base", "llama4")]
    for a, b in pairs:
        d, wall, cpu = timed(lambda: vocab_diff(toks[a], toks[b]))
        print(
            f"  {a + ' vs ' + b:38} {wall:6.2f}s {cpu:6.2f}s {len(d.shared):8,} "
            f"{len(d.only_a):7,} {len(d.only_b):7,}"
        )
    text = load_corpus("botchan")[:SPLIT_CHARS]
    print(f"corpus_splits on botchan's first {SPLIT_CHARS:,} characters      wall     cpu")
    for a, b in [
        ("cl100k_base", "o200k_base"),
        ("bert-base-uncased", "cl100k_base"),
        ("mistral_v1", "mistral_v3"),
    ] + ([("llama3", "llama4")] if llama else []):
        _, wall, cpu = timed(lambda: corpus_splits(toks[a], toks[b], text))
        print(f"  {a + ' vs ' + b:52} {wall:6.2f}s {cpu:6.2f}s")
    page_times()


def page_times() -> None:
    """The page through the app: cold, warm (the next page of a list), with a corpus."""
    from fastapi.testclient import TestClient

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TOKVIS_DB"] = str(Path(tmp) / "bench.sqlite3")
        from app.main import create_app

        with TestClient(create_app(), base_url="http://127.0.0.1") as client:
            print("/vocab/diff (TestClient)                                 wall     cpu")
            for label, params in [
                ("cl100k_base vs o200k_base, cold", {"a": "cl100k_base", "b": "o200k_base"}),
                ("the same, next page (warm)", {"a": "cl100k_base", "b": "o200k_base", "page": 1}),
                (
                    "the same, only in B, page 100",
                    {"a": "cl100k_base", "b": "o200k_base", "list": "only_b", "page": 100},
                ),
                (
                    "the same, with botchan (100,000 characters)",
                    {"a": "cl100k_base", "b": "o200k_base", "corpus": "botchan"},
                ),
                (
                    "mistral_v1 vs mistral_v3 with botchan",
                    {"a": "mistral_v1", "b": "mistral_v3", "corpus": "botchan"},
                ),
            ]:
                r, wall, cpu = timed(lambda: client.get("/vocab/diff", params=params))
                assert r.status_code == 200, r.text[:200]
                print(f"  {label:52} {wall:6.2f}s {cpu:6.2f}s")


if __name__ == "__main__":
    main()

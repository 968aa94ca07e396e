"""Time of `tokenizers_core.diff.diff` on 1 MB of text, one text a line: an identical pair
(cl100k_base and a tokenizer.json written from it; Llama 3's tokenizer.json and a GGUF written
from it, as llama.cpp's converter does) and differing pairs (cl100k_base and o200k_base; the
same GGUF with llama.cpp's pre-tokenizer `default`; Llama 3's tokenizer.json and its ranks
file read with GPT-2's pattern). The Llama 3 pairs need the shared interop data, the GGUF ones
the `gguf` package too.

Two texts of 1 MB: botchan repeated to 1,000,000 bytes (4,288 distinct lines, each met about
four times: a repeated line is diagnosed once), and the pinned 1 MB of English fortunes
(benchmarks/corpus.py; distinct lines) when the fortunes package is installed. Each pair is
timed cold (tokenizers just loaded, their caches empty) and warm (the same run again), in
wall time and in this process's CPU time (the machine may be shared).

Run: .venv/bin/python benchmarks/bench_diff.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tokenizers_core as tc  # noqa: E402
from tests.shared_data import INTEROP  # noqa: E402  (where the shared data is)
from tokenizers_core.corpora import load_corpus  # noqa: E402
from tokenizers_core.diff import corpus_texts, diff  # noqa: E402

MB = 1_000_000


def botchan_1mb() -> str:
    """botchan repeated, cut at the last line end at or before 1,000,000 bytes."""
    one = load_corpus("botchan")
    text = one * (MB // len(one.encode("utf-8")) + 1)
    data = text.encode("utf-8")[:MB]
    return data[: data.rfind(b"\n") + 1].decode("utf-8")


def fortunes_1mb() -> str | None:
    try:
        from benchmarks.corpus import english_1mb

        return english_1mb()
    except Exception as exc:  # the package is missing: say so, go on
        print(f"(fortunes 1 MB skipped: {exc})")
        return None


def pairs() -> list[tuple[str, object]]:
    """(label, a function that loads the pair afresh)."""

    def converted():
        cl100k = tc.load("cl100k_base")
        return cl100k, tc.load(json.dumps(cl100k.to_hf_json()).encode("utf-8"))

    out = [
        ("identical: cl100k_base vs its tokenizer.json", converted),
        (
            "differing: cl100k_base vs o200k_base",
            lambda: (tc.load("cl100k_base"), tc.load("o200k_base")),
        ),
    ]
    gguf = _gguf_writer()
    if gguf is not None and (INTEROP / "converted").is_dir():
        folder = tempfile.mkdtemp()
        json_path = str(INTEROP / "converted" / "llama3.tokenizer.json")
        out.append(
            (
                "identical: Llama 3 tokenizer.json vs its GGUF",
                lambda: (tc.load(json_path), tc.load(gguf(os.path.join(folder, "llama3.gguf")))),
            )
        )
        out.append(
            (
                "differing: Llama 3 tokenizer.json vs its GGUF with pre 'default'",
                lambda: (
                    tc.load(json_path),
                    tc.load(gguf(os.path.join(folder, "default.gguf"), pre="default")),
                ),
            )
        )
    if (INTEROP / "converted").is_dir():
        out.append(
            (
                "differing: Llama 3 tokenizer.json vs ranks with GPT-2's pattern",
                lambda: (
                    tc.load(str(INTEROP / "converted" / "llama3.tokenizer.json")),
                    tc.load(
                        str(INTEROP / "raw" / "llama3" / "tokenizer.model"),
                        pattern="gpt2",
                        special_tokens={"<|begin_of_text|>": 128000},
                    ),
                ),
            )
        )
    return out


def _gguf_writer():
    """The tests' GGUF writer (needs the `gguf` package, a test dependency), or None."""
    try:
        from tests.gguf_files import write_llama3
    except ImportError as exc:
        print(f"(GGUF pairs skipped: {exc})")
        return None
    return write_llama3


def main() -> None:
    corpora = [("botchan x4 (1 MB)", botchan_1mb())]
    fortunes = fortunes_1mb()
    if fortunes is not None:
        corpora.append(("fortunes (1 MB, distinct lines)", fortunes))
    for corpus_label, text in corpora:
        texts = corpus_texts(text)
        print(
            f"\n{corpus_label}: {len(text.encode('utf-8')):,} bytes, {len(texts):,} texts, "
            f"{len(set(texts)):,} distinct"
        )
        for label, load in pairs():
            a, b = load()
            times = []
            for _ in range(2):  # cold, then warm
                start, cpu = time.perf_counter(), time.process_time()
                report = diff(a, b, texts)
                times.append((time.perf_counter() - start, time.process_time() - cpu))
            (cold, cold_cpu), (warm, warm_cpu) = times
            print(
                f"  {label}: cold {cold:.2f} s (CPU {cold_cpu:.2f} s), warm {warm:.2f} s "
                f"(CPU {warm_cpu:.2f} s); {100 * report.share_identical:.1f}% identical, "
                f"{report.by_stage}"
            )


if __name__ == "__main__":
    main()

"""Loading the tokenizer of a 4 GB GGUF: time and peak memory (issue 21, bar: < 2 s, < 300 MB);
then the GGUF against the tokenizer.json it was written from, on 1 MB of text.

The file is the metadata of a real-size tokenizer (Llama 3 from ../shared/data/interop, 128,256
tokens and 280,147 merges, written with the `gguf` package's GGUFWriter as llama.cpp's converter
writes it), then zeros up to 4 GB made by `truncate` (a sparse file: nothing is written, and a
loader that read the tensors would take tens of seconds). Each load runs in a fresh process, which
prints the wall and CPU time of `tc.load(path)` and its peak resident memory (ru_maxrss, the whole
process: Python, the imports and the tokenizer).

Then (Llama 3 only) the same GGUF, and one whose `tokenizer.ggml.pre` is `default`, encode 1 MB of
text (the 34 bundled corpora, Botchan and 33 UDHR languages, then the shared English 1 MB of
`benchmarks/corpus.py`, cut at 1,000,000 bytes), a line at a time, beside the tokenizer.json:
the share of lines with identical ids, and the first line that differs.

    .venv/bin/python benchmarks/bench_gguf.py [runs]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tokenizers_core as tc  # noqa: E402
from benchmarks.corpus import english_1mb  # noqa: E402
from tests.gguf_files import INTEROP, write_gpt2, write_llama3  # noqa: E402
from tokenizers_core.corpora import corpus_names, load_corpus  # noqa: E402

SIZE = 4 * 1024**3
CHILD = """
import json, resource, sys, time
import tokenizers_core as tc
start, cpu = time.perf_counter(), time.process_time()
tok = tc.load(sys.argv[1])
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
ids = tok.encode("Hello, world!").ids
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mb": peak, "vocab": tok.vocab_size, "ids": ids}))
"""


def sparse_model(folder: str) -> tuple[str, int]:
    """A GGUF of 4 GB: the tokenizer metadata, then sparse zeros. Returns (path, metadata bytes)."""
    path = os.path.join(folder, "model.gguf")
    (write_llama3 if INTEROP else write_gpt2)(path)
    metadata = os.path.getsize(path)
    os.truncate(path, SIZE)
    return path, metadata


def load_once(path: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, path], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return json.loads(out.stdout)


def main(runs: int = 3) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path, metadata = sparse_model(folder)
        used = os.stat(path).st_blocks * 512
        print(
            f"file: {os.path.getsize(path):,} bytes ({metadata:,} of metadata, "
            f"{used:,} on disk: sparse); tokenizer: {'Llama 3' if INTEROP else 'GPT-2'}"
        )
        results = [load_once(path) for _ in range(runs)]
        for r in results:
            print(
                f"  load {r['seconds']:.2f} s ({r['cpu']:.2f} s of CPU), peak RSS {r['peak_mb']:.0f} MB, "
                f"vocab {r['vocab']:,}, 'Hello, world!' -> {r['ids']}"
            )
        best = min(r["seconds"] for r in results)
        cpu = min(r["cpu"] for r in results)
        peak = max(r["peak_mb"] for r in results)
        print(
            f"best load {best:.2f} s, {cpu:.2f} s of CPU (bar < 2 s; wall time grows with the "
            f"machine's load: {os.getloadavg()[0]:.1f} now), highest peak RSS {peak:.0f} MB "
            "(bar < 300 MB)"
        )


def one_megabyte() -> list[str]:
    """1,000,000 bytes of text, as lines: the bundled corpora, then English."""
    lines, size = [], 0
    for text in [*(load_corpus(name) for name in corpus_names()), english_1mb()]:
        for line in text.splitlines():
            size += len(line.encode("utf-8")) + 1
            if size > 1_000_000:
                return lines
            lines.append(line)
    return lines


def identical(folder: str) -> None:
    """The Llama 3 GGUF (pre llama-bpe, then default) beside its tokenizer.json on 1 MB."""
    lines = one_megabyte()
    source = tc.load(os.path.join(INTEROP, "converted", "llama3.tokenizer.json"))
    expected = [source.encode(line).ids for line in lines]
    for pre in ("llama-bpe", "default"):
        tok = tc.load(write_llama3(os.path.join(folder, f"{pre}.gguf"), pre=pre))
        start = time.perf_counter()
        got = [tok.encode(line).ids for line in lines]
        seconds = time.perf_counter() - start
        same = sum(a == b for a, b in zip(got, expected))
        first = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), None)
        print(
            f"pre {pre!r}: {same:,} of {len(lines):,} lines identical "
            f"({100 * same / len(lines):.2f}%), encoded in {seconds:.1f} s"
            + (
                f"; first difference: line {first + 1} {lines[first][:60]!r}"
                if first is not None
                else ""
            )
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
    if INTEROP:
        with tempfile.TemporaryDirectory() as tmp:
            identical(tmp)

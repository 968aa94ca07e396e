"""Loading the tokenizer of a 4 GB GGUF: time and peak memory (issue 21, bar: < 2 s, < 300 MB).

The file is the metadata of a real-size tokenizer (Llama 3 from ../shared/data/interop, 128,256
tokens and 280,147 merges, written with the `gguf` package's GGUFWriter as llama.cpp's converter
writes it), then zeros up to 4 GB made by `truncate` (a sparse file: nothing is written, and a
loader that read the tensors would take tens of seconds). Each load runs in a fresh process, which
prints its wall time for `tc.load(path)` and its peak resident memory (ru_maxrss, the whole
process: Python, the imports and the tokenizer).

    .venv/bin/python benchmarks/bench_gguf.py [runs]
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.gguf_files import INTEROP, write_gpt2, write_llama3  # noqa: E402

SIZE = 4 * 1024 ** 3
CHILD = """
import json, resource, sys, time
import tokenizers_core as tc
start = time.perf_counter()
tok = tc.load(sys.argv[1])
seconds = time.perf_counter() - start
ids = tok.encode("Hello, world!").ids
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_mb": peak, "vocab": tok.vocab_size, "ids": ids}))
"""


def sparse_model(folder: str) -> tuple[str, int]:
    """A GGUF of 4 GB: the tokenizer metadata, then sparse zeros. Returns (path, metadata bytes)."""
    path = os.path.join(folder, "model.gguf")
    (write_llama3 if INTEROP else write_gpt2)(path)
    metadata = os.path.getsize(path)
    os.truncate(path, SIZE)
    return path, metadata


def load_once(path: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    return json.loads(out.stdout)


def main(runs: int = 3) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path, metadata = sparse_model(folder)
        used = os.stat(path).st_blocks * 512
        print(f"file: {os.path.getsize(path):,} bytes ({metadata:,} of metadata, "
              f"{used:,} on disk: sparse); tokenizer: {'Llama 3' if INTEROP else 'GPT-2'}")
        results = [load_once(path) for _ in range(runs)]
        for r in results:
            print(f"  load {r['seconds']:.2f} s, peak RSS {r['peak_mb']:.0f} MB, "
                  f"vocab {r['vocab']:,}, 'Hello, world!' -> {r['ids']}")
        best = min(r["seconds"] for r in results)
        peak = max(r["peak_mb"] for r in results)
        print(f"best load {best:.2f} s (bar < 2 s), highest peak RSS {peak:.0f} MB (bar < 300 MB)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)

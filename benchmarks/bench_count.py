"""Benchmark: counting a corpus on 1 and N processes, training from the counts against Hugging
Face's BpeTrainer on the same corpus, and the memory a counts file of many pre-tokens needs.

    .venv/bin/python benchmarks/bench_count.py [--mb 48] [--vocab 10000] [--processes 2]
                                               [--distinct 1000000,10000000] [--repeat 3]

The corpus: Debian's fortunes (all of it, `benchmarks/corpus.py`'s source, ~2.6 MB of real
English), repeated to `--mb` megabytes and written to a temporary file. Repeating keeps the
distinct words of the real text, so the counting (the regex over every byte) is what scales.

1. `tc.count(files=[...], algorithm="byte_bpe", processes=P)` for P = 1 and `--processes`, the
   children forked (this script has one thread) and, for comparison, fresh interpreters (what a
   caller with other threads, such as a web server, starts).
2. The whole training, count + merges, ours (`tc.count` on P processes, `tc.train(counts=...)`)
   against `tokenizers`' `BpeTrainer` with ByteLevel pre-tokenisation training on the same file
   (`Tokenizer.train([path])`, which reads with its own threads), each in a fresh process; the
   merges are compared.
3. Counts of synthetic pre-tokens (`w` + a number, and a few characters), built from a sorted
   stream: the bytes the `Counts` holds, the peak traced while building it, the file's size.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.corpus import _ensure_installed, _fortune_files  # noqa: E402

OURS = """
import sys, time, json; sys.path.insert(0, {root!r})
import tokenizers_core as tc
t = time.perf_counter()
counts = tc.count(files=[{path!r}], algorithm="byte_bpe", processes={processes})
t_count = time.perf_counter() - t
tok = tc.train("byte_bpe", counts=counts, vocab_size={vocab})
print(json.dumps({{"count": t_count, "all": time.perf_counter() - t,
                  "merges": [list(m) for m in tok.model.merges]}}))
"""

HF = """
import sys, time, json
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
t = time.perf_counter()
tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tr = trainers.BpeTrainer(vocab_size={vocab}, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                         show_progress=False)
tok.train([{path!r}], tr)
merges = json.loads(tok.to_str())["model"]["merges"]
print(json.dumps({{"all": time.perf_counter() - t,
                  "merges": [m.split(" ") if isinstance(m, str) else m for m in merges]}}))
"""


def corpus_file(mb: int, folder: str) -> str:
    _ensure_installed()
    text = b"".join(p.read_bytes() for p in _fortune_files())
    text = text.decode("utf-8", "replace").encode("utf-8")
    path = os.path.join(folder, f"fortunes_{mb}mb.txt")
    if not text.endswith(b"\n"):
        text += b"\n"
    with open(path, "wb") as fh:
        left = mb * 1_000_000
        while left > 0:  # whole copies, the last cut at a line end
            piece = text if left >= len(text) else text[: text.rfind(b"\n", 0, left) + 1]
            fh.write(piece)
            left -= len(piece) or left
    return path


def time_count(path: str, processes: int, fresh: bool = False) -> float:
    """Seconds to count `path`; `fresh`: the children are fresh interpreters (as under a
    caller with other threads), not forked."""
    import tokenizers_core as tc
    from tokenizers_core.implementations.counting import shards

    can_fork = shards.can_fork
    if fresh:
        shards.can_fork = lambda: False
    try:
        start = time.perf_counter()
        tc.count(files=[path], algorithm="byte_bpe", processes=processes)
        return time.perf_counter() - start
    finally:
        shards.can_fork = can_fork


def _all(times: list[float]) -> str:
    return ", ".join(f"{t:.2f}" for t in times)


def run(script: str, **values: object) -> dict:
    env = {**os.environ, "RAYON_NUM_THREADS": str(values.get("threads", os.cpu_count() or 2))}
    out = subprocess.run(
        [sys.executable, "-c", script.format(root=str(ROOT), **values)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(out.stdout)


def counts_memory(distinct: int) -> tuple[int, int, int, float]:
    """(bytes the Counts holds, traced peak while building it, file bytes, seconds)."""
    from tokenizers_core.implementations.counting import Counts, counted_under

    under = counted_under("byte_bpe")
    keys = (b"w%010d" % i for i in range(distinct))  # sorted, each 11 bytes
    tracemalloc.start()
    start = time.perf_counter()
    counts = Counts.from_sorted(((k, 1 + i % 7) for i, k in enumerate(keys)), under)
    seconds = time.perf_counter() - start
    _size, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    held = len(counts._blob) + counts._ends.itemsize * len(counts._ends) * 2
    return held, peak, len(counts.to_bytes()), seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=48)
    ap.add_argument("--vocab", type=int, default=10_000)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--distinct", default="1000000,10000000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-hf", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = corpus_file(args.mb, folder)
        size = os.path.getsize(path)
        print(f"corpus: {size / 1e6:.1f} MB (fortunes repeated), {os.cpu_count()} cores")
        print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
        ones, manys, freshes = [], [], []
        for _ in range(args.repeat):  # alternating, best of: the machine's other work is noise
            ones.append(time_count(path, 1))
            manys.append(time_count(path, args.processes))
            freshes.append(time_count(path, args.processes, fresh=True))
        one, many, fresh = min(ones), min(manys), min(freshes)
        p = args.processes
        print(f"count, 1 process:   {one:6.2f} s (best of {args.repeat}; all: {_all(ones)})")
        print(f"count, {p} processes: {many:6.2f} s   speed-up {one / many:.2f}x (forked children;"
              f" all: {_all(manys)})")  # fmt: skip
        print(f"count, {p} processes: {fresh:6.2f} s   speed-up {one / fresh:.2f}x (fresh "
              f"interpreters, as a caller with threads; all: {_all(freshes)})")  # fmt: skip
        print("load average after:  {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
        if not args.skip_hf:
            ours = run(OURS, path=path, processes=args.processes, vocab=args.vocab)
            hf = run(HF, path=path, vocab=args.vocab)
            same = ours["merges"] == hf["merges"]
            print(
                f"count + merges to {args.vocab:,}: ours {ours['all']:.2f} s (count "
                f"{ours['count']:.2f} s) vs Hugging Face {hf['all']:.2f} s "
                f"-> {ours['all'] / hf['all']:.2f}x; same merges: {same}"
            )
    for distinct in (int(x) for x in args.distinct.split(",") if x):
        held, peak, file_bytes, seconds = counts_memory(distinct)
        print(
            f"counts of {distinct:,} distinct pre-tokens (11 bytes each): held "
            f"{held / 1e6:.1f} MB ({held / distinct:.1f} B each), peak while built "
            f"{peak / 1e6:.1f} MB, file {file_bytes / 1e6:.1f} MB, built in {seconds:.1f} s"
        )


if __name__ == "__main__":
    main()

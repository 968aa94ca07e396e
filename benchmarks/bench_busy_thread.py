"""Benchmark: an encode beside busy threads of the same process (a server's other requests).

The `regex` module lets go of the interpreter during each search unless told not to
(`concurrent=False`); beside a busy thread, taking it back waits up to a switch interval (5 ms).
Every search of tokenizers_core holds it. In one run, for 0, 1 and 4 threads that run Python
without a pause:

- a raw search, as the reference: Llama 3's pattern `findall` over 2 KB, the `regex` default
  (lets go) and `concurrent=False` (holds it), per call;
- ours: `encode` of 2 KB with cl100k_base, qwen3 and bert-base-uncased, per call.

Each call takes the next 2 KB of Botchan (bundled), so no answer is a repeat. Prints the wall
time and the CPU time of the calling thread per call, the mean of `--repeat` x `--calls` calls
(with busy threads the interpreter is shared, so the wall time of Python work grows; the CPU
time should not).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_busy_thread.py [--repeat 3] [--calls 20]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LLAMA3 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
    r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def busy_threads(n: int) -> Callable[[], None]:
    """Start `n` threads that run Python without a pause; returns the function that stops them."""
    stop = [False]

    def spin() -> None:
        while not stop[0]:
            pass

    threads = [threading.Thread(target=spin, daemon=True) for _ in range(n)]
    for thread in threads:
        thread.start()

    def end() -> None:
        stop[0] = True
        for thread in threads:
            thread.join()

    return end


def per_call(fn: Callable[[str], Any], texts: list[str]) -> tuple[float, float]:
    """(wall ms, this thread's CPU ms) per call, the mean over `texts`."""
    wall, cpu = time.perf_counter(), time.thread_time()
    for text in texts:
        fn(text)
    n = len(texts)
    return (time.perf_counter() - wall) / n * 1000, (time.thread_time() - cpu) / n * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    import regex

    import tokenizers_core as tc
    from tokenizers_core.corpora import load_corpus

    corpus = load_corpus("botchan")
    slices = [corpus[i : i + 2048] for i in range(0, len(corpus) - 2048, 2048)]
    taken = [0]

    def next_texts() -> list[str]:
        out = [slices[(taken[0] + i) % len(slices)] for i in range(args.repeat * args.calls)]
        taken[0] += len(out)
        return out

    pattern = regex.compile(LLAMA3)
    cases: list[tuple[str, Callable[[str], Any]]] = [
        ("regex findall, default (lets go)", pattern.findall),
        ("regex findall, concurrent=False", lambda t: pattern.findall(t, concurrent=False)),
    ]
    for name in ("cl100k_base", "qwen3", "bert-base-uncased"):
        tok = tc.load(name)
        tok.encode(corpus[:2048])
        cases.append((f"ours: encode {name}", tok.encode))
    print(f"2 KB slices of Botchan, per call, mean of {args.repeat} x {args.calls} calls")
    print(f"  {'':36} " + "  ".join(f"{n} busy: wall / cpu ms" for n in (0, 1, 4)))
    for label, fn in cases:
        row = []
        for n in (0, 1, 4):
            end = busy_threads(n)
            try:
                wall, cpu = per_call(fn, next_texts())
            finally:
                end()
            row.append(f"{wall:8.2f} / {cpu:6.2f}      ")
        print(f"  {label:36} " + "".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a per-line Unigram encode's time goes (issue 42, aim 3), beside sentencepiece's.

For the 3,005 lines of the UDHR in 33 languages (as bench_pipelines.py reads them) and the
bundled `botchan_en_unigram_1000` model, in one process:

- the whole pass, ours with the garbage collector on and off, and sentencepiece's
  `encode(line, out_type="offset_mapping")` (the same three columns: ids, pieces, offsets);
- what keeping the pass's encodings costs the collector: the objects it tracks per kept
  `Encoding`, and the time of one full collection while they are kept;
- the parts of ours one at a time: the normaliser's segments of each line, the whole
  normalisation (with its alignment), the model's token columns of each normalised line, and
  the offsets through the alignment (`NormalizedString.spans`).

Times are the best of `--repeat` runs; the parts do not add up to the pass (the pipeline's
bookkeeping and the `Encoding` are the rest).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_unigram_parts.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pipelines import multilingual_lines, reference_unigram  # noqa: E402

import tokenizers_core as tc  # noqa: E402
from tokenizers_core.normalized import NormalizedString  # noqa: E402


def best_ms(fn: Callable[[], Any], repeat: int) -> float:
    """The best of `repeat` runs of fn, in ms (its result dropped outside the timing)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
        del result
    return min(times) * 1e3


def kept_cost(encode: Callable[[], list[Any]], count: int) -> tuple[float, float]:
    """(objects the collector tracks per kept encoding, ms of a full collection with them)."""
    gc.collect()
    before = len(gc.get_objects())
    kept = encode()
    gc.collect()
    per = (len(gc.get_objects()) - before) / count
    times = []
    for _ in range(5):
        start = time.perf_counter()
        gc.collect()
        times.append(time.perf_counter() - start)
    del kept
    return per, min(times) * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    lines = multilingual_lines()
    tok, sp = tc.load("botchan_en_unigram_1000"), reference_unigram(Path("."))
    for line in lines:  # warm: the segment cache and the normaliser's classes
        tok.encode(line)
    norm, model = tok.normalizer, tok.model

    def ours() -> list[Any]:
        return [tok.encode(t) for t in lines]

    print(f"{len(lines):,} lines, botchan_en_unigram_1000, best of {repeat}")
    on = best_ms(ours, repeat)
    gc.disable()
    try:
        off = best_ms(ours, repeat)
    finally:
        gc.enable()
    theirs = best_ms(lambda: [sp.encode(t, out_type="offset_mapping") for t in lines], repeat)
    print(f"  pass: ours {on:.1f} ms (collector off: {off:.1f} ms), sentencepiece {theirs:.1f} ms,")
    print(f"        ratio {theirs / on:.2f}x of sentencepiece's speed (bar >= 0.5x)")
    per, full = kept_cost(ours, len(lines))
    print(f"  kept: {per:.2f} tracked objects per Encoding, a full collection {full:.1f} ms")

    normalised = [norm.normalize(NormalizedString(t)) for t in lines]
    columns = [model.tokenize_columns(n.normalized) for n in normalised]
    parts = {
        "normaliser segments": lambda: [norm._segments(t) for t in lines],
        "normalise (aligned)": lambda: [norm.normalize(NormalizedString(t)) for t in lines],
        "model columns": lambda: [model.tokenize_columns(n.normalized) for n in normalised],
        "offsets (spans)": lambda: [n.spans(c.starts, c.ends) for n, c in zip(normalised, columns)],
    }
    for label, fn in parts.items():
        print(f"  {label:20}: {best_ms(fn, repeat):6.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

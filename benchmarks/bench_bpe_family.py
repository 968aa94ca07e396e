"""Benchmark: the new BPE family against "byte_bpe", on the pinned 1 MB English at vocab 4000.

Training time: whole-process wall time (interpreter start, imports, reading the corpus,
training), each trainer in a fresh subprocess, alternating, `--repeat` times (best of); printed
with its ratio to "byte_bpe" trained the same way. For "superbpe", also bytes per token on
held-out English (botchan and the English UDHR, not in the training text) against "byte_bpe" at
the same vocabulary size: the paper's efficiency figure. Other processes add noise: compare
ratios from one run.

    .venv/bin/python benchmarks/bench_bpe_family.py [--repeat 3] [--vocab 4000]
        [--algorithms byte_bpe superbpe picky_bpe] [--transition 3600] [--threshold 0.9]

"parity_bpe" (`models/bpe/parity.py`, written separately) joins with `--algorithms ... parity_bpe`
once `implementations.bpe_family` or `tc.train` offers it; until then it is reported as missing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TRAIN = """
import sys; sys.path.insert(0, {root!r})
from benchmarks.corpus import english_1mb_lines
from tokenizers_core.implementations import bpe, bpe_family
lines = english_1mb_lines()
algo, vocab = {algo!r}, {vocab}
if algo == "byte_bpe":
    tok = bpe.train_byte_bpe(lines, vocab)
elif algo == "superbpe":
    tok = bpe_family.train_superbpe(lines, vocab, transition={transition})
elif algo == "picky_bpe":
    tok = bpe_family.train_picky_bpe(lines, vocab, threshold={threshold})
else:
    import tokenizers_core as tc
    tok = tc.train(algo, lines, vocab_size=vocab)
print(tok.model.get_vocab_size())
"""


def _time(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _available(algo: str) -> bool:
    if algo in ("byte_bpe", "superbpe", "picky_bpe"):
        return True
    sys.path.insert(0, str(ROOT))
    import tokenizers_core as tc  # lazy: only to ask which trainers exist

    return algo in tc.algorithms() if hasattr(tc, "algorithms") else False


def bytes_per_token(vocab: int, transition: int) -> None:
    """Bytes per token of superbpe and byte_bpe on held-out English."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.corpus import english_1mb_lines  # lazy: the pinned corpus, after args
    from tokenizers_core.corpora import load_corpus  # lazy: as above
    from tokenizers_core.implementations import bpe, bpe_family  # lazy: as above

    lines = english_1mb_lines()
    text = "\n".join([load_corpus("botchan"), load_corpus("udhr/eng")])
    size = len(text.encode("utf-8"))
    plain = bpe.train_byte_bpe(lines, vocab)
    super_ = bpe_family.train_superbpe(lines, vocab, transition=transition)
    rows = {"byte_bpe": plain, f"superbpe t={transition}": super_}
    counts = {
        name: sum(len(tok.encode(line).ids) for line in text.split("\n"))
        for name, tok in rows.items()
    }
    base = counts["byte_bpe"]
    for name, n in counts.items():
        print(
            f"held-out English ({size:,} bytes), vocab {vocab}: {name:18s} {n:,} tokens, "
            f"{size / n:.2f} bytes/token ({n / base:.3f}x byte_bpe's tokens)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--vocab", type=int, default=4000)
    parser.add_argument("--transition", type=int, default=None, help="default: 90% of --vocab")
    parser.add_argument("--threshold", type=float, default=0.9)
    parser.add_argument("--algorithms", nargs="*", default=["byte_bpe", "superbpe", "picky_bpe"])
    args = parser.parse_args()
    transition = args.transition or round(0.9 * args.vocab)
    sys.path.insert(0, str(ROOT))
    from benchmarks.corpus import english_1mb_bytes, precompile  # lazy: ROOT on the path first

    english_1mb_bytes()  # install / check the pinned corpus once, outside the timings
    precompile()
    algos = ["byte_bpe", *(a for a in args.algorithms if a != "byte_bpe")]
    times: dict[str, list[float]] = {a: [] for a in algos if _available(a)}
    for algo in sorted(set(algos) - set(times)):
        print(f"{algo}: not available here (not registered in tc.train yet)")
    for _ in range(args.repeat):
        for algo in times:
            code = TRAIN.format(
                root=str(ROOT),
                algo=algo,
                vocab=args.vocab,
                transition=transition,
                threshold=args.threshold,
            )
            times[algo].append(_time(code))
    base = min(times["byte_bpe"])
    for algo, runs in times.items():
        print(
            f"train {algo:10s} 1 MB vocab {args.vocab}: {min(runs):.2f} s "
            f"(whole process, best of {args.repeat}) -> {min(runs) / base:.2f}x byte_bpe"
        )
    if "superbpe" in times:
        bytes_per_token(args.vocab, transition)


if __name__ == "__main__":
    main()

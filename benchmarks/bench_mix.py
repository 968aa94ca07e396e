"""Training-mix inference (`tokenizers_core.audit.mix.estimate_mix`): its accuracy on
tokenizers trained here on known mixes, its estimates for the bundled BPE tokenizers, and the
time of each (wall and CPU seconds of this process; the machine may be shared).

The known mixes are byte-level BPEs trained on whole copies of the bundled samples (so the truth
is their byte shares): 5 x English + 2 x French (68 % / 32 %), and 3 x English + 2 x German +
1 x code. There is no reference implementation to time against; the figures are for the README.

Run: .venv/bin/python benchmarks/bench_mix.py [--merges 1000] [--tokenizers r50k_base,...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tokenizers_core as tc  # noqa: E402
from tokenizers_core.audit.mix import category_samples, estimate_mix  # noqa: E402

KNOWN = [{"eng": 5, "fra": 2}, {"eng": 3, "deu_1996": 2, "code": 1}]
BUNDLED = [
    "r50k_base",
    "p50k_base",
    "cl100k_base",
    "o200k_base",
    "qwen3",
    "claude_2023",
    "mistral_tekken",
    "mistral_v3",
    "clip",
    "whisper_multilingual",
]


def timed(tok, merges: int):
    wall, cpu = time.perf_counter(), time.process_time()
    estimate = estimate_mix(tok, merges=merges)
    return estimate, time.perf_counter() - wall, time.process_time() - cpu


def shown(estimate, least: float = 0.02) -> str:
    return ", ".join(f"{c} {100 * s:.1f}" for c, s in estimate.shares if s >= least)


def known_mixes(merges: int) -> None:
    samples = category_samples()
    print(
        f"| known mix (trained, {merges} merges) | truth (%) | estimate (%) | worst error "
        "(points) | residual | seconds (wall / CPU) |\n|---|---|---|---|---|---|"
    )
    for repeats in KNOWN:
        text = "".join(samples[c] * r for c, r in repeats.items())
        sizes = {c: len(samples[c].encode("utf-8")) * r for c, r in repeats.items()}
        truth = {c: size / sum(sizes.values()) for c, size in sizes.items()}
        tok = tc.train("byte_bpe", [text], vocab_size=256 + merges)
        estimate, wall, cpu = timed(tok, merges)
        worst = max(abs(s - truth.get(c, 0.0)) for c, s in estimate.shares)
        label = " + ".join(f"{r} x {c}" for c, r in repeats.items())
        truth_text = ", ".join(f"{c} {100 * s:.1f}" for c, s in truth.items())
        print(
            f"| {label} | {truth_text} | {shown(estimate, 0.005)} | {100 * worst:.1f} | "
            f"{estimate.residual:.2f} | {wall:.1f} / {cpu:.1f} |"
        )


def bundled(names: list[str], merges: int) -> None:
    print(
        f"\n| tokenizer ({merges} merges) | estimate (%, shares of 2 % or more) | residual | "
        "constraints | rounds | seconds (wall / CPU) |\n|---|---|---|---|---|---|"
    )
    for name in names:
        estimate, wall, cpu = timed(tc.load(name), merges)
        print(
            f"| {name} | {shown(estimate)} | {estimate.residual:.1f} | "
            f"{estimate.constraints:,} | {estimate.rounds} | {wall:.1f} / {cpu:.1f} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--merges", type=int, default=1000)
    parser.add_argument("--tokenizers", default=",".join(BUNDLED))
    args = parser.parse_args()
    known_mixes(args.merges)
    bundled([n for n in args.tokenizers.split(",") if n], args.merges)


if __name__ == "__main__":
    main()

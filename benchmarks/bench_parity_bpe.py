"""Benchmark: parity-aware BPE at vocab 4000 on the 33 bundled UDHR texts, against plain
byte-level BPE on the same training bytes; and the Gini of both on the held-out UDHR text.

Each UDHR text is split by `implementations.parity.udhr_split` (70% training, 15% development,
15% held out). Parity-aware BPE trains on the training parts with the development parts as its
parallel dev set; `byte_bpe` trains on the concatenation of the same training parts. Training
time is whole-process wall time (interpreter start, imports, reading and splitting the texts,
training), each side in a fresh subprocess, alternating, `--repeat` times (best of). `--copies`
repeats every training part that many times (the 33 training parts are about 0.4 MB; 3 copies
are about 1.2 MB; the merges stay the same, since every count is multiplied alike). Other
processes on the machine add noise: compare ratios from one run.

The Gini coefficients are of the languages' token costs on the held-out parts (the paper's
measure, the default `measure="tokens"`) and of their bytes per token (`measure="rate"`), for
both tokenisers; 0 means every language pays the same.

    .venv/bin/python benchmarks/bench_parity_bpe.py [--repeat 3] [--vocab 4000] [--copies 1]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SETUP = """
import sys; sys.path.insert(0, {root!r})
from tokenizers_core.implementations.parity import udhr_split
parts = udhr_split()
train = {{c: p.train * {copies} for c, p in parts.items()}}
"""

PARITY = (
    SETUP
    + """
from tokenizers_core.implementations.parity import train_parity_bpe
tok = train_parity_bpe(train, {vocab}, dev={{c: p.dev for c, p in parts.items()}})
print(len(tok.model.merges))
"""
)

PLAIN = (
    SETUP
    + """
from tokenizers_core.implementations.bpe import train_byte_bpe
tok = train_byte_bpe([line for lines in train.values() for line in lines], {vocab})
print(len(tok.model.merges))
"""
)


def _time(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def gini_figures(vocab: int) -> None:
    sys.path.insert(0, str(ROOT))
    from tokenizers_core.implementations.bpe import train_byte_bpe
    from tokenizers_core.implementations.parity import (
        token_costs,
        train_parity_bpe,
        udhr_split,
    )
    from tokenizers_core.models.bpe.parity import gini

    parts = udhr_split()
    train = {c: p.train for c, p in parts.items()}
    dev = {c: p.dev for c, p in parts.items()}
    heldout = {c: "\n".join(p.heldout) for c, p in parts.items()}
    tokenizers = {
        "byte_bpe (concatenation)": train_byte_bpe(
            [line for lines in train.values() for line in lines], vocab
        ),
        "parity_bpe measure=tokens": train_parity_bpe(train, vocab, dev=dev),
        "parity_bpe measure=rate": train_parity_bpe(train, vocab, dev=dev, measure="rate"),
    }
    print(f"held-out UDHR, 33 languages, vocab {vocab}:")
    for name, tok in tokenizers.items():
        costs = token_costs(tok, heldout)
        rates = [len(heldout[c].encode()) / costs[c] for c in heldout]
        print(
            f"  {name:27s} Gini of token costs {gini(costs.values()):.4f}, "
            f"of bytes per token {gini(rates):.4f}, total tokens {sum(costs.values()):,}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--vocab", type=int, default=4000)
    parser.add_argument("--copies", type=int, default=1)
    args = parser.parse_args()
    fmt = dict(root=str(ROOT), vocab=args.vocab, copies=args.copies)
    parity, plain = [], []
    for _ in range(args.repeat):
        plain.append(_time(PLAIN.format(**fmt)))
        parity.append(_time(PARITY.format(**fmt)))
    print(
        f"train UDHR x{args.copies} vocab {args.vocab}: parity_bpe {min(parity):.2f} s, "
        f"byte_bpe {min(plain):.2f} s (whole process, best of {args.repeat}) "
        f"-> parity/byte_bpe = {min(parity) / min(plain):.2f}x"
    )
    gini_figures(args.vocab)


if __name__ == "__main__":
    main()

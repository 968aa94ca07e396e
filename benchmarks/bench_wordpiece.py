"""WordPiece benchmarks: training and encoding the pinned 1 MB English text, ours against
Hugging Face `tokenizers` (the same job; its WordPieceTrainer is BPE by frequency underneath).

    .venv/bin/python benchmarks/bench_wordpiece.py            # all
    .venv/bin/python benchmarks/bench_wordpiece.py train      # training at 4000 and 16000
    .venv/bin/python benchmarks/bench_wordpiece.py encode     # bert-base-uncased encoding

Every measurement runs in a fresh subprocess, so peak memory (ru_maxrss, the whole process:
interpreter, imports and data included) is per job; "whole process" time is the subprocess's wall
time from start to exit, "in-process" time is the train / encode call alone. Our peak of
Python allocations (tracemalloc) is measured in a separate run, since tracing slows Python down.
Each figure is the best of BENCH_REPEAT (default 3) runs. Other programs sharing the CPU make
every figure noisy: run it on an idle machine to compare.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


# ---- jobs (run in a subprocess) -----------------------------------------------------------
def _lines() -> list[str]:
    sys.path.insert(0, str(ROOT))
    from benchmarks.corpus import english_1mb_lines

    return english_1mb_lines()


def job_ours_train(vocab_size: int, trace: bool) -> dict:
    lines = _lines()
    import tracemalloc

    from tokenizers_core.implementations.bert import train_wordpiece

    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    tok = train_wordpiece(lines, vocab_size)
    seconds = time.perf_counter() - start
    out = {"seconds": seconds, "vocab_size": tok.vocab_size, "merges": len(tok.model.merges)}
    if trace:
        out["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    return out


def job_hf_train(vocab_size: int, trace: bool) -> dict:
    lines = _lines()
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    start = time.perf_counter()
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False
    )
    tok.train_from_iterator(lines, trainer=trainer)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "vocab_size": tok.get_vocab_size()}


def job_ours_encode(_: int, trace: bool) -> dict:
    text = "\n".join(_lines()) + "\n"
    import tokenizers_core as tc

    tok = tc.load("bert-base-uncased")
    tok.encode("warm up the vocabulary")
    start = time.perf_counter()
    enc = tok.encode(text)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "tokens": len(enc.ids), "mb": len(text.encode()) / 1e6}


def job_hf_encode(_: int, trace: bool) -> dict:
    text = "\n".join(_lines()) + "\n"
    import gzip
    import tempfile

    from tokenizers import BertWordPieceTokenizer

    from tokenizers_core.implementations.bert import VOCAB_PATH

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "vocab.txt")
        with gzip.open(VOCAB_PATH, "rb") as f, open(path, "wb") as g:
            g.write(f.read())
        tok = BertWordPieceTokenizer(path, lowercase=True)
    tok.encode("warm up the vocabulary")
    start = time.perf_counter()
    enc = tok.encode(text)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "tokens": len(enc.ids), "mb": len(text.encode()) / 1e6}


JOBS = {
    "ours_train": job_ours_train,
    "hf_train": job_hf_train,
    "ours_encode": job_ours_encode,
    "hf_encode": job_hf_encode,
}


def _worker(name: str, arg: int, trace: bool) -> None:
    out = JOBS[name](arg, trace)
    out["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


REPEAT = int(os.environ.get("BENCH_REPEAT", "3"))


def run(name: str, arg: int = 0, trace: bool = False) -> dict:
    """The best of REPEAT fresh-process runs (the least disturbed by other load)."""
    return min(
        (_run_once(name, arg, trace) for _ in range(REPEAT)), key=lambda r: r["process_seconds"]
    )


def _run_once(name: str, arg: int = 0, trace: bool = False) -> dict:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", name, str(arg), "1" if trace else "0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    wall = time.perf_counter() - start
    if proc.returncode:
        raise RuntimeError(f"{name} failed:\n{proc.stderr}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_seconds"] = wall
    return out


# ---- reports --------------------------------------------------------------------------------
def bench_train() -> None:
    for vocab_size in (4000, 16000):
        ours, hf = run("ours_train", vocab_size), run("hf_train", vocab_size)
        traced = run("ours_train", vocab_size, trace=True)
        print(f"train 1 MB, vocab {vocab_size}:")
        print(
            f"  ours: {ours['seconds']:.2f} s in-process, {ours['process_seconds']:.2f} s whole "
            f"process, peak RSS {ours['maxrss_mb']:.0f} MB, tracemalloc peak "
            f"{traced['tracemalloc_peak_mb']:.0f} MB ({ours['merges']} merges, "
            f"vocab {ours['vocab_size']})"
        )
        print(
            f"  HF:   {hf['seconds']:.2f} s in-process, {hf['process_seconds']:.2f} s whole "
            f"process, peak RSS {hf['maxrss_mb']:.0f} MB (vocab {hf['vocab_size']})"
        )
        print(
            f"  ratio ours/HF: whole process {ours['process_seconds'] / hf['process_seconds']:.2f}x, "
            f"in-process {ours['seconds'] / hf['seconds']:.2f}x, "
            f"peak RSS {ours['maxrss_mb'] / hf['maxrss_mb']:.2f}x"
        )


def bench_encode() -> None:
    ours, hf = run("ours_encode"), run("hf_encode")
    print("encode 1 MB with bert-base-uncased (one call on the whole text):")
    for label, r in (("ours", ours), ("HF  ", hf)):
        print(
            f"  {label}: {r['seconds']:.2f} s, {r['mb'] / r['seconds']:.2f} MB/s, "
            f"{r['tokens']} tokens, peak RSS {r['maxrss_mb']:.0f} MB"
        )
    print(
        f"  throughput ratio HF/ours: {ours['seconds'] / hf['seconds']:.1f}x "
        f"(same tokens: {ours['tokens'] == hf['tokens']})"
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        _worker(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1")
        sys.exit(0)
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    sys.path.insert(0, str(ROOT))
    from benchmarks.corpus import precompile

    precompile()  # .pyc files, as pip leaves for the reference
    print(
        f"cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.2f} (other jobs add noise)"
    )
    if what in ("all", "train"):
        bench_train()
    if what in ("all", "encode"):
        bench_encode()

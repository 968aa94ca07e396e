"""Time of `tokvis verify` on a lock of 1,000 texts (botchan's first 1,000 non-empty lines):
the whole command in a fresh process (start-up, loading the tokenizer, the fingerprint, the
encodes, the report), and `tc.verify` in this process, beside the owner library encoding the
same texts (tiktoken for cl100k_base and o200k_base; Hugging Face `tokenizers` for Qwen3's
tokenizer.json). Wall time and this process's CPU time (the machine may be shared).

Run: .venv/bin/python benchmarks/bench_verify.py
"""

from __future__ import annotations

import gzip
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tokenizers_core as tc  # noqa: E402
from tests.oracles import tiktoken_encoding  # noqa: E402
from tokenizers_core import locks  # noqa: E402
from tokenizers_core.corpora import load_corpus  # noqa: E402
from tokenizers_core.formats.bundled_models import DATA_DIR  # noqa: E402

N = 1000


def texts() -> list[str]:
    lines = [line for line in load_corpus("botchan").splitlines() if line.strip()]
    return lines[:N]


def reference(name: str):
    """The owner library's encode of one text."""
    if name == "qwen3":
        from tokenizers import Tokenizer

        with gzip.open(DATA_DIR / "qwen3_tokenizer.json.gz", "rb") as fh:
            hf = Tokenizer.from_str(fh.read().decode())
        return lambda t: hf.encode(t).ids
    enc = tiktoken_encoding(name)
    return enc.encode


def timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    lines = texts()
    print(f"{len(lines):,} texts, {sum(map(len, lines)):,} characters")
    heads = ("tokenizer", "tokvis verify", "tc.verify", "cpu", "owner", "ratio")
    print(f"{heads[0]:<12} {heads[1]:>14} {heads[2]:>10} {heads[3]:>7} {heads[4]:>8} {heads[5]:>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("cl100k_base", "o200k_base", "qwen3"):
            path = Path(tmp) / f"{name}.lock.json"
            path.write_text(locks.dumps(tc.lock(name, lines)), encoding="utf-8")
            command = [sys.executable, "-m", "app.cli", "verify", str(path)]
            wall0 = time.perf_counter()
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            command_s = time.perf_counter() - wall0
            assert done.returncode == 0, done.stderr
            doc = locks.load_lock(path.read_text(encoding="utf-8"))
            tok = tc.load(name)
            tc.verify(doc, tok)  # warm: the fingerprint's bundled hash is cached after this
            wall, cpu = timed(lambda: tc.verify(doc, tok))
            encode = reference(name)
            owner, _ = timed(lambda: [encode(t) for t in lines])
            print(
                f"{name:<12} {command_s:>13.2f}s {wall:>9.3f}s {cpu:>6.3f}s {owner:>7.3f}s "
                f"{wall / owner:>5.1f}x"
            )


if __name__ == "__main__":
    main()

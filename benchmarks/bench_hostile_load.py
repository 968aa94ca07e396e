"""Benchmark: loading hostile tokenizer.json files (issue 20, item 4), each in a fresh process,
wall clock and peak RSS.

1. The reproducer: BERT's bundled tokenizer re-saved with 1,000,000 entries in "added_tokens"
   (31 MB, under the upload limit). Before the bounds (`--code /work/main` at bac8a1b) it
   loaded in 56-84 s with a peak RSS of 2.1 GB; now it is refused in about a second, with a
   message naming the field, its count and the limit.
2. The worst file the bounds allow inside the upload limit (32 MB when these figures were
   taken; 48 MB now): a BPE model with ~1,000,000
   vocabulary entries (1,000 CJK characters and ~999,000 of their pairs), a merge for each pair,
   and 100,000 added tokens. Loading it, and encoding 100,000 characters with it, are timed
   (before: 9-11 s and 936 MB, and the encoding 81-145 s, scanning a 100,000-way regex).
3. Added tokens that nest and nearly match, at the length bound: "a", "aa", ... "a" * 256 and
   "a" * k + "0" for k < 256, over 100,000 characters of "ab" and of "a" (a matcher that tries
   every length at every place takes O(length^2) per character there).

    .venv/bin/python benchmarks/bench_hostile_load.py [--code PATH]

`--code` loads `tokenizers_core` from another checkout (e.g. an older commit's worktree) to
compare; the files are written to a temporary directory.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from app.config import Settings  # noqa: E402

UPLOAD_LIMIT = Settings.max_tokenizer_bytes  # TOKVIS_MAX_TOKENIZER_BYTES' default

_CHILD = """
import sys, time
sys.path.insert(0, sys.argv[1])
import tokenizers_core as tc
t0 = time.perf_counter()
try:
    tok = tc.load(sys.argv[2])
    loading = time.perf_counter() - t0
    outcome = f"loaded ({tok.vocab_size:,} ids)"
    if sys.argv[3]:
        t1 = time.perf_counter()
        tok.encode(sys.argv[3] * (100_000 // len(sys.argv[3])))
        outcome += f"; encoding 100,000 characters took {time.perf_counter() - t1:.2f} s"
except ValueError as exc:
    loading = time.perf_counter() - t0
    outcome = f"refused: {exc}"
# VmHWM, not ru_maxrss: the latter keeps the parent's peak across fork and exec
peak = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM"))
print(loading, peak)
print(outcome)
"""


def bert_config() -> dict:
    sys.path.insert(0, str(ROOT))
    import tokenizers_core as tc

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tokenizer.json"
        tc.load("bert-base-uncased").save(path)
        return json.loads(path.read_text())


def added(first_id: int, count: int) -> list[dict]:
    return [{"id": first_id + i, "content": f"<t{i}>", "normalized": False} for i in range(count)]


def base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    return "".join(digits[n // 36**k % 36] for k in (3, 2, 1, 0))


def million_added(bert: dict) -> bytes:
    """Short entries (`{"id":1030521,"content":"0lfl"}`), so that the file fits the upload
    limit as the issue's did."""
    base = len(bert["model"]["vocab"])
    config = dict(
        bert,
        added_tokens=bert["added_tokens"]
        + [{"id": base + i, "content": base36(i)} for i in range(1_000_000)],
    )
    return json.dumps(config, separators=(",", ":")).encode()


def cjk_pairs_file(
    extra: Callable[[int], dict[str, Any]] | None = None, limit: int = UPLOAD_LIMIT
) -> bytes:
    """A BPE tokenizer.json of 1,000 CJK characters, as many of their pairs as fit `limit`
    bytes (999,000 at most; fewer until it fits) with a merge for each, and `extra` sections
    (computed from the vocabulary's size: `extra(n)`)."""
    chars = [chr(0x4E00 + i) for i in range(1000)]
    for pairs in range(999_000, 0, -50_000):
        vocab = {c: i for i, c in enumerate(chars)}
        merges = []
        for n in range(pairs):
            left, right = chars[n // 1000], chars[n % 1000]
            vocab[left + right] = len(vocab)
            merges.append(f"{left} {right}")
        config = {
            "model": {"type": "BPE", "vocab": vocab, "merges": merges},
            "pre_tokenizer": {"type": "Whitespace"},
            **(extra(len(vocab)) if extra else {}),
        }
        data = json.dumps(config, ensure_ascii=False, separators=(",", ":")).encode()
        if len(data) <= limit:
            return data
    raise AssertionError("unreachable")


def worst_allowed(bert: dict) -> bytes:
    """The most the bounds allow, cut to fit the upload limit (fewer pairs until it fits)."""
    return cjk_pairs_file(lambda size: {"added_tokens": added(size, 100_000)})


def matcher_worst(bert: dict) -> bytes:
    base = len(bert["model"]["vocab"])
    contents = ["a" * k for k in range(1, 257)] + ["a" * k + "0" for k in range(1, 256)]
    config = dict(
        bert,
        added_tokens=bert["added_tokens"]
        + [{"id": base + i, "content": c, "normalized": False} for i, c in enumerate(contents)],
    )
    return json.dumps(config).encode()


def fresh_process_load(code: Path, path: Path, text: str = "") -> tuple[float, float, str]:
    """(seconds in `tc.load`, peak RSS in MB, what happened) in a new process."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(code), str(path), text],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    seconds, rss = out[0].split()
    return float(seconds), float(rss) / 1024, out[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--code", type=Path, default=ROOT, help="the checkout whose tokenizers_core to load with"
    )
    args = parser.parse_args()
    bert = bert_config()
    cases = [
        ("1,000,000 added tokens (the reproducer)", million_added(bert), ""),
        ("the worst file the bounds allow", worst_allowed(bert), "一丁 <t5> 七"),
        ("511 nested added tokens, text 'ab'", matcher_worst(bert), "ab"),
        ("511 nested added tokens, text 'a'", matcher_worst(bert), "a"),
    ]
    print(f"tokenizers_core from {args.code}")
    with tempfile.TemporaryDirectory() as tmp:
        for label, data, text in cases:
            path = Path(tmp) / "tokenizer.json"
            path.write_bytes(data)
            start = time.perf_counter()
            seconds, rss, outcome = fresh_process_load(args.code, path, text)
            print(
                f"{label}: {len(data) / 1e6:.1f} MB ({len(gzip.compress(data)) / 1e6:.1f} MB "
                f"gzipped)\n  load {seconds:.2f} s, process {time.perf_counter() - start:.2f} s, "
                f"peak RSS {rss:.0f} MB\n  {outcome}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

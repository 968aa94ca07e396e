"""Time of `tc.audit` per phase (classify every entry; encode the bundled corpora; near-duplicates
and scripts) for cl100k_base, o200k_base, and Llama 3's and Llama 4's tokenizer.json when the
shared interop data is present (the goal: Llama 3's 128k tokens in at most 20 s).

The reference is the classify phase's core, the round trip (each token's bytes decoded and
encoded again as ordinary text), done by the real library: tiktoken (built offline from the
same ranks file) for the OpenAI encodings, Hugging Face `tokenizers` for the Llama files. The
ratio printed is our classify phase over that round trip (ours also decides the other
categories and builds each reason). Wall time and this process's CPU time are both printed
(the machine may be shared). The tokenizer's load time is not counted.

Run: .venv/bin/python benchmarks/bench_audit.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tokenizers_core as tc  # noqa: E402
from tests.shared_data import INTEROP  # noqa: E402  (where the shared data is)


def tiktoken_round_trip(name: str) -> float:
    """Seconds tiktoken takes to decode and re-encode every ordinary token."""
    import tiktoken

    from tokenizers_core.implementations.openai_public import ENCODINGS, load_ranks
    from tokenizers_core.pre_tokenizers import PRESETS

    preset, specials = ENCODINGS[name]
    ranks = load_ranks(name)
    enc = tiktoken.Encoding(
        name, pat_str=PRESETS[preset], mergeable_ranks=ranks, special_tokens=specials
    )
    start = time.perf_counter()
    for data, id_ in ranks.items():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        enc.encode_ordinary(text) == [id_]
    return time.perf_counter() - start


def hf_round_trip(path: Path) -> float:
    """Seconds Hugging Face `tokenizers` takes to decode and re-encode every token."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path))
    size = tok.get_vocab_size(with_added_tokens=True)
    start = time.perf_counter()
    for id_ in range(size):
        text = tok.decode([id_], skip_special_tokens=False)
        tok.encode(text, add_special_tokens=False).ids == [id_]
    return time.perf_counter() - start


def run(label: str, load, reference) -> None:
    tok = load()
    wall, cpu = time.perf_counter(), time.process_time()
    report = tc.audit(tok)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    phases = "  ".join(f"{k} {v:5.2f} s" for k, v in report.timings.items())
    counts = ", ".join(f"{k} {v:,}" for k, v in report.counts().items() if v)
    print(
        f"{label:<24} {len(report.entries):>7,} entries  {phases}  total {wall:5.2f} s "
        f"(cpu {cpu:5.2f} s)\n{'':<24} {counts}"
    )
    if reference is not None:
        try:
            ref = reference()
        except ImportError as exc:
            print(f"{'':<24} (reference skipped: {exc})")
            return
        print(
            f"{'':<24} reference round trip {ref:5.2f} s; our classify phase is "
            f"{report.timings['classify'] / ref:4.1f}x it"
        )


def main() -> None:
    run("cl100k_base", lambda: tc.load("cl100k_base"), lambda: tiktoken_round_trip("cl100k_base"))
    run("o200k_base", lambda: tc.load("o200k_base"), lambda: tiktoken_round_trip("o200k_base"))
    for name in ("llama3", "llama4"):
        path = INTEROP / "converted" / f"{name}.tokenizer.json"
        if not path.is_file():
            print(f"({name}: {path} is absent, skipped)")
            continue
        run(
            f"{name} tokenizer.json",
            lambda p=path: tc.load(str(p)),
            lambda p=path: hf_round_trip(p),
        )


if __name__ == "__main__":
    main()

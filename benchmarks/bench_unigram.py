"""Unigram benchmarks: training time, encoding throughput and model quality against sentencepiece.

    .venv/bin/python benchmarks/bench_unigram.py            # everything (a few minutes)
    .venv/bin/python benchmarks/bench_unigram.py train      # training the 1 MB text at 4000
    .venv/bin/python benchmarks/bench_unigram.py encode     # Viterbi throughput on 1 MB
    .venv/bin/python benchmarks/bench_unigram.py quality    # tokens/word, held-out log-lik/char

Training: `tokenizers_core.train("unigram", lines, 4000)` against
`sentencepiece.SentencePieceTrainer.train(..., model_type="unigram")` on the same lines, both
timed in this process from the lines to a finished model (sentencepiece uses its default 16
threads; the machine has 2 cores, shared with other work, so the figures are noisy).

Quality: each corpus is split into train (9 lines in 10) and held-out (every 10th line);
tokens per whitespace word and the held-out log-likelihood per character (natural log, summed
over all segmentations, i.e. the lattice's forward score) of both models on the held-out lines.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import sentencepiece as spm  # noqa: E402

import tokenizers_core as tc  # noqa: E402
from benchmarks.corpus import english_1mb  # noqa: E402
from tokenizers_core.formats.sentencepiece_model import _DATA, load_bytes  # noqa: E402
from tokenizers_core.implementations.unigram import held_out_quality  # noqa: E402


def _sp_train(lines: list[str], vocab_size: int) -> bytes:
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=out,
        vocab_size=vocab_size,
        model_type="unigram",
        minloglevel=2,
    )
    return out.getvalue()


def bench_train(repeat: int = 3) -> None:
    """Alternate ours and sentencepiece `repeat` times; report each run and the best of each."""
    lines = english_1mb().splitlines()
    ours_times, sp_times = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        tok = tc.train("unigram", lines, vocab_size=4000)
        ours_times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        _sp_train(lines, 4000)
        sp_times.append(time.perf_counter() - t0)
    rounds = len(tok.trainer.steps)
    runs = ", ".join(f"{a:.1f}/{b:.1f}" for a, b in zip(ours_times, sp_times))
    print(
        f"train 1 MB, vocab 4000 ({rounds} steps): ours/sentencepiece per run {runs} s; "
        f"best {min(ours_times):.2f} s vs {min(sp_times):.2f} s, "
        f"ratio {min(ours_times) / min(sp_times):.2f}x"
    )


def bench_encode() -> None:
    text = english_1mb()
    lines = text.splitlines()
    with gzip.open(os.path.join(_DATA, "botchan_en_unigram_1000.model.gz"), "rb") as fh:
        sp = spm.SentencePieceProcessor(model_proto=fh.read())
    tok = tc.load("botchan_en_unigram_1000")
    mb = len(text.encode("utf-8")) / 1e6
    t0 = time.perf_counter()
    ours_tokens = sum(len(tok.encode(line).ids) for line in lines)
    ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    normalized = [tok.normalizer.normalize_str(line) for line in lines]
    t1 = time.perf_counter()
    for line in normalized:
        tok.model.encode_spans(line)
    t2 = time.perf_counter()
    sp_tokens = sum(len(ids) for ids in sp.encode(lines))
    t3 = time.perf_counter()
    theirs = t3 - t2
    assert ours_tokens == sp_tokens
    print(f"encode 1 MB ({len(lines)} lines, {ours_tokens} tokens, botchan_en_unigram_1000):")
    print(
        f"  ours Tokenizer.encode {ours:.2f} s = {mb / ours:.2f} MB/s "
        f"(normalise {t1 - t0:.2f} s, Viterbi {t2 - t1:.2f} s)"
    )
    print(f"  sentencepiece {theirs:.3f} s = {mb / theirs:.1f} MB/s; ratio {ours / theirs:.0f}x")


def bench_quality() -> None:
    with gzip.open(os.path.join(_DATA, "corpora", "botchan.txt.gz"), "rt", encoding="utf-8") as fh:
        botchan = fh.read().splitlines()
    with open(os.path.join(_DATA, "corpora", "udhr", "eng.txt"), encoding="utf-8") as fh:
        udhr = fh.read().splitlines()
    cases = [
        ("botchan", botchan, 1000),
        ("botchan", botchan, 4000),
        ("udhr eng", udhr, 500),
        ("udhr eng", udhr, 1000),
        ("1 MB english", english_1mb().splitlines(), 4000),
    ]
    print(
        "quality (ours / sentencepiece; tokens/word lower is better, "
        "log-lik/char higher is better):"
    )
    for name, lines, vocab in cases:
        lines = [l for l in lines if l.strip()]
        train = [l for i, l in enumerate(lines) if i % 10]
        held = [l for i, l in enumerate(lines) if i % 10 == 0]
        try:
            theirs = load_bytes(_sp_train(train, vocab))
        except RuntimeError as exc:
            print(
                f"  {name:13s} {vocab:5d}: sentencepiece cannot: {str(exc).split(':')[-1].strip()}"
            )
            continue
        try:
            ours = tc.train("unigram", train, vocab_size=vocab)
        except ValueError as exc:
            print(f"  {name:13s} {vocab:5d}: ours cannot: {exc}")
            continue
        tpw, ll = held_out_quality(ours, held)
        sp_tpw, sp_ll = held_out_quality(theirs, held)
        print(
            f"  {name:13s} {vocab:5d}: tokens/word {tpw:.4f} vs {sp_tpw:.4f} "
            f"({100 * (tpw / sp_tpw - 1):+.2f}%; negative: ours fewer), held-out log-lik/char "
            f"{ll:.4f} vs {sp_ll:.4f} ({100 * (ll - sp_ll) / abs(sp_ll):+.2f}%; positive: "
            f"ours more likely)"
        )


if __name__ == "__main__":
    which = sys.argv[1:] or ["train", "encode", "quality"]
    from benchmarks.corpus import precompile

    precompile()  # .pyc files, as pip leaves for the reference
    for name in which:
        {"train": bench_train, "encode": bench_encode, "quality": bench_quality}[name]()

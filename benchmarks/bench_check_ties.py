"""`/check` under minbpe's tie-break: the incremental first-seen trainer (after) against the
textbook recount it replaced (before), beside a check with the default (Hugging Face) ties.

    .venv/bin/python benchmarks/bench_check_ties.py             # 2,000 lines of botchan, 400 merges
    .venv/bin/python benchmarks/bench_check_ties.py 4000 1000   # lines, merges

The student's merges are the reference's own under each rule, so every check runs to the end
(the slowest case: no early divergence). "before" is the loop the check ran until now:
`textbook.bpe_train(ties="dict")`, which recounts every pair at every merge. Each figure is
the best of BENCH_REPEAT (default 3) runs; other programs sharing the CPU make them noisy.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tokenizers_core as tc  # noqa: E402
from tokenizers_core.byte_level import bytes_to_unicode  # noqa: E402
from tokenizers_core.checker import _whole_text_table  # noqa: E402
from tokenizers_core.checker.first_seen import FirstSeenBpe  # noqa: E402
from tokenizers_core.corpora import load_corpus  # noqa: E402
from tokenizers_core.textbook.bpe_train import bpe_train  # noqa: E402

REPEAT = int(os.environ.get("BENCH_REPEAT", "3"))


def best(fn: Callable[[], Any]) -> tuple[float, Any]:
    times: list[float] = []
    out: Any = None
    for _ in range(REPEAT):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main(n_lines: int, n_merges: int) -> None:
    lines = load_corpus("botchan").splitlines()[:n_lines]
    vocab_size = 256 + n_merges
    table = _whole_text_table("byte_bpe", lines, {})
    alphabet = list(bytes_to_unicode().values())

    def before():  # the textbook recount the check used
        return [s.pair for s in bpe_train(dict(table), vocab_size, alphabet=alphabet, ties="dict")]

    def after():
        trainer, out = FirstSeenBpe(table, vocab_size, alphabet=alphabet), []
        while (step := trainer.merge_next()) is not None:
            out.append(step[0])
        return out

    t_after, ours = best(after)
    t_before, recounted = best(before)
    assert ours == recounted, "the incremental trainer must give the recount's merges"
    hf = tc.train("byte_bpe", lines, vocab_size=vocab_size).model.merges  # type: ignore[attr-defined]
    t_hf, _ = best(lambda: tc.check("byte_bpe", lines, hf, vocab_size=vocab_size))
    t_check, report = best(
        lambda: tc.check("byte_bpe", lines, ours, vocab_size=vocab_size, ties="minbpe")
    )
    assert report.first_divergence is None, report.explanation
    print(f"botchan, {len(lines):,} lines, byte_bpe, {len(ours)} merges (best of {REPEAT})")
    print(f"  minbpe ties, trainer before (textbook recount): {t_before:7.2f} s")
    print(f"  minbpe ties, trainer after (incremental):       {t_after:7.2f} s")
    print(f"    speed-up: {t_before / t_after:.1f}x")
    print(f"  tc.check(ties='minbpe'), whole check:           {t_check:7.2f} s")
    print(f"  tc.check(ties='hf'), whole check:               {t_hf:7.2f} s")
    print(f"    minbpe / hf: {t_check / t_hf:.1f}x")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    main(*(args + [2000, 400][len(args) :]))

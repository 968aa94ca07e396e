"""The drift doctor on a 20-turn Qwen3 conversation (a system prompt, then 20 user questions, each
answered with reasoning), with Qwen3's own template: `tc.drift` whole (every turn's prompt,
completion and next render, encoded; the completions and the markers), against the same turns
rendered and tokenized by transformers' `apply_chat_template(..., tokenize=True)` (the Qwen3
tokenizer.json and its tokenizer_config.json as a model folder, read by AutoTokenizer), which is
the reference the tests compare every render with. Median of BENCH_RUNS runs (5 by default);
wall time (the machine may be shared).

Run: .venv/bin/python benchmarks/bench_drift.py
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tokenizers_core as tc  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "5"))
TURNS = 20


def conversation() -> list[dict[str, str]]:
    messages = [{"role": "system", "content": "You are a careful assistant. Show your work."}]
    for k in range(1, TURNS + 1):
        messages.append(
            {"role": "user", "content": f"Question {k}: what is {k} * {k + 7}, and why?"}
        )
        messages.append(
            {
                "role": "assistant",
                "reasoning_content": (
                    f"The user asks for {k} times {k + 7}. {k} * {k + 7} = {k * (k + 7)}. "
                    "Check it another way: " * 3 + f"{k * k} + {7 * k} = {k * (k + 7)}."
                ),
                "content": f"{k} * {k + 7} = {k * (k + 7)}: {k}² plus seven times {k}.",
            }
        )
    return messages


def median_seconds(fn) -> float:
    fn()  # warm-up: templates compiled, caches filled
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def transformers_turns(theirs, messages: list[dict[str, str]]) -> None:
    """The renders the doctor makes, by transformers: per assistant turn its prompt, its own
    render (the completion is what follows the prompt) and the next turn's, tokenized."""
    for i, m in enumerate(messages):
        if m["role"] != "assistant":
            continue
        j = next(
            (k for k in range(i + 1, len(messages)) if messages[k]["role"] == "assistant"),
            len(messages),
        )
        for upto, prompt in ((i, True), (i + 1, False), (j, False)):
            theirs.apply_chat_template(
                messages[:upto], add_generation_prompt=prompt, tokenize=True, return_dict=True
            )


def main() -> None:
    tok = tc.load("qwen3")
    messages = conversation()
    report = tc.drift(tok, messages)
    kept = sum(t.prefix_of_next for t in report.turns)
    tokens = report.turns[-1].tokens_total
    print(
        f"{TURNS}-turn Qwen3 conversation, its own template: {len(messages)} messages, "
        f"{tokens:,} tokens in the last turn; {kept} of {len(report.turns)} turns a prefix "
        f"of the next ({report.turns[0].construct.split(':')[0]})"
    )
    ours = median_seconds(lambda: tc.drift(tok, messages))
    print(f"  ours: tc.drift, the whole report        {ours * 1000:8.1f} ms")
    try:
        import transformers
    except ImportError:
        print("transformers is not installed: only our own time", file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "tokenizer.json").write_text(json.dumps(tok.to_hf_json()), encoding="utf-8")
        Path(folder, "tokenizer_config.json").write_text(
            json.dumps(tok.tokenizer_config), encoding="utf-8"
        )
        theirs = transformers.AutoTokenizer.from_pretrained(folder)
    reference = median_seconds(lambda: transformers_turns(theirs, messages))
    print(
        f"  transformers: the same turns' renders   {reference * 1000:8.1f} ms  "
        f"(apply_chat_template, tokenize=True, {3 * TURNS} calls)"
    )
    print(f"  ratio ours / transformers: {ours / reference:.2f}x")


if __name__ == "__main__":
    main()

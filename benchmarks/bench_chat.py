"""Chat render time: 3 messages through the bundled Llama 3 style template, ours against
transformers' `render_jinja_template` (the text only), then our whole `render_chat` (text,
message spans, tokens with roles, mask and lints) with cl100k_base and, when ../shared is beside
the checkout, with Llama 3's own tokenizer.json. p50 and p95 over many runs,
each template compiled (and cached) first, as in a running server.

Run: .venv/bin/python benchmarks/bench_chat.py   (BENCH_RUNS=500 by default)
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tokenizers_core as tc  # noqa: E402
from tests.shared_data import INTEROP  # noqa: E402  (where the shared data is)
from tokenizers_core import chat  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "500"))
MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is the capital of France?"},
    {"role": "assistant", "content": "Paris."},
]


def timings(fn) -> tuple[float, float]:
    """(p50, p95) in milliseconds of `fn()` over RUNS runs, after a warm-up."""
    for _ in range(10):
        fn()
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), statistics.quantiles(times, n=20)[18]


def main() -> None:
    source = chat.template_source("llama3")
    specials = chat.bundled_template("llama3").special_tokens
    tok = tc.load("cl100k_base")
    rows = [
        (
            "ours: text (apply_chat_template)",
            timings(lambda: tc.apply_chat_template(None, MESSAGES, template_name="llama3")),
        )
    ]
    try:
        from transformers.utils.chat_template_utils import render_jinja_template
    except ImportError:
        print("transformers is not installed: only our own times", file=sys.stderr)
    else:
        rows.append(
            (
                "transformers: text (render_jinja_template)",
                timings(
                    lambda: render_jinja_template(
                        conversations=[MESSAGES], chat_template=source, **specials
                    )
                ),
            )
        )
    rows.append(
        (
            "ours: render_chat, no tokenizer (+ spans, lints)",
            timings(lambda: chat.render_chat(MESSAGES, template_name="llama3")),
        )
    )
    rows.append(
        (
            "ours: render_chat + cl100k_base tokens",
            timings(lambda: chat.render_chat(MESSAGES, template_name="llama3", tokenizer=tok)),
        )
    )
    llama3 = _llama3()
    if llama3 is not None:  # the real Llama 3 tokenizer.json: the double-BOS lint fires
        rows.append(
            (
                "ours: render_chat + Llama 3 tokenizer.json",
                timings(
                    lambda: chat.render_chat(MESSAGES, template_name="llama3", tokenizer=llama3)
                ),
            )
        )
    print(f"3 messages, Llama 3 style template, {RUNS} runs each")
    print(f"{'':<52}{'p50 ms':>9}{'p95 ms':>9}")
    for name, (p50, p95) in rows:
        print(f"{name:<52}{p50:>9.3f}{p95:>9.3f}")
    if rows[1][0].startswith("transformers"):
        print(f"text only, ours / transformers at p50: {rows[0][1][0] / rows[1][1][0]:.2f}x")


def _llama3():
    """Llama 3's tokenizer.json from ../shared/data/interop, or None when it is absent."""
    path = INTEROP / "converted" / "llama3.tokenizer.json"
    if not path.is_file():
        print(f"{path} is absent: no Llama 3 row", file=sys.stderr)
        return None
    return tc.load(str(path))


if __name__ == "__main__":
    main()

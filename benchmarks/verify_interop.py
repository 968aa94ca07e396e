"""Real model tokenizers, exactly: Llama 3 and Llama 4 as tiktoken ranks files and as Hugging Face
tokenizer.json, against the reference outputs in ../shared/data/interop/expected/ (made with
tiktoken 0.14.0 and tokenizers 0.23.3; see that folder's README).

    .venv/bin/python benchmarks/verify_interop.py

Prints one line per file and check, and exits non-zero when anything differs. The files are read
where they lie (their licences are not the project's); without ../shared it says so and exits 0.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tokenizers_core as tc  # noqa: E402
from tests.shared_data import INTEROP  # noqa: E402  (where the shared data is)

PATTERNS = {"llama3": "llama3", "llama4": "o200k"}


def _rows(name: str) -> list[dict]:
    with open(INTEROP / "expected" / f"{name}.expected.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _specials(model: str) -> dict[str, int]:
    """The special tokens, from the converted tokenizer.json's added tokens."""
    with open(INTEROP / "converted" / f"{model}.tokenizer.json", encoding="utf-8") as fh:
        config = json.load(fh)
    return {t["content"]: t["id"] for t in config["added_tokens"] if t.get("special")}


def check_tiktoken(model: str) -> list[str]:
    tok = tc.load(
        str(INTEROP / "raw" / model / "tokenizer.model"),
        pattern=PATTERNS[model],
        special_tokens=_specials(model),
    )
    failures = []
    for row in _rows(f"{model}.tiktoken"):
        text, want = row["text"], row["tiktoken"]
        got_all = tok.encode(text, allowed_special="all").ids
        got_none = tok.encode(text, disallowed_special=()).ids
        try:
            tok.encode(text)
            raised = False
        except ValueError:
            raised = True
        checks = {
            "ids_allowed_all": got_all == want["ids_allowed_all"],
            "ids_none_allowed": got_none == want["ids_none_allowed"],
            "default_encode_raises": raised == want["default_encode_raises"],
            "decode": tok.decode(want["ids_allowed_all"]) == want["decode"],
        }
        failures += [f"{row['id']} {what}" for what, ok in checks.items() if not ok]
    return failures


def check_tokenizer_json(model: str) -> list[str]:
    tok = tc.load(str(INTEROP / "converted" / f"{model}.tokenizer.json"))
    failures = []
    for row in _rows(f"{model}.tokenizer.json"):
        text = row["text"]
        for key, add in (("hf", True), ("hf_no_special", False)):
            want = row[key]
            enc = tok.encode(text, add_special_tokens=add)
            got = {
                "ids": enc.ids,
                "tokens": enc.tokens,
                "offsets": [list(o) for o in enc.offsets],
                "special_tokens_mask": enc.special_tokens_mask,
                "attention_mask": enc.attention_mask,
                "type_ids": enc.type_ids,
            }
            failures += [
                f"{row['id']} {key}.{k}" for k, v in got.items() if k in want and v != want[k]
            ]
        hf = row["hf"]
        if "decode" in hf and tok.decode(hf["ids"]) != hf["decode"]:
            failures.append(f"{row['id']} decode")
        if (
            "decode_skip_special" in hf
            and tok.decode(hf["ids"], skip_special_tokens=True) != hf["decode_skip_special"]
        ):
            failures.append(f"{row['id']} decode_skip_special")
    return failures


def main() -> int:
    if not INTEROP.is_dir():
        print(f"no interop data at {INTEROP}: nothing to check")
        return 0
    bad = 0
    for model in ("llama3", "llama4"):
        for kind, check in (
            ("tiktoken ranks", check_tiktoken),
            ("tokenizer.json", check_tokenizer_json),
        ):
            try:
                failures = check(model)
            except Exception as exc:  # report and go on with the other files
                failures = [f"could not run: {type(exc).__name__}: {exc}"]
            bad += bool(failures)
            verdict = "exact" if not failures else f"{len(failures)} differences"
            print(f"{model:7} {kind:15} {verdict}")
            for failure in failures[:10]:
                print("   ", failure)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

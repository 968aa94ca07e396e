"""Issue 20's hostile-file reproducers (items 1-3), timed and weighed through the API.

In-process (FastAPI TestClient, the app's default regex time limit of 0.5 s). For each reproducer
it prints the status the server answers, the wall time, and the peak of Python memory allocated
while the request ran (tracemalloc):

1. a Split pre-tokenizer `(a|a)*$` on "a" * 30 + "!" (unbounded: minutes);
2. `"padding": {"strategy": {"Fixed": N}}` at upload for N = 3,000,000 and 10**12 (unbounded:
   81 MB answers, 1 GB of memory, a MemoryError), and the largest length accepted, encoding "a";
3. a WordPiece file with `max_input_chars_per_word: 10**9` on words of 6,000 and 100,000
   characters (unbounded: 11 s and hours).

    .venv/bin/python benchmarks/bench_hostile_files.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient  # noqa: E402

from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from tokenizers_core.processors.truncation import MAX_LENGTH  # noqa: E402

EVIL = "(a|a)*$"


def split_file() -> bytes:
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "post_processor": None,
            "decoder": None,
            "pre_tokenizer": {
                "type": "Split",
                "pattern": {"Regex": EVIL},
                "behavior": "Isolated",
                "invert": False,
            },
            "model": {
                "type": "WordLevel",
                "vocab": {"a": 0, "!": 1, "[UNK]": 2},
                "unk_token": "[UNK]",
            },
        }
    ).encode()


def padded_file(length: str) -> bytes:
    config = json.loads(split_file())
    config["pre_tokenizer"] = {"type": "WhitespaceSplit"}
    config["model"]["vocab"]["[PAD]"] = 3
    config["padding"] = {
        "strategy": {"Fixed": 0},
        "direction": "Right",
        "pad_to_multiple_of": None,
        "pad_id": 3,
        "pad_type_id": 0,
        "pad_token": "[PAD]",
    }
    return json.dumps(config).replace('"Fixed": 0', f'"Fixed": {length}').encode()


def wordpiece_file() -> bytes:
    vocab = {"[UNK]": 0, "a": 1, "##a": 2, "##aa": 3, "##aaa": 4}
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": {"type": "WhitespaceSplit"},
            "post_processor": None,
            "decoder": None,
            "model": {
                "type": "WordPiece",
                "unk_token": "[UNK]",
                "continuing_subword_prefix": "##",
                "max_input_chars_per_word": 10**9,
                "vocab": vocab,
            },
        }
    ).encode()


def measured(call):
    """(response, seconds, peak MB allocated while it ran)."""
    tracemalloc.start()
    start = time.perf_counter()
    response = call()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return response, seconds, peak


def row(what: str, response, seconds: float, peak: float) -> None:
    print(f"{what:<62}{response.status_code:>6}{seconds:>10.2f}{peak:>12.1f}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            db_path=Path(tmp) / "bench.sqlite3",
            max_text_chars=100_000,
            max_corpus_bytes=5_000_000,
            max_upload_bytes=5_000_000,
            regex_timeout=0.5,
        )
        with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:

            def upload(data: bytes):
                return client.post("/api/tokenizers", files={"file": ("tokenizer.json", data)})

            def encode(handle: str, text: str):
                return client.post("/api/encode", json={"tokenizer": handle, "text": text})

            print(f"{'reproducer':<62}{'status':>6}{'seconds':>10}{'peak MB':>12}")
            evil = upload(split_file()).json()["tokenizer"]
            row(
                "1. (a|a)*$ on 'a' * 30 + '!'  (POST /api/encode)",
                *measured(lambda: encode(evil, "a" * 30 + "!")),
            )
            for length in ("3000000", "1e12"):
                row(
                    f"2. upload with padding Fixed {length}",
                    *measured(lambda: upload(padded_file(length))),
                )
            padded = upload(padded_file(str(MAX_LENGTH))).json()["tokenizer"]
            row(
                f"2. padding Fixed {MAX_LENGTH:,} (the largest accepted), encode 'a'",
                *measured(lambda: encode(padded, "a")),
            )
            wordpiece = upload(wordpiece_file()).json()["tokenizer"]
            for n in (6_000, 100_000):
                row(
                    f"3. WordPiece max_input_chars 1e9, one word of {n:,} chars",
                    *measured(lambda: encode(wordpiece, "a" * n)),
                )


if __name__ == "__main__":
    main()

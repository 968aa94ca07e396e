"""Server time of the visualiser page for a 100,000-character paste (POST /, as the form sends
it), in English and in Japanese, for each byte-level tokeniser and BERT; then for one
100,000-character word (no space in it: seeded random English letters, and a run of one CJK
character), beside `POST /api/encode`'s time for the same text (issue 27, item 7: the page at
most 3x the API), each cold (a word no cache has seen) and warm (the same word again).

In-process (FastAPI TestClient); the first request of each tokeniser warms it up. Prints the
server's own time (the Server-Timing header), the size of the HTML fragment, and for the long
word the API's time and the page / API ratio.
Run: .venv/bin/python benchmarks/bench_long_text.py [--only paste|word] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import string
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient  # noqa: E402

from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from tokenizers_core.corpora import load_corpus  # noqa: E402

CHARS = 100_000
TOKENIZERS = ("r50k_base", "cl100k_base", "o200k_base", "bert-base-uncased")
HTMX = {"HX-Request": "true"}


def texts() -> dict[str, str]:
    english = load_corpus("botchan")
    start = english.index("CHAPTER I")
    japanese = "東京都の天気は晴れです。明日は雨が降るでしょう。" * (CHARS // 24 + 1)
    return {"English (botchan)": english[start : start + CHARS], "Japanese": japanese[:CHARS]}


def long_words() -> dict[str, str]:
    """One word of CHARS characters: nothing in it for a pre-tokeniser to split at."""
    letters = "".join(random.Random(0).choices(string.ascii_lowercase, k=CHARS))
    return {"English letters": letters, "CJK run (東)": "東" * CHARS}


def server_ms(response) -> float:
    response.raise_for_status()
    return float(response.headers["Server-Timing"].split("dur=")[1])


def token_count(html: str) -> int:
    return int(html.split('data-testid="token-count">', 1)[1].split("<", 1)[0].replace(",", ""))


def pastes(client: TestClient, repeat: int) -> None:
    print(f"POST / with {CHARS:,} characters (htmx fragment), median of {repeat}")
    print(f"{'text':<20}{'tokenizer':<22}{'tokens':>8}{'server ms':>11}{'HTML KB':>9}")
    for label, text in texts().items():
        for name in TOKENIZERS:
            body = {"text": text, "tokenizer": name}
            r = client.post("/", data=body, headers=HTMX)
            r.raise_for_status()
            times = []
            for _ in range(repeat):
                r = client.post("/", data=body, headers=HTMX)
                times.append(server_ms(r))
            print(
                f"{label:<20}{name:<22}{token_count(r.text):>8}"
                f"{statistics.median(times):>11.0f}{len(r.content) / 1024:>9.0f}"
            )


def page(client: TestClient, text: str, name: str):
    return client.post("/", data={"text": text, "tokenizer": name}, headers=HTMX)


def encode(client: TestClient, text: str, name: str):
    return client.post("/api/encode", json={"text": text, "tokenizer": name})


def one_long_word(client: TestClient, repeat: int) -> None:
    """Cold: each request a word no cache has seen (the word one character shorter each time),
    as a user pasting it; warm: the same word again (the BPE's piece caches hit, for both)."""
    print(
        f"\nOne word of {CHARS:,} characters: POST / (htmx fragment) and POST /api/encode, "
        f"server ms, median of {repeat}"
    )
    print(
        f"{'word':<18}{'tokenizer':<20}{'tokens':>8}{'cold: page':>12}{'API':>7}{'ratio':>7}"
        f"{'warm: page':>12}{'API':>7}{'ratio':>7}"
    )
    for label, word in long_words().items():
        for name in TOKENIZERS:
            page(client, "warm up", name)
            cold_page, cold_api, warm_page, warm_api = [], [], [], []
            for r in range(repeat):
                cold_page.append(server_ms(page(client, word[: CHARS - 2 * r - 1], name)))
                cold_api.append(server_ms(encode(client, word[: CHARS - 2 * r - 2], name)))
            encode(client, word, name)
            for _ in range(repeat):
                api = encode(client, word, name)
                warm_api.append(server_ms(api))
                shown = page(client, word, name)
                warm_page.append(server_ms(shown))
                tokens = len(api.json()["ids"])
                assert token_count(shown.text) == tokens, (label, name)
            cold = statistics.median(cold_page), statistics.median(cold_api)
            warm = statistics.median(warm_page), statistics.median(warm_api)
            print(
                f"{label:<18}{name:<20}{tokens:>8}"
                f"{cold[0]:>12.0f}{cold[1]:>7.0f}{cold[0] / cold[1]:>7.1f}"
                f"{warm[0]:>12.0f}{warm[1]:>7.0f}{warm[0] / warm[1]:>7.1f}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("paste", "word"), help="run one of the two tables")
    parser.add_argument("--repeat", type=int, default=3, help="timed requests per row")
    args = parser.parse_args()
    settings = Settings(
        db_path=Path(tempfile.mkdtemp()) / "bench.sqlite3",
        max_text_chars=CHARS,
        max_corpus_bytes=5_000_000,
        max_upload_bytes=5_000_000,
        regex_timeout=0.5,
    )
    client = TestClient(create_app(settings), base_url="http://127.0.0.1")  # an allowed host
    if args.only != "word":
        pastes(client, args.repeat)
    if args.only != "paste":
        one_long_word(client, args.repeat)


if __name__ == "__main__":
    main()

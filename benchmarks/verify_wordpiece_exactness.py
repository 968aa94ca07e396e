"""Full-size exactness check (run once, by hand; too slow for the test suite): WordPiece
training equals the recount-everything textbook loop of tests/core/models/test_wordpiece_train.py on
the whole of botchan.txt and every UDHR text, and on the pinned 1 MB English text.

    .venv/bin/python benchmarks/verify_wordpiece_exactness.py [botchan_vocab] [udhr_vocab] [1mb_vocab]

Defaults: 3000, 1000 and 0 (0 skips the 1 MB run, which takes the textbook loop many minutes).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "core")]

from test_wordpiece_train import textbook_wordpiece  # noqa: E402

from tokenizers_core.corpora import corpus_names, load_corpus  # noqa: E402
from tokenizers_core.implementations.bert import count_words  # noqa: E402
from tokenizers_core.models.wordpiece.trainer import WordPieceTrainer  # noqa: E402


def check(name: str, lines: list[str], vocab_size: int) -> bool:
    words = count_words(lines)
    start = time.perf_counter()
    ours = WordPieceTrainer(words, vocab_size=vocab_size).run()
    ours_s = time.perf_counter() - start
    start = time.perf_counter()
    merges, vocab = textbook_wordpiece(words, vocab_size)
    book_s = time.perf_counter() - start
    same = ours.merges == merges and ours.vocab == vocab
    print(
        f"{name:>20}: vocab {vocab_size}, {len(merges)} merges, equal={same} "
        f"(ours {ours_s:.2f} s, textbook {book_s:.1f} s)",
        flush=True,
    )
    return same


def main() -> int:
    botchan_vocab, udhr_vocab, big_vocab = (
        list(map(int, sys.argv[1:])) + [3000, 1000, 0][len(sys.argv) - 1 :]
    )[:3]
    ok = check("botchan", load_corpus("botchan").splitlines(), botchan_vocab)
    for name in corpus_names():
        if name.startswith("udhr/"):
            ok &= check(name, load_corpus(name).splitlines(), udhr_vocab)
    if big_vocab:
        from benchmarks.corpus import english_1mb_lines

        ok &= check("english_1mb", english_1mb_lines(), big_vocab)
    print("ALL EQUAL" if ok else "DIFFERENCES FOUND")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

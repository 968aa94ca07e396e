"""What the job tests share: whether a worker process still runs, waiting for a condition, and a
corpus that is slow to train (random letter-words: every word distinct, no pair much more
frequent than another)."""

from __future__ import annotations

import random
from pathlib import Path

from tests.polling import wait_until


def running(pid: int) -> bool:
    """The process exists and is not a zombie waiting for its parent to reap it."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False


def until(check, timeout: float = 30.0, step: float = 0.1):
    """The job tests' name for `tests.polling.wait_until` (`step`: the polling interval)."""
    return wait_until(check, timeout, step)


def random_corpus(n_words: int, seed: int = 1) -> str:
    """`n_words` random words of 3 to 12 letters, ten a line (about 8.5 bytes a word)."""
    rnd = random.Random(seed)
    words = [
        "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 12)))
        for _ in range(n_words)
    ]
    return "\n".join(" ".join(words[i : i + 10]) for i in range(0, len(words), 10))

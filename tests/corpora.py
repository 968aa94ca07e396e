"""The bundled corpora as the tests run them: each text once.

`udhr/all` is the 33 UDHR translations one after another, so a test that runs every corpus
encodes each translation twice (the slowest test of the fast tier did, issue 38, item 10), and
one that cuts each corpus to its first N characters meets udhr/eng's start again. Here udhr/all
gives way to its seams: where one translation meets the next (the last 200 characters of one and
the first 200 of the next), the one thing it has that its parts lack.
"""

from __future__ import annotations

import functools

from tokenizers_core.corpora import ALL_UDHR, LARGE, corpus_names, load_corpus, udhr_languages

SEAMS = "udhr/all seams"


@functools.lru_cache(maxsize=1)
def seams(width: int = 200) -> str:
    """Each UDHR translation's last `width` characters with the next one's first."""
    texts = [load_corpus(f"udhr/{lang.code}") for lang in udhr_languages()]
    return "".join(a[-width:] + b[:width] for a, b in zip(texts, texts[1:]))


def names(large: bool = True) -> list[str]:
    """Every bundled corpus but udhr/all, its seams instead; without the corpora over 1 MB
    (`LARGE`) when `large` is false."""
    out = [n for n in corpus_names() if n != ALL_UDHR and (large or n not in LARGE)]
    return [*out, SEAMS]


def text(name: str) -> str:
    return seams() if name == SEAMS else load_corpus(name)


def texts(large: bool = True) -> dict[str, str]:
    """{name: text} for `names(large)`."""
    return {name: text(name) for name in names(large)}

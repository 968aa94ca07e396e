"""What the training views share with the routes that link to them or serve their data: each
algorithm's default corpus and vocab-size limit, and the sample words of the Unigram view's
segmentation panel."""

from __future__ import annotations

import functools
from collections import Counter

from tokenizers_core.corpora import SENNRICH

from ..state import AppState
from .corpora import store_corpus

# The corpus each training view starts from: Sennrich's textbook corpus (a text, stored when a
# link needs its hash) for BPE and WordPiece, a bundled corpus (a name) for Unigram.
DEFAULT_CORPORA = {
    "bpe": SENNRICH,
    "byte_bpe": SENNRICH,
    "sentencepiece_bpe": SENNRICH,
    "wordpiece": SENNRICH,
    "unigram": "udhr/eng",
}
# The largest vocab_size each training view takes: BPE's and WordPiece's large runs train in
# the job pool and any step reads off their records; Unigram's view keeps every round's pieces.
MAX_VOCAB = {
    "bpe": 50_000,
    "byte_bpe": 50_000,
    "sentencepiece_bpe": 50_000,
    "wordpiece": 50_000,
    "unigram": 8_000,
}
UNIGRAM_DEFAULT_VOCAB = 300
MAX_SAMPLE_WORDS = 12


def default_corpus_ref(state: AppState, algorithm: str) -> str:
    """The default corpus of `algorithm`'s training view as a corpus reference: a bundled name,
    or the sha256 of the textbook corpus (stored here) where the view starts from a text."""
    default = DEFAULT_CORPORA[algorithm]
    if default == SENNRICH:
        return store_corpus(state, default, name=f"{algorithm} example")
    return default


def sample_words(text: str, words: str = "") -> tuple[str, ...]:
    """The words the Unigram view segments after each round: those given (at most 12), else a
    few frequent long words of the corpus.

    >>> sample_words("x", "cat  dog")
    ('cat', 'dog')
    """
    given = tuple(w for w in words.split() if w)[:MAX_SAMPLE_WORDS]
    return given or frequent_long_words(text)


SAMPLED_WORDS = 50_000  # the corpus's first words that the default sample is counted over
_PUNCTUATION = ".,;:!?\"'()[]"


@functools.lru_cache(maxsize=4)  # (every step of the view asks again for the same corpus)
def frequent_long_words(text: str) -> tuple[str, ...]:
    """The six most frequent words of seven letters or more among the corpus's first
    `SAMPLED_WORDS`, lowercased, ties alphabetical (punctuation around a word is not counted).

    >>> frequent_long_words("Tokenizers tokenize; tokenizers, tokenizers! Dictionary dictionary.")
    ('tokenizers', 'dictionary', 'tokenize')
    """
    words = text.split(None, SAMPLED_WORDS)[:SAMPLED_WORDS]
    stripped = [w.strip(_PUNCTUATION) for w in words if len(w) >= 7]  # (stripping only shortens)
    counts = Counter(w.lower() for w in stripped if len(w) >= 7 and w.isalpha())
    return tuple(w for w, _c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:6])

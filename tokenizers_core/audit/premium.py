"""Language premiums (Petrov et al. 2023, "Language Model Tokenizers Introduce Unfairness
Between Languages").

The premium of language L for a tokeniser is how many tokens it needs to say in L what it says
in English, on parallel text (the same content in each language):

    premium(L) = tokens(text in L) / tokens(the same text in English)

so English pays 1, and a premium of 3 means three times the cost, a third of the context
window and three times the latency for the same content. The parallel texts here are the
Universal Declaration of Human Rights in 33 languages (`tokenizers_core.corpora`); Petrov et
al. used FLORES-200. Only a text's own tokens count: the special tokens a post-processor wraps
around every text ([CLS], [SEP], <|begin_of_text|>) are the same in every language.

>>> premiums({"eng": 100, "fra": 130, "tam": 480})
{'eng': 1.0, 'fra': 1.3, 'tam': 4.8}

A low premium from a tokeniser that maps text to unknown tokens is no bargain (the text was lost,
not compressed); `tokenizers_core.metrics.metrics_per_language` counts those too.
"""

from __future__ import annotations

from typing import Mapping

from ..corpora import load_corpus, udhr_languages
from ..errors import InvalidInput
from ..metrics import relative_counts

BASE = "eng"


def udhr_texts() -> dict[str, str]:
    """The bundled parallel texts by language code (English first)."""
    return {lang.code: load_corpus(f"udhr/{lang.code}") for lang in udhr_languages()}


def token_counts(tok, texts: Mapping[str, str]) -> dict[str, int]:
    """The ordinary tokens (special tokens left out) `tok` makes of each text, by language."""
    if not texts:
        raise InvalidInput("no texts to count tokens in")
    out = {}
    for code, text in texts.items():
        enc = tok.encode(text)
        out[code] = sum(1 for special in enc.special_tokens_mask if not special)
    return out


def premiums(counts: Mapping[str, int], base: str = BASE) -> dict[str, float]:
    """Each language's token count over the base language's (English): its premium."""
    if base not in counts:
        raise InvalidInput(f"the premium is relative to {base!r}, and there is no {base!r} text")
    if not counts[base]:
        raise InvalidInput(f"the {base!r} text has no tokens to compare against")
    return relative_counts(dict(counts), base)


def language_premiums(
    tok, texts: Mapping[str, str] | None = None, base: str = BASE
) -> dict[str, float]:
    """The premium of each language for `tok` on `texts` (default: the 33 UDHR texts)."""
    return premiums(token_counts(tok, udhr_texts() if texts is None else texts), base)


def largest_premium(by_language: Mapping[str, float]) -> tuple[str, float]:
    """The language that pays most, and its premium (ties: the first in order).

    >>> largest_premium({"eng": 1.0, "fra": 1.3, "tam": 4.8})
    ('tam', 4.8)
    """
    if not by_language:
        raise InvalidInput("no premiums to compare")
    code = max(by_language, key=lambda c: by_language[c])
    return code, by_language[code]

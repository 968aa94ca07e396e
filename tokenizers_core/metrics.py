"""Metrics for comparing tokenisers on the same text.

All ratios count **ordinary** tokens: the special tokens a post-processor adds ([CLS], [SEP])
are reported separately, so BERT is not charged two tokens per text. A "word" is a
whitespace-separated run of characters (`str.split()`), so for scripts written without spaces
(Chinese, Japanese, Thai) a "word" is a whole phrase and tokens-per-word is large; compare those
languages by tokens relative to English instead (`relative_counts`).

>>> m = text_metrics("hello big world", ["hello", " big", " world"], special=0, unk=0)
>>> m.tokens, m.words, m.chars_per_token, m.tokens_per_word
(3, 3, 5.0, 1.0)
"""

from __future__ import annotations

import itertools
import unicodedata
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

from .corpora import load_corpus, udhr_languages
from .encoding import Encoding
from .errors import InvalidInput


@dataclass(frozen=True)
class Metrics:
    tokens: int  # ordinary tokens (special tokens excluded)
    special: int  # special tokens added by post-processing
    unk: int  # unknown-token count ([UNK], <unk>)
    chars: int
    bytes: int
    words: int
    chars_per_token: float
    tokens_per_word: float  # "fertility"
    bytes_per_token: float

    def to_dict(self) -> dict:
        return asdict(self)


def _ratio(a: int, b: int) -> float:
    return a / b if b else 0.0


def text_metrics(text: str, tokens: Sequence[str], *, special: int, unk: int) -> Metrics:
    """Metrics of one text given its ordinary tokens (see the module docstring)."""
    n = len(tokens)
    chars = len(text)
    nbytes = len(text.encode("utf-8"))
    words = len(text.split())
    return Metrics(
        tokens=n,
        special=special,
        unk=unk,
        chars=chars,
        bytes=nbytes,
        words=words,
        chars_per_token=_ratio(chars, n),
        tokens_per_word=_ratio(n, words),
        bytes_per_token=_ratio(nbytes, n),
    )


def unk_id(model) -> int | None:
    """The id of the model's own unknown token (WordPiece's `[UNK]`, sentencepiece's `<unk>`,
    a BPE's `unk_token`), or None if it has none (byte-level models never need one). A token
    merely spelled like one (`<unk>` in a vocabulary with no unk_token) is not it: the model
    never emits it for text it cannot cover."""
    unk = getattr(model, "unk_id", None)
    if unk is None and getattr(model, "unk_token", None) is not None:
        unk = getattr(model, "vocab", {}).get(model.unk_token)
    return unk


def unk_ids(model) -> set[int]:
    """`unk_id` as a set: empty when the model has no unknown token."""
    unk = unk_id(model)
    return set() if unk is None else {unk}


def encoding_metrics(text: str, enc: Encoding, unknown: set[int] | None = None) -> Metrics:
    """Metrics of an encoding of `text`; `unknown` are the ids that count as UNK."""
    ordinary = [t for t, s in zip(enc.tokens, enc.special_tokens_mask) if not s]
    unknown = unknown or set()
    unk = sum(1 for i, s in zip(enc.ids, enc.special_tokens_mask) if not s and i in unknown)
    return text_metrics(text, ordinary, special=len(enc) - len(ordinary), unk=unk)


# ---- boundaries -----------------------------------------------------------------------------
def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def cut_points(
    text: str, offsets: Iterable[tuple[int, int]], special_mask: Iterable[int] | None = None
) -> set[int]:
    """Where a tokenisation cuts the text, as character positions.

    Each token's start and end is moved forward past whitespace, so a tokeniser that glues the
    space to the next word ("Ġworld", "▁world") and one that drops it ("world") cut in the
    same place.

    >>> sorted(cut_points("hi there", [(0, 2), (2, 8)]))
    [0, 3, 8]
    >>> sorted(cut_points("hi there", [(0, 2), (3, 8)]))
    [0, 3, 8]
    """
    special_mask = itertools.repeat(0) if special_mask is None else special_mask
    cuts = set()
    for (s, e), sp in zip(offsets, special_mask):
        if sp or s == e:
            continue
        cuts.add(_skip_space(text, s))
        cuts.add(_skip_space(text, e))
    return cuts


def disagreements(text: str, enc: Encoding, reference: set[int]) -> list[bool]:
    """For each token of `enc`: does it start or end where the reference does not cut?

    >>> from tokenizers_core.encoding import Encoding
    >>> e = Encoding.from_tokens([])
    >>> e.offsets, e.special_tokens_mask = [(0, 3), (3, 5)], [0, 0]
    >>> disagreements("abcde", e, {0, 2, 5})
    [True, True]
    >>> disagreements("abcde", e, {0, 3, 5})
    [False, False]
    """
    out = []
    for (s, e), sp in zip(enc.offsets, enc.special_tokens_mask):
        if sp or s == e:
            out.append(False)
            continue
        out.append(_skip_space(text, s) not in reference or _skip_space(text, e) not in reference)
    return out


# ---- scripts --------------------------------------------------------------------------------
def dominant_script(text: str) -> str:
    """The script most letters of `text` are written in, from their Unicode names
    ("LATIN", "CYRILLIC", "ARABIC", "CJK", "DEVANAGARI", "HANGUL", ...).

    >>> dominant_script("Привет, мир"), dominant_script("東京は"), dominant_script("")
    ('CYRILLIC', 'CJK', '')
    """
    counts: Counter[str] = Counter()
    for c, n in Counter(text).items():  # each distinct character once, in first-seen order
        if c.isalpha():
            name = unicodedata.name(c, "")
            if name:
                counts[name.split(" ")[0]] += n
    return counts.most_common(1)[0][0] if counts else ""


def relative_counts(counts: dict[str, int], base: str) -> dict[str, float]:
    """Each count divided by the count of `base` (e.g. tokens per language relative to English).

    >>> relative_counts({"eng": 100, "fra": 130}, "eng")
    {'eng': 1.0, 'fra': 1.3}
    """
    if not counts.get(base):
        raise InvalidInput(f"the base {base!r} has no count to compare against")
    return {k: v / counts[base] for k, v in counts.items()}


def metrics_per_language(tok) -> dict[str, Metrics]:
    """Metrics of each UDHR text (the same 30 articles in 33 languages), by language code."""
    unknown = unk_ids(tok.model)
    out = {}
    for lang in udhr_languages():
        text = load_corpus(f"udhr/{lang.code}")
        out[lang.code] = encoding_metrics(text, tok.encode(text), unknown)
    return out

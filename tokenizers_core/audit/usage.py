"""How a corpus uses a vocabulary: how often each token is the final result of encoding it
(`seen`), how often it occurs inside those tokens' merge trees (`inside`), and from the two
the *intermediate* tokens of Picky BPE (Chizhov et al., 2024): never a final token on the
corpus, yet a part of longer tokens that are (a merge step the vocabulary keeps only to reach
longer tokens; "junk" in their words).

Inside counts need a merge tree, so they exist for BPE models only (the textbook BPE, Hugging
Face's, tiktoken's ranks, sentencepiece's BPE); for WordPiece, Unigram and WordLevel only
`seen` is counted.

>>> import tokenizers_core as tc
>>> use = corpus_usage(tc.load("botchan_en_bpe_1000"), ["the cat"])
>>> use.seen[tc.load("botchan_en_bpe_1000").token_to_id("▁the")]
1
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .. import corpora
from .health import ordinary_encoder


def bundled_corpus() -> list[str]:
    """The default corpus: botchan and the UDHR in its 33 languages, one text each."""
    return [corpora.load_corpus(name) for name in corpora.corpus_names()]


@dataclass
class Usage:
    """`seen[id]`: times the id is a final token; `inside[id]`: times it is a part (at any
    depth) of a final token; `has_trees`: whether `inside` was counted."""

    seen: Counter = field(default_factory=Counter)
    inside: Counter = field(default_factory=Counter)
    has_trees: bool = False

    def intermediate(self, id_: int) -> bool:
        """Never final on the corpus, but inside tokens that are."""
        return self.seen[id_] == 0 and self.inside[id_] > 0


def corpus_usage(
    tok: Any,
    texts: Iterable[str],
    encode: Callable[[str], list[int]] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Usage:
    """Encode each text (as ordinary text) and count; then walk each final token's merge
    tree once, adding its count to every part below it."""
    encode = encode or ordinary_encoder(tok)
    texts = list(texts)
    use = Usage()
    for n, text in enumerate(texts):
        for line in text.splitlines():
            use.seen.update(encode(line))
        if progress is not None:
            progress(n + 1, len(texts))
    splits = merge_splits(tok.model)
    if splits is not None:
        use.has_trees = True
        vocab_id = tok.token_to_id
        for id_, count in use.seen.items():
            for part in _parts_below(tok.id_to_token(id_), splits):
                pid = vocab_id(part)
                if pid is not None:
                    use.inside[pid] += count
    return use


def merge_splits(model: Any) -> dict[str, tuple[str, str]] | None:
    """{token: (left, right)} of the merge that makes each token (the first merge listed
    that makes it), or None for a model without merges.

    >>> from tokenizers_core.models.bpe.model import BPE
    >>> merge_splits(BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
    {'ab': ('a', 'b')}
    """
    merges = getattr(model, "merges", None)
    if not merges or type(model).__name__ not in ("BPE", "HFBpe", "SentencePieceBpe"):
        return None
    join = getattr(model, "_join", None) or (lambda a, b: a + b)
    splits: dict[str, tuple[str, str]] = {}
    for left, right in merges:
        splits.setdefault(join(left, right), (left, right))
    return splits


def _parts_below(token: str | None, splits: dict[str, tuple[str, str]]) -> list[str]:
    """Every node of `token`'s merge tree under it (a part made twice counts twice)."""
    out: list[str] = []
    stack = list(splits.get(token, ())) if token is not None else []
    while stack:
        part = stack.pop()
        out.append(part)
        stack.extend(splits.get(part, ()))
    return out

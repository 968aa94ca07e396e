"""Training-mix inference: what a BPE merge list says about the data it was learned from.

Hayase, Liu, Choi, Oh and Smith (2024), "Data Mixture Inference: What do BPE Tokenizers Reveal
about their Training Data?". A BPE trainer merges, at each step t, the pair that is most frequent
in its training data at that moment. If the data was a mix of categories (languages, code) in
byte proportions alpha_i, the pair counts of the mix are sum_i alpha_i c_i,t(p), where
c_i,t(p) counts pair p in category i's sample (per byte) after the first t merges. So each
merge m_t and each pair p it beat give one linear constraint:

    sum_i alpha_i (c_i,t(m_t) - c_i,t(p)) + v_t >= 0

with alpha_i >= 0, sum_i alpha_i = 1, and a slack v_t >= 0 per merge for what the samples cannot
explain (other data, other text of the same language). The estimate is the alpha of the linear
program that minimises the total slack (the residual).

The paper also gives each pair a slack v_p (`pair_slack=True` here). It is off by default: with
samples of a few kilobytes, a category whose frequent pairs are never merged (a script the
tokenizer barely saw) then pays for each such pair once rather than at every step it is passed
over, and lazy constraints reach that script's many pairs only slowly; on r50k_base (GPT-2) the
estimate drifted to 100 % Chinese. With v_t alone, each step pays for its worst competitor.

The categories are the 33 bundled UDHR languages and "code" (`code_samples.py`). Each sample is
pre-tokenized with the tokenizer's own pre-tokenizer and spelled in its model's own symbols
(`merge_list.word_counts`); then the tokenizer's merges are applied in order, counting pairs as
they go (`pair_history`: count -> apply -> record, the bookkeeping in `_Words`).

The paper's tricks that keep the program small, all used here:

- only the first `merges` merges (T) of the list take part;
- at each step only the few most frequent competing pairs enter (`top_pairs`), not every pair;
- lazy constraint generation: the first program has, per step, the `top_pairs` pairs that are
  most frequent under equal proportions; after each solve, the counts are replayed under the new
  proportions, and the pairs that now beat a merge by more than its slack are added; repeat until
  no constraint is violated (or `rounds` solves).

What it cannot say: a category with no sample (another language, another kind of text) shows
up only as residual or as its nearest sampled neighbour; samples of a few kilobytes (the UDHR is
one document) blur languages that share pairs. The linear program is solved by scipy's HiGHS
(`linprog`), an optional dependency (`pip install 'tokenizer-visualiser[mix]'`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Callable

from ..corpora import load_corpus, udhr_languages
from ..errors import InvalidInput
from .code_samples import code_sample
from .merge_list import joiner, merge_list, word_counts
from .mix_lp import PairHistory, solve_mix

MERGES = 1000
TOP_PAIRS = 5
ROUNDS = 8

Pair = tuple[str, str]
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class MixEstimate:
    """The estimated proportions, largest first, and how well they explain the merges."""

    tokenizer: str
    shares: tuple[tuple[str, float], ...]  # (category, share of the training bytes)
    residual: float  # the total slack, in pair occurrences per 1,000 bytes of the mix
    merges: int  # merges that took part (the first T of the list)
    constraints: int  # constraints in the last linear program
    rounds: int  # linear programs solved (lazy constraint generation)

    def share(self, category: str) -> float:
        return dict(self.shares)[category]

    def to_dict(self) -> dict[str, Any]:
        return {
            "tokenizer": self.tokenizer,
            "shares": [
                {"category": c, "name": category_name(c), "share": s} for c, s in self.shares
            ],
            "residual": self.residual,
            "merges": self.merges,
            "constraints": self.constraints,
            "rounds": self.rounds,
        }


def categories() -> list[str]:
    """The categories a mix is made of: the UDHR languages (by code), then "code"."""
    return [lang.code for lang in udhr_languages()] + ["code"]


def category_name(category: str) -> str:
    """A category's name for people ("English", "code")."""
    names = {lang.code: lang.name for lang in udhr_languages()}
    return names.get(category, category)


def category_samples() -> dict[str, str]:
    """The bundled sample of each category: the UDHR text of each language, and the code
    sample."""
    samples = {code: load_corpus(f"udhr/{code}") for code in categories()[:-1]}
    samples["code"] = code_sample()
    return samples


def estimate_mix(
    tokenizer: Any,
    *,
    merges: int = MERGES,
    top_pairs: int = TOP_PAIRS,
    rounds: int = ROUNDS,
    pair_slack: bool = False,
    samples: dict[str, str] | None = None,
    progress: Progress | None = None,
) -> MixEstimate:
    """Estimate the proportions of the categories in `tokenizer`'s training data.

    `merges` is T, `top_pairs` the competitors added per step and round, `rounds` the most
    linear programs solved, `pair_slack` adds the paper's v_p (see the module docstring).
    `samples` maps each category to its sample text (default: `category_samples()`);
    `progress(done, total, message)` is told after each sample and each solve. Raises ValueError
    for a tokenizer without a merge list, and `SolverMissing` when scipy is not installed.
    """
    for name, value in (("merges", merges), ("top_pairs", top_pairs), ("rounds", rounds)):
        if not isinstance(value, int) or value < 1:
            raise InvalidInput(f"{name} must be a positive whole number, not {value!r}")
    learned = merge_list(tokenizer)[:merges]
    samples = category_samples() if samples is None else samples
    if not samples:
        raise InvalidInput("training-mix inference needs at least one category sample")
    report = progress or (lambda done, total, message: None)
    total = len(samples) + rounds
    histories = []
    for k, (category, text) in enumerate(samples.items()):
        words = word_counts(tokenizer, text)
        histories.append(pair_history(words, learned, joiner(tokenizer)))
        report(k + 1, total, f"counted the merges in the {category_name(category)} sample")
    sizes = [len(text.encode("utf-8")) for text in samples.values()]
    solution = solve_mix(
        histories,
        sizes,
        learned,
        top_pairs=top_pairs,
        rounds=rounds,
        pair_slack=pair_slack,
        progress=lambda r: report(len(samples) + r, total, f"solved linear program {r}"),
    )
    shares = sorted(zip(samples, solution.alpha), key=lambda cs: (-cs[1], cs[0]))
    return MixEstimate(
        tokenizer=str(getattr(tokenizer, "name", "") or "tokenizer"),
        shares=tuple(shares),
        residual=solution.residual,
        merges=len(learned),
        constraints=solution.constraints,
        rounds=solution.rounds,
    )


def pair_history(
    words: Counter[tuple[str, ...]], merges: list[Pair], join: Callable[[str, str], str]
) -> PairHistory:
    """Apply `merges` in order to a sample's `words` ({symbols: count}), recording the pair
    counts: the counts before the first merge, then, after each merge, the new count of every
    pair whose count it changed.

    >>> h = pair_history(Counter({("a", "b", "a", "b"): 2, ("b", "a"): 1}), [("a", "b")],
    ...                  lambda a, b: a + b)
    >>> sorted(h.initial.items())
    [(('a', 'b'), 4), (('b', 'a'), 3)]
    >>> sorted(h.changes[0].items())
    [(('a', 'b'), 0), (('ab', 'ab'), 2), (('b', 'a'), 1)]
    """
    state = _Words(words)
    initial = dict(state.pair_counts)
    changes = []
    for pair in merges:
        before = state.merge(pair, join(*pair))  # count and apply: rewrite each word
        changes.append(state.changed_since(before))  # record: the counts the merge moved
    return PairHistory(initial, changes)


class _Words:
    """A sample's distinct words as symbol lists, their counts, the pair counts, and which
    words hold each pair (so a merge rewrites only the words it touches)."""

    def __init__(self, words: Counter[tuple[str, ...]]) -> None:
        self.symbols = [list(w) for w in words]
        self.counts = list(words.values())
        self.pair_counts: Counter[Pair] = Counter()
        self.holders: defaultdict[Pair, set[int]] = defaultdict(set)
        for i in range(len(self.symbols)):
            self._add(i, {})

    def merge(self, pair: Pair, new: str) -> dict[Pair, int]:
        """Merge `pair` into `new` in every word; returns the counts before, of the pairs the
        rewritten words held before or after."""
        before: dict[Pair, int] = {}
        for i in list(self.holders.get(pair, ())):
            self._remove(i, before)
            self.symbols[i] = merge_word(self.symbols[i], pair, new)
            self._add(i, before)
        return before

    def changed_since(self, before: dict[Pair, int]) -> dict[Pair, int]:
        """The pairs of `before` whose count is no longer what it was, with their new count."""
        return {
            p: self.pair_counts[p] for p, count in before.items() if self.pair_counts[p] != count
        }

    def _add(self, i: int, before: dict[Pair, int]) -> None:
        symbols, count = self.symbols[i], self.counts[i]
        for p in zip(symbols, symbols[1:]):
            before.setdefault(p, self.pair_counts[p])
            self.pair_counts[p] += count
            self.holders[p].add(i)

    def _remove(self, i: int, before: dict[Pair, int]) -> None:
        symbols, count = self.symbols[i], self.counts[i]
        for p in zip(symbols, symbols[1:]):
            before.setdefault(p, self.pair_counts[p])
            self.pair_counts[p] -= count
            self.holders[p].discard(i)


def merge_word(symbols: list[str], pair: Pair, new: str) -> list[str]:
    """Replace each occurrence of `pair` in `symbols`, left to right, by `new`.

    >>> merge_word(["a", "a", "a"], ("a", "a"), "aa")
    ['aa', 'a']
    """
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(new)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out

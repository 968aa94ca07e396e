"""Training a Unigram model: seed a big vocabulary, then EM and pruning (sentencepiece's recipe).

    pieces = every character + the repeated substrings of the lines (up to 16 characters)
    repeat:
        E-step: expected count of each piece over all segmentations of every word
                (forward-backward over each word's lattice)
        M-step: drop pieces expected less than 0.5 times; log P(piece) = digamma(count)
                - digamma(total), sentencepiece's slightly sparsifying re-estimate
        stop when the vocabulary is at most 1.1 x the target size
        prune: for each piece, the loss in likelihood if its uses were re-segmented by the
               next-best split; keep the 75% (shrinking factor) with the largest loss, and
               every character on a best path
        stop when the vocabulary is at most 1.1 x the target size
    final: every required character + the best-scoring pieces on a best path, up to the
           target size

>>> t = UnigramTrainer(["low lower lowest", "newer wider new"] * 20, vocab_size=16)
>>> t.model().get_vocab_size()
16

How it follows sentencepiece 0.2.3 (tests/core/models/test_unigram_tiny_corpora.py trains both on
tiny corpora, where every tie shows): the seed is the nodes of its suffix tree (`_seed_vocabulary`),
counted per distinct word for speed; the pieces keep its order, which breaks ties in pruning;
an uncovered character's node counts for the first piece, as its trainer gives the unknown
piece id 0; a round stops right after pruning reaches 1.1 x the target, and pieces on no best
path are left out of the final vocabulary. Left apart: sentencepiece scores in 32-bit floats,
so pieces whose scores tie here may come in another order there, and it seeds repeated
identical lines differently (its 0.2.3 source was not available to read).
Each word's lattice is built once from the seed vocabulary and thinned as pieces are dropped.
Training works on words: text is normalised (nmt_nfkc, as sentencepiece's default) and split
before each "▁".
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Iterator

from ...errors import InvalidInput
from ...normalizers.sentencepiece import NORMALIZATIONS, sentencepiece_normalizer
from ...steps import Step, register_step
from ..sentencepiece_common import SPACE, UNK_CHAR, is_valid_piece, split_words
from .model import CONTROL, NORMAL, UNK_PENALTY, UNKNOWN, USER_DEFINED, Unigram
from .train_loops import (
    forward_backward,
    lattice_edges,
    plain_word_piece,
    second_best,
    substring_counts,
    suffix_tree_order,
    viterbi,
)

_LINE_END = "\0"  # sentencepiece's boundary after each line in its suffix array

# ---- the step ------------------------------------------------------------------------------------


@register_step
@dataclass(frozen=True)
class UnigramRoundStep(Step):
    """One round of EM + pruning (round 0 is the seed vocabulary).

    `log_likelihood` is the corpus log-likelihood (natural log, summed over all word
    occurrences) after the round's EM iterations; `pruned` the pieces this round removed that
    cost the least likelihood, as (piece, loss), smallest loss first (at most 12 shown of
    `num_pruned`); `survivors` the strongest pieces as (piece, log-probability); `samples` the
    segmentation of the sample words under the model after the round, as (word, pieces);
    `tokens` the corpus length in tokens under the best split when the round pruned (0 for
    the seed).
    """

    kind: ClassVar[str] = "unigram_round"
    round: int
    vocab_size: int
    log_likelihood: float
    tokens: int
    num_pruned: int
    pruned: tuple[tuple[str, float], ...]
    survivors: tuple[tuple[str, float], ...]
    samples: tuple[tuple[str, tuple[str, ...]], ...]
    final: bool


# ---- small helpers -----------------------------------------------------------------------------


def meta_pieces(
    unk_token: str, special_tokens: Iterable[str], user_defined_symbols: Iterable[str]
) -> list[tuple[str, int]]:
    """The pieces a trained model starts with, as (piece, type): the special tokens (control),
    the unknown token first unless it is one of them (as Hugging Face's UnigramTrainer), then
    the user-defined symbols.

    >>> meta_pieces("<unk>", ["<s>", "</s>"], ["<sep>"])
    [('<unk>', 2), ('<s>', 3), ('</s>', 3), ('<sep>', 4)]
    >>> [p for p, _t in meta_pieces("[UNK]", ["[CLS]", "[UNK]"], [])]
    ['[CLS]', '[UNK]']
    """
    specials = _strings(special_tokens, "special_tokens")
    user = _strings(user_defined_symbols, "user_defined_symbols")
    if not isinstance(unk_token, str) or not unk_token:
        raise InvalidInput("unk_token must be a non-empty string")
    meta = [(p, UNKNOWN if p == unk_token else CONTROL) for p in specials]
    if unk_token not in specials:
        meta.insert(0, (unk_token, UNKNOWN))
    meta += [(p, USER_DEFINED) for p in user]
    pieces = [p for p, _t in meta]
    if len(set(pieces)) != len(pieces):
        raise InvalidInput("unk_token, special_tokens and user_defined_symbols must all differ")
    return meta


def _strings(values: Iterable[str], name: str) -> list[str]:
    if isinstance(values, str):
        raise InvalidInput(f"{name} must be a list of strings, not one string")
    out = list(values)
    if not all(isinstance(v, str) and v for v in out):
        raise InvalidInput(f"{name} must be non-empty strings")
    return out


def digamma(x: float) -> float:
    """The digamma function (sentencepiece's series: shift to x >= 7, then the asymptotic sum).

    >>> round(digamma(1.0), 6)       # minus the Euler-Mascheroni constant
    -0.577216
    """
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 0.5
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    return (
        result
        + math.log(x)
        + xx2 / 24
        - 7.0 / 960.0 * xx4
        + 31.0 / 8064.0 * xx4 * xx2
        - 127.0 / 30720.0 * xx4 * xx4
    )


# ---- the trainer -----------------------------------------------------------------------------


class UnigramTrainer:
    """A resumable Unigram trainer: iterate `rounds()` for the steps, then `tokenizer()`.

    Options (sentencepiece's names and defaults): `max_piece_length` 16, `seed_size` 1,000,000,
    `shrinking_factor` 0.75, `character_coverage` 0.9995, `normalization` "nmt_nfkc" (or
    "nfkc_cf", "identity"), `sample_words` (words to segment after each round, for the views), and
    `num_sub_iterations` 2 EM iterations per round (1 gives about the same tokens per word and
    held-out likelihood on botchan for a third less time, but not sentencepiece's pieces).

    The pieces that come first (`meta_pieces`): `special_tokens` (control pieces, Hugging Face's
    name; sentencepiece's `<s>` `</s>` by default), with `unk_token` before them unless it is
    one of them, then `user_defined_symbols` (sentencepiece's flag: always one piece, never cut
    by training, which treats them as boundaries).
    """

    # made by `_build_lattices`: each word's edges (start, end, piece), the trie of the seed
    # pieces, and the lattices of pieces split so far (piece -> its edges)
    lattices: list[list[tuple[int, int, int]]]
    _seed_trie: dict[str, Any]
    _piece_lattices: dict[int, list[tuple[int, int, int]]]

    def __init__(
        self,
        lines: Iterable[str],
        vocab_size: int,
        *,
        max_piece_length: int = 16,
        seed_size: int = 1_000_000,
        shrinking_factor: float = 0.75,
        num_sub_iterations: int = 2,
        character_coverage: float = 0.9995,
        normalization: str = "nmt_nfkc",
        sample_words: Iterable[str] = (),
        split_by_unicode_script: bool = True,
        split_by_number: bool = True,
        unk_token: str = "<unk>",
        special_tokens: Iterable[str] = ("<s>", "</s>"),
        user_defined_symbols: Iterable[str] = (),
    ) -> None:
        self.meta = meta_pieces(unk_token, special_tokens, user_defined_symbols)
        n_meta = len(self.meta)
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size <= n_meta:
            raise InvalidInput(
                f"vocab_size must be an integer of at least {n_meta + 1} "
                f"({n_meta} special pieces and one character)"
            )
        if not isinstance(max_piece_length, int) or not 1 <= max_piece_length <= 64:
            raise InvalidInput("max_piece_length must be an integer between 1 and 64")
        if not 0 < float(shrinking_factor) < 1:
            raise InvalidInput("shrinking_factor must be between 0 and 1")
        if not isinstance(num_sub_iterations, int) or num_sub_iterations < 1:
            raise InvalidInput("num_sub_iterations must be a positive integer")
        if not 0 < float(character_coverage) <= 1:
            raise InvalidInput("character_coverage must be in (0, 1]")
        if normalization not in NORMALIZATIONS:
            raise InvalidInput("normalization must be one of " + ", ".join(NORMALIZATIONS))
        if isinstance(lines, str):
            lines = lines.splitlines()
        self.vocab_size = vocab_size
        self.max_piece_length = max_piece_length
        self.seed_size = int(seed_size)
        self.shrinking_factor = float(shrinking_factor)
        self.num_sub_iterations = num_sub_iterations
        self.character_coverage = float(character_coverage)
        self.split_by_script = split_by_unicode_script
        self.split_by_number = split_by_number
        self.user_defined = tuple(p for p, t in self.meta if t == USER_DEFINED)
        self.normalizer = sentencepiece_normalizer(normalization, self.user_defined)
        self.normalization = normalization
        self.sample_words = [w for w in sample_words if isinstance(w, str) and w.strip()][:12]
        self._lines = lines
        self._final: list[tuple[str, float]] | None = None
        self.steps: list[UnigramRoundStep] = []

    # ---- the algorithm, round by round ----------------------------------------------------------
    def rounds(self) -> Iterator[UnigramRoundStep]:
        """Run training, yielding one `UnigramRoundStep` per round (round 0: the seed)."""
        self._load_words()
        self._seed_vocabulary()
        self._build_lattices()
        desired = int(self.vocab_size * 1.1)
        round_no = 0
        while True:
            round_no += 1
            for sub in range(self.num_sub_iterations):
                expected, loglik = self._e_step()  # expected counts (forward-backward)
                if round_no == 1 and sub == 0:  # the seed's likelihood is known now
                    yield self._record(0, loglik, 0, [], final=False)
                if self._m_step(expected):  # re-estimate log-probabilities
                    self._compact_lattices()  # (a dropped character is unknown now)
            if self._alive_count() <= desired:
                break
            pruned, removed = self._prune(desired)  # drop the least useful pieces
            if not removed:  # every piece left must stay (characters,
                break  # pieces with no other spelling): stop
            self._compact_lattices()
            yield self._record(round_no, loglik, removed, pruned, final=False)
            if self._alive_count() <= desired:  # small enough: sentencepiece 0.2.3
                break  # finalises without another EM round
        self._finalize()
        self.lattices, self._seed_trie, self._piece_lattices = [], {}, {}  # free the big ones
        yield self._record(round_no, loglik, 0, [], final=True)

    def run(self) -> "UnigramTrainer":
        for step in self.rounds():
            self.steps.append(step)
        return self

    def model(self) -> Unigram:
        """The trained Unigram model: the meta pieces (`<unk> <s> </s>` by default), then the
        final pieces (runs training first if needed). `implementations.unigram.unigram_tokenizer`
        wires it into a pipeline."""
        if self._final is None:
            self.run()
        assert self._final is not None
        pieces = [(p, 0.0) for p, _t in self.meta] + self._final
        types = [t for _p, t in self.meta] + [NORMAL] * len(self._final)
        return Unigram(pieces, types=types)

    # ---- 1. words --------------------------------------------------------------------------------
    def _load_words(self) -> None:
        chars: Counter[str] = Counter()
        words: Counter[str] = Counter()
        last: Counter[str] = Counter()  # how often each word ends its line
        normalize = self.normalizer.normalize_str
        for line in self._lines:
            if not isinstance(line, str):
                raise InvalidInput("training lines must be strings")
            if UNK_CHAR in line:
                continue  # reserved by sentencepiece: the line is skipped
            text = normalize(line)
            for symbol in self.user_defined:  # a boundary, as sentencepiece's trainer
                text = text.replace(symbol, UNK_CHAR)
            if text:
                line_words = split_words(text)
                words.update(line_words)
                last[line_words[-1]] += 1
        self._lines = ()
        if not words:
            raise InvalidInput("the corpus is empty: give at least one line with some text")
        for w, f in words.items():
            for c in w:
                chars[c] += f
        chars.pop(UNK_CHAR, None)
        # the alphabet: the most frequent characters covering `character_coverage` of the text
        total = sum(chars.values())
        required: dict[str, int] = {}
        covered = 0
        for c, f in sorted(chars.items(), key=lambda kv: (-kv[1], kv[0])):
            if covered / total >= self.character_coverage:
                break
            covered += f
            required[c] = f
        n_meta = len(self.meta)
        if len(required) + n_meta > self.vocab_size:
            raise InvalidInput(
                f"vocab_size {self.vocab_size} is too small: the corpus has "
                f"{len(required)} characters, and {n_meta} special pieces come "
                f"first; use at least {len(required) + n_meta}"
            )
        self.required = required
        # rare characters become "▅" (no piece may contain it), as sentencepiece does
        rare = set(chars) - set(required)
        merged: Counter[str] = Counter()
        merged_last: Counter[str] = Counter()
        for w, f in words.items():
            f_last = last[w]
            if rare and any(c in rare for c in w):
                w = "".join(UNK_CHAR if c in rare else c for c in w)
            merged[w] += f
            merged_last[w] += f_last
        self.words = sorted(merged)
        self.freqs = [merged[w] for w in self.words]
        self.total_freq = sum(self.freqs)
        self._line_ends = merged_last

    # ---- 2. the seed vocabulary -----------------------------------------------------------------
    def _seed_vocabulary(self) -> None:
        """sentencepiece's seed: every character, then the substrings its suffix array offers,
        by coverage (frequency x length), ties in the suffix tree's order (`suffix_tree_order`).

        The suffix array runs over the whole text, lines ending in a boundary; its internal
        nodes are the substrings seen at least twice with two different next characters (the
        next character of a word's last one is "▁", or the boundary at the end of a line). So a
        word that always ends its line, like `▁sentence` in "A first sentence", "Another
        sentence", is no seed, nor `st` in "first", "last" (always followed by a space).
        """
        max_len = self.max_piece_length
        followed = (
            [w + SPACE for w in self.words],
            [f - self._line_ends[w] for w, f in zip(self.words, self.freqs)],
        )
        for w, f in self._line_ends.items():
            if f:
                followed[0].append(w + _LINE_END)
                followed[1].append(f)
        counts = substring_counts(*followed, max_len + 1)
        # a substring always followed by the same character is no node of the suffix tree
        extended = {s[:-1] for s, f in counts.items() if len(s) > 2 and counts[s[:-1]] == f}
        candidates = [
            (f * len(s), s)
            for s, f in counts.items()
            if f >= 2
            and len(s) <= max_len
            and s not in extended
            and (
                plain_word_piece(s)
                or is_valid_piece(
                    s,
                    max_len,
                    split_by_script=self.split_by_script,
                    split_by_number=self.split_by_number,
                )
            )
        ]
        candidates.sort(key=lambda t: (-t[0], suffix_tree_order(t[1])))
        candidates = candidates[: self.seed_size]
        seed = sorted(self.required.items(), key=lambda kv: (-kv[1], kv[0]))
        seed += [(s, score) for score, s in candidates]
        if len(seed) + len(self.meta) < self.vocab_size:
            raise InvalidInput(
                f"vocab_size {self.vocab_size} is too large for this corpus: it "
                f"yields only {len(seed)} candidate pieces; use at most "
                f"{len(seed) + len(self.meta)}"
            )
        total = math.log(sum(f for _s, f in seed))
        self.pieces = [s for s, _f in seed]
        self.logp = [math.log(f) - total for _s, f in seed]
        self.alive = [True] * len(self.pieces)
        self.order = list(range(len(self.pieces)))  # the live pieces in sentencepiece's order
        self.index = {p: i for i, p in enumerate(self.pieces)}

    # ---- 3. lattices (built once, thinned as pieces die) -----------------------------------------
    def _build_lattices(self) -> None:
        trie: dict[str, Any] = {}
        for i, p in enumerate(self.pieces):
            node = trie
            for ch in p:
                node = node.setdefault(ch, {})
            node[""] = i
        self._seed_trie = trie
        self.unk_index = len(self.pieces)  # a pseudo piece for uncovered characters
        self.lattices = [lattice_edges(w, trie, self.unk_index) for w in self.words]
        self._piece_lattices = {}

    def _compact_lattices(self) -> None:
        """Drop the edges of dead pieces; a dead character's edge becomes an unknown edge (as
        sentencepiece, which adds one where no live piece is the character)."""
        for k, edges in enumerate(self.lattices):
            self.lattices[k] = self._live_edges(edges)

    def _live_edges(self, edges: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
        alive, unk = self.alive, self.unk_index
        return [
            e if e[2] == unk or alive[e[2]] else (e[0], e[1], unk)
            for e in edges
            if e[2] == unk or alive[e[2]] or e[1] - e[0] == 1
        ]

    def _alive_count(self) -> int:
        return sum(self.alive)

    def _unk_score(self) -> float:
        """An unknown character's log-probability: the weakest live piece's, minus 10."""
        return min(self.logp[i] for i in self.order) - UNK_PENALTY

    def _probabilities(self) -> list[float]:
        probs = [math.exp(lp) for lp in self.logp]
        probs.append(math.exp(self._unk_score()))
        return probs

    # ---- 4. EM -----------------------------------------------------------------------------------
    def _e_step(self) -> tuple[list[float], float]:
        """Expected count of every piece, and the corpus log-likelihood, by forward-backward."""
        probs = self._probabilities()
        expected = [0.0] * len(probs)
        loglik = 0.0
        for w, f, edges in zip(self.words, self.freqs, self.lattices):
            z = forward_backward(len(w), edges, probs, f, expected)
            loglik += f * z
        # sentencepiece's trainer gives the unknown piece id 0: its uses count for the first piece
        expected[self.order[0]] += expected[self.unk_index]
        return expected, loglik

    def _m_step(self, expected: list[float]) -> bool:
        """Drop pieces expected less than half a time; log P = digamma(count) - digamma(total).
        Says whether a character died."""
        kept = [i for i in self.order if expected[i] >= 0.5]
        total = sum(expected[i] for i in kept)
        log_total = digamma(total)
        keep = set(kept)
        char_died = False
        for i in self.order:
            if i in keep:
                self.logp[i] = digamma(expected[i]) - log_total
            else:
                self.alive[i] = False
                self.logp[i] = -math.inf  # probability 0 until the lattices are thinned
                char_died = char_died or len(self.pieces[i]) == 1
        self.order = kept
        return char_died

    # ---- 5. pruning ------------------------------------------------------------------------------
    def _prune(self, desired: int) -> tuple[list[tuple[str, float]], int]:
        """Remove the pieces whose loss is smallest, down to max(desired, shrink x size).

        Returns the pruned candidates as (piece, loss), smallest loss first, and how many
        pieces went in all (also those on no best path, or never the best split of
        themselves). As sentencepiece, the survivors' new order is the pieces kept whatever
        they cost, then the rest by loss; an unknown character counts as the first piece."""
        order, logp = self.order, self.logp
        unk_score = self._unk_score()
        freq, self._tokens = self._viterbi_frequencies()
        total = sum(freq[i] for i in order)
        log_total = math.log(total)
        keep: list[int] = []
        candidates: list[tuple[float, int]] = []
        rank = {i: r for r, i in enumerate(order)}
        for i in order:
            if freq[i] == 0:
                continue  # on no best path: gone
            alt = self._alternative(i, unk_score)
            if alt is None:
                keep.append(i)  # a character, or no other way to spell it
                continue
            alt_score, alt_ids = alt
            if alt_score > logp[i]:
                continue  # never the best split of itself: useless
            # the loss: how much likelihood the corpus loses if uses of `piece` are re-split
            fi = freq[i]
            log_total_alt = math.log(total + fi * (len(alt_ids) - 1))
            logprob_alt = 0.0
            for n in alt_ids:
                logprob_alt += math.log(freq[n] + fi) - log_total_alt
            loss = fi / self.total_freq * (math.log(fi) - log_total - logprob_alt)
            candidates.append((loss, i))
        target = max(desired, int(self.shrinking_factor * len(order)))
        candidates.sort(key=lambda t: (-t[0], rank[t[1]]))
        room = max(0, target - len(keep))
        self.order = keep + [i for _loss, i in candidates[:room]]
        pruned = [(self.pieces[i], loss) for loss, i in reversed(candidates[room:])]
        survivors = set(self.order)
        removed = 0
        for i in order:
            if i not in survivors:
                self.alive[i] = False
                self.logp[i] = -math.inf
                removed += 1
        return pruned, removed

    def _viterbi_frequencies(self) -> tuple[list[float], int]:
        """How often each piece is on the best path of the corpus's words (an unknown
        character counts as the first piece), and the number of tokens."""
        unk = self.unk_index
        unk_score = self._unk_score()
        freq = [0.0] * (len(self.pieces) + 1)
        tokens = 0
        for w, f, edges in zip(self.words, self.freqs, self.lattices):
            for pid in viterbi(len(w), edges, self.logp, unk, unk_score):
                freq[pid] += f
                tokens += f
        freq[self.order[0]] += freq[unk]
        return freq, tokens

    def _alternative(self, i: int, unk_score: float) -> tuple[float, list[int]] | None:
        """The best split of piece `i` into two or more live pieces, as (score, piece
        indices), or None (a character, or a piece with no other spelling)."""
        if len(self.pieces[i]) == 1:
            return None
        edges = self._piece_lattices.get(i)
        if edges is None:
            edges = lattice_edges(self.pieces[i], self._seed_trie, self.unk_index)
        edges = self._piece_lattices[i] = self._live_edges(edges)
        alt = second_best(len(self.pieces[i]), edges, i, self.logp, self.unk_index, unk_score)
        if alt is None:
            return None
        return alt[0], [self.order[0] if n == self.unk_index else n for n in alt[1]]

    # ---- 6. the final vocabulary -----------------------------------------------------------------
    def _finalize(self) -> None:
        used, _tokens = self._viterbi_frequencies()
        live = {self.pieces[i]: self.logp[i] for i in self.order if used[i]}
        min_score = min(live.values(), default=0.0)
        final: dict[str, float] = {}
        penalty = 0.0
        for c, _f in sorted(self.required.items(), key=lambda kv: (-kv[1], kv[0])):
            if c in live:
                final[c] = live[c]
            else:
                final[c] = min_score + penalty
                penalty += 0.0001
        n_meta = len(self.meta)
        room = self.vocab_size - n_meta
        for piece, score in sorted(live.items(), key=lambda kv: (-kv[1], kv[0])):
            if len(final) >= room:
                break
            final.setdefault(piece, score)
        if len(final) < room:
            raise InvalidInput(
                f"vocab_size {self.vocab_size} is too large for this corpus: "
                f"training kept only {len(final) + n_meta} pieces; use at most "
                f"{len(final) + n_meta} or give more text"
            )
        self._final = sorted(final.items(), key=lambda kv: (-kv[1], kv[0]))

    # ---- steps -----------------------------------------------------------------------------------
    def _record(
        self,
        round_no: int,
        loglik: float,
        num_pruned: int,
        pruned: list[tuple[str, float]],
        *,
        final: bool,
    ) -> UnigramRoundStep:
        if final and self._final is not None:
            live = list(self._final)
            strongest = live[:12]
            size = len(live)
        else:
            top = heapq.nlargest(12, self.order, key=self.logp.__getitem__)
            strongest = [(self.pieces[i], self.logp[i]) for i in top]
            size = sum(self.alive)
        samples: tuple[tuple[str, tuple[str, ...]], ...] = ()
        if self.sample_words:
            if not final:
                live = [(self.pieces[i], self.logp[i]) for i, a in enumerate(self.alive) if a]
            model = Unigram([("<unk>", 0.0)] + live, types=[UNKNOWN] + [NORMAL] * len(live))
            samples = tuple(
                (w, tuple(t for t, *_ in model.tokenize(self.normalizer.normalize_str(w))))
                for w in self.sample_words
            )
        return UnigramRoundStep(
            round=round_no,
            vocab_size=size + (len(self.meta) if final else 0),
            log_likelihood=float(loglik),
            tokens=int(getattr(self, "_tokens", 0)),
            num_pruned=num_pruned,
            pruned=tuple((p, float(loss)) for p, loss in pruned[:12]),
            survivors=tuple((p, float(s)) for p, s in strongest),
            samples=samples,
            final=final,
        )

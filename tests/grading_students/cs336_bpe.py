"""A CS336-shaped BPE (assignment 1) as our students write it (never the course's code):
`train_bpe(input_path, vocab_size, special_tokens)` -> (vocab, merges) and `Tokenizer(vocab,
merges, special_tokens)` with encode / decode / encode_iterable. Each adapters file in this
folder passes it one bug switch (`BUGS`), or none (cs336_good/adapters.py).

Training counts the pre-tokens once, then keeps the pair counts and, per pair, the words that
hold it; a merge rescans only those words. The best pair comes from buckets of pairs by count,
the tie going to the lexicographically greater pair of bytes.
"""

import heapq
import os
import time

import regex

PAT = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

BUGS = (
    "smaller_ties",  # a tie goes to the smaller pair (min instead of max)
    "merge_across_specials",  # the corpus is not cut at the special tokens before counting
    "no_special_split",  # encode does not look for special tokens
    "shortest_special_first",  # overlapping special tokens: the first listed wins
    "iterable_reads_all",  # encode_iterable joins the whole input first
    "infinite_loop",  # training never stops
    "crash",  # decode raises
    "memory_hog",  # training keeps every intermediate copy
    "exit",  # training calls sys.exit
)


def _special_pattern(specials, longest_first=True):
    order = sorted(specials, key=len, reverse=True) if longest_first else list(specials)
    return "(" + "|".join(regex.escape(s) for s in order) + ")"


def pretokens(text, specials, split=True):
    counts = {}
    parts = regex.split(_special_pattern(specials), text) if (specials and split) else [text]
    for part in parts:
        if part in specials and split:
            continue
        for m in regex.finditer(PAT, part):
            b = m.group().encode("utf-8")
            counts[b] = counts.get(b, 0) + 1
    return counts


def train_bpe(input_path, vocab_size, special_tokens, bug=None):
    if bug == "exit":
        raise SystemExit(3)
    with open(input_path, encoding="utf-8") as f:
        text = f.read()
    counts = pretokens(text, special_tokens, split=bug != "merge_across_specials")
    words = [[bytes([c]) for c in w] for w in counts]
    freqs = list(counts.values())
    pair_counts, holders = {}, {}

    def add(pair, w, n):
        c = pair_counts.get(pair, 0) + n
        if c:
            pair_counts[pair] = c
            holders.setdefault(pair, set()).add(w)
        else:
            pair_counts.pop(pair, None)
            holders.pop(pair, None)
        buckets_push(pair)

    heap = []  # (-count, pair) with stale entries skipped when they surface

    def buckets_push(pair):
        if pair in pair_counts:
            heapq.heappush(heap, (-pair_counts[pair], pair))

    for w, word in enumerate(words):
        for pair in zip(word, word[1:]):
            add(pair, w, freqs[w])

    vocab = {i: s.encode("utf-8") for i, s in enumerate(special_tokens)}
    for b in range(256):
        vocab[len(vocab)] = bytes([b])
    merges, hoard = [], []
    while len(vocab) < vocab_size:
        if bug == "infinite_loop":
            time.sleep(0.01)
            continue
        while heap and pair_counts.get(heap[0][1]) != -heap[0][0]:
            heapq.heappop(heap)
        if not heap:
            break
        top = heap[0][0]
        tied = set()
        while heap and heap[0][0] == top:
            neg, pair = heapq.heappop(heap)
            if pair_counts.get(pair) == -neg:
                tied.add(pair)
        best = min(tied) if bug == "smaller_ties" else max(tied)
        for pair in tied - {best}:
            heapq.heappush(heap, (top, pair))
        new = best[0] + best[1]
        for w in list(holders.get(best, ())):
            word = words[w]
            for pair in zip(word, word[1:]):
                add(pair, w, -freqs[w])
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(new)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            words[w] = out
            for pair in zip(out, out[1:]):
                add(pair, w, freqs[w])
        if bug == "memory_hog":
            hoard.append(bytearray(100_000_000))
        merges.append(best)
        vocab[len(vocab)] = new
    return vocab, merges


class Tokenizer:
    def __init__(self, vocab, merges, special_tokens=None, bug=None):
        self.vocab = dict(vocab)
        self.bug = bug
        self.ranks = {pair: i for i, pair in enumerate(merges)}
        self.ids = {}
        for i, tok in self.vocab.items():
            self.ids.setdefault(tok, i)
        self.specials = list(special_tokens or [])
        for s in self.specials:
            if s.encode("utf-8") not in self.ids:
                self.vocab[len(self.vocab)] = s.encode("utf-8")
                self.ids[s.encode("utf-8")] = len(self.vocab) - 1
        self.cache = {}

    def _encode_word(self, word):
        if word in self.cache:
            return self.cache[word]
        parts = [bytes([c]) for c in word]
        while len(parts) > 1:
            ranked = [(self.ranks[p], p) for p in zip(parts, parts[1:]) if p in self.ranks]
            if not ranked:
                break
            _, best = min(ranked)
            out, i = [], 0
            while i < len(parts):
                if i + 1 < len(parts) and (parts[i], parts[i + 1]) == best:
                    out.append(parts[i] + parts[i + 1])
                    i += 2
                else:
                    out.append(parts[i])
                    i += 1
            parts = out
        ids = [self.ids[p] for p in parts]
        if len(self.cache) > 5000:  # bounded, so streaming stays small
            self.cache.clear()
        self.cache[word] = ids
        return ids

    def encode(self, text):
        if self.specials and self.bug != "no_special_split":
            pattern = _special_pattern(self.specials, self.bug != "shortest_special_first")
            parts = regex.split(pattern, text)
        else:
            parts = [text]
        out = []
        for part in parts:
            if part in self.specials and self.bug != "no_special_split":
                out.append(self.ids[part.encode("utf-8")])
                continue
            for m in regex.finditer(PAT, part):
                out += self._encode_word(m.group().encode("utf-8"))
        return out

    def encode_iterable(self, iterable):
        if self.bug == "iterable_reads_all":
            text = "".join(iterable)
            yield from self.encode(text)
            return
        for line in iterable:
            yield from self.encode(line)

    def decode(self, ids):
        if self.bug == "crash":
            raise IndexError("list index out of range")
        return b"".join(self.vocab[i] for i in ids).decode("utf-8", errors="replace")


def adapters(bug=None):
    """The two adapter functions, with this bug switched on."""

    def run_train_bpe(input_path, vocab_size, special_tokens, **kwargs):
        return train_bpe(os.fspath(input_path), vocab_size, special_tokens, bug=bug)

    def get_tokenizer(vocab, merges, special_tokens=None):
        return Tokenizer(vocab, merges, special_tokens, bug=bug)

    return run_train_bpe, get_tokenizer

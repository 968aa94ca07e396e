"""minbpe-shaped tokenizers as our students write them (never minbpe's own code): a
BasicTokenizer (the text is one sequence) and a RegexTokenizer (GPT-4's split pattern, special
tokens), each `Class()` with `train(text, vocab_size, verbose=False)`, `encode`, `decode`,
`merges: {(a, b): id}` and `vocab: {id: bytes}`.

The right ones are `BasicTokenizer` and `RegexTokenizer`. The buggy ones each change one thing:
`GreaterIdsTies` (a tie goes to the pair of greater ids, not the pair seen first),
`OffByOneVocab` (one merge too few: num_merges = vocab_size - 257), `DroppingDecode` (each
token decoded on its own, so a character split across tokens is lost).

Training dedupes the pieces into (piece -> count) in first-occurrence order and recounts the
pairs at every merge: the counts dict is built in the order pairs first occur, so `max` keeps
minbpe's tie (the pair seen first).
"""

import regex

SPLIT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s+"""
)


def count_pairs(words, counts=None):
    """words: [(ids, freq)] -> {pair: weighted count}, in the order pairs first occur."""
    counts = {} if counts is None else counts
    for ids, freq in words:
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + freq
    return counts


def replace_pair(ids, pair, new):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


class BasicTokenizer:
    pattern = None  # None: the whole text is one sequence

    def __init__(self):
        self.merges = {}
        self.vocab = {i: bytes([i]) for i in range(256)}
        self.special_tokens = {}
        self.inverse_special_tokens = {}

    # ---- training -----------------------------------------------------------------------
    def _pieces(self, text):
        return [text] if self.pattern is None else regex.findall(self.pattern, text)

    def _num_merges(self, vocab_size):
        return vocab_size - 256

    def _pick(self, counts):
        return max(counts, key=counts.get)  # first seen wins a tie, as minbpe

    def train(self, text, vocab_size, verbose=False):
        table = {}
        for piece in self._pieces(text):
            table[piece] = table.get(piece, 0) + 1
        words = [(list(p.encode("utf-8")), n) for p, n in table.items()]
        self.merges = {}
        self.vocab = {i: bytes([i]) for i in range(256)}
        for i in range(self._num_merges(vocab_size)):
            counts = count_pairs(words)
            if not counts:
                break
            pair = self._pick(counts)
            new = 256 + i
            words = [(replace_pair(ids, pair, new) if len(ids) > 1 else ids, n) for ids, n in words]
            self.merges[pair] = new
            self.vocab[new] = self.vocab[pair[0]] + self.vocab[pair[1]]

    # ---- encoding -----------------------------------------------------------------------
    def register_special_tokens(self, special_tokens):
        self.special_tokens = dict(special_tokens)
        self.inverse_special_tokens = {v: k for k, v in special_tokens.items()}

    def _encode_piece(self, data):
        ids = list(data)
        while len(ids) > 1:
            ranked = [(self.merges[p], p) for p in zip(ids, ids[1:]) if p in self.merges]
            if not ranked:
                break
            new, pair = min(ranked)
            ids = replace_pair(ids, pair, new)
        return ids

    def _encode_ordinary(self, text):
        out = []
        for piece in self._pieces(text):
            out += self._encode_piece(piece.encode("utf-8"))
        return out

    def encode(self, text, allowed_special="none_raise"):
        if allowed_special != "all" or not self.special_tokens:
            return self._encode_ordinary(text)
        pattern = "(" + "|".join(regex.escape(s) for s in self.special_tokens) + ")"
        out = []
        for part in regex.split(pattern, text):
            if part in self.special_tokens:
                out.append(self.special_tokens[part])
            elif part:
                out += self._encode_ordinary(part)
        return out

    def decode(self, ids):
        data = b"".join(
            self.vocab[i] if i in self.vocab else self.inverse_special_tokens[i].encode("utf-8")
            for i in ids
        )
        return data.decode("utf-8", errors="replace")


class RegexTokenizer(BasicTokenizer):
    pattern = SPLIT


class GreaterIdsTies(RegexTokenizer):
    def _pick(self, counts):  # bug: a tie goes to the greater pair of ids
        return max(counts, key=lambda p: (counts[p], p))


class OffByOneVocab(RegexTokenizer):
    def _num_merges(self, vocab_size):  # bug: counts one special token that is not there
        return vocab_size - 257


class DroppingDecode(RegexTokenizer):
    def decode(self, ids):  # bug: a character split across two tokens is dropped
        tokens = (self.vocab.get(i) or self.inverse_special_tokens[i].encode() for i in ids)
        return "".join(t.decode("utf-8", errors="ignore") for t in tokens)

"""Students' implementations, written the way a student writes them, for the tests of the checker
(`tc.check`, tests/core/checker/test_check.py) and of its page (/check): each classic mistake is one
switch, so a test can hand the checker a run that goes wrong in a known place.

They are independent of the checker's own replays (tokenizers_core/checker/) on purpose: a mistake
the checker finds here is one a student's own loop makes, not one copied from the replay.
"""

from __future__ import annotations

import re
from collections import Counter


# ---- BPE, as the 'How it works' guide's pseudocode, one switch per bug ---------------------------
def student_bpe(lines, n_merges, *, weight=True, end_of_word=True, per_line=False, dict_ties=False):
    """The 'How it works' guide's pseudocode as a student writes it: words -> frequency, then
    count, pick, merge. Ties go to the pair of earlier-created symbols (the project's rule) unless
    `dict_ties`, which uses `max(stats, key=stats.get)`."""
    if per_line:  # bug: the line is one sequence, spaces and all
        vocab = Counter(tuple(line) for line in lines)
    else:
        words = Counter(w for line in lines for w in re.findall(r"\w+|[^\w\s]+", line))
        vocab = Counter(
            {tuple(w) + (("</w>",) if end_of_word else ()): c for w, c in words.items()}
        )
    order = {s: i for i, s in enumerate(sorted({s for w in vocab for s in w}))}
    merges = []
    for _ in range(n_merges):
        stats = Counter()
        for word, freq in vocab.items():
            for pair in zip(word, word[1:]):
                stats[pair] += freq if weight else 1
        if not stats:
            break
        if dict_ties:
            best = max(stats, key=stats.get)
        else:
            best = min(stats, key=lambda p: (-stats[p], order[p[0]], order[p[1]]))
        order.setdefault(best[0] + best[1], len(order))
        new_vocab = Counter()
        for word, freq in vocab.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            new_vocab[tuple(out)] += freq
        vocab = new_vocab
        merges.append(best)
    return merges


# ---- WordPiece ----------------------------------------------------------------------------------
def student_wordpiece(lines, n_merges, *, by_count=False):
    """A student's WordPiece trainer: score = count(ab) / (count(a) * count(b)), or (the bug)
    the raw count."""
    from fractions import Fraction

    words = Counter(w for line in lines for w in line.lower().split())
    vocab = {tuple([w[0]] + ["##" + c for c in w[1:]]): f for w, f in words.items()}
    order = {s: i for i, s in enumerate(sorted({s for w in vocab for s in w}))}
    merges = []
    for _ in range(n_merges):
        pairs, singles = Counter(), Counter()
        for word, f in vocab.items():
            for s in word:
                singles[s] += f
            for p in zip(word, word[1:]):
                pairs[p] += f
        if not pairs:
            break

        def key(p):
            score = pairs[p] if by_count else Fraction(pairs[p], singles[p[0]] * singles[p[1]])
            return (-score, -pairs[p], order[p[0]], order[p[1]])

        best = min(pairs, key=key)
        new = best[0] + best[1][2:]
        order.setdefault(new, len(order))
        vocab2 = {}
        for word, f in vocab.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(new)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            vocab2[tuple(out)] = vocab2.get(tuple(out), 0) + f
        vocab = vocab2
        merges.append(best)
    return merges


# ---- encoding -----------------------------------------------------------------------------------
def student_encode_by_count(word, merges):
    """The bug: minbpe's encode loop with max(stats, key=stats.get) (the most frequent known
    pair in the word) instead of the lowest merge rank."""
    parts = list(word) + ["</w>"]
    known = set(merges)
    while len(parts) > 1:
        stats = Counter(p for p in zip(parts, parts[1:]) if p in known)
        if not stats:
            break
        a, b = max(stats, key=stats.get)
        out, i = [], 0
        while i < len(parts):
            if i + 1 < len(parts) and (parts[i], parts[i + 1]) == (a, b):
                out.append(a + b)
                i += 2
            else:
                out.append(parts[i])
                i += 1
        parts = out
    return parts


def student_viterbi_no_penalty(text, scores):
    """The bug: an unknown character scores 0 (no penalty), so <unk> looks cheap."""
    n = len(text)
    best = [0.0] + [float("-inf")] * n
    back = [None] * (n + 1)
    for i in range(1, n + 1):
        for j in range(i):
            piece = text[j:i]
            if piece in scores:
                s = scores[piece]
            elif i == j + 1 and piece not in scores:
                s = 0.0  # should be min(scores) - 10
                piece = "<unk>"
            else:
                continue
            if best[j] + s > best[i]:
                best[i], back[i] = best[j] + s, (j, piece)
    out, i = [], n
    while i > 0:
        j, piece = back[i]
        out.append(piece)
        i = j
    return out[::-1]


# ---- minbpe (karpathy/minbpe's RegexTokenizer) --------------------------------------------------
def student_minbpe(text: str, pattern: str, n_merges: int) -> list[tuple[int, int]]:
    """minbpe's RegexTokenizer.train as a student writes it: the text cut into chunks by the
    pattern, each chunk as its UTF-8 bytes (ids 0-255); each round counts the adjacent pairs
    of every chunk in a dict (first-occurrence order), takes `max(stats, key=stats.get)`, and
    replaces it everywhere by the next id (256, 257, ...). `pattern` is a regex or the name of
    one of `PRESETS` ("gpt2", "cl100k")."""
    import regex

    from tokenizers_core.pre_tokenizers import PRESETS

    pattern = PRESETS.get(pattern, pattern)
    chunks = [list(c.encode("utf-8")) for c in regex.findall(pattern, text)]
    merges = []
    for i in range(n_merges):
        stats: dict[tuple[int, int], int] = {}
        for ids in chunks:
            for pair in zip(ids, ids[1:]):
                stats[pair] = stats.get(pair, 0) + 1
        pair = max(stats, key=stats.get)
        new = 256 + i
        merged = []
        for ids in chunks:
            out, j = [], 0
            while j < len(ids):
                if j + 1 < len(ids) and (ids[j], ids[j + 1]) == pair:
                    out.append(new)
                    j += 2
                else:
                    out.append(ids[j])
                    j += 1
            merged.append(out)
        chunks = merged
        merges.append(pair)
    return merges


def minbpe_model_file(pattern: str, merges, specials=None) -> str:
    """The text of the .model file minbpe's save() writes."""
    specials = specials or {}
    return "".join(
        [
            "minbpe v1\n",
            f"{pattern}\n",
            f"{len(specials)}\n",
            *(f"{s} {i}\n" for s, i in specials.items()),
            *(f"{a} {b}\n" for a, b in merges),
        ]
    )

"""Counting, ranking and sampling the paths of a lattice: a DAG whose nodes are the positions
0..n and whose edges are tokens (`lattice.find_edges`'s adjacency, out[i] = [(end, id), ...]).

- `prefix_counts`: ways[i], the number of token sequences spelling the first i units, by the
  forward recurrence ways[end] += ways[start] over the edges (exact Python integers);
- `suffix_counts`: rest[i], the sequences spelling units i..n (rest[0] = ways[n], the count);
- `shortest`: the k sequences with the fewest tokens, ties broken by the ids, lexicographically;
- `sample`: sequences drawn uniformly from all of them, by unranking: one integer r drawn from
  range(count), then at each node the edge whose block of the rest counts holds r.

>>> out = [[(1, 0), (2, 2)], [(2, 1)], [(3, 0), (4, 2)], [(4, 1)]]  # "abab": a, b, ab
>>> prefix_counts(out), shortest(out, 3)
([1, 1, 2, 2, 4], [[2, 2], [0, 1, 2], [2, 0, 1]])
"""

from __future__ import annotations

import random
from bisect import bisect_right
from itertools import accumulate

Adjacency = list[list[tuple[int, int]]]


def prefix_counts(out: Adjacency) -> list[int]:
    """ways[i] for i = 0..n: the token sequences that spell exactly the first i units.

    >>> prefix_counts([[(1, 7), (2, 8)], [(2, 9)]])
    [1, 1, 2]
    """
    n = len(out)
    ways = [0] * (n + 1)
    ways[0] = 1
    for start, here in enumerate(out):
        w = ways[start]
        if w:
            for end, _id in here:
                ways[end] += w
    return ways


def suffix_counts(out: Adjacency) -> list[int]:
    """rest[i] for i = 0..n: the token sequences that spell units i..n (rest[n] = 1).

    >>> suffix_counts([[(1, 7), (2, 8)], [(2, 9)]])
    [2, 1, 1]
    """
    n = len(out)
    rest = [0] * (n + 1)
    rest[n] = 1
    for start in range(n - 1, -1, -1):
        rest[start] = sum(rest[end] for end, _id in out[start])
    return rest


def shortest(out: Adjacency, k: int) -> list[list[int]]:
    """The k token sequences with the fewest tokens, fewest first; among sequences of the same
    length, the smaller ids first (compared lexicographically, from the first token).

    best[i] keeps the k best sequences spelling units i..n, in that order, as entries (id,
    next node, rank in best[next]), and groups[i][t] is the rank of its first sequence of
    fewest[i] + t tokens (groups[i][-1]: the row's length). A sequence of t + 1 tokens from i
    is an edge, then one of t tokens from its end; among those, the smaller first id comes
    first and, for the same id (the same edge), the order of best[end]. So filling best[i] is,
    for t = fewest, fewest + 1, ...: for each edge by id, the ranks of best[end] with t
    tokens, until k are taken -- a merge that compares no sequences, linear in edges + k.

    >>> shortest([[(1, 5), (1, 3), (2, 9)], [(2, 1)]], 4)
    [[9], [3, 1], [5, 1]]
    """
    n = len(out)
    best: list[list[tuple[int, int, int]]] = [[] for _ in range(n + 1)]
    fewest = [0] * (n + 1)
    groups: list[list[int]] = [[] for _ in range(n + 1)]
    best[n], groups[n] = [(-1, n, 0)], [0, 1]  # the end: one sequence of 0 tokens
    for start in range(n - 1, -1, -1):
        edges = sorted(
            [(id_, end, fewest[end], groups[end]) for end, id_ in out[start] if best[end]]
        )
        if edges:
            best[start], groups[start] = _merge(edges, k)
            fewest[start] = min([low for _id, _end, low, _g in edges]) + 1
    return [_path(best, n, rank) for rank in range(len(best[0]))]


def _merge(
    edges: list[tuple[int, int, int, list[int]]], k: int
) -> tuple[list[tuple[int, int, int]], list[int]]:
    """One node's row of `shortest` from its edges (id, end, fewest[end], groups[end]), by
    id: the first k of their rows' entries by length, then edge, then rank; and its groups."""
    low = min([low for _id, _end, low, _g in edges])
    high = max([low + len(g) - 2 for _id, _end, low, g in edges])
    row: list[tuple[int, int, int]] = []
    bounds = [0]
    for tokens in range(low, high + 1):  # the sequences of tokens + 1 tokens from here
        for id_, end, first_length, group in edges:
            t = tokens - first_length
            if 0 <= t < len(group) - 1:
                first, stop = group[t], min(group[t + 1], group[t] + k - len(row))
                row.extend([(id_, end, rank) for rank in range(first, stop)])
                if len(row) == k:
                    break
        bounds.append(len(row))
        if len(row) == k:
            break
    return row, bounds


def _path(best: list[list[tuple[int, int, int]]], n: int, rank: int) -> list[int]:
    ids = []
    node = 0
    while node != n:
        id_, node, rank = best[node][rank]
        ids.append(id_)
    return ids


class Sampler:
    """Uniform samples from every path: each node's edges with the running sums of their rest
    counts, so one integer drawn from range(count) picks a whole path (its rank), one bisect per
    token.

    >>> s = Sampler([[(1, 0), (2, 2)], [(2, 1)]])
    >>> s.count, s.path(0), s.path(1)
    (2, [0, 1], [2])
    """

    def __init__(self, out: Adjacency, rest: list[int] | None = None) -> None:
        self.rest = rest if rest is not None else suffix_counts(out)
        self.out = out
        self.n = len(out)
        self.count = self.rest[0]
        rest = self.rest
        self._sums = [list(accumulate([rest[end] for end, _id in here])) for here in out]

    def path(self, rank: int) -> list[int]:
        """The path of this rank (0 <= rank < count) in the order of the edges (by end, id)."""
        ids: list[int] = []
        append = ids.append
        node, n, sums_of, out = 0, self.n, self._sums, self.out
        while node != n:
            sums = sums_of[node]
            if rank < sums[0]:  # the first edge (the likeliest: half the time in a long text)
                node, id_ = out[node][0]
            else:
                k = bisect_right(sums, rank, 1)
                rank -= sums[k - 1]
                node, id_ = out[node][k]
            append(id_)
        return ids

    def sample(self, count: int, rng: random.Random) -> list[list[int]]:
        """`count` paths drawn uniformly (independently, with replacement)."""
        path, total = self.path, self.count
        return [path(rng.randrange(total)) for _ in range(count)]

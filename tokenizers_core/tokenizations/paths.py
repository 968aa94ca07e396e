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

import heapq
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

    best[i] keeps the k best sequences spelling units i..n as entries (tokens, id, next node,
    rank in best[next]); filling it is a k-way merge of best[end] over the edges leaving i. Two
    entries with the same length and first id leave by the same edge, so their rank in
    best[next] is their order: the key (tokens, id, rank) is the lexicographic order.

    >>> shortest([[(1, 5), (1, 3), (2, 9)], [(2, 1)]], 4)
    [[9], [3, 1], [5, 1]]
    """
    n = len(out)
    best: list[list[tuple[int, int, int, int]]] = [[] for _ in range(n + 1)]
    best[n] = [(0, -1, n, 0)]
    for start in range(n - 1, -1, -1):
        heap = [(best[end][0][0] + 1, id_, end, 0) for end, id_ in out[start] if best[end]]
        heapq.heapify(heap)
        row = best[start]
        while heap and len(row) < k:
            entry = heapq.heappop(heap)
            row.append(entry)
            _tokens, id_, end, rank = entry
            if rank + 1 < len(best[end]):
                heapq.heappush(heap, (best[end][rank + 1][0] + 1, id_, end, rank + 1))
    return [_path(best, n, rank) for rank in range(len(best[0]))]


def _path(best: list[list[tuple[int, int, int, int]]], n: int, rank: int) -> list[int]:
    ids = []
    node = 0
    while node != n:
        _tokens, id_, node, rank = best[node][rank]
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
        self._sums = [list(accumulate(self.rest[end] for end, _id in here)) for here in out]

    def path(self, rank: int) -> list[int]:
        """The path of this rank (0 <= rank < count) in the order of the edges (by end, id)."""
        ids = []
        node = 0
        while node != self.n:
            sums = self._sums[node]
            k = bisect_right(sums, rank)
            if k:
                rank -= sums[k - 1]
            end, id_ = self.out[node][k]
            ids.append(id_)
            node = end
        return ids

    def sample(self, count: int, rng: random.Random) -> list[list[int]]:
        """`count` paths drawn uniformly (independently, with replacement)."""
        return [self.path(rng.randrange(self.count)) for _ in range(count)]

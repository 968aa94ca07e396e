"""The lattice of a Unigram segmentation, and the searches over it (as sentencepiece's
`unigram_model.cc` does them): Viterbi, forward and backward sums, A* n-best and sampling.

Position i of the lattice sits between character i-1 and character i of the text; a node is a
piece that starts at `pos` and is `length` characters long. Scores are 32-bit floats and sums are
rounded as the C++ code rounds them (`f32`).
"""

from __future__ import annotations

import math
import random
import struct
from typing import Sequence

FLT_MAX = 3.4028234663852886e38
FLT_MIN = 1.1754943508222875e-38

_F32 = struct.Struct("<f")


def f32(x: float) -> float:
    """Round a Python float to the nearest 32-bit float (as C++ `float` arithmetic does).

    A value too large for a 32-bit float becomes infinity, as in C++ (a model whose only pieces
    are byte pieces has min_score FLT_MAX, and sums past it overflow).

    >>> f32(0.1)
    0.10000000149011612
    >>> f32(2 * FLT_MAX)
    inf
    """
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


# ---- the lattice -------------------------------------------------------------------------------


class Node:
    """A lattice node (sentencepiece's `Lattice::Node`): `piece` = text[pos:pos+length]."""

    __slots__ = ("node_id", "pos", "length", "id", "piece", "score", "backtrace_score", "prev")

    def __init__(
        self, node_id: int, pos: int, length: int, id: int, piece: str, score: float
    ) -> None:
        self.node_id = node_id
        self.pos = pos
        self.length = length
        self.id = id
        self.piece = piece
        self.score = score
        self.backtrace_score = 0.0
        self.prev: Node | None = None

    def __repr__(self) -> str:
        return (
            f"Node({self.piece!r}, {self.pos}:{self.pos + self.length}, id={self.id}, "
            f"{self.score:.4f})"
        )


class Lattice:
    """All pieces of a text, indexed by where they begin and end (positions in characters).

    `begin_nodes[i]` / `end_nodes[i]` hold the nodes starting / ending at i; position 0 has the
    BOS node among its end nodes and position N the EOS node among its begin nodes.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        n = len(text)
        self.nodes: list[Node] = []
        self.begin_nodes: list[list[Node]] = [[] for _ in range(n + 1)]
        self.end_nodes: list[list[Node]] = [[] for _ in range(n + 1)]
        self.bos = self._new(0, 0, -1, "", 0.0)
        self.eos = self._new(n, 0, -1, "", 0.0)
        self.end_nodes[0].append(self.bos)
        self.begin_nodes[n].append(self.eos)

    def __len__(self) -> int:
        return len(self.text)

    def _new(self, pos: int, length: int, id: int, piece: str, score: float) -> Node:
        node = Node(len(self.nodes), pos, length, id, piece, score)
        self.nodes.append(node)
        return node

    def insert(self, pos: int, length: int, id: int, score: float) -> Node:
        node = self._new(pos, length, id, self.text[pos : pos + length], score)
        self.begin_nodes[pos].append(node)
        self.end_nodes[pos + length].append(node)
        return node

    def viterbi(self) -> tuple[list[Node], float]:
        """sentencepiece's `Lattice::Viterbi` (float arithmetic): the best path and its score."""
        for pos in range(len(self.text) + 1):
            for rnode in self.begin_nodes[pos]:
                best_node = None
                best_score = 0.0
                for lnode in self.end_nodes[pos]:
                    score = f32(lnode.backtrace_score + rnode.score)
                    if best_node is None or score > best_score:
                        best_node, best_score = lnode, score
                rnode.prev = best_node
                rnode.backtrace_score = best_score
        path: list[Node] = []
        node = self.eos.prev
        while node is not None and node.prev is not None:
            path.append(node)
            node = node.prev
        path.reverse()
        return path, self.eos.backtrace_score

    def forward(self, inv_theta: float = 1.0) -> list[float]:
        """alpha[node_id]: log of the summed probability of all paths from BOS to the node's
        start."""
        alpha = [0.0] * len(self.nodes)
        for pos in range(len(self.text) + 1):
            lefts = self.end_nodes[pos]
            for rnode in self.begin_nodes[pos]:
                alpha[rnode.node_id] = logsumexp(
                    [inv_theta * left.score + alpha[left.node_id] for left in lefts]
                )
        return alpha

    def backward(self, inv_theta: float = 1.0) -> list[float]:
        """beta[node_id]: log of the summed probability of all paths from the node's end to EOS."""
        beta = [0.0] * len(self.nodes)
        for pos in range(len(self.text), -1, -1):
            rights = self.begin_nodes[pos]
            for lnode in self.end_nodes[pos]:
                beta[lnode.node_id] = logsumexp(
                    [inv_theta * r.score + beta[r.node_id] for r in rights]
                )
        return beta


def logsumexp(values: Sequence[float]) -> float:
    """log(sum(exp(v))) computed stably.

    >>> round(logsumexp([math.log(1), math.log(3)]), 6) == round(math.log(4), 6)
    True
    """
    if not values:
        return -math.inf
    m = max(values)
    if m == -math.inf:
        return m
    return m + math.log(sum(math.exp(v - m) for v in values))


# ---- A* n-best (sentencepiece's Lattice::NBest), with libstdc++'s heap discipline ----------------


class _Hyp:
    __slots__ = ("node", "next", "fx", "gx")

    def __init__(self, node: Node, next: "_Hyp | None", fx: float, gx: float) -> None:
        self.node = node
        self.next = next
        self.fx = fx
        self.gx = gx


def _heap_push(heap: list[_Hyp], value: _Hyp) -> None:
    """std::push_heap with comparator `a.fx < b.fx` (a max-heap), hole moved up."""
    heap.append(value)
    hole = len(heap) - 1
    parent = (hole - 1) // 2
    while hole > 0 and heap[parent].fx < value.fx:
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = value


def _heap_pop(heap: list[_Hyp]) -> _Hyp:
    """std::pop_heap + pop_back: libstdc++ sinks the hole to a leaf, then pushes the last value
    up."""
    top = heap[0]
    last = heap.pop()
    n = len(heap)
    if n == 0:
        return top
    hole = 0
    child = 0
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if heap[child].fx < heap[child - 1].fx:
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > 0 and heap[parent].fx < last.fx:
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = last
    return top


_MAX_AGENDA = 10000
_MIN_AGENDA = 512


def nbest_paths(lat: Lattice, k: int) -> list[tuple[list[Node], float]]:
    """The k best BOS->EOS paths of a lattice (sentencepiece's A* `NBest`, sample=False).

    g(x) is the score from EOS back to the leftmost node of the partial path x, h(x) the exact
    Viterbi score from BOS to it, so hypotheses pop in order of their full-path score.
    """
    if k == 1:
        return [lat.viterbi()]
    lat.viterbi()
    agenda: list[_Hyp] = []
    _heap_push(agenda, _Hyp(lat.eos, None, lat.eos.backtrace_score, 0.0))
    results: list[tuple[list[Node], float]] = []
    while agenda:
        top = _heap_pop(agenda)
        node = top.node
        if node is lat.bos:
            path = []
            h = top.next
            while h is not None and h.next is not None:
                path.append(h.node)
                h = h.next
            results.append((path, top.fx))
            if len(results) == k:
                break
            continue
        for lnode in lat.end_nodes[node.pos]:
            _heap_push(
                agenda,
                _Hyp(lnode, top, f32(lnode.backtrace_score + top.gx), f32(lnode.score + top.gx)),
            )
        if len(agenda) >= _MAX_AGENDA:  # keep the agenda small, as sentencepiece does
            kept: list[_Hyp] = []
            for _ in range(min(_MIN_AGENDA, k * 10)):
                _heap_push(kept, _heap_pop(agenda))
            agenda = kept
    return results


def sample_path(lat: Lattice, inv_theta: float, rng: random.Random) -> list[Node]:
    """Draw one path with P(path) proportional to exp(inv_theta * score(path)):
    forward probabilities, then walk back from EOS choosing each left neighbour by its share."""
    alpha = lat.forward(inv_theta)
    node = lat.eos
    z = alpha[node.node_id]
    out: list[Node] = []
    while True:
        lefts = lat.end_nodes[node.pos]
        weights = [math.exp(alpha[left.node_id] + inv_theta * left.score - z) for left in lefts]
        node = rng.choices(lefts, weights=weights)[0]
        if node is lat.bos:
            break
        z = alpha[node.node_id]
        out.append(node)
    out.reverse()
    return out

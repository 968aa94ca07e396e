"""The linear program of training-mix inference (Hayase et al. 2024), with lazy constraints.

Given, for each category i, how its pair counts evolve as the merges m_1..m_T are applied
(`PairHistory`), find proportions alpha (>= 0, summing to 1) and slacks v_t, v_p >= 0 that
minimise sum_t v_t + sum_p v_p subject to, for each constraint (t, p) in the program,

    sum_i alpha_i d_i,t(p) + v_t [+ v_p] >= 0,   d_i,t(p) = 1000 (c_i,t(m_t) - c_i,t(p)) / bytes_i

(counts per 1,000 bytes of each sample, so alpha is a share of bytes). The constraints come
lazily: `_competitors` replays the counts under the current proportions and returns, at each
step, the pairs that beat the merge by more than the slacks allow. scipy's HiGHS (`linprog`)
solves each program; scipy is optional, and `SolverMissing` says so when it is absent.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Callable

from ..errors import InvalidInput

Pair = tuple[str, str]
PER_BYTES = 1000.0  # counts are per 1,000 bytes of a sample
TOLERANCE = 1e-9


class SolverMissing(RuntimeError):
    """Training-mix inference needs scipy, which is not installed."""

    def __init__(self) -> None:
        super().__init__(
            "training-mix inference needs scipy's linear-program solver, which is "
            "not installed; install it with: pip install 'tokenizer-visualiser[mix]'"
        )


def solver_available() -> bool:
    """Whether scipy (and so `linprog`) is installed here."""
    try:
        return find_spec("scipy") is not None
    except ImportError:
        return False


@dataclass(frozen=True)
class PairHistory:
    """One sample's pair counts through the merges: before the first merge (`initial`), then
    after each merge t, the new count of each pair that merge changed (`changes[t]`)."""

    initial: dict[Pair, int]
    changes: list[dict[Pair, int]]


@dataclass(frozen=True)
class MixSolution:
    alpha: list[float]
    residual: float
    constraints: int
    rounds: int


@dataclass(frozen=True)
class _Constraint:
    step: int
    pair: Pair
    row: tuple[tuple[int, float], ...]  # (i, d_i,t(p)) for each category i where it is not 0


def solve_mix(
    histories: list[PairHistory],
    sizes: list[int],
    merges: list[Pair],
    *,
    top_pairs: int,
    rounds: int,
    pair_slack: bool,
    progress: Callable[[int], None] | None = None,
) -> MixSolution:
    """The proportions (one per history, in order) that best explain `merges`: solve, replay
    the counts under the answer, add the constraints it violates, and solve again.

    The first program holds, at each step, the pair that beats the merge most in each sample
    alone (so no category can look free of conflict merely because the constraints so far
    speak of other scripts' pairs)."""
    if not solver_available():
        raise SolverMissing()
    n = len(histories)
    scale = [PER_BYTES / max(size, 1) for size in sizes]
    slacks = _Slacks([0.0] * len(merges), {})
    views = [[1.0 if i == j else 0.0 for i in range(n)] for j in range(n)]
    program: dict[tuple[int, Pair], _Constraint] = {}
    alpha, residual, done = [1.0 / n] * n, 0.0, 0
    for done in range(1, rounds + 1):
        found = _competitors(
            histories, scale, merges, views, slacks, top_pairs=1 if done == 1 else top_pairs
        )
        new = [c for c in found if (c.step, c.pair) not in program]
        if not new:
            done -= 1
            break
        program.update({(c.step, c.pair): c for c in new})
        alpha, slacks, residual = _solve(list(program.values()), n, len(merges), pair_slack)
        views = [alpha]
        if progress is not None:
            progress(done)
    return MixSolution(alpha=alpha, residual=residual, constraints=len(program), rounds=done)


@dataclass(frozen=True)
class _Slacks:
    step: list[float]  # v_t
    pair: dict[Pair, float]  # v_p

    def allow(self, t: int, pair: Pair) -> float:
        return self.step[t] + self.pair.get(pair, 0.0) + TOLERANCE


class _View:
    """The pair counts of the mix under one set of proportions, as the replay moves on, and a
    heap of them (lazy deletion: an entry is current when its value is the pair's count)."""

    def __init__(self, weight: list[float], current: list[dict[Pair, int]]) -> None:
        self.weight = weight
        self.mixed: defaultdict[Pair, float] = defaultdict(float)
        for w, counts in zip(weight, current):
            if w:
                for pair, count in counts.items():
                    self.mixed[pair] += w * count
        self.heap = [(-value, pair) for pair, value in self.mixed.items()]
        heapq.heapify(self.heap)

    def update(self, i: int, pair: Pair, delta: int) -> None:
        if self.weight[i] and delta:
            self.mixed[pair] += self.weight[i] * delta
            heapq.heappush(self.heap, (-self.mixed[pair], pair))


def _competitors(
    histories: list[PairHistory],
    scale: list[float],
    merges: list[Pair],
    views: list[list[float]],
    slacks: _Slacks,
    *,
    top_pairs: int,
) -> list[_Constraint]:
    """Replay the counts step by step; at each step and under each view's proportions, take up
    to `top_pairs` pairs, most frequent first, that beat the merge by more than the slacks
    v_t + v_p allow."""
    current = [dict(h.initial) for h in histories]
    replays = [_View([a * s for a, s in zip(alpha, scale)], current) for alpha in views]
    out = []
    for t, merge in enumerate(merges):
        chosen: set[Pair] = set()
        for view in replays:
            chosen.update(_beating(view, merge, t, slacks, top_pairs))
        for pair in sorted(chosen):
            out.append(_Constraint(t, pair, _row(scale, current, merge, pair)))
        for i, history in enumerate(histories):
            for pair, count in history.changes[t].items():
                delta = count - current[i].get(pair, 0)
                current[i][pair] = count
                for view in replays:
                    view.update(i, pair, delta)
    return out


def _beating(view: _View, merge: Pair, t: int, slacks: _Slacks, k: int) -> list[Pair]:
    """Up to `k` pairs, most frequent first, that beat `merge` in `view` by more than the
    slacks allow (v_t + v_p): popped off the heap (skipping stale entries: an entry is current
    when its value is the pair's count), then pushed back."""
    target = view.mixed.get(merge, 0.0)
    taken: list[tuple[float, Pair]] = []
    seen: set[Pair] = set()
    pairs: list[Pair] = []
    while view.heap and len(pairs) < k:
        entry = heapq.heappop(view.heap)
        value, pair = -entry[0], entry[1]
        if view.mixed.get(pair) != value or pair in seen:
            continue
        seen.add(pair)
        taken.append(entry)
        if value - target <= slacks.step[t] + TOLERANCE:
            break  # no pair further down beats the merge
        if pair != merge and value - target > slacks.allow(t, pair):
            pairs.append(pair)
    for entry in taken:
        heapq.heappush(view.heap, entry)
    return pairs


def _row(
    scale: list[float], current: list[dict[Pair, int]], merge: Pair, pair: Pair
) -> tuple[tuple[int, float], ...]:
    """d_i,t(p) = (c_i,t(merge) - c_i,t(pair)) per 1,000 bytes, for each sample where it is
    not 0 (most samples hold neither pair: a constraint's row is sparse)."""
    row = []
    for i, (s, counts) in enumerate(zip(scale, current)):
        difference = counts.get(merge, 0) - counts.get(pair, 0)
        if difference:
            row.append((i, s * difference))
    return tuple(row)


def _solve(
    constraints: list[_Constraint], n: int, steps: int, pair_slack: bool
) -> tuple[list[float], _Slacks, float]:
    """One linear program: variables alpha_1..n, then v_1..v_steps, then (with `pair_slack`)
    one v_p per pair."""
    import numpy as np  # lazy: scipy (with numpy) is the optional extra "mix", and heavy
    from scipy.optimize import linprog  # lazy: as above
    from scipy.sparse import coo_matrix  # lazy: as above

    pair_column: dict[Pair, int] = {}
    for c in constraints if pair_slack else ():
        pair_column.setdefault(c.pair, n + steps + len(pair_column))
    width = n + steps + len(pair_column)
    rows, cols, values = [], [], []
    for r, c in enumerate(constraints):  # -(sum_i alpha_i d_i) - v_t [- v_p] <= 0
        slack = [n + c.step] + ([pair_column[c.pair]] if pair_slack else [])
        rows += [r] * (len(c.row) + len(slack))
        cols += [i for i, _d in c.row] + slack
        values += [-d for _i, d in c.row] + [-1.0] * len(slack)
    a_ub = coo_matrix((values, (rows, cols)), shape=(len(constraints), width)).tocsr()
    cost = np.concatenate([np.zeros(n), np.ones(width - n)])
    a_eq = coo_matrix((np.ones(n), (np.zeros(n), np.arange(n))), shape=(1, width)).tocsr()
    result = linprog(
        cost,
        A_ub=a_ub,
        b_ub=np.zeros(len(constraints)),
        A_eq=a_eq,
        b_eq=[1.0],
        bounds=(0, None),
        method="highs-ds",
    )
    if result.status != 0:
        raise InvalidInput(f"the linear program could not be solved: {result.message}")
    x = result.x
    alpha = [max(float(a), 0.0) for a in x[:n]]
    total = sum(alpha) or 1.0
    slack_pair = {pair: float(x[col]) for pair, col in pair_column.items()}
    slacks = _Slacks([float(v) for v in x[n : n + steps]], slack_pair)
    return [a / total for a in alpha], slacks, float(result.fun)

"""The pools' members at every clone count, and Hoeffding's step over them (docs/worst-case.md §8.9).

A pool's member ``g(m)``, the ``δ`` of the changing user among ``m − 1`` users at ``y*``, does not increase with
``m`` (one more ``M(y*)`` report is a post-processing). So upper bounds ``v_i`` of ``g`` at points
``m_0 < m_1 < …`` give the staircase ``g̃(m) = min_{m_i <= m} v_i >= g(m)``, and §8.9's step keeps its form with
``g̃`` in place of ``g``: ``g̃(C + 1) <= g̃(k0 + 2) + Σ_{k <= k0} (g̃(k + 1) − g̃(k + 2)) 1[C <= k]``, whose
differences are nonzero only where the staircase steps, ``k = m_(i+1) − 2``. The points are every count up to
the lattice's reports (:func:`gpu_rs.pairs.pools.member_deltas`), then a geometric grid to ``N``, where each
value is the upper end of the engine's certified ``δ`` of the same homogeneous member with ``m`` users
(:func:`gpu_rs.pairs.family_delta.member_delta`: §8.5's hinge of ``m`` i.i.d. reports of ``M(y*)``). Before,
counts beyond the lattice were charged its last value, which left the pools useless where the clones number
``10⁴`` and more (``N = 10⁷`` at ``L = 8``: docs/worst-case.md §8.9).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from gpu_rs.common.floats import UNIT
from gpu_rs.pairs.counts import OUTSIDE, binomial
from gpu_rs.pairs.family import Member
from gpu_rs.pairs.family_delta import member_delta

GROWTH = 1.25
"""Ratio of the grid of counts beyond the lattice's reports."""
SWEEP_SHARE = 1e-4
"""Beyond the lattice, a member is evaluated from the first grid count where it is at most the ceiling (found
by bisection) upwards, until it falls to this share of the ceiling; the larger counts keep that value..."""
SWEEP_STEPS = 8
"""... at every grid count for this many, then at gaps that double (at L = 40 a member falls slowly and costs
0.1 s a count: 589 evaluations at one ``(d, ε)`` one by one, 173 doubling from the start, the same bound; at
L = 8 doubling from the start loosened it by up to a third, after 8 steps not at all)."""
MAX_BITS = 16
"""Members beyond the lattice are evaluated up to this many bits (at L = 40 one ``(d, ε)`` takes about 20 s
for δ 0.203 → 0.166, and a tail visits dozens; docs/worst-case.md §8.9)."""


@functools.lru_cache(maxsize=16)
def points(users: int, reports: int) -> tuple[int, ...]:
    """The counts ``m`` where the members are evaluated: ``1 … reports``, then a geometric grid to ``users``."""
    dense = list(range(1, min(reports, users) + 1))
    if users <= reports:
        return tuple(dense)
    steps = math.ceil(math.log(users / reports) / math.log(GROWTH))
    grid = np.unique(np.round(np.geomspace(reports, users, steps + 1)).astype(np.int64))
    return tuple(dense + [int(m) for m in grid if m > reports])


def beyond(member: Member, q: float, eps: float, counts: tuple[int, ...], start: float, ceiling: float) -> np.ndarray:
    """Upper bounds on the member's ``g`` at ``counts`` (increasing, all beyond the lattice), nonincreasing and at
    most ``start`` (a bound at a smaller count): the engine's certified upper ends at the counts of the band
    where ``g`` falls from ``ceiling`` to ``SWEEP_SHARE`` of it (:data:`SWEEP_STEPS`), and at each other count the
    value before it."""
    found: dict[int, float] = {}

    def value(i: int) -> float:
        if i not in found:
            found[i] = member_delta(member, counts[i], q, eps, lower=False)[1]
        return found[i]

    lo, hi = 0, len(counts) - 1
    if start > ceiling * SWEEP_SHARE and value(hi) <= ceiling:
        while lo < hi:  # the first count at most the ceiling (the computed ends need not fall exactly)
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if value(mid) <= ceiling else (mid + 1, hi)
        steps = 0
        while lo < len(counts) and value(lo) > ceiling * SWEEP_SHARE:
            steps += 1
            lo += 1 if steps <= SWEEP_STEPS else 2 ** (steps - SWEEP_STEPS)
    out = np.full(len(counts), start)
    for i, v in found.items():
        out[i] = min(start, v)
    return np.minimum.accumulate(out)


@functools.lru_cache(maxsize=8)
def capped_cdfs(n: int, counts: tuple[int, ...], means: tuple[float, ...]) -> np.ndarray:
    """``F[j, i] >= P(Bin(n, μ_j / n) <= k_i)``, ``k_i = counts[i + 1] − 2``, where ``k_i <= μ_j − 1``, else 0: the
    weights of the staircase's differences in ``Ψ(μ_j)`` (Hoeffding's comparison holds only there).

    ``μ_j / n`` is rounded down (a smaller mean has a larger distribution function); each partial sum of
    the window's masses is rounded up, plus the mass below the window (:func:`gpu_rs.pairs.counts.binomial`).
    """
    ks = np.array(counts[1:], dtype=np.int64) - 2
    out = np.zeros((len(means), ks.shape[0]))
    for j, mu in enumerate(means):
        use = ks <= int(mu) - 1  # k0 = μ − 1 (an integer)
        if not use.any():
            continue
        law = binomial(n, mu / n * (1.0 - 2.0 * UNIT))
        cum = np.cumsum(law.pmf)[np.clip(ks[use] - law.lo, 0, law.pmf.shape[0] - 1)]
        upper = cum * (1.0 + law.rel) * (1.0 + (law.pmf.shape[0] + 4) * UNIT) + OUTSIDE
        out[j, use] = np.minimum(1.0, np.where(ks[use] < law.lo, OUTSIDE, upper))
    return out


def pool_bounds(g: np.ndarray, n: int, counts: tuple[int, ...], means: tuple[float, ...]) -> np.ndarray:
    """``Ψ(μ_j)`` at every clone mean (rows of ``g``: nonincreasing upper bounds on ``g`` at ``counts``).

    ``Ψ(μ) = g̃(μ + 1) + Σ_i (g_i − g_(i+1)) F(counts[i + 1] − 2)`` over the steps with ``counts[i + 1] − 2 <= μ − 1``
    (module docstring), every term nonnegative, rounded up.
    """
    at = np.searchsorted(np.array(counts), np.array(means).astype(np.int64) + 1, side="right") - 1
    base = g[:, np.maximum(at, 0)]  # g̃(μ + 1): the value at the last count not beyond it
    steps = np.maximum(g[:, :-1] - g[:, 1:], 0.0) * (1.0 + UNIT)
    total = (base + steps @ capped_cdfs(n, counts, means).T) * (1.0 + 2.0 * (len(counts) + 4) * UNIT)
    return np.minimum(1.0, total)

"""``scope="all"`` for more than one bit: the clone reduction kept *graded* (a finer proven bound).

:mod:`gpu_rs.pairs.clones` reduces every neighbouring pair at Hamming distance ``d`` to
``C ~ Bin(N − 1, p_d)`` clones reporting from ``W = (M(x) + M(x'))/2`` beside the changing
user, and then collapses every report to one of two labels (``Q0``/``Q1``). Here the
collapse is skipped: given ``C = c`` the pair is the changing user's report among ``c``
i.i.d. ``W``-reports, a post-processing of the collapsed pair (draw each label's report), so
its hockey-stick divergence ``δ_c`` is never larger. With ``k`` the number of changed bits on
which a report agrees with ``x'`` and ``a(k) = M(x')/W = 2 / (1 + r^(2k − d))`` (the other
bits cancel), ``M(x)/W = 2 − a``, so the likelihood ratio of the shuffled reports is
``R = A / (2(c + 1) − A)`` with ``A`` the sum of the ``c + 1`` atoms ``a(k_j)``, and

    δ_c(ε) = P[A > τ] − e^ε Q[A > τ],   τ = 2 (c + 1) e^ε / (1 + e^ε),

``P``/``Q`` with the changing user's ``k ~ Bin(d, p)`` / ``Bin(d, q)`` and each clone's
``k`` from the even mixture of both. ``A`` is computed on a lattice of step ``GRID``:
atoms rounded up bound ``P[A > τ]`` above, rounded down bound ``Q[A > τ]`` below; every
sum has positive terms and a relative error bound. ``δ_c`` does not increase with ``c``
(adding a clone is a post-processing), so counts above the lattice's reach are charged the
smaller of the last graded value and the collapsed bound. The derivation is in
docs/worst-case.md (§8.1, "The graded clone reduction").
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from gpu_rs.common.floats import UNIT
from gpu_rs.engine.atoms import log_r
from gpu_rs.pairs import blanket, clones, variation_ratio
from gpu_rs.pairs.clones import BLOCK_SHARE, TRIVIAL, clone_probability, given_clones_many
from gpu_rs.pairs.counts import OUTSIDE, binomial

GRID = 2e-3
"""Lattice step for the sum of the atoms ``a(k)`` (each in ``(0, 2)``)."""
WORK = 6e7
"""Lattice cells convolved per distance ``d``; clone counts beyond reach use monotonicity."""
NEGLIGIBLE = 1e-12
"""Clone counts are convolved up to the one above which at most this mass of ``C`` lies."""
SLACK = 1e-6
"""Index slack (in lattice steps) covering the float error of ``τ / GRID`` and ``a / GRID``."""
STEPS = tuple(0.005 * 1.25**i for i in range(40))
"""Gaps ``ε' − ε`` tried for the step from ``δ(ε)`` to the tail at ``ε'`` (negative ``ε`` allowed)."""
BLANKET_STEPS = tuple(range(12, 27, 2))
"""Indices into ``STEPS`` (gaps 0.07 … 1.1) where the graded blanket, slower, is also tried."""
BLANKET_FLOOR = 1e-14
"""Distances whose graded clone bound is already below this are not tried on the blanket (whose own
rounding floor is about 1e-15): it could lower the bound only by about this much."""


class TailBound(NamedTuple):
    """A proven upper bound on ``P[R > e^ε']`` (and ``>=``) over every neighbouring pair."""

    bound: float
    eps_step: float
    d: int
    method: str = "graded clone reduction"
    """Which bound attains it: ``"graded clone reduction"``, ``"graded blanket"``, ``"clone reduction"`` or
    ``"variation-ratio bound"`` (:mod:`gpu_rs.pairs.variation_ratio`, every distance at once, named ``d = L``)."""


def kernels(q: float, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """Lattice indices of ``a(k)`` rounded up and down, the laws of ``k`` (clone, ``x'``, ``x``), their error."""
    lr = log_r(q)
    p = 1.0 - q
    k = np.arange(d + 1)
    a = 2.0 * np.exp(-np.logaddexp(0.0, (2 * k - d) * lr)) / GRID  # 2 / (1 + r^(2k-d)), no overflow
    up = np.ceil(a + SLACK).astype(np.int64)
    down = np.maximum(np.floor(a - SLACK), 0).astype(np.int64)
    comb = np.array([float(math.comb(d, int(j))) for j in k])
    law_p = comb * np.array([p ** int(j) * q ** int(d - j) for j in k])
    law_q = law_p[::-1].copy()
    law_w = 0.5 * (law_p + law_q)
    return up, down, law_w, law_p, law_q, 8.0 * (d + 4) * UNIT


def spread(s: np.ndarray, idx: np.ndarray, law: np.ndarray) -> np.ndarray:
    """The law of ``S + a``: ``s`` on the lattice convolved with the atoms ``idx`` weighted by ``law``."""
    return blanket.shifted_sum(s, idx.tolist(), law, s.shape[0] + int(idx.max()))


def graded_deltas(q: float, d: int, c_max: int, eps: np.ndarray) -> np.ndarray:
    """Upper bounds on ``δ_c(ε)`` of the graded pair, for ``c = 0 … c_max`` and each ``ε``.

    Each row is also capped by the row before (``δ_c`` does not increase with ``c``).
    """
    up, down, law_w, law_p, law_q, rel_law = kernels(q, d)
    lam = np.exp(eps)
    s_up, s_down = np.ones(1), np.ones(1)
    out = np.ones((c_max + 1, eps.shape[0]))
    for c in range(c_max + 1):
        if c:
            s_up, s_down = spread(s_up, up, law_w), spread(s_down, down, law_w)
        p_tail = np.cumsum(spread(s_up, up, law_p)[::-1])[::-1]
        q_tail = np.cumsum(spread(s_down, down, law_q)[::-1])[::-1]
        rel = 2.0 * ((c + 1) * ((d + 3) * UNIT + rel_law) + (p_tail.shape[0] + q_tail.shape[0]) * UNIT)
        tau = 2.0 * (c + 1) * lam / (1.0 + lam) / GRID
        # P: every lattice point that may lie above τ; Q: only those surely above it.
        i_p = np.clip(np.floor(tau - SLACK).astype(np.int64), 0, p_tail.shape[0] - 1)
        i_q = np.floor(tau + SLACK).astype(np.int64) + 1
        p_hi = p_tail[i_p] * (1.0 + rel)
        q_lo = np.where(i_q < q_tail.shape[0], q_tail[np.minimum(i_q, q_tail.shape[0] - 1)], 0.0) * (1.0 - rel)
        row = np.clip((p_hi - lam * q_lo) * (1.0 + 4.0 * UNIT) + 4.0 * UNIT, 0.0, 1.0)
        out[c] = np.minimum(row, out[c - 1]) if c else row
    return out


def reach(n: int, clone_prob: float, d: int) -> int:
    """The largest clone count convolved: within ``WORK`` cells and past all but ``NEGLIGIBLE`` of ``C``."""
    by_work = int(math.sqrt(WORK * GRID / (2.0 * (d + 1)))) + 1
    c_law = binomial(n - 1, clone_prob)
    above = np.cumsum(c_law.pmf[::-1])[::-1]
    enough = np.nonzero(above <= NEGLIGIBLE)[0]
    by_mass = c_law.lo + int(enough[0]) if enough.shape[0] else c_law.hi
    return max(0, min(by_work, by_mass, c_law.hi))


def delta_upper(n: int, bits: int, q: float, d: int, eps: np.ndarray) -> np.ndarray:
    """Upper bounds on ``δ(ε)`` over every pair at distance ``d`` (either order), for each ``ε``.

    ``Σ_c P(C = c) min(graded δ_c, collapsed δ_c)``; past the lattice's reach each block of
    counts is charged its first count's value (both bounds are nonincreasing in ``c``); mass
    outside ``C``'s window is charged 1.
    """
    eps0 = d * -log_r(q) * (1.0 + 8.0 * UNIT)
    pd = clone_probability(bits, q, d)
    if n == 1 or pd <= 0.0:
        return graded_deltas(q, d, 0, eps)[0]
    c_max = reach(n, pd, d)
    graded = graded_deltas(q, d, c_max, eps)
    c_law = binomial(n - 1, pd)
    cdf = np.concatenate([[0.0], np.cumsum(c_law.pmf)])
    total = np.full(eps.shape[0], OUTSIDE)
    lam = np.array([math.exp(e) for e in eps.tolist()])  # as given_clones takes them
    blocks, start = [], c_law.lo
    while start <= c_law.hi:
        width = 1 if start <= c_max else max(1, int(BLOCK_SHARE * start))
        stop = min(c_law.hi + 1, start + width)
        mass = float(cdf[stop - c_law.lo] - cdf[start - c_law.lo]) * (1.0 + c_law.rel + (stop - c_law.lo) * UNIT)
        blocks.append((start, mass))
        start = stop
    # Past the lattice's reach the collapsed δ_c may be the smaller; within it the graded δ_c is
    # (a post-processing, §8.1) and taking the minimum would only cost time. Lighter blocks are
    # charged the graded value alone (also a bound).
    past = [start for start, mass in blocks if start > c_max and mass > TRIVIAL]
    collapsed = iter(np.where(eps > 0.0, given_clones_many(past, eps0, eps, lam), 1.0) if past else np.ones((0, 0)))
    for start, mass in blocks:
        row = graded[min(start, c_max)]
        if start > c_max and mass > TRIVIAL:
            row = np.minimum(row, next(collapsed))
        total += mass * row
    return np.minimum(1.0, total * (1.0 + 4.0 * UNIT))


def blanket_search(
    n: int,
    bits: int,
    q: float,
    d: int,
    grid: np.ndarray,
    factor: np.ndarray,
    values: np.ndarray,
    start: int,
    floor: float,
) -> int:
    """Lower ``values`` (tail bounds per step, in place) by the graded blanket, and return where it did best.

    A distance matters only while its best value exceeds ``floor`` (the largest over the distances
    done so far), so the search stops as soon as it cannot. It starts at the position ``start`` of
    ``BLANKET_STEPS`` and walks towards the side that improves while it improves. Any step gives a
    valid bound, so a walk that misses the best step only loosens it.
    """

    def attempt(j: int) -> float:
        i = BLANKET_STEPS[j]
        if values[i] > floor:
            enough = floor * factor[i] * (1.0 - 16.0 * UNIT)  # a δ this small cannot beat the floor
            delta = blanket.delta_upper(n, bits, q, d, float(grid[i]), enough, settle=True)
            values[i] = min(values[i], delta / factor[i] * (1.0 + 8.0 * UNIT))
        return float(values[i])

    best_j, best = start, attempt(start)
    for direction in (-1, 1):
        j = start + direction
        while 0 <= j < len(BLANKET_STEPS) and float(values.min()) > floor:
            value = attempt(j)
            if value >= best:
                break
            best_j, best = j, value
            j += direction
        if best_j != start:
            break  # improved on this side: the other side lies beyond the start, already worse
    return best_j


def spread_out(items: list[int]) -> list[int]:
    """``items`` middle first, then the middles of each half, and so on (a coarse-to-fine sweep)."""
    out, halves = [], [(0, len(items))]
    for lo, hi in halves:
        if lo < hi:
            out.append(items[(lo + hi) // 2])
            halves += [(lo, (lo + hi) // 2), ((lo + hi) // 2 + 1, hi)]
    return out


def largest(
    n: int, bits: int, q: float, grid: np.ndarray, order: list[int], per_d: dict[int, np.ndarray], blankets: bool
) -> TailBound:
    """The largest over the distances of ``order`` of their least tail bound over the steps ``grid`` (``per_d``:
    the graded clone bound at each step), each lowered by the graded blanket where it may decide."""
    factor = -np.expm1(-np.array(STEPS))
    worst, start = TailBound(0.0, float(grid[0]), 1), len(BLANKET_STEPS) // 2
    for d in order:
        values, graded = per_d[d].copy(), per_d[d]
        # else nothing can change: the distance is already within the running maximum
        # one bit: the blanket is the graded clone pair itself (γ = p_1 = 2q, W uniform)
        if blankets and bits > 1 and float(values.min()) > max(BLANKET_FLOOR, worst.bound) and worst.bound < 1.0:
            start = blanket_search(n, bits, q, d, grid, factor, values, start, worst.bound)
        i = int(np.argmin(values))
        if values[i] > worst.bound:
            method = "graded blanket" if values[i] < graded[i] else "graded clone reduction"
            worst = TailBound(min(1.0, float(values[i])), float(grid[i]), d, method)
    return worst


def tail_upper(n: int, bits: int, q: float, eps: float, *, blankets: bool = True) -> TailBound:
    """A proven upper bound on ``P[R > e^ε]`` and ``P[R >= e^ε]`` over every neighbouring pair, either order.

    For each distance ``d``: the best step ``P[R > e^ε] <= δ(ε') / (1 − e^(ε' − ε))`` over the
    grid ``ε' = ε − STEPS``, ``δ`` the smaller of the graded clone bound and (on every
    step of ``BLANKET_STEPS``, for the distances that may decide the maximum) the graded
    blanket of :mod:`gpu_rs.pairs.blanket`; then the largest over ``d``, and never above the
    collapsed clone bound of :mod:`gpu_rs.pairs.clones` nor the variation-ratio bound of
    :mod:`gpu_rs.pairs.variation_ratio` (which covers every ``d`` at once), each over the same steps.
    Assumes only the mechanism (each of the ``bits`` bits flipped independently with probability
    ``q``) and ``n`` users.

    The distances are taken the largest graded bound first, then coarse to fine over ``d``, so that a
    large maximum is met early and the other distances are dismissed by one blanket lattice each.
    Any order gives a bound; the order only moves where each distance's walk over the steps starts, and
    a walk that reaches the same least value from either start gives the same result (so far always:
    docs/benchmarks.md). At the trivial bound 1 the order of the graded bounds is taken again, which
    names the same distance as before among the many at 1.
    """
    steps = np.array(STEPS)
    grid, factor = eps - steps, -np.expm1(-steps)
    per_d: dict[int, np.ndarray] = {}
    for d in range(1, bits + 1):
        if d * -log_r(q) * (1.0 + 8.0 * UNIT) < eps:
            continue  # every report's ratio is at most (p/q)^d < e^ε: the tail is 0 for every pair
        per_d[d] = delta_upper(n, bits, q, d, grid) / factor * (1.0 + 8.0 * UNIT)
    ranked = sorted(per_d, key=lambda k: -float(per_d[k].min()))
    worst = largest(n, bits, q, grid, ranked[:1] + spread_out(sorted(ranked[1:])), per_d, blankets)
    if worst.bound >= 1.0:
        worst = largest(n, bits, q, grid, ranked, per_d, blankets)
    collapsed = clones.tail_upper(n, bits, q, eps, worst.bound)  # taken only below worst.bound
    if collapsed[0] < worst.bound:
        worst = TailBound(collapsed[0], collapsed[1], collapsed[2], "clone reduction")
    # the variation-ratio bound covers every distance at once (it is named by d = L)
    steps_vr = variation_ratio.delta_upper(n, bits, q, grid) / factor * (1.0 + 8.0 * UNIT)
    i = int(np.argmin(steps_vr))
    if steps_vr[i] < worst.bound:
        worst = TailBound(float(steps_vr[i]), float(grid[i]), bits, "variation-ratio bound")
    return worst


def delta_all(n: int, bits: int, q: float, eps: float, *, blankets: bool = True) -> tuple[float, int]:
    """A proven upper bound on ``δ(ε)`` over every neighbouring pair, either order, and the distance
    ``d`` that attains it: the largest over ``d`` of the graded clone and graded blanket bounds.

    A distance with ``(p/q)^d <= e^ε`` has ``δ(ε) = 0`` for every pair (no ratio exceeds ``e^ε``).
    """
    best, arg = 0.0, bits
    for d in range(1, bits + 1):
        if d * -log_r(q) * (1.0 + 8.0 * UNIT) <= eps:
            continue
        value = float(delta_upper(n, bits, q, d, np.array([eps]))[0])
        if blankets and bits > 1 and value > best:  # one bit: the blanket is the graded clone pair
            value = min(value, blanket.delta_upper(n, bits, q, d, eps))
        if value > best:
            best, arg = value, d
    return min(1.0, best), arg

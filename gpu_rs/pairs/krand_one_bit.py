"""k reports per user at one bit: the exact tail of ``R_k`` through one engine query per order.

With ``L = 1`` a record is at level 0 (``w = r``) or 1 (``w = 1/r``), so ``e_k`` of the ``M``
records depends only on the count ``c`` at level 1 (docs/k-randomization.md §5):

    e_k(c) = Σ_j C(c, j) C(M − c, k − j) r^(k − 2j),

non-decreasing in ``c``; so is ``p1 = (M − c) r + c/r``. Hence ``{R_k > λ} = {c ≥ c*}
= {p1 > p1(c* − ½)}`` and ``{R_k < 1/λ} = {c < c'} = {p1 < p1(c' − ½)}``: one tail of the sum
of the records' atoms, which the engine bounds on its lattice. No inequality is used. Where
``log e_k(c)`` lies within the evaluation margin of the level for some ``c``, that count is
not decided and the two ends use the two candidate thresholds.
"""

from __future__ import annotations

import math

from gpu_rs.common.floats import UNIT
from gpu_rs.common.validation import Problem
from gpu_rs.engine.atoms import ONE, ZERO, Kind, log_r
from gpu_rs.engine.bounds import Bounds
from gpu_rs.engine.crossing import Query
from gpu_rs.engine.pipeline import Plan, tail_bounds
from gpu_rs.pairs.krand_parts import MARGIN


def log_comb_row(n: int, kmax: int) -> list[float]:
    """``log C(n, j)`` for ``j = 0..kmax`` (``-inf`` beyond ``n``), by the ratio recurrence."""
    out, acc = [0.0], 0.0
    for j in range(1, kmax + 1):
        if j > n:
            out.append(-math.inf)
            continue
        acc += math.log((n - j + 1) / j)
        out.append(acc)
    return out


def log_ek(m: int, k: int, c: int, lr: float) -> float:
    """``log e_k`` of ``m − c`` atoms ``r`` and ``c`` atoms ``1/r`` (``lr = log r``)."""
    up, down = log_comb_row(c, k), log_comb_row(m - c, k)
    terms = [up[j] + down[k - j] + (k - 2 * j) * lr for j in range(k + 1)]
    top = max(terms)
    return top + math.log(math.fsum(math.exp(t - top) for t in terms if t > -math.inf))


def counts(m: int, k: int, lr: float, log_level: float) -> tuple[int, int]:
    """``(c_lo, c_hi)``: ``log e_k < level − MARGIN`` at ``c ≤ c_lo``, ``> level + MARGIN`` at ``c ≥ c_hi``.

    ``c_lo = -1`` if no count is below, ``c_hi = m + 1`` if none is above.
    """
    ends = []
    for target in (log_level - MARGIN, log_level + MARGIN):
        lo, hi = -1, m + 1  # f(lo) < target <= f(hi), with f(-1) = -inf and f(m + 1) = +inf
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if log_ek(m, k, mid, lr) < target:
                lo = mid
            else:
                hi = mid
        ends.append((lo, hi))
    return ends[0][0], ends[1][1]


def _log_p1(m: int, c: float, lr: float) -> float:
    """``log((m − c) r + c/r)`` for a half-integer ``c``."""
    return math.log((m - c) * math.exp(lr) + c * math.exp(-lr))


def _tail(
    prob: Problem, parts: tuple[tuple[Kind, int], ...], m: int, c: float, upper: bool, plan: Plan, xp: object
) -> Bounds:
    """``P[count > c]`` (``upper``) or ``P[count < c]`` at a half-integer ``c``, through ``p1``."""
    if c < 0:
        return Bounds.point(1.0 if upper else 0.0)
    if c > m:
        return Bounds.point(0.0 if upper else 1.0)
    log_t = _log_p1(m, c, log_r(prob.q))
    query = Query(1, prob.q, parts, log_t, upper, False, log_t_error=16.0 * UNIT * (1.0 + abs(log_t)))
    return tail_bounds(query, plan, xp)


def forward(prob: Problem, k: int, plan: Plan, xp: object) -> tuple[Bounds, Bounds]:
    """Bounds on ``P_{D_m^k}[R_k > λ]`` as (upper-end source, lower-end source); ``≥`` is the same
    event unless ``e_k(c) = C`` exactly, which only the undecided counts can be."""
    m = k * prob.n
    lr = log_r(prob.q)
    c_lo, c_hi = counts(m, k, lr, prob.eps + math.log(math.comb(m, k)))
    parts = ((ZERO, m - k), (ONE, k))
    up = _tail(prob, parts, m, c_lo + 0.5, True, plan, xp)
    low = up if c_hi == c_lo + 1 else _tail(prob, parts, m, c_hi - 0.5, True, plan, xp)
    return up, low


def reverse(prob: Problem, k: int, plan: Plan, xp: object) -> tuple[Bounds, Bounds]:
    """Bounds on ``P_{D^k}[R_k < 1/λ]`` as (upper-end source, lower-end source)."""
    m = k * prob.n
    lr = log_r(prob.q)
    c_lo, c_hi = counts(m, k, lr, math.log(math.comb(m, k)) - prob.eps)
    parts = ((ZERO, m),)
    up = _tail(prob, parts, m, c_hi - 0.5, False, plan, xp)
    low = up if c_hi == c_lo + 1 else _tail(prob, parts, m, c_lo + 0.5, False, plan, xp)
    return up, low

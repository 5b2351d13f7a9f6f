"""The near-lattice method: few atoms, where ``Y`` is nearly a multiple of its first atom.

For ``L = 2–4`` and small ``q`` the bulk part of ``Y`` is ``g₁ J₁`` (``J₁`` counts the
summands at the first atom above 0) plus a few large atoms ``g₂, g₃, …``; the law of
``Y`` is a comb of spikes whose spacing Vaaler's majorants must resolve (up to 1.7e7
Fourier terms and 15–35 s). Instead, condition on the counts ``H`` of the large atoms
and on every count vector ``O`` of the other (small) parts: given them, ``J₁`` is
exactly ``Bin(m, π)`` with ``m = n − ΣH`` and ``π = p₁ / (p₀ + p₁)``, and

    P[Y > y] = Σ_{h, o} P[H = h] P[O = o] P[Bin(m_h, π) > (y − shift(h, o)) / g₁].

Heavy counts outside a window whose binomial Chernoff mass is at most a tenth of the
target are left out, their mass added to the upper bound (truncation); each binomial
pmf comes from log-gamma (relative error a few ulp per unit of the logs, as in
:mod:`gpu_rs.engine.enumeration`) and is summed in a window of ``J₁`` whose outside
mass is Chernoff-bounded too. Thresholds between two integers are taken at both
ends of the cut, so the float error of ``y`` and of the shifts only moves mass
between the bounds (round-off).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import gammaln

from gpu_rs.common.binomial import log_pmf
from gpu_rs.common.floats import FLOOR, SMALLEST_NORMAL, UNIT
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.enumeration import count_vectors, outcomes
from gpu_rs.engine.laws import Cut, Law, SumLaw

MAX_ATOMS = 5
"""The bulk part may have at most this many atoms (three heavy ones)."""
MAX_OTHERS = 10_000
"""Most count vectors of the parts other than the bulk."""
MAX_ITEMS = 400_000
"""Most (heavy counts, other counts) pairs."""
MAX_CELLS = 1_000_000
"""Most binomial pmf values (distinct ``m`` times the window of ``J₁``)."""
SHARE = 0.05
"""Share of the target width given to each truncation (heavy counts, ``J₁``'s window)."""


def binomial_tail_bound(n: int, p: float, rel: float, k: float, upper: bool) -> float:
    """Chernoff bound ``exp(−n D(k/n ‖ p))`` on ``P[Bin(n, p) >= k]`` (``upper``, ``k >= np``) or ``<= k``.

    The exponent's float error and ``p``'s relative error ``rel`` are added to it.
    """
    if n == 0:
        return 0.0 if (k > 0 if upper else k < 0) else 1.0
    a = k / n
    if (upper and a <= p) or (not upper and a >= p):
        return 1.0
    if a >= 1.0 or a <= 0.0:  # P[all n at 1] or P[all n at 0], or a bound on an empty event
        log_one = math.log(p) if a >= 1.0 else math.log1p(-p)
        return min(1.0, math.exp(n * log_one + n * (4.0 * UNIT + rel * max(1.0, p / (1.0 - p)))))
    d = a * math.log(a / p) + (1.0 - a) * math.log((1.0 - a) / (1.0 - p))
    sens = n * abs(-a / p + (1.0 - a) / (1.0 - p)) * p * rel
    err = 32.0 * UNIT * n * (abs(math.log(a)) + abs(math.log(p)) + abs(math.log1p(-a)) + abs(math.log1p(-p)) + 2.0)
    return min(1.0, math.exp(-n * d + sens + err))


def window(n: int, p: float, rel: float, delta: float) -> tuple[int, int, float]:
    """``(a, b, out)``: ``P[Bin(n, p) < a] + P[Bin(n, p) > b] <= out <= delta`` (or a wider out)."""
    mean = n * p

    def search(upper: bool) -> tuple[int, float]:
        lo, hi = (math.ceil(mean), n + 1) if upper else (-1, math.floor(mean))
        # upper: the smallest b with bound(b + 1) <= delta/2; lower: the largest a with bound(a − 1) <= delta/2.
        while hi - lo > 1:
            mid = (lo + hi) // 2
            ok = binomial_tail_bound(n, p, rel, mid + 1 if upper else mid - 1, upper) <= 0.5 * delta
            lo, hi = (lo, mid) if ok == upper else (mid, hi)
        edge = hi if upper else lo
        if upper:
            edge = min(edge, n)
            return edge, 0.0 if edge >= n else binomial_tail_bound(n, p, rel, edge + 1, True)
        edge = max(edge, 0)
        return edge, 0.0 if edge <= 0 else binomial_tail_bound(n, p, rel, edge - 1, False)

    b, above = search(True)
    a, below = search(False)
    return a, b, above + below


def _log_pmf(m: np.ndarray, j: np.ndarray, log_pi: float, log_rest: float) -> np.ndarray:
    """``log C(m, j) π^j (1 − π)^(m − j)`` on the grid ``m[:, None]``, ``j[None, :]`` (``−inf`` off support)."""
    mm, jj = m[:, None].astype(np.float64), j[None, :].astype(np.float64)
    inside = (jj >= 0) & (jj <= mm)
    safe = np.where(inside, jj, 0.0)
    return np.where(inside, log_pmf(mm, safe, log_pi, log_rest), -np.inf)


def _plan(law: SumLaw) -> tuple[int, Law, list[tuple[Law, int]]] | None:
    """The bulk part (index, law) and the others, where the method applies."""
    if law.is_lattice:
        return None
    bulk_i = max(range(len(law.parts)), key=lambda i: law.parts[i][1])
    bulk = law.parts[bulk_i][0]
    v = bulk.values
    if not 2 <= bulk.size <= MAX_ATOMS or v[0] != 0.0 or np.any(np.diff(v) <= 0.0):
        return None
    others = [pc for i, pc in enumerate(law.parts) if i != bulk_i]
    if others and count_vectors(SumLaw(tuple(others))) > MAX_OTHERS:
        return None
    return bulk_i, bulk, others


def bound(law: SumLaw, cut: Cut, target: float, max_terms: int, xp: Any) -> Bounds | None:
    """Bounds on ``P[Y ∈ cut]`` by conditioning on the large atoms' counts; None where it does not apply."""
    plan = _plan(law)
    if plan is None:
        return None
    bulk_i, bulk, others = plan
    n = law.parts[bulk_i][1]
    probs, rel = bulk.probs, bulk.rel_error
    heavy_v, heavy_p = bulk.values[2:], probs[2:]
    delta = max(FLOOR, SHARE * target)
    ranges, trunc_h = [], 0.0
    for ph, rh in zip(heavy_p, rel[2:], strict=True):
        a, b, out = window(n, float(ph), float(rh), delta / max(1, heavy_v.shape[0]))
        ranges.append(np.arange(a, b + 1))
        trunc_h += out
    # Other parts: every count vector, its sum and log-probability.
    o_val, o_lp, o_rel = np.zeros(1), np.zeros(1), 0.0
    for part, c in others:
        v, lp, r = outcomes(part, c)
        o_val = (o_val[:, None] + v[None, :]).ravel()
        o_lp = (o_lp[:, None] + lp[None, :]).ravel()
        o_rel += r
    if math.prod(len(r) for r in ranges) * o_val.shape[0] > MAX_ITEMS:
        return None
    grid = np.stack([g.ravel() for g in np.meshgrid(*ranges, indexing="ij")], axis=1) if ranges else np.zeros((1, 0))
    grid = grid[grid.sum(axis=1) <= n].astype(np.int64)
    if grid.shape[0] * o_val.shape[0] > MAX_ITEMS:
        return None
    light = float(probs[0]) + float(probs[1])
    rel_light = float(max(rel[0], rel[1])) + UNIT
    m = n - grid.sum(axis=1)
    log_h = np.log(heavy_p) if heavy_p.size else np.zeros(0)
    lp_h = gammaln(n + 1.0) - gammaln(grid + 1.0).sum(axis=1) - gammaln(m + 1.0) + grid @ log_h + m * math.log(light)
    shift_h = grid @ heavy_v if heavy_v.size else np.zeros(grid.shape[0])
    # J₁ given m: Bin(m, π) on one window of j for every m (its outside mass is largest at the ends of m).
    pi, rest = float(probs[1]) / light, float(probs[0]) / light
    rel_pi = float(rel[1]) + rel_light + 2.0 * UNIT
    rel_rest = float(rel[0]) + rel_light + 2.0 * UNIT
    m_lo, m_hi = int(m.min()), int(m.max())
    j_lo = window(m_lo, pi, rel_pi, delta)[0]
    j_hi = window(m_hi, pi, rel_pi, delta)[1]
    out_j = binomial_tail_bound(m_hi, pi, rel_pi, j_hi + 1, True) if j_hi < m_hi else 0.0
    out_j += binomial_tail_bound(m_lo, pi, rel_pi, j_lo - 1, False) if j_lo > 0 else 0.0
    distinct, m_index = np.unique(m, return_inverse=True)
    width = j_hi - j_lo + 1
    if distinct.shape[0] * width > MAX_CELLS:
        return None
    pmf = np.exp(_log_pmf(distinct, np.arange(j_lo, j_hi + 1), math.log(pi), math.log(rest)))
    zeros = np.zeros((distinct.shape[0], 1))
    at_least = np.concatenate([np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1], zeros], axis=1)  # P[J ≥ j_lo + i]
    at_most = np.concatenate([zeros, np.cumsum(pmf, axis=1)], axis=1)  # P[J ≤ j_lo + i − 1]
    # Items: every (heavy counts, other counts) pair.
    shift = (shift_h[:, None] + o_val[None, :]).ravel()
    log_p = (lp_h[:, None] + o_lp[None, :]).ravel()
    rows = np.repeat(m_index.ravel(), o_val.shape[0])
    g1 = float(bulk.values[1])

    def z(y: float, sign: float) -> np.ndarray:
        val = (y - shift) / g1
        err = 12.0 * UNIT * (abs(y) + np.abs(shift)) / g1 + 2.0 * UNIT * np.abs(val)
        return val + sign * err

    def mass(edge: float, sign: float) -> np.ndarray:
        """Window mass of ``J₁ > z`` (``above``) or ``J₁ < z`` at the edge ``z(edge) ± err``."""
        zz = z(edge, sign)
        if cut.above:
            k = np.ceil(zz) if cut.inclusive else np.floor(zz) + 1.0  # J ≥ k
            idx = np.clip(k - j_lo, 0, width).astype(np.int64)
            return at_least[rows, idx]
        k = np.floor(zz) if cut.inclusive else np.ceil(zz) - 1.0  # J ≤ k
        idx = np.clip(k - j_lo + 1, 0, width).astype(np.int64)
        return at_most[rows, idx]

    # The event is largest at upper_at: the smallest z (above) or the largest (below).
    big = mass(cut.upper_at, -1.0 if cut.above else 1.0)
    small = mass(cut.lower_at, 1.0 if cut.above else -1.0)
    weight = np.exp(log_p)
    hi_sum, lo_sum = float(weight @ big), float(weight @ small)
    items = weight.shape[0]
    scale = 2.0 * gammaln(n + 1.0) + float(np.abs(lp_h).max()) + float(np.abs(o_lp).max()) + 4.0
    pmf_scale = 2.0 * float(gammaln(m_hi + 1.0)) + m_hi * (abs(math.log(pi)) + abs(math.log(rest))) + 4.0
    rho = (
        16.0 * UNIT * (scale + pmf_scale)
        + int(grid.sum(axis=1).max(initial=0)) * float(rel[2:].max(initial=0.0))
        + n * rel_light
        + m_hi * max(rel_pi, rel_rest)
        + o_rel
        + (width + items + 4) * UNIT
    )
    underflow = items * (width + 1) * SMALLEST_NORMAL
    weight_total = float(weight.sum()) * (1.0 + rho)
    trunc = trunc_h + weight_total * out_j
    lower = lo_sum * (1.0 - rho)
    upper = hi_sum * (1.0 + rho) + trunc + underflow
    budget = ErrorBudget(truncation=trunc, roundoff=max(0.0, upper - lower - trunc))
    cells = distinct.shape[0] * width
    return Bounds.make(lower, upper, budget, "nearlattice", cells, cells * 8 * 3 + items * 8 * 6)

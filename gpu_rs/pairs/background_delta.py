"""``δ(ε)`` over every neighbouring pair at one bit: the exact maximum over all backgrounds.

As in :mod:`gpu_rs.pairs.backgrounds`, every pair at ``L = 1`` is, up to the global complement,
a background of ``a`` zeros and ``c = N − 1 − a`` ones and a user changing 0 → 1, with
``S`` drawn with the user at 1 (``P'``) against the user at 0 (``P``). With ``B_a`` the
background's count of ones and ``K = B_a + U``,

    P'(k) − λ P(k) = (p − λq) P(B_a = k − 1) − (λp − q) P(B_a = k),

and ``δ_a(ε) = Σ_k (P'(k) − λ P(k))_+``. With bracketed point masses
(:func:`gpu_rs.pairs.counts.block_masses`, a block of backgrounds at once), the sum of the
lower ends of the positive terms is a lower bound (any partial sum of ``P' − λP`` is at most
``δ_a``) and the sum of the positive parts of the upper ends, plus the mass outside the
span, an upper bound. The supremum over pairs is ``max_a δ_a``, bracketed by the largest lower
and the largest upper bound. Every background is evaluated: the work grows like ``N^1.5``
and is refused up front beyond :data:`MAX_SECONDS`.
"""

from __future__ import annotations

import math

import numpy as np

from gpu_rs.common.errors import TimeBudgetError
from gpu_rs.common.floats import UNIT
from gpu_rs.pairs.counts import BLOCK, OUTSIDE, WINDOW_LOG, block_masses, half_width

SECONDS_PER_UNIT = 4e-8
"""Measured cost per background and per unit of its span (2-core CPU)."""
MAX_SECONDS = 300.0


def estimate_seconds(n: int, q: float) -> float:
    """Estimated time of the search over every background."""
    span = 2.0 * math.sqrt(2.0 * n * q * (1.0 - q) * WINDOW_LOG) + WINDOW_LOG + BLOCK
    return SECONDS_PER_UNIT * n * span * BLOCK / 16.0 + 0.01


def fits(n: int, q: float) -> bool:
    """Whether the search over every background is started (estimated within :data:`MAX_SECONDS`);
    beyond it ``scope="all"`` takes the proven bound of :mod:`gpu_rs.pairs.proven_delta` instead."""
    return estimate_seconds(n, q) <= MAX_SECONDS


def worst_delta(n: int, q: float, eps: float) -> tuple[float, float, int]:
    """``(lower, upper, a)``: bounds on ``max_a δ_a(ε)`` and the background attaining the lower end."""
    if not fits(n, q):
        raise TimeBudgetError(
            f"scope='all' for delta at bits=1 would take about {estimate_seconds(n, q) / 60:.0f} min at n={n} (at most "
            f"{MAX_SECONDS / 60:.0f} min is started): use scope='homogeneous', or a smaller n"
        )
    p, lam = 1.0 - q, math.exp(eps)
    if lam * q >= p:
        return 0.0, 0.0, n - 1  # R <= p/q < λ for every pair
    up, down = (p - lam * q) * (1.0 + 8.0 * UNIT), (lam * p - q) * (1.0 - 8.0 * UNIT)
    up_lo, down_hi = (p - lam * q) * (1.0 - 8.0 * UNIT), (lam * p - q) * (1.0 + 8.0 * UNIT)
    var = (n - 1) * p * q
    t = half_width(var) + 2.0
    best = (0.0, 0.0, n - 1)
    top = 0.0
    for a0 in range(0, n, BLOCK):
        m = min(BLOCK, n - a0)
        means = (a0 * q + (n - 1 - a0) * p, (a0 + m - 1) * q + (n - a0 - m) * p)
        span = (max(0, math.floor(min(means) - t)), min(n, math.ceil(max(means) + t)) + 1)
        ms = block_masses(n, q, a0, m, span)
        # P(B = k0 − 1) <= P(B < k0) <= OUTSIDE, k0 = ms.ks[0]: the columns reach past Bernstein's window.
        prev_lo = np.concatenate([np.zeros((m, 1)), ms.point_lo[:, :-1]], axis=1)
        prev_hi = np.concatenate([np.full((m, 1), 0.0 if ms.ks[0] == 0 else OUTSIDE), ms.point_hi[:, :-1]], axis=1)
        term_lo = up_lo * prev_lo - down_hi * ms.point_hi
        term_hi = up * prev_hi - down * ms.point_lo
        lower = np.where(term_lo > 0, term_lo, 0.0).sum(axis=1) * (1.0 - 4.0 * UNIT * (span[1] - span[0] + 2))
        # Mass beyond the span's top and below its bottom: each binomial's outside mass, twice.
        upper = np.where(term_hi > 0, term_hi, 0.0).sum(axis=1) * (1.0 + 4.0 * UNIT * (span[1] - span[0] + 2))
        upper = np.minimum(1.0, upper + 4.0 * OUTSIDE)
        j = int(np.argmax(lower))
        if lower[j] > best[0]:
            best = (float(lower[j]), best[1], a0 + j)
        top = max(top, float(upper.max()))
    return best[0], top, best[2]

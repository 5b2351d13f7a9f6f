"""``δ(ε)`` over every neighbouring pair at one bit: the maximum over all backgrounds, pruned.

As in :mod:`gpu_rs.pairs.backgrounds`, every pair at ``L = 1`` is, up to the global complement,
a background of ``a`` zeros and ``c = N − 1 − a`` ones and a user changing 0 → 1, with
``S`` drawn with the user at 1 (``P'``) against the user at 0 (``P``). With ``B_a`` the
background's count of ones and ``K = B_a + U``,

    P'(k) − λ P(k) = (p − λq) P(B_a = k − 1) − (λp − q) P(B_a = k),

and ``δ_a(ε) = Σ_k (P'(k) − λ P(k))_+``. With bracketed point masses
(:func:`gpu_rs.pairs.counts.block_masses`), the sum of the lower ends of the positive terms is a
lower bound (any partial sum of ``P' − λP`` is at most ``δ_a``) and the sum of the positive parts
of the upper ends, plus the mass outside the span, an upper bound.

*An interval of backgrounds.* For ``a1 <= a <= a2`` and ``w = a2 − a1``, ``B_a = G + Y_a`` with
``G = Bin(a1, q) + Bin(N − 1 − a2, p)`` and ``Y_a = Bin(a − a1, q) + Bin(a2 − a, p)`` independent
of ``G`` and of the user. The pair of laws of ``K`` is the pair ``(G + U, G + V)`` post-processed
by adding ``Y_a``, and the hockey-stick divergence cannot grow under post-processing, so
``δ_a(ε) <= δ_G(ε)``: the one-bit ``δ`` of ``a1`` zeros and ``N − 1 − a2`` ones among ``N − w``
users, one row (docs/worst-case.md §3.1). :func:`worst_deltas` splits ``0 … N − 1`` at the middle
while an interval's bound exceeds the best background found by more than the width asked; no
background is left without a bound covering it, and where the row budget runs out the rest is
covered by the proven clone bound (:mod:`gpu_rs.pairs.every_pair`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gpu_rs.common.floats import UNIT
from gpu_rs.pairs import every_pair
from gpu_rs.pairs.counts import BLOCK, OUTSIDE, BlockMasses, block_masses, half_width

SECONDS_PER_PRODUCT = 2e-10
"""Measured cost of a row per square of its half span (its convolution's products scale so; 2-core CPU)."""
SECONDS_PER_ROW = 1e-4
ROWS = 3000
"""Rows a search computes at ``q`` near 0, about; ``ROWS / (1 − 2q)²`` at ``q`` (measured for ``ε(1e-6)``:
580, 880, 1,300, 3,500 at N = 1e4 … 1e7, q = 0.018; 6,500 and 11,000 at N = 1e5, 1e6, q = 0.3,
where ``δ_a`` varies less with ``a``)."""
WHOLE = 32
"""Intervals of at most this many backgrounds whose bound is too large are evaluated whole."""
MAX_SECONDS = 60.0
"""The search is started where estimated within this, and all the searches of one :class:`Rows` (one
profile: a root finder makes up to a dozen) compute together at most the rows it buys."""
CACHE_FLOATS = 2**24
"""Values of single rows kept for later calls (128 MiB)."""
GOAL = 0.8
"""Share of the asked width an interval's bound may exceed the best background by."""


def estimate_seconds(n: int, q: float) -> float:
    """Estimated time of one search (:data:`ROWS` rows, each convolving two windows of the span)."""
    half = half_width((n - 1) * q * (1.0 - q)) + 4.0
    return ROWS / (1.0 - 2.0 * q) ** 2 * (SECONDS_PER_PRODUCT * half * half + SECONDS_PER_ROW) + 0.05


def fits(n: int, q: float) -> bool:
    """Whether the search over every background is started (estimated within :data:`MAX_SECONDS`);
    beyond it ``scope="all"`` takes the proven bound of :mod:`gpu_rs.pairs.every_pair` instead."""
    return estimate_seconds(n, q) <= MAX_SECONDS


def _span(pop: int, q: float, a0: int, m: int) -> tuple[int, int]:
    """Columns that carry every positive term of ``δ`` for the backgrounds ``a0 … a0 + m − 1``.

    Below the least mean no term is positive at ``ε >= 0``: ``B_a`` is a sum of independent
    Bernoulli variables, so its mode lies within 1 of its mean (Darroch) and ``P(B = k − 1) <=
    P(B = k)`` for ``k <= ⌊E B⌋``, where ``(p − λq) P(k − 1) − (λp − q) P(k) <= (1 − λ) P(k) <= 0``.
    Above the mean it reaches Bernstein's window.
    """
    p = 1.0 - q
    t = half_width((pop - 1) * p * q) + 2.0
    means = (a0 * q + (pop - 1 - a0) * p, (a0 + m - 1) * q + (pop - a0 - m) * p)
    return max(0, math.floor(min(means)) - 1), min(pop, math.ceil(max(means) + t)) + 1


def delta_rows(ms: BlockMasses, q: float, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds ``(lower, upper)``, each of shape ``(rows, len(eps))``, on ``δ`` of the backgrounds whose
    masses ``ms`` holds on a span from :func:`_span` (``eps >= 0``)."""
    p = 1.0 - q
    m = ms.points.shape[0]
    lower, upper = np.zeros((m, eps.size)), np.zeros((m, eps.size))
    # The masses are s (points (1 + η) + x), s shared (BlockMasses): bound the sums of the bracketed
    # points / s, then multiply by s's range, so the anchors' error is not amplified by cancellation.
    point_lo = ms.points * (1.0 - ms.rel)
    point_hi = ms.points * (1.0 + ms.rel) + 2.0 * ms.outside
    # P(B = k0 − 1) <= P(B < k0) <= OUTSIDE, k0 = ms.ks[0]: the columns reach past Bernstein's window.
    prev_lo = np.concatenate([np.zeros((m, 1)), point_lo[:, :-1]], axis=1)
    prev_hi = np.concatenate([np.full((m, 1), 0.0 if ms.ks[0] == 0 else 2.0 * OUTSIDE), point_hi[:, :-1]], axis=1)
    grow = 4.0 * UNIT * (ms.ks.size + 2)
    shrink_s, grow_s = 1.0 - 2.0 * ms.scale, 1.0 + 2.0 * ms.scale
    for i, e in enumerate(eps):
        lam = math.exp(e)
        if lam * q >= p:
            continue  # R <= p/q < λ for every pair: δ = 0
        up, down = (p - lam * q) * (1.0 + 8.0 * UNIT), (lam * p - q) * (1.0 - 8.0 * UNIT)
        up_lo, down_hi = (p - lam * q) * (1.0 - 8.0 * UNIT), (lam * p - q) * (1.0 + 8.0 * UNIT)
        term_lo = up_lo * prev_lo - down_hi * point_hi
        term_hi = up * prev_hi - down * point_lo
        lower[:, i] = np.where(term_lo > 0, term_lo, 0.0).sum(axis=1) * (1.0 - grow) * shrink_s
        # Mass beyond the span's top (and, harmlessly, below its bottom): each binomial's outside mass, twice.
        found = np.where(term_hi > 0, term_hi, 0.0).sum(axis=1) * (1.0 + grow) * grow_s
        upper[:, i] = np.minimum(1.0, found + 4.0 * OUTSIDE)
    return lower, upper


class Rows:
    """Masses of single backgrounds (:func:`~gpu_rs.pairs.counts.block_masses`), kept up to
    :data:`CACHE_FLOATS` values so that a profile's later ``ε`` reuse them (they do not depend on ``ε``);
    ``budget``: the rows all the searches on them may compute together (what :data:`MAX_SECONDS` buys)."""

    def __init__(self, n: int, q: float) -> None:
        self.n, self.q = n, q
        self.budget = max(64, int(ROWS / (1.0 - 2.0 * q) ** 2 * MAX_SECONDS / estimate_seconds(n, q)))
        self.kept: dict[tuple[int, int], BlockMasses] = {}
        self.floats = 0
        self.computed = 0

    def masses(self, pop: int, a0: int, m: int = 1) -> BlockMasses:
        """The masses of ``a0 … a0 + m − 1`` zeros among ``pop`` users on :func:`_span`."""
        if m > 1:
            self.computed += m
            return block_masses(pop, self.q, a0, m, _span(pop, self.q, a0, m))
        key = (pop, a0)
        if key in self.kept:
            return self.kept[key]
        self.computed += 1
        ms = block_masses(pop, self.q, a0, 1, _span(pop, self.q, a0, 1))
        if self.floats + ms.points.size <= CACHE_FLOATS:  # the first rows are kept: every search needs them
            self.kept[key] = ms
            self.floats += ms.points.size
        return ms


@dataclass(frozen=True)
class WorstDelta:
    """The outcome of :func:`worst_deltas` at one ``ε``.

    Attributes
    ----------
    lower, upper : float
        ``lower <= δ_zeros(ε) <= max_a δ_a(ε) <= upper``.
    zeros : int
        The best background found: ``zeros`` zero vectors and ``n − 1 − zeros`` ones.
    complete : bool
        False where the row budget ran out and the proven clone bound covers the rest.
    """

    lower: float
    upper: float
    zeros: int
    complete: bool


def worst_deltas(
    rows: Rows, eps: np.ndarray, rel_width: float, abs_width: float, budget: int | None = None
) -> list[WorstDelta]:
    """Bounds on ``max_a δ_a(ε)`` at every ``ε >= 0`` of ``eps`` (one search serves them all).

    Intervals of backgrounds are split at their middle while their bound exceeds the best lower
    bound by more than :data:`GOAL` times ``max(abs_width, rel_width · best)`` at some ``ε`` not
    yet resolved for them; an interval of at most :data:`WHOLE` backgrounds is evaluated whole.
    ``budget`` caps the rows computed by this call (by default what is left of ``rows.budget``,
    shared by every call on ``rows``); past it the proven clone bound covers the rest.
    """
    n, q = rows.n, rows.q
    eps = np.asarray(eps, dtype=float)
    budget = rows.budget if budget is None else rows.computed + budget
    positive = eps > 0.0
    cap = np.ones(eps.shape)
    if positive.any():
        cap[positive] = every_pair.curve(n, 1, q).deltas(eps[positive])
    best, zeros, top = np.zeros(eps.shape), np.full(eps.shape, n - 1), np.zeros(eps.shape)

    def evaluate(a0: int, m: int) -> None:
        for start in range(a0, a0 + m, BLOCK):
            lo, hi = delta_rows(rows.masses(n, start, min(BLOCK, a0 + m - start)), q, eps)
            j = lo.argmax(axis=0)
            found = lo[j, np.arange(eps.size)]
            better = found > best
            best[better], zeros[better] = found[better], start + j[better]
            np.maximum(top, hi.max(axis=0), out=top)

    evaluate(0, 1)
    if n > 1:
        evaluate(n - 1, 1)
    # Each interval carries the ε at which it is not yet resolved.
    stack = [(0, n - 1, np.ones(eps.shape, dtype=bool))]
    pending, complete = np.zeros(eps.shape), True
    while stack:
        a1, a2, active = stack.pop()
        inner = a2 - a1 - 1  # backgrounds a1 + 1 … a2 − 1 are not yet covered
        if inner <= 0:
            continue
        if rows.computed >= budget:
            complete = False
            pending[active] = np.maximum(pending[active], cap[active])
            continue
        # δ_G of the interval a1 + 1 … a2 − 1: G has w = inner − 1 fewer users (module docstring).
        bound = np.minimum(cap, delta_rows(rows.masses(n - (inner - 1), a1 + 1), q, eps)[1][0])
        done = active & (bound <= best + GOAL * np.maximum(abs_width, rel_width * best))
        pending[done] = np.maximum(pending[done], bound[done])
        active = active & ~done
        if not active.any():
            continue
        if inner <= WHOLE:
            evaluate(a1 + 1, inner)
        else:
            mid = (a1 + a2) // 2
            evaluate(mid, 1)
            stack.extend([(mid, a2, active), (a1, mid, active)])
    upper = np.minimum(cap, np.maximum(top, pending))
    if np.any(upper < best):
        raise RuntimeError(f"an upper bound {upper} is below a certified background's delta {best}: a bug")
    return [WorstDelta(float(best[i]), float(upper[i]), int(zeros[i]), complete) for i in range(eps.size)]

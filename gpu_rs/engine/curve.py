"""A whole curve at once: certified ``P[Y > y]``, ``E[(Y − y)_+]`` and ``E[(y − Y)_+]`` at many ``y``.

For a sum ``Y`` of independent finite-atom summands (a :class:`~gpu_rs.engine.laws.SumLaw`), one
window ``[a, a + P)`` and one spectrum ``φ_1 … φ_K`` of ``U = (Y − a)/P mod 1`` serve every
threshold (:mod:`gpu_rs.engine.curve_sums`); ``K`` grows until the widest point meets its
target or the memory budget is spent. The window leaves out Chernoff-bounded mass:

* survival ``S(y) = P[Y > y]``: mass outside aliases in, ``±`` its Chernoff bound (as in
  :mod:`gpu_rs.engine.fourier`);
* call ``C(y) = E[(Y − y)_+] = P E[(U − α)_+; in window] + E[(Y − y)_+; Y >= a + P]``: the
  aliased mass adds at most ``(1 − α) P`` times its probability on the circle, and the
  last term is at most ``E[Y 1{Y >= T}] <= K'(θ) e^{K(θ) − θT}`` for the ``θ`` with
  ``K'(θ) = T`` (a Chernoff bound on the tail's mean);
* put ``E[(y − Y)_+]``: the same on ``1 − U``; mass below the window adds at most
  ``y P[Y <= a]``.

Threshold error: the atoms and the threshold are floats, so the true ``y`` lies in
``[lo, hi]`` (a :class:`~gpu_rs.engine.laws.Cut`-like pair); the upper bound is taken at the end
that makes the quantity largest and the lower at the other, and the atoms' relative error
``v`` scales the call by ``1 ± v``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy.optimize import brentq

from gpu_rs.common.floats import FLOOR, UNIT
from gpu_rs.engine import chernoff
from gpu_rs.engine.bounds import Bounds, ErrorBudget
from gpu_rs.engine.curve_sums import circle_bounds
from gpu_rs.engine.fourier import FIRST_TERMS, MARGIN, SpectrumCache, workspace_bytes
from gpu_rs.engine.laws import SumLaw

KINDS = ("sf", "call", "put")


def tail_mean(law: SumLaw, x: float) -> float:
    """An upper bound on ``E[Y 1{Y >= x}]``: ``K'(θ) e^{K(θ) − θx}`` at the ``θ > 0`` with ``K'(θ) = x``."""
    if x > law.max * (1 + chernoff.EDGE):
        return 0.0
    if x <= law.mean:
        return law.mean * (1.0 + 1e-9)
    span = max(law.max - law.min, FLOOR)

    def g(log_s: float) -> float:
        return law.tilted_mean(math.exp(log_s)) - x

    lo, hi = -math.log(span) - 60.0, -math.log(span) + 4.0
    while g(hi) < 0 and hi < -math.log(span) + 400.0:
        hi += 4.0
    theta = math.exp(brentq(g, lo, hi, xtol=1e-12) if g(hi) >= 0 and g(lo) <= 0 else hi)
    log_b = law.log_mgf(theta) - theta * x + law.slack
    return min(law.mean * (1.0 + 1e-9), law.tilted_mean(theta) * math.exp(min(0.0, log_b)) * (1.0 + 1e-9))


@dataclass(frozen=True)
class Points:
    """Certified bounds at each threshold: host arrays of the same length, and the cost."""

    lower: np.ndarray
    upper: np.ndarray
    discretization: np.ndarray
    truncation: np.ndarray
    roundoff: np.ndarray
    terms: int
    memory: int

    def bounds(self, i: int, method: str = "curve") -> Bounds:
        """Point ``i`` as :class:`~gpu_rs.engine.bounds.Bounds` (budget settled to its width)."""
        budget = ErrorBudget(
            discretization=float(self.discretization[i]),
            truncation=float(self.truncation[i]),
            roundoff=float(self.roundoff[i]),
        )
        lower, upper = float(self.lower[i]), float(self.upper[i])
        return Bounds.make(lower, upper, budget, method, self.terms, self.memory, shrunk=True)


class Curve:
    """One window and one spectrum of ``Y``; bounds at any thresholds inside the window.

    Parameters
    ----------
    law : SumLaw
        The sum.
    lo, hi : float
        Thresholds the window must contain.
    delta : float
        The window leaves out at most this much mass (Chernoff) on each side.
    value_error : float
        Relative error bound of the atoms (the float values stand for true values within it).
    max_terms : int
        Most frequencies.
    """

    def __init__(
        self, law: SumLaw, lo: float, hi: float, delta: float, value_error: float, max_terms: int, xp: Any
    ) -> None:
        self.law, self.xp, self.max_terms = law, xp, max_terms
        self.value_error = value_error
        delta = max(FLOOR, delta)
        a = min(chernoff.lower_quantile(law, delta), lo)
        top = max(chernoff.upper_quantile(law, delta), hi)
        span = max(top - a, FLOOR)
        a, top = max(a - MARGIN * span, law.min - MARGIN * span), top + MARGIN * span
        self.a, self.period = a, top - a
        self.below = chernoff.lower_tail(law, a)  # P[Y <= a]
        self.above = chernoff.upper_tail(law, top)  # P[Y >= a + P]
        self.above_mean = tail_mean(law, top)
        self.cache = SpectrumCache(xp, law, a, self.period)
        self.terms = FIRST_TERMS
        self.last: dict[str, tuple[tuple[int, bytes, bytes], Points]] = {}  # each kind's last bounds, by question

    def contains(self, y: float) -> bool:
        return self.a < y < self.a + self.period

    def ends(self, ys: np.ndarray, errors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The true threshold's range: absolute ``errors`` and the atoms' relative error."""
        v = self.value_error + 4.0 * UNIT
        lo = (ys - errors) / (1.0 + v) * (1.0 - 2.0 * UNIT)
        hi = (ys + errors) / (1.0 - v) * (1.0 + 2.0 * UNIT)
        return lo, hi

    def _at(self, kind: str, lo: np.ndarray, hi: np.ndarray, K: int) -> Points:
        """Bounds at ``K`` terms, the upper from the end that makes the quantity largest.

        The same question asked again (a second pass at the same terms) gets the same floats from
        :attr:`last`: the spectrum's blocks up to ``K`` never change once computed.
        """
        key = (K, lo.tobytes(), hi.tobytes())
        if kind in self.last and self.last[kind][0] == key:
            return replace(self.last[kind][1], memory=workspace_bytes(self.cache.size))
        self.last[kind] = (key, self._compute(kind, lo, hi, K))
        return self.last[kind][1]

    def _compute(self, kind: str, lo: np.ndarray, hi: np.ndarray, K: int) -> Points:
        """:meth:`_at`, computed."""
        period, a = self.period, self.a
        blocks = self.cache.upto(K)
        m = lo.shape[0]
        if kind == "put":  # largest at the highest threshold; on the reflected circle, α' = 1 − α
            alphas = np.concatenate([1.0 - (hi - a) / period, 1.0 - (lo - a) / period])
        else:  # largest at the lowest threshold
            alphas = np.concatenate([(lo - a) / period, (hi - a) / period])
        c_lo, c_hi, rnd = circle_bounds(self.xp, blocks, K, alphas, hinge=kind != "sf", reflect=kind == "put")
        up, low = c_hi[:m], c_lo[m:]
        resolution = up - low
        roundoff = np.maximum(rnd[:m], rnd[m:])
        v = self.value_error + 4.0 * UNIT
        out = self.below + self.above
        if kind == "sf":
            lower = low - roundoff - out
            upper = up + roundoff + self.above
            trunc = (2.0 * self.above + self.below) * np.ones(m)
            scale = np.ones(m)
        elif kind == "call":
            aliased = (1.0 - (lo - a) / period) * out * period
            lower = (period * (low - roundoff) - aliased) * (1.0 - v)
            upper = (period * (up + roundoff) + self.above_mean) * (1.0 + v)
            trunc = aliased * (1.0 - v) + self.above_mean * (1.0 + v)
            scale = period * np.ones(m)
        else:
            aliased = ((hi - a) / period) * out * period
            lower = period * (low - roundoff) - aliased
            upper = period * (up + roundoff) + hi * self.below
            trunc = aliased + hi * self.below
            scale = period * np.ones(m)
        lower = lower * (1.0 - 4.0 * UNIT)
        upper = upper * (1.0 + 4.0 * UNIT)
        disc = scale * resolution * (1.0 + v)
        rest = np.maximum(0.0, (upper - lower) - disc - trunc)
        # A probability and a hinge are never negative: clipping only drops impossible width.
        return Points(np.maximum(lower, 0.0), upper, disc, trunc, rest, K, workspace_bytes(self.cache.size))

    def evaluate(self, kind: str, ys: np.ndarray, errors: np.ndarray, targets: np.ndarray) -> Points:
        """Bounds on ``kind`` (``"sf"``, ``"call"`` or ``"put"``) at ``ys``, ``K`` grown to meet ``targets``.

        ``errors`` bounds the absolute error of each ``ys`` (the threshold as a float).
        Points whose round-off and truncation alone exceed their target are refined only until
        the resolution matches them.
        """
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}: got {kind!r}")
        lo, hi = self.ends(np.asarray(ys, dtype=float), np.asarray(errors, dtype=float))
        if not (np.all(lo > self.a) and np.all(hi < self.a + self.period)):
            raise ValueError("every threshold must lie inside the curve's window")
        K = self.terms
        while True:
            found = self._at(kind, lo, hi, K)
            floor = 3.0 * (found.truncation + found.roundoff)
            goal = np.maximum(targets, floor)
            short = found.discretization + found.truncation + found.roundoff > goal
            if not short.any() or self.max_terms <= K:
                self.terms = max(self.terms, K)
                return found
            ratio = np.max((found.discretization / np.maximum(goal - floor / 3.0, FLOOR))[short])
            K = int(min(self.max_terms, 8 * K, max(2 * K, math.ceil(1.25 * K * ratio))))

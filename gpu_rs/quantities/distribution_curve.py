"""Certified ``P[R > x]`` of the seed's pair at many ``x`` at once, from one curve of ``X′``.

Under the forward order (``scope="forward"``) ``X = X′ + W``: ``X′`` the sum of the
``N − 1`` zero-vector records, ``W`` the all-ones outlier's atom, independent. With ``w_l``
the outlier's atoms and ``Y = X′ − (N − 1) w_0 >= 0`` (the gaps of :mod:`gpu_rs.engine.atoms`),

    P[R > x] = Σ_l P(W = w_l) P[Y > N x − w_l − (N − 1) w_0]:

every threshold of every ``x`` is a point of one :class:`~gpu_rs.engine.curve.Curve` of ``Y``
(or of a :class:`~gpu_rs.engine.curve_heavy.HeavyCurve` where heavy atoms would widen its
window), and the bounds mix with the outlier's probabilities rounded outwards. A threshold
below ``0`` has ``P = 1``, one above ``Y``'s largest value ``P = 0``; one where the Chernoff
bounds already leave less than its share of the width is answered by them alone.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gpu_rs.common.floats import FLOOR, UNIT
from gpu_rs.engine import chernoff
from gpu_rs.engine.atoms import ONE, ZERO, record_atoms
from gpu_rs.engine.curve import Curve
from gpu_rs.engine.curve_heavy import HeavyCurve
from gpu_rs.engine.laws import SumLaw, restricted

WINDOW_SHARE = 1e-3
"""The curve's window leaves out mass of at most this fraction of the smallest width asked."""
CHERNOFF_SHARE = 0.25
"""A threshold is answered by Chernoff alone where its weighted width is below this share of the target."""


class ForwardCurve:
    """Certified ``P[R > x]`` of the forward order at many ``x`` (module docstring).

    Parameters
    ----------
    n, bits, q
        The problem (already validated).
    max_terms : int
        Most frequencies of the curve.
    xp : array namespace
    """

    def __init__(self, n: int, bits: int, q: float, max_terms: int, xp: Any) -> None:
        zero, one = record_atoms(bits, q, ZERO), record_atoms(bits, q, ONE)
        if not np.isfinite(zero.gaps).all():
            raise ValueError(
                f"bits={bits} with q={q:g} has atoms (q/p)^-L beyond float64; use tail(scope='forward') for such cases"
            )
        self.n, self.m, self.xp, self.max_terms = n, n - 1, xp, max_terms
        keep = np.ones(bits + 1, dtype=bool)
        self.record = restricted(zero.gaps, zero.log_probs, zero.probs, zero.prob_error, zero.exact, keep)
        self.law = SumLaw(((self.record, self.m),)) if self.m > 0 else None
        self.value_error = max(zero.value_error, one.value_error)
        self.w = np.exp(one.log_values)  # the outlier's atoms
        self.w0 = math.exp(float(zero.log_values[0]))
        self.p_lo = one.probs * (1.0 - one.prob_error) * (1.0 - 4.0 * UNIT)
        self.p_hi = one.probs * (1.0 + one.prob_error) * (1.0 + 4.0 * UNIT)
        self.y_max = self.m * float(zero.gaps[-1]) * (1.0 + self.value_error + 4.0 * UNIT)
        self.solver: Curve | HeavyCurve | None = None
        self.span: tuple[float, float, float] = (math.inf, -math.inf, 0.0)  # the solver's range and delta
        self.terms = 0
        self.memory = 0

    def thresholds(self, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``y[i, l] = N x_i − w_l − (N − 1) w_0`` and a bound on its absolute error."""
        nx = self.n * xs[:, None]
        base = self.m * self.w0
        y = nx - self.w[None, :] - base
        v = self.value_error + 4.0 * UNIT
        err = 4.0 * UNIT * (np.abs(nx) + np.abs(y)) + (self.w[None, :] + base) * v
        return y, err

    def _chernoff(self, y: np.ndarray, err: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Bounds from exact ends and Chernoff alone, for every threshold."""
        lo, hi = np.zeros(y.shape), np.ones(y.shape)
        below = y + err < 0.0
        lo[below] = 1.0
        above = y - err >= self.y_max
        hi[above] = 0.0
        law = self.law
        if law is None:
            return lo, hi
        mean = law.mean
        for idx in zip(*np.nonzero(~(below | above)), strict=True):
            a, b = float(y[idx] - err[idx]), float(y[idx] + err[idx])
            if a > mean:
                hi[idx] = min(1.0, chernoff.upper_tail(law, a * (1.0 - 2.0 * self.value_error)))
            elif b < mean:
                lo[idx] = max(0.0, 1.0 - chernoff.lower_tail(law, b * (1.0 + 2.0 * self.value_error)))
        return lo, hi

    def _solver(self, lo: float, hi: float, delta: float) -> Curve | HeavyCurve:
        """A curve of ``Y`` whose window holds ``[lo, hi]`` (or conditioned on heavy atoms)."""
        assert self.law is not None
        s = self.solver
        if s is not None and self.span[0] <= lo and hi <= self.span[1] and self.span[2] <= delta * 4.0:
            return s
        lo, hi = min(lo, self.span[0]), max(hi, self.span[1])
        heavy = HeavyCurve.split(self.record, self.m, max(lo, FLOOR))
        if heavy is not None:
            s = HeavyCurve(self.record, self.m, heavy, delta, self.value_error, self.max_terms, self.xp)
        else:
            s = Curve(self.law, lo, hi, delta, self.value_error, self.max_terms, self.xp)
        self.solver, self.span = s, (lo, hi, delta)
        return s

    def sf(self, xs: np.ndarray, rel_width: float, abs_width: float) -> tuple[np.ndarray, np.ndarray]:
        """Certified ``(lower, upper)`` bounds on ``P[R > x]`` at each ``x`` (finite floats).

        Each aims at ``upper − lower <= max(rel_width × min(lower, 1 − upper), abs_width)``: relative
        to the survival and to the distribution function, whichever is smaller.
        """
        xs = np.asarray(xs, dtype=float)
        y, err = self.thresholds(xs)
        g_lo, g_hi = self._chernoff(y, err)
        lower = self._mix(g_lo, low=True)
        upper = self._mix(g_hi, low=False)
        if self.law is None:
            return lower, upper
        for _ in range(2):  # a first pass from the Chernoff guess, then from the lower ends found
            goal = np.maximum(abs_width, rel_width * np.maximum(np.minimum(lower, 1.0 - upper), FLOOR))
            width = (g_hi - g_lo) * self.p_hi[None, :]
            count = np.maximum(1, np.sum(width > 0.0, axis=1))
            share = (goal / count)[:, None] * np.ones_like(y)
            todo = (width > CHERNOFF_SHARE * share) & (upper - lower > goal)[:, None]
            if not todo.any():
                break
            solver = self._solver(float(y[todo].min()), float(y[todo].max()), WINDOW_SHARE * float(goal.min()))
            targets = share[todo] / self.p_hi[np.nonzero(todo)[1]]
            found = solver.evaluate("sf", y[todo], err[todo], targets)
            self.terms, self.memory = max(self.terms, found.terms), max(self.memory, found.memory)
            g_lo[todo] = np.maximum(g_lo[todo], found.lower)
            g_hi[todo] = np.minimum(g_hi[todo], found.upper)
            lower = np.maximum(lower, self._mix(g_lo, low=True))
            upper = np.minimum(upper, self._mix(g_hi, low=False))
        return lower, upper

    def _mix(self, g: np.ndarray, *, low: bool) -> np.ndarray:
        """``Σ_l P(W = w_l) g[:, l]``, rounded outwards; also as ``1 − Σ_l P(W = w_l)(1 − g[:, l])``.

        The second form (the probabilities sum to 1 exactly) keeps values near 1 tight.
        """
        g = np.clip(g, 0.0, 1.0)
        k = self.p_lo.shape[0]
        rel = (k + 4) * UNIT
        if low:
            direct = (g @ self.p_lo) * (1.0 - rel)
            complement = 1.0 - ((1.0 - g) @ self.p_hi) * (1.0 + rel)
            return np.maximum(0.0, np.maximum(direct, complement) - UNIT)
        direct = (g @ self.p_hi) * (1.0 + rel)
        complement = 1.0 - ((1.0 - g) @ self.p_lo) * (1.0 - rel)
        return np.minimum(1.0, np.minimum(direct, complement) + UNIT)

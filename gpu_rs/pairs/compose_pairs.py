"""Discrete pairs that dominate, or are dominated by, a certified privacy profile (docs/composition.md).

A convex, nonincreasing ``f`` on ``λ >= 0`` with ``f(0) = 1``, ``f >= (1 − λ)_+`` and piecewise
linear with vertices ``(x_j, y_j)`` (``x_0 = 0``, slope ``s_j`` before ``x_j``, ``0`` after the
last) is the hockey-stick curve ``H_λ(P̂‖Q̂)`` of one pair: ``P̂`` puts ``ω_j = x_j (s_{j+1} − s_j)``
on the privacy loss ``log x_j`` and ``ω_∞ = y_r`` on ``+∞``, ``Q̂ = e^{−loss} P̂`` there and the
rest, ``1 + s_1 >= 0``, on a point ``P̂`` never takes. Its ``δ(ε) = E_P̂[(1 − e^{ε − loss})_+]``.

* :func:`pessimistic`: certified upper values ``u_i >= δ(λ_i)`` and ``(0, 1)``. The true ``δ``
  is convex in ``λ``, hence below the greatest convex minorant of those points (their lower hull),
  which is ``f``: the pair dominates the true pair (Blackwell order), and so do its compositions.
* :func:`optimistic`: certified lower values ``l_i <= δ(λ_i)`` (and upper ones, for chords):
  ``δ >= F``, the largest of the step ``λ ↦ max{l_j : λ_j >= λ}`` (``δ`` is nonincreasing),
  ``1 − λ``, ``0`` and the extended chords that convexity gives, and ``f`` is the greatest convex
  minorant of ``F``: a pair the true pair dominates.

Every vertex is an exact rational (floats read exactly, the grid's ``λ`` rounded outwards), so the
hull and the masses are exact; only ``log x_j`` is a float, with the error :attr:`LossPmf.value_error`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from gpu_rs.common.floats import SMALLEST_NORMAL, UNIT
from gpu_rs.engine.laws import Law, exact_law, log_fraction
from gpu_rs.pairs.profile_grid import DISCRETIZATION, Grid, Point, lam, lower_hull

MAX_LOSS = 600.0
"""Grids of these pairs end at or below this ``ε`` (``e^ε`` stays a float); beyond the last point the
dominating curve is its last value, still above ``δ`` (``δ`` is nonincreasing)."""


@dataclass(frozen=True)
class LossPmf:
    """The privacy-loss pmf of one dominating (or dominated) pair: atoms ``log x_j``, exact masses."""

    x: tuple[Fraction, ...]
    probs: tuple[Fraction, ...]
    infinity: Fraction

    @classmethod
    def from_vertices(cls, hull: list[Point]) -> LossPmf:
        """The pair of the curve through ``hull`` (module docstring); checks the masses exactly."""
        if hull[0] != (0, 1):
            raise RuntimeError("a hockey-stick curve starts at (0, 1)")
        slopes = [(y2 - y1) / (x2 - x1) for (x1, y1), (x2, y2) in itertools.pairwise(hull)] + [Fraction(0)]
        if slopes[0] < -1 or any(s > 0 for s in slopes):
            raise RuntimeError("the curve is not the hockey-stick curve of a pair")
        x, probs = [], []
        for j, (xj, _) in enumerate(hull[1:]):
            w = xj * (slopes[j + 1] - slopes[j])
            if w > 0:
                x.append(xj)
                probs.append(w)
        infinity = hull[-1][1]
        if sum(probs, infinity) != 1:
            raise RuntimeError("the masses of a hockey-stick pair do not add up to 1")
        return cls(tuple(x), tuple(probs), infinity)

    @property
    def losses(self) -> np.ndarray:
        """``log x_j`` in floats (error at most :attr:`value_error`)."""
        return np.array([log_fraction(v) for v in self.x])

    @property
    def value_error(self) -> float:
        """A bound on the absolute error of every float loss."""
        return float(8.0 * UNIT * (1.0 + np.abs(self.losses).max()))

    def small_at_infinity(self) -> LossPmf:
        """This pmf with every finite loss whose mass is below float64's normal range moved to ``∞``.

        Such a mass has no float of bounded relative error, which would leave every sum over the law
        unbounded. Each outcome's payoff in ``δ`` lies in ``[0, 1]`` and is 1 at an infinite loss, so the
        composed pair's ``δ`` is at most its value with these losses made infinite and at least its value
        with them paying nothing (:class:`~gpu_rs.pairs.compose_sides.Side` takes both).
        """
        small = [p < SMALLEST_NORMAL for p in self.probs]
        if not any(small):
            return self
        kept = [(x, p) for x, p, tiny in zip(self.x, self.probs, small, strict=True) if not tiny]
        moved = sum((p for p, tiny in zip(self.probs, small, strict=True) if tiny), Fraction(0))
        return LossPmf(tuple(x for x, _ in kept), tuple(p for _, p in kept), self.infinity + moved)

    def law(self) -> tuple[Law, float]:
        """``(law of loss − shift given a finite loss, shift)``: non-negative atoms, exact masses."""
        losses = self.losses
        shift = float(losses.min())
        logs = np.array([log_fraction(p) for p in self.probs])
        return exact_law(losses - shift, list(self.probs), logs), shift

    def delta(self, eps: float) -> float:
        """``δ(ε)`` of the pair in floats (not certified: for checks)."""
        gap = -np.expm1(eps - self.losses)
        return float(self.infinity) + float(np.dot([float(p) for p in self.probs], np.maximum(gap, 0.0)))


NULL = LossPmf((Fraction(1),), (Fraction(1),), Fraction(0))
"""The pair of two equal laws (loss 0): ``δ = (1 − e^ε)_+``, below every pair."""


def pessimistic(x: list[Fraction], uppers: np.ndarray) -> LossPmf:
    """The dominating pair through certified ``u_i >= δ`` at ``λ = x_i`` (increasing, ``u`` nonincreasing)."""
    points = [(Fraction(0), Fraction(1))] + [(xi, Fraction(float(u))) for xi, u in zip(x, uppers, strict=True)]
    return LossPmf.from_vertices(lower_hull(points))


def grid_span(eps_top: float, points: int) -> tuple[float, float]:
    """The largest loss a release's grid reaches, ``min(ε_top, MAX_LOSS)``, and its discretization:
    dp_accounting's default, or finer where that loss is below ``2 · points`` of its steps (``q`` near 1/2)."""
    top = min(eps_top, MAX_LOSS)
    return top, min(DISCRETIZATION, top / (2 * points))


def dominating(grid: Grid, uppers: np.ndarray) -> LossPmf:
    """:func:`pessimistic` through one order's ``uppers`` on an export's grid, its negative side included."""
    below = -(grid.steps * grid.discretization)[::-1]  # where each value of the negative side holds
    return pessimistic(lam(np.concatenate([below, grid.at]), True), uppers)


def optimistic(a: list[Fraction], b: list[Fraction], lows: list[Fraction], ups: list[Fraction]) -> LossPmf:
    """A pair below the true one: ``l_i <= δ(a_i)``, ``δ(b_i) <= u_i`` (``a``, ``b`` increasing; module docstring).

    Besides the step ``λ ↦ max{l_j : a_j >= λ}`` and ``(1 − λ)_+``, convexity extends chords:
    ``δ(λ) >= l_i + (l_i − u_{i+1})(a_i − λ)/(b_{i+1} − a_i)`` for ``λ <= a_i`` and
    ``δ(λ) >= l_i + (l_i − u_{i−1})(λ − a_i)/(a_i − b_{i−1})`` for ``λ >= a_i``. On each interval
    between consecutive ``a_i`` the largest of these that hold there is convex; the lower hull of
    its vertices (the ends and the lines' crossings), over every interval, is their greatest convex
    minorant.
    """
    n, step, best = len(a), [], Fraction(0)
    for v in reversed(lows):
        best = max(best, v)
        step.append(best)
    step.reverse()
    left = [
        (lows[i], (ups[i + 1] - lows[i]) / (b[i + 1] - a[i])) if i + 1 < n and b[i + 1] > a[i] else None
        for i in range(n)
    ]
    right = [
        (lows[i], (lows[i] - ups[i - 1]) / (a[i] - b[i - 1])) if i > 0 and b[i - 1] < a[i] else None for i in range(n)
    ]
    end = max(a[-1], Fraction(1))
    if right[-1] is not None and right[-1][1] < 0:  # where the last line reaches 0: beyond, the curve is flat
        end = max(end, a[-1] - right[-1][0] / right[-1][1])
    points: list[Point] = []
    for k in range(n + 1):
        lo, hi = (a[k - 1] if k else Fraction(0)), (a[k] if k < n else end)
        lines = [(Fraction(-1), Fraction(1)), (Fraction(0), step[k] if k < n else Fraction(0))]  # (slope, at 0)
        for found, i in ((right[k - 1] if k else None, k - 1), (left[k] if k < n else None, k)):
            if found is not None:
                lines.append((found[1], found[0] - found[1] * a[i]))
        xs = {lo, hi}
        for (m1, c1), (m2, c2) in itertools.combinations(lines, 2):
            if m1 != m2 and lo < (c2 - c1) / (m1 - m2) < hi:
                xs.add((c2 - c1) / (m1 - m2))
        points += [(x, max(Fraction(0), *(m * x + c for m, c in lines))) for x in xs]
    return LossPmf.from_vertices(lower_hull(points))


def infinity_factor(pmfs: list[tuple[LossPmf, int]]) -> tuple[float, float]:
    """Bounds on ``log Π (1 − ω_∞)^T``, the log-probability that every loss is finite."""
    total = 0.0
    for pmf, times in pmfs:
        w = float(pmf.infinity)
        w = math.nextafter(w, 1.0) if Fraction(w) < pmf.infinity else w  # rounded up, subnormals too
        total += times * math.log1p(-w * (1.0 + 2.0 * UNIT)) if w < 1.0 else -math.inf
    return total * (1.0 + 16.0 * UNIT), total * (1.0 - 16.0 * UNIT)

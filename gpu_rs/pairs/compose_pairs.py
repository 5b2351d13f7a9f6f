"""Discrete pairs that dominate, or are dominated by, a certified privacy profile (docs/composition.md).

A convex, nonincreasing ``f`` on ``λ >= 0`` with ``f(0) = 1``, ``f >= (1 − λ)_+`` and piecewise
linear with vertices ``(x_j, y_j)`` (``x_0 = 0``, slope ``s_j`` before ``x_j``, ``0`` after the
last) is the hockey-stick curve ``H_λ(P̂‖Q̂)`` of one pair: ``P̂`` puts ``ω_j = x_j (s_{j+1} − s_j)``
on the privacy loss ``log x_j`` and ``ω_∞ = y_r`` on ``+∞``, ``Q̂ = e^{−loss} P̂`` there and the
rest, ``1 + s_1 >= 0``, on a point ``P̂`` never takes. Its ``δ(ε) = E_P̂[(1 − e^{ε − loss})_+]``.

* :func:`pessimistic`: certified upper values ``u_i >= δ(λ_i)`` and ``(0, 1)``. The true ``δ``
  is convex in ``λ``, hence below the greatest convex minorant of those points (their lower hull),
  which is ``f``: the pair dominates the true pair (Blackwell order), and so do its compositions.
* :func:`optimistic`: certified lower values ``l_i <= δ(λ_i)``: ``δ >= F = max(S, 1 − λ, 0)``
  with ``S`` the step function ``λ ↦ max{l_j : λ_j >= λ}`` (``δ`` is nonincreasing), and ``f`` is
  the greatest convex minorant of ``F``: a pair the true pair dominates.

Every vertex is an exact rational (floats read exactly, the grid's ``λ`` rounded outwards), so the
hull and the masses are exact; only ``log x_j`` is a float, with the error :attr:`LossPmf.value_error`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from gpu_rs.common.floats import UNIT
from gpu_rs.engine.laws import Law, exact_law, log_fraction

Point = tuple[Fraction, Fraction]

MAX_LOSS = 600.0
"""Grids of these pairs end at or below this ``ε`` (``e^ε`` stays a float); beyond the last point the
dominating curve is its last value, still above ``δ`` (``δ`` is nonincreasing)."""


def lam(eps: np.ndarray, up: bool) -> list[Fraction]:
    """``e^ε`` rounded outwards (up or down), as exact rationals."""
    return [Fraction(float(v)) for v in np.exp(eps) * ((1.0 + 8.0 * UNIT) if up else (1.0 - 8.0 * UNIT))]


def lower_hull(points: list[Point]) -> list[Point]:
    """The vertices of the greatest convex minorant of ``points`` (exact), left to right."""
    best: dict[Fraction, Fraction] = {}
    for x, y in points:
        best[x] = min(y, best.get(x, y))
    hull: list[Point] = []
    for p in sorted(best.items()):
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (y2 - y1) * (p[0] - x1) >= (p[1] - y1) * (x2 - x1):  # hull[-1] on or above the chord
                hull.pop()
            else:
                break
        hull.append(p)
    return hull


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


def optimistic(x: list[Fraction], lowers: list[Fraction]) -> LossPmf:
    """A pair below the true one from certified ``l_i <= δ`` at ``λ = x_i`` (increasing; module docstring)."""
    step, best = [], Fraction(0)
    for v in reversed(lowers):
        best = max(best, v)
        step.append(best)
    step.reverse()
    points, left = [(Fraction(0), Fraction(1))], Fraction(0)
    for xi, s in zip(x, step, strict=True):  # F = max(s, 1 − λ) on (left, xi]
        points += [(left, max(s, 1 - left)), (xi, max(s, 1 - xi))]
        if left < 1 - s < xi:
            points.append((1 - s, s))
        left = xi
    end = max(left, Fraction(1))
    points += [(left, max(Fraction(0), 1 - left)), (end, Fraction(0))]
    return LossPmf.from_vertices(lower_hull(points))


def infinity_factor(pmfs: list[tuple[LossPmf, int]]) -> tuple[float, float]:
    """Bounds on ``log Π (1 − ω_∞)^T``, the log-probability that every loss is finite."""
    total = 0.0
    for pmf, times in pmfs:
        w = float(pmf.infinity)
        total += times * math.log1p(-w * (1.0 + 2.0 * UNIT)) if w < 1.0 else -math.inf
    return total * (1.0 + 16.0 * UNIT), total * (1.0 - 16.0 * UNIT)

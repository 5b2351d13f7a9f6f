"""Where a calibration's search asks: its grid of points, the bracket's steps and the predicted root.

The search (:mod:`gpu_rs.calibration.search`) asks ``q`` on a :class:`Grid` whose points lie one
tolerance apart, so that its last two points are the answer and the point the check needs; it
brackets the answer from the 3σ rule's ``q`` by predicted steps (:func:`bracket`), and predicts
each next point from the parabola or the line through its latest points (:func:`root`).
docs/calibration.md §8 has the reasons and the counts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from gpu_rs.common.limits import MIN_Q_TOL, Q_RTOL

Q_MAX = 0.5 - 1e-9
"""Largest flip probability tried: q must stay below 1/2."""
FIRST_STEP = 1e-3
"""The bracket's first step from the 3σ rule's ``q``."""
GROWTH = 16.0
"""Most growth of a bracket step over the one before."""
OVERSHOOT = 1.1
"""A bracket step goes this factor beyond the predicted distance to the target."""


def relative_tol(q: float) -> float:
    """The default tolerance at ``q``: ``Q_RTOL · min(q, 1/2 − q)``.

    ``σ(d̂) ∝ √(q(1 − q)) / (1 − 2q)`` is as sensitive to ``q`` relative to ``q`` (small ``q``) as
    to ``1/2 − q`` (``q`` near 1/2): either way ``σ(d̂)`` is fixed to about ``Q_RTOL`` relative.
    """
    return Q_RTOL * min(q, 0.5 - q)


class Grid(NamedTuple):
    """The points the search asks: each one's next lower neighbour lies its own tolerance below it.

    ``q_tol`` given: ``hi₀ − m·q_tol``. Else (:func:`relative_tol`) the points at whole steps of a
    position that grows by exactly 1 from ``q`` to ``q − relative_tol(q)``: ``log q / log(1 − Q_RTOL)``
    up to 1/4, ``log(1/2 − q) / log(1 + Q_RTOL)`` plus a constant above (continuous at 1/4), so that the
    search's last two points are ``q`` and ``q − tol(q)`` themselves, whatever bracket it started from.
    """

    q_tol: float | None

    def spacing(self, q: float) -> float:
        """The tolerance at ``q``."""
        return self.q_tol if self.q_tol is not None else relative_tol(q)

    def offset(self, top: float, q: float) -> float:
        """How many tolerances ``q`` lies below ``top`` (real; ``top − m·q_tol`` at ``m`` where given).

        On the relative grid ``q = 0`` (no failing point known) counts as ``MIN_Q_TOL``, the finest
        tolerance that can be asked, or ``top`` if that is lower: positions grow without end towards 0."""
        if self.q_tol is not None:
            return (top - q) / self.q_tol
        return _position(q if q > 0.0 else min(top, MIN_Q_TOL)) - _position(top)

    def point(self, top: float, m: int) -> float:
        """The point ``m`` tolerances below ``top``."""
        if self.q_tol is not None:
            return top - m * self.q_tol
        pos = _position(top) + m
        if pos >= _QUARTER:
            return math.exp(pos * math.log1p(-Q_RTOL))
        return 0.5 - math.exp((pos - _JOIN) * math.log1p(Q_RTOL))


def _position(q: float) -> float:
    """The relative grid's position of ``q`` (:class:`Grid`)."""
    if q <= 0.25:
        return math.log(q) / math.log1p(-Q_RTOL)
    return math.log(0.5 - q) / math.log1p(Q_RTOL) + _JOIN


_QUARTER = math.log(0.25) / math.log1p(-Q_RTOL)
_JOIN = _QUARTER - math.log(0.25) / math.log1p(Q_RTOL)


def bracket(guess: float, ok: Callable[[float], bool], gap: Callable[[float], float]) -> tuple[float, float]:
    """``(lo, hi)`` with ``hi`` certified and ``lo`` not (or 0), from ``guess`` (the 3σ rule's ``q``).

    The steps leave ``guess`` towards the target, the first :data:`FIRST_STEP` long; each later one
    is the distance to the target that :func:`root` predicts from the last three values of ``gap``
    (:meth:`~gpu_rs.calibration.queries.Queries.log_gap`), :data:`OVERSHOOT` beyond it, at least
    :data:`FIRST_STEP` and at most :data:`GROWTH` times the step before, or 4 times that step where
    the points predict no crossing ahead.
    """
    up = not ok(guess)  # the value is above the target at guess: the answer lies above it
    sign, step, points = (1.0 if up else -1.0), FIRST_STEP, [(guess, gap(guess))]
    while True:
        here = points[-1][0]
        there = min(Q_MAX, here + step) if up else here - step
        if there <= 0.0:
            return 0.0, here
        if ok(there) == up:
            return (here, there) if up else (there, here)
        points.append((there, gap(there)))
        predicted = root(points[-3:])
        ahead = (predicted - there) * sign if predicted is not None else math.nan
        step = min(GROWTH * step, max(FIRST_STEP, OVERSHOOT * ahead)) if ahead > 0.0 else 4.0 * step


def root(points: list[tuple[float, float]]) -> float | None:
    """The root nearest the last of two or three points ``(q, f)``, or None if they define none: of the
    line through two; of the parabola through three (Muller's step), else of the line through the last two."""
    if not all(math.isfinite(f) for _, f in points) or len({q for q, _ in points}) < len(points):
        return None
    if len(points) == 3:
        (q0, f0), (q1, f1), (q2, f2) = points
        d01, d12 = (f1 - f0) / (q1 - q0), (f2 - f1) / (q2 - q1)
        a = (d12 - d01) / (q2 - q0)
        b = d12 + a * (q2 - q1)
        disc = b * b - 4.0 * a * f2
        if disc >= 0.0 and b != 0.0:
            return q2 - 2.0 * f2 / (b + math.copysign(math.sqrt(disc), b))
        points = points[1:]
    if len(points) < 2:
        return None
    (qa, fa), (qb, fb) = points
    return None if fa == fb else qb - fb * (qb - qa) / (fb - fa)

"""The grid of a profile's export: certified upper ``δ`` on multiples of a discretization, both orders.

:func:`export_grid` is the one place that places the points of a connect-the-dots pair
(:mod:`gpu_rs.quantities.profile_export` hands them to dp_accounting, and
:mod:`gpu_rs.pairs.compose_pairs` turns them into exact pairs to compose). It reads any profile
with ``scope``, ``eps_top``, ``rel_width``, ``bound_only`` and ``delta(eps)`` returning values with ``upper``
(and, below scope ``all``, ``forward`` and ``reverse`` ends): why each point is above the true
``δ`` is in :mod:`gpu_rs.quantities.profile_export`.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from gpu_rs.common.floats import FLOOR, SMALLEST_NORMAL, UNIT
from gpu_rs.common.validation import check_int, check_open

DISCRETIZATION = 1e-4
"""dp_accounting's default ``value_discretization_interval``: PLDs compose only when it is equal."""
POINTS = 100
"""Grid points with ``ε > 0`` (each order); the negative side mirrors them."""
DELTA_FLOOR = 1e-15
"""The grid ends where the certified upper ``δ`` falls to this (or stops falling)."""
SCAN = 16
"""Points ``ε₀ 2^−j``, ``j < SCAN``, scanned for the end of the grid."""
AIM = 1e-3
"""The grid's end is interpolated where ``δ`` would fall to ``AIM · delta_floor`` (:func:`grid_end`)."""

Point = tuple[Fraction, Fraction]


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


def convex(eps: np.ndarray, uppers: np.ndarray) -> np.ndarray:
    """Above the true ``δ`` at each ``ε`` and a pair's curve: the greatest convex minorant in ``λ = e^ε`` of
    ``(0, 1)`` and the points ``(λ_i rounded up, u_i)``, at each ``λ_i`` rounded down, rounded up to a float.

    ``δ`` is convex, nonincreasing and below every point (``u_i >= δ(λ_i) >= δ(λ_i up)``), so below that
    minorant, which is nonincreasing: its value at ``λ_i`` rounded down is at least ``δ(λ_i)``. Raw upper
    values need not be convex (the least of several proven bounds); their chords would give
    connect-the-dots masses that are no pair's (summing past 1, which composes to nonsense). A point
    ``(ε, 0)`` may be among them where ``δ`` is 0 from that ``ε`` on (:func:`gpu_rs.pairs.anchors.convex_bound`).
    """
    points = zip(lam(eps, True), [Fraction(float(u)) for u in uppers], strict=True)
    hull = lower_hull([(Fraction(0), Fraction(1)), *points])
    xs = [x for x, _ in hull]
    out = np.empty(len(eps))
    for i, x in enumerate(lam(eps, False)):
        j = min(max(1, bisect_right(xs, x)), len(xs) - 1)
        (x0, y0), (x1, y1) = hull[j - 1], hull[j]
        v = y1 if x >= x1 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
        f = float(v)
        out[i] = f if f >= v else math.nextafter(f, math.inf)
    return out


def _uppers(profile: Any, found: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Certified upper ``δ_{P‖Q}`` and ``δ_{Q‖P}`` from ``profile``'s values ``found`` at ``ε > 0``."""
    if profile.scope == "all":  # the proven end covers every pair, in both orders
        up = np.array([d.upper for d in found], dtype=float)
        return up, up
    return np.array([d.forward[1] for d in found], dtype=float), np.array([d.reverse[1] for d in found], dtype=float)


def grid_end(profile: Any, eps0: float, delta_floor: float) -> float:
    """Where the certified upper ``δ`` (both orders) falls to ``delta_floor``, moving continuously with the profile.

    Between the scanned ``ε`` above ``AIM · delta_floor`` and the first at or below it, the point where
    ``log δ``, linear between them, reaches that aim, if its certified ``δ`` is at most ``delta_floor``
    (``log δ`` need not be linear: one more value checks it); else the first scanned ``ε`` at or below
    ``delta_floor``. A grid end that jumped between scanned points would make every composition of the export
    jump with ``q`` (a calibration's search then meets steps). Where the profile cannot certify that little,
    the smallest scanned ``ε`` reaching the least upper value found.
    """
    scan = eps0 * 2.0 ** -np.arange(SCAN - 1, -1, -1.0)
    worst = np.maximum(*_uppers(profile, profile.delta(scan)))
    target = max(delta_floor, float(worst.min()))
    fallback = float(scan[np.argmax(worst <= target)])
    aim = AIM * delta_floor
    j = int(np.argmax(worst <= aim))
    if target > delta_floor or worst[j] > aim or j == 0:
        return fallback
    above, below = math.log(worst[j - 1]), math.log(max(float(worst[j]), SMALLEST_NORMAL))
    end = float(scan[j - 1] + (scan[j] - scan[j - 1]) * (above - math.log(aim)) / (above - below))
    return end if max(*_uppers(profile, profile.delta(np.array([end])))) <= delta_floor else fallback


def one_order(steps: np.ndarray, discretization: float, own: np.ndarray, other: np.ndarray) -> tuple:
    """``(rounded_epsilons, deltas)`` on ``−steps[::-1], …, steps`` for one order.

    ``own`` bounds this order at ``+steps · discretization``, ``other`` the reverse order there;
    at ``−t`` this order is ``1 − e^{−t} + e^{−t} δ_other(t)``, rounded up; the values are then made
    one pair's curve (:func:`convex`).
    """
    t = steps * discretization
    below = np.minimum(1.0, (-np.expm1(-t) + np.exp(-t) * other) * (1.0 + 8.0 * UNIT) + FLOOR)
    rounded = np.concatenate([-steps[::-1], steps])
    deltas = np.clip(np.concatenate([below[::-1], own]), 0.0, 1.0)
    return rounded, convex(rounded * discretization, np.minimum.accumulate(deltas))


@dataclass(frozen=True)
class Grid:
    """The export's points: each order's ``(rounded_epsilons, deltas)`` and the values they come from.

    ``at[i]`` is the ``ε`` (a hair below ``steps[i] · discretization``) where ``found[i]``, the
    profile's certified ``δ``, holds; ``remove`` and ``add`` are :func:`one_order` of each order.
    """

    discretization: float
    steps: np.ndarray
    at: np.ndarray
    found: tuple[Any, ...]
    remove: tuple[np.ndarray, np.ndarray]
    add: tuple[np.ndarray, np.ndarray]


def export_grid(
    profile: Any,
    *,
    points: int = POINTS,
    eps_max: float | None = None,
    discretization: float = DISCRETIZATION,
    delta_floor: float = DELTA_FLOOR,
) -> Grid:
    """The points of :func:`to_dp_accounting` (its parameters), both orders, padded as its docstring says."""
    if profile.scope not in ("homogeneous", "all"):
        raise ValueError(f"scope must be 'homogeneous' or 'all' to export both orders, got {profile.scope!r}")
    points = check_int("points", points, 2, 100_000)
    discretization = check_open("discretization", discretization, 0.0, 1.0)
    delta_floor = check_open("delta_floor", delta_floor, 0.0, 1.0)
    if eps_max is None:
        eps_max = grid_end(profile, profile.eps_top, delta_floor)
    eps_max = check_open("eps_max", eps_max, points * discretization, 1e4)
    steps = np.unique(np.ceil(np.linspace(eps_max / points, eps_max, points) / discretization).astype(np.int64))
    # a hair below each multiple: δ is nonincreasing, so the value there bounds δ at the multiple
    at = steps * discretization * (1.0 - 4.0 * UNIT)
    found = tuple(profile.delta(at))
    forward, reverse = _uppers(profile, found)
    # above our upper δ between points (docstring), where that is a curve met to the width: not a proven bound's
    width = 0.0 if profile.bound_only else profile.rel_width
    pad = (1.0 + width) * (1.0 + 8.0 * UNIT)
    forward, reverse = np.minimum(1.0, forward * pad), np.minimum(1.0, reverse * pad)
    remove = one_order(steps, discretization, forward, reverse)
    return Grid(discretization, steps, at, found, remove, one_order(steps, discretization, reverse, forward))

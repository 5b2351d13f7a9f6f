"""Where the every-pair curve computes its graded blankets, and the convex bound between them.

A graded blanket costs a lattice per ``(d, ε)``, so :meth:`gpu_rs.pairs.every_pair.Curve.deltas` computes
it at a few *anchors* among the values of ``ε`` asked, and bounds the others from them. Two facts make
the others tight:

* ``δ(ε)`` of a pair is ``Σ (P − λQ)_+ = E_Q[(P/Q − λ)_+]``, ``λ = e^ε``: convex and nonincreasing in
  ``λ``, and so is the largest ``δ`` over any set of pairs (a supremum of convex functions). It is 1 at
  ``λ = 0`` and 0 from ``λ = e^top`` on, ``top`` at least the log of the largest ratio ``(p/q)^d`` of one
  report (no output can have a larger ratio). Below upper bounds ``u_i`` at ``λ_i`` and those two points,
  it lies below their greatest convex minorant (:func:`convex_bound`).
* Between two anchors that bound is at most the larger of their values, so the anchors are spread
  evenly over the values of ``ε`` where ``δ`` is not negligible (:func:`next_anchor`): a grid that
  reaches far beyond (up to the largest loss, as the composition of ``k`` reports asks) would otherwise
  leave a few anchors where ``δ`` moves.

The maximum over distances needs the convex bound only of the distances that attain it (:func:`convex_max`).
:func:`spread_out` orders the distances of a tail the same way, coarse to fine.
"""

from __future__ import annotations

import itertools

import numpy as np

from gpu_rs.pairs.profile_grid import DELTA_FLOOR, convex

FLOOR = DELTA_FLOOR
"""Anchors are spread over the values of ``ε`` where the bound may exceed this (an export's end)."""

LOG_LARGEST = 700.0
"""The convex bound takes points with ``ε`` below this only (``e^ε`` stays a finite double, rounded outwards)."""


def next_anchor(values: np.ndarray, done: list[int]) -> int | None:
    """The next anchor: the least ``ε``, the largest, then the middle of the widest gap between anchors up to
    the first anchor whose value is at most :data:`FLOOR` (bisecting towards it, then spreading evenly).

    ``values`` is the current bound at each ``ε`` (sorted increasing), ``done`` the anchors computed,
    sorted. ``None`` where every gap up to there is computed.
    """
    last = values.shape[0] - 1
    if not done or done[-1] != last:
        return 0 if not done else last
    cut = next((i for i in done if values[i] <= FLOOR), last)
    gaps = [(b - a, a) for a, b in itertools.pairwise(done) if b <= cut and b - a > 1]
    if not gaps:
        return None
    width, a = max(gaps, key=lambda g: (g[0], -g[1]))
    return a + width // 2


def convex_bound(eps: np.ndarray, values: np.ndarray, top: float) -> np.ndarray:
    """``values`` (upper bounds on a ``δ`` convex and nonincreasing in ``e^ε``, 0 from ``ε = top`` on), lowered
    to the greatest convex minorant in ``λ`` of ``(0, 1)``, ``(e^top, 0)`` and the points below ``top``
    (module docstring), then to the least value at any ``ε`` at or below (``δ`` is nonincreasing), and 0 from
    ``top`` on. Points at ``ε >= LOG_LARGEST`` keep their values (neither hull points nor in the least value).
    :func:`~gpu_rs.pairs.profile_grid.convex` rounds every ``λ`` outwards and the result up, in exact rationals.
    """
    below = eps < top
    out = np.zeros(eps.shape)
    hulled = below & (eps < LOG_LARGEST)  # e^ε a finite double
    kept = below & ~hulled  # larger ε keep their values
    out[kept] = values[kept]
    if hulled.any():
        corner = [top] if top < LOG_LARGEST else []
        hull = convex(np.append(eps[hulled], corner), np.append(values[hulled], [0.0] * len(corner)))
        order = np.argsort(eps[hulled], kind="stable")
        least = np.minimum(values[hulled], hull[: int(hulled.sum())])[order]
        out[np.flatnonzero(hulled)[order]] = np.minimum.accumulate(least)
    return out


def convex_max(eps: np.ndarray, bounds: dict[int, np.ndarray], tops: dict[int, float]) -> np.ndarray:
    """``max_d`` of :func:`convex_bound` of each ``bounds[d]`` (zero from ``tops[d]`` on), lowering only the
    distances that attain the maximum somewhere until none is left unlowered (the others cannot raise it)."""
    bounds, lowered = dict(bounds), set[int]()
    while True:
        keys = list(bounds)
        stack = np.stack([bounds[d] for d in keys])
        binding = {keys[j] for j in np.unique(np.argmax(stack, axis=0))} - lowered
        if not binding:
            return np.max(stack, axis=0)
        for d in binding:
            bounds[d] = convex_bound(eps, bounds[d], tops[d])
        lowered |= binding


def spread_out(items: list[int]) -> list[int]:
    """``items`` middle first, then the middles of each half, and so on (a coarse-to-fine sweep)."""
    out, halves = [], [(0, len(items))]
    for lo, hi in halves:
        if lo < hi:
            out.append(items[(lo + hi) // 2])
            halves += [(lo, (lo + hi) // 2), ((lo + hi) // 2 + 1, hi)]
    return out

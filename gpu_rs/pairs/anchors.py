"""Where the every-pair curve computes its graded blankets, and the convex bound between them.

A graded blanket costs a lattice per ``(d, ε)``, so :meth:`gpu_rs.pairs.every_pair.Curve.deltas` computes
it at a few *anchors* among the values of ``ε`` asked, and bounds the others from them. Two facts make
the others tight:

* ``δ(ε)`` of a pair is ``E[(P − λQ)_+]``, ``λ = e^ε``: convex and nonincreasing in ``λ``, and so is the
  largest ``δ`` over any set of pairs (a supremum of convex functions). Below upper bounds ``u_i`` at
  ``λ_i``, and below 1 at ``λ = 0`` and 0 at the largest ratio ``e^{ε₀}`` of one report (no output can
  have a larger ratio), it lies below their greatest convex minorant (:func:`convex_bound`).
* Between two anchors that bound is at most the larger of their values, so the anchors go where the
  bound falls most between computed ones (:func:`next_anchor`): coarse to fine, wherever ``δ`` moves.

The maximum over distances needs the convex bound only of the distances that attain it (:func:`convex_max`).
"""

from __future__ import annotations

import itertools

import numpy as np

from gpu_rs.pairs.profile_grid import convex

LOG_LARGEST = 700.0
"""The convex bound takes points with ``ε`` below this only (``e^ε`` stays a finite double, rounded outwards)."""


def next_anchor(values: np.ndarray, done: list[int]) -> int | None:
    """The next anchor: the least ``ε`` first, then the middle of the gap where ``values`` falls most.

    ``values`` is the current bound at each ``ε`` (sorted increasing), ``done`` the anchors computed,
    sorted. The gaps lie between consecutive anchors and after the last one (to the last ``ε``, which
    is a candidate there, and where the bound may fall to 0). ``None`` where no gap holds a candidate
    over which ``values`` may fall.
    """
    if not done:
        return 0
    last = values.shape[0] - 1
    ends = done if done[-1] == last else [*done, last]
    best, pick = 0.0, None
    for a, b in itertools.pairwise(ends):
        end = b == last and b not in done
        high = b if end else b - 1  # the candidates: a + 1 ... high
        fall = float(values[a] - (0.0 if end else values[b]))
        if high > a and fall > best:
            best, pick = fall, (a + 1 + high) // 2
    return pick


def convex_bound(eps: np.ndarray, values: np.ndarray, top: float) -> np.ndarray:
    """``values`` (upper bounds on a ``δ`` convex and nonincreasing in ``e^ε``, 0 from ``ε = top`` on), lowered
    to the greatest convex minorant in ``λ`` of ``(0, 1)``, ``(e^top, 0)`` and the points below ``top``
    (module docstring), then to the least value at any ``ε`` at or below (``δ`` is nonincreasing), and 0 from
    ``top`` on. Points at ``ε >= LOG_LARGEST`` keep their values. :func:`~gpu_rs.pairs.profile_grid.convex`
    rounds every ``λ`` outwards and the result up, in exact rationals.
    """
    below = eps < top
    out = np.zeros(eps.shape)
    hulled = below & (eps < LOG_LARGEST)  # e^ε a finite double (larger ε keep their values)
    out[below & ~hulled] = values[below & ~hulled]
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

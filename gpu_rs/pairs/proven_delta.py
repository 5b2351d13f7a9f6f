"""``scope="all"`` for more than one bit: the least proven upper ``δ(ε)`` over every pair, at many ``ε``.

Three proven bounds cover every neighbouring pair at distance ``d`` in either order: the
collapsed clone bound of :mod:`gpu_rs.pairs.clones`, the graded clone bound of
:mod:`gpu_rs.pairs.reduction` (which per clone count already takes the smaller of the two), and
the graded blanket of :mod:`gpu_rs.pairs.blanket` (docs/worst-case.md §8). The bound over every
pair is the largest over ``d`` of the least of them. The graded clone bound costs a lattice
convolution per ``d`` (shared by every ``ε``), so a distance whose collapsed bound is already
below the running maximum at every ``ε`` is skipped, and so is the graded bound where its
lattice cannot reach the clone counts ``C`` takes (it would equal the collapsed one). The
blanket costs a lattice per ``(d, ε)``: up to :data:`BLANKET_BITS` bits it is computed at no more
than :data:`ANCHORS` values of ``ε`` of a call (all of them in a short call, e.g. a root
finder's), each for the distances that can still decide the maximum there; ``δ(ε)`` does not
increase with ``ε``, so a blanket value at an anchor bounds every larger ``ε`` of the call.
"""

from __future__ import annotations

import math

import numpy as np

from gpu_rs.common.floats import UNIT
from gpu_rs.engine.atoms import log_r
from gpu_rs.pairs import blanket, clones, reduction, variation_ratio

SKIP_SIGMAS = 8.0
"""The graded bound is skipped where its lattice stops this many standard deviations below ``C``'s mean."""
ANCHORS = 16
"""Most values of ``ε`` per call at which the graded blanket is computed."""
BLANKET_BITS = 16
"""The graded blanket is used up to this many bits: beyond, a call costs minutes (a lattice for each
of up to ``bits`` distances at each anchor: 120 s for one ``ε(δ)`` at L = 40, N = 1000)."""


def _graded_reaches(n: int, clone_prob: float, d: int) -> bool:
    """Whether the graded lattice reaches clone counts holding more than about 1e-15 of ``C``'s mass.

    Above its reach the graded bound charges each count the collapsed value, so where ``C``
    lies (almost) entirely above it the graded bound is the collapsed one; skipping it there
    only saves its convolutions (either bound is proven).
    """
    by_work = int(math.sqrt(reduction.WORK * reduction.GRID / (2.0 * (d + 1)))) + 1
    mean = (n - 1) * clone_prob
    return by_work >= mean - SKIP_SIGMAS * math.sqrt(mean * (1.0 - clone_prob)) - 1.0


def delta_upper(n: int, bits: int, q: float, eps: np.ndarray) -> np.ndarray:
    """A proven upper bound on ``δ(ε)`` over every neighbouring pair, either order, at each ``ε > 0``.

    Parameters
    ----------
    n, bits, q : int, int, float
        Users, bits per report, flip probability (``0 < q < 1/2``).
    eps : ndarray
        Privacy levels, each ``> 0``.

    Returns
    -------
    ndarray
        ``max_d`` of the least proven bound at distance ``d`` (module docstring), capped by the
        variation-ratio bound of :mod:`gpu_rs.pairs.variation_ratio` (at most 1).
    """
    eps = np.asarray(eps, dtype=float)
    lr = -log_r(q)
    collapsed = {}
    for d in range(1, bits + 1):
        eps0 = d * lr * (1.0 + 8.0 * UNIT)
        if eps0 <= float(eps.min()):
            continue  # every report's ratio is at most (p/q)^d <= e^ε: δ = 0 for every pair at this d
        p_d = clones.clone_probability(bits, q, d)
        collapsed[d] = np.array([clones.reduced_delta(n, p_d, eps0, float(e)) for e in eps])
    best = np.zeros(eps.shape)
    per_d = {}  # a proven bound for each distance, at every ε
    for d in sorted(collapsed, key=lambda k: -float(collapsed[k].max())):
        per_d[d] = collapsed[d].copy()
        if np.all(collapsed[d] <= best):
            continue  # the graded bound of d is at most its collapsed bound: it cannot raise the maximum
        if _graded_reaches(n, clones.clone_probability(bits, q, d), d):
            raise_at = collapsed[d] > best  # only there can the graded bound raise the maximum
            graded = reduction.delta_upper(n, bits, q, d, eps[raise_at])
            per_d[d][raise_at] = np.minimum(collapsed[d][raise_at], graded)
        best = np.maximum(best, per_d[d])
    # The variation-ratio bound (at most 1) holds for every pair at every distance: it caps the maximum over d.
    cap = variation_ratio.delta_upper(n, bits, q, eps)
    # At one bit the blanket is the clone decomposition itself ((2q)^1 = p_1 = 2q, and W is uniform).
    if not per_d or bits == 1 or bits > BLANKET_BITS or not _blanket_reaches(n, bits, q):
        return np.minimum(cap, best)
    return np.minimum(cap, with_blankets(n, bits, q, eps, per_d))


def _blanket_reaches(n: int, bits: int, q: float) -> bool:
    """Whether the blanket's lattice (at most ``blanket.REPORTS`` reports) reaches the blanket counts
    ``C ~ Bin(N − 1, (2q)^L)`` takes; above its reach it charges every count its last value, which is
    then no better than the clone bounds (measured: equal at N >= 1e5, L = 2 … 8, ε₀ = 4)."""
    mean = (n - 1) * blanket.blanket_probability(bits, q)
    return mean - SKIP_SIGMAS * math.sqrt(mean) <= blanket.REPORTS


def with_blankets(n: int, bits: int, q: float, eps: np.ndarray, per_d: dict[int, np.ndarray]) -> np.ndarray:
    """``max_d`` of ``per_d`` (proven bounds by distance), each lowered by the graded blanket where it helps.

    At each anchor (at most :data:`ANCHORS` values of ``eps``, the least one included) the
    distances are taken from the largest bound down, and the blanket is computed while the
    distance's bound exceeds the maximum so far; each ``ε`` then takes, per distance, the
    blanket of the largest anchor at or below it.
    """
    order = np.argsort(eps)
    picks = order if eps.shape[0] <= ANCHORS else order[np.linspace(0, eps.shape[0] - 1, ANCHORS).astype(int)]
    lowered = {d: values.copy() for d, values in per_d.items()}
    for i in sorted(picks, key=lambda j: eps[j]):
        running = 0.0
        for d in sorted(per_d, key=lambda k: -float(per_d[k][i])):
            if per_d[d][i] <= max(running, reduction.BLANKET_FLOOR):
                break  # no distance left can raise the maximum at this anchor
            value = blanket.delta_upper(n, bits, q, d, float(eps[i]), running)
            later = eps >= eps[i]  # δ(ε) does not increase with ε
            lowered[d][later] = np.minimum(lowered[d][later], value)
            running = max(running, float(lowered[d][i]))
    return np.max(np.stack(list(lowered.values())), axis=0)

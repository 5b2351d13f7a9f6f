"""``scope="all"`` for more than one bit: the least proven upper ``δ(ε)`` over every pair, at many ``ε``.

Two proven bounds cover every neighbouring pair in either order: the collapsed clone bound of
:mod:`gpu_rs.pairs.clones` and the graded clone bound of :mod:`gpu_rs.pairs.reduction`, which
per clone count already takes the smaller of the two. For each distance ``d`` of the change
the graded bound is therefore at most the collapsed one, and the bound over every pair is the
largest over ``d``. The graded bound costs a lattice convolution per ``d`` (shared by every
``ε``), so a distance whose collapsed bound is already below the running maximum at every
``ε`` is skipped (its graded bound cannot raise the maximum), and so is the graded bound
where its lattice cannot reach the clone counts ``C`` takes (it would equal the collapsed one).
"""

from __future__ import annotations

import math

import numpy as np

from gpu_rs.common.floats import UNIT
from gpu_rs.engine.atoms import log_r
from gpu_rs.pairs import clones, reduction

SKIP_SIGMAS = 8.0
"""The graded bound is skipped where its lattice stops this many standard deviations below ``C``'s mean."""


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
        ``max_d`` of the graded clone bound at distance ``d`` (module docstring), at most 1.
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
    for d in sorted(collapsed, key=lambda k: -float(collapsed[k].max())):
        if np.all(collapsed[d] <= best):
            continue  # the graded bound of d is at most its collapsed bound: it cannot raise the maximum
        if not _graded_reaches(n, clones.clone_probability(bits, q, d), d):
            best = np.maximum(best, collapsed[d])  # valid, and what the graded bound would give
            continue
        raise_at = collapsed[d] > best  # only there can the graded bound raise the maximum
        graded = reduction.delta_upper(n, bits, q, d, eps[raise_at])
        best[raise_at] = np.maximum(best[raise_at], np.minimum(collapsed[d][raise_at], graded))
    return np.minimum(1.0, best)

"""Edges of the distribution that the curve leaves wider than asked, refined by ``tail``'s engine.

The whole curve (:mod:`gpu_rs.quantities.distribution_curve`) brackets ``P[R > x]`` at every
edge with one spectrum; its error is absolute, so far in a heavy tail (``P`` near ``1e-8`` at
``L = 40``, ``N = 1e7``) an edge can stay wider than asked. Each such edge above ``R = 1`` is asked
again of the engine of ``tail(scope="forward")`` at ``e^ε = x``, and the two certified intervals
are intersected (both contain the truth, so their intersection does), at the width asked of the
edges (a finer one costs up to 6 times more per edge at ``L = 5``). ``tail`` takes a float ``ε``,
so the lower end comes from a threshold just above ``x`` and the upper end from one just below
(:data:`MARGIN`): both bound ``P[R > x]`` itself, even with an atom at ``x``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gpu_rs.common.backend import get_backend
from gpu_rs.common.limits import MAX_EPS, MIN_EPS
from gpu_rs.common.validation import Problem
from gpu_rs.engine.pipeline import Plan, plan_terms
from gpu_rs.pairs import scopes
from gpu_rs.quantities.tail import DEFAULT_MAX_TERMS

MAX_REFINED = 4
"""Edges refined at most (the widest first): each is two tail queries (0.2–2 s each at L = 5)."""
MARGIN = 1e-12
"""The thresholds asked are ``e^(log x ± MARGIN)``: far beyond the rounding of ``log x`` (at most
``700 u ≈ 8e-14`` for ``x < e^700``), so they lie below and above ``x`` itself."""


def forward_tail(
    n: int, bits: int, q: float, log_x: float, backend: str, rel_width: float, abs_width: float
) -> tuple[float, float]:
    """Certified ``P[R > e^log_x]`` from :func:`gpu_rs.pairs.scopes.forward` (the engine of ``tail``)."""
    be = get_backend(backend)
    plan_ = Plan(rel_width, abs_width, plan_terms(DEFAULT_MAX_TERMS, be.free_memory(), None))
    b = scopes.forward(Problem(n, bits, q, log_x), False, plan_, be.xp).bounds
    return float(b.lower), float(b.upper)


def sf_at(
    n: int, bits: int, q: float, x: float, backend: str, rel_width: float, abs_width: float
) -> tuple[float, float]:
    """Certified ``P[R > x]`` from ``tail``'s engine at ``e^(log x ± MARGIN)``, which bracket ``x``.

    ``tail`` takes a float ``ε``: the threshold just above ``x`` gives the lower end and the one
    just below the upper end (the sf does not increase), so both hold at ``x`` whatever atom lies
    near it. Needs ``MIN_EPS <= log x ± MARGIN < MAX_EPS``.
    """
    log_x = math.log(x)
    lower = forward_tail(n, bits, q, log_x + MARGIN, backend, rel_width, abs_width)[0]
    return lower, forward_tail(n, bits, q, log_x - MARGIN, backend, rel_width, abs_width)[1]


def takes(log_x: Any) -> Any:
    """Whether ``tail`` takes both thresholds ``e^(log x ± MARGIN)`` (elementwise)."""
    return (log_x - MARGIN >= MIN_EPS) & (log_x + MARGIN < MAX_EPS)


def asked(lower: np.ndarray, upper: np.ndarray, rel_width: float, abs_width: float) -> np.ndarray:
    """The width asked of each bracket: ``max(rel_width · min(sf, 1 − sf), abs_width)``."""
    return np.maximum(rel_width * np.maximum(np.minimum(lower, 1.0 - upper), 0.0), abs_width)


def wide(lower: np.ndarray, upper: np.ndarray, rel_width: float, abs_width: float) -> np.ndarray:
    """Whether each bracket is wider than :func:`asked`."""
    return (upper - lower) > asked(lower, upper, rel_width, abs_width)


def refine(
    prob: Problem,
    edges: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    backend: str,
    widths: tuple[float, float, float, float],
) -> tuple[np.ndarray, np.ndarray, int]:
    """Intersect the curve's brackets with ``tail``'s at up to :data:`MAX_REFINED` edges left wide.

    ``widths`` is ``(rel, abs)`` asked of the edges, then ``(rel, abs)`` asked of ``tail``. Returns
    the new ``lower``, ``upper`` and the number of edges asked again. Only edges wider than asked
    with ``MIN_EPS <= log x ± MARGIN < MAX_EPS`` (the thresholds ``tail`` takes) are asked, widest
    (relative to the width asked) first.
    """
    excess = (upper - lower) / asked(lower, upper, *widths[:2])
    todo = np.flatnonzero((excess > 1.0) & takes(np.log(np.maximum(edges, np.finfo(float).tiny))))
    todo = todo[np.argsort(-excess[todo], kind="stable")][:MAX_REFINED]
    lower, upper = lower.copy(), upper.copy()
    for i in todo.tolist():
        lo, hi = sf_at(prob.n, prob.bits, prob.q, float(edges[i]), backend, *widths[2:])
        if max(lower[i], lo) > min(upper[i], hi):
            raise RuntimeError(f"two certified intervals for P[R > {edges[i]!r}] are disjoint: a bug")
        lower[i], upper[i] = max(lower[i], lo), min(upper[i], hi)
    return lower, upper, int(todo.shape[0])

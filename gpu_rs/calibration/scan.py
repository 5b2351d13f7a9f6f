"""The scan for certified dips below a calibration's answer, where no proof covers the range.

For ``bits <= 3`` the tail is a lattice sawtooth in ``q`` with a period near 1e-3, so the scan is
dense; for more bits an atom crossing the threshold makes the tail jump, and the scan is sparse,
with geometric steps. One bit (scopes ``forward`` and ``homogeneous``) needs no scan: the floors
of :mod:`gpu_rs.calibration.dips` cover the whole range below the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from gpu_rs.calibration.queries import COARSE, Queries


class DenseScan(NamedTuple):
    """Dense scan for dips (a lattice sawtooth): its step, most points, and the largest ``bits`` it runs for."""

    step: float
    points: int
    max_bits: int


class SparseScan(NamedTuple):
    """Sparse scan for larger ``bits``: first step, growth factor, widest range."""

    first: float
    growth: float
    reach: float


DENSE = DenseScan(step=5e-5, points=40, max_bits=3)
SPARSE = SparseScan(first=1e-4, growth=2.0, reach=0.02)
SCAN_STOP = 1.5
"""A scan point whose lower bound exceeds this factor of eta counts as a miss; four in a row end it."""
REUSE = 0.2
"""A scan point may be replaced by a computed point within this share of its offset (dense: of its step)."""


def near_seen(query: Queries, q: float, tol: float) -> float:
    """A computed point within ``tol`` of ``q`` (the same grid point up to rounding), else ``q``."""
    return next((s for s in query.seen if abs(s - q) <= tol), q)


def scan(
    hi: float, bits: int, eta: float, q_tol: float, query: Queries, skip: Callable[[float], bool] | None = None
) -> float:
    """The lowest certified ``q`` found below ``hi`` by cheap queries (``hi`` if none).

    For ``bits <= 3`` (a lattice sawtooth with a period near 1e-3) the scan is dense,
    restarting its step at every point near eta; otherwise sparse, with geometric steps.
    A point already computed near a scan point stands in for it; a point where ``skip`` is
    true (a proven tail above eta) is passed over without a query.
    """

    def value_near(q: float, tol: float) -> tuple[float, Any]:
        # A coarse interval that straddles eta is refined until it decides (a dip's floor can
        # lie within the coarse width of eta: n = 1e4, L = 2, ln 2 missed its first tooth so).
        q = near_seen(query, q, tol)
        query.decide(q, eta, query.widths.get(q, max(query.rel_width, COARSE)))
        return q, query.certifying.get(q, query.seen[q])

    lowest, misses = hi, 0
    if bits <= DENSE.max_bits:
        step, points = DENSE.step, DENSE.points
        q = hi
        for _ in range(points):
            q -= step
            if q <= q_tol:
                break
            if skip is not None and skip(q):
                continue
            q, b = value_near(q, REUSE * DENSE.step)
            if b.upper <= eta:
                lowest, step, misses = min(lowest, q), DENSE.step, 0
            elif query.above(q, b, SCAN_STOP * eta):
                misses += 1
                if misses >= 4:
                    break
                step *= 1.5
            else:
                step, misses = DENSE.step, 0
        return lowest
    first, growth, reach = SPARSE
    offset = first
    while offset <= reach and hi - offset > q_tol:
        q, b = value_near(hi - offset, REUSE * offset)
        if b.upper <= eta:
            lowest = min(lowest, q)
        elif query.above(q, b, SCAN_STOP * eta):
            misses += 1
            if misses >= 4:
                break
        offset *= growth
    return lowest

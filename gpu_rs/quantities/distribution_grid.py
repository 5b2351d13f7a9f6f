"""Where the buckets of :func:`~gpu_rs.quantities.distribution.ratio_distribution` go.

The default grid follows the mass: linear steps over the body of ``R`` (from the closed-form
mean and standard deviation, clipped to Chernoff quantiles), then, if the upper tail reaches
much further (heavy atoms), logarithmic steps out to the point beyond which at most
``tail_mass`` is left (a Chernoff bound mixed over the outlier's atoms).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gpu_rs.common.validation import check_real
from gpu_rs.engine.laws import SumLaw, restrict
from gpu_rs.quantities.distribution_curve import ForwardCurve

BODY_SDS = 5.0
"""The linear part covers the mean ± this many standard deviations (within the support)."""
BODY_MASS = 1e-4
"""The linear part ends where the zero-vector users leave at most this much mass above (Chernoff)."""
NUDGE = 1e-7
"""Relative nudge of the grid's ends off the atoms (an edge on an atom is certified only as wide as its mass)."""
LOG_SHARE = 0.5
"""Share of the buckets given to a logarithmic tail."""


def upper_point(fc: ForwardCurve, level: float, start: float) -> float:
    """An ``x >= start`` with ``P[R > x] <= level`` by the Chernoff bounds alone (bisection in ``log x``)."""
    top = (fc.n * float(fc.w[-1]) + fc.y_max) / fc.n * 1.01 + float(fc.w[-1])

    def bound(x: float) -> float:
        y, err = fc.thresholds(np.array([x]))
        return float(fc._mix(fc._chernoff(y, err)[1], low=False)[0])

    lo, hi = math.log(max(start, 1e-300)), math.log(top)
    if bound(math.exp(lo)) <= level:
        return math.exp(lo)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if bound(math.exp(mid)) <= level else (mid, hi)
    return math.exp(hi)


def _light(fc: ForwardCurve) -> SumLaw:
    """The zero-vector users' sum without its rare heavy atoms (expected in at most ``BODY_MASS`` × 100 records)."""
    expected = fc.m * fc.record.probs
    rare = np.cumsum(expected[::-1])[::-1] <= 100.0 * BODY_MASS
    rare[0] = False
    return SumLaw(((restrict(fc.record, ~rare), fc.m),))


def default_edges(fc: ForwardCurve, mean: float, var: float, buckets: int, tail_mass: float) -> tuple[np.ndarray, bool]:
    """The default bucket edges (``buckets + 1`` increasing values) and whether a log tail is used.

    The body runs from where ``X′/N`` (the zero-vector users) leaves ``tail_mass`` below to where its
    common atoms (rare heavy ones left out) leave ``BODY_MASS`` above (Chernoff),
    shifted by the outlier's median atom over ``N``, clipped to the mean ± ``BODY_SDS`` standard
    deviations; the tail runs to where at most ``tail_mass`` of ``R`` is left.
    """
    sd = math.sqrt(max(var, 0.0))
    cum = np.cumsum(fc.p_lo)
    w_mid = float(fc.w[min(int(np.searchsorted(cum, 0.5)), fc.w.shape[0] - 1)])
    base = fc.m * fc.w0
    lo, body = (base + float(fc.w[0])) / fc.n, (base + w_mid) / fc.n
    if fc.law is not None:
        from gpu_rs.engine import chernoff

        lo = max(lo, (base + max(chernoff.lower_quantile(fc.law, tail_mass), 0.0) + float(fc.w[0])) / fc.n)
        body = (base + chernoff.upper_quantile(_light(fc), BODY_MASS) + w_mid) / fc.n
    lo = max(lo, mean - BODY_SDS * sd)
    body = max(min(body, mean + BODY_SDS * sd), lo * (1 + 1e-9) + 1e-12)
    top = max(upper_point(fc, tail_mass, lo), lo * (1 + 1e-6) + 1e-12) * (1 + NUDGE)
    lo, body = lo * (1 - NUDGE), body * (1 + NUDGE)
    if top <= 2.0 * body or buckets < 8:
        return np.linspace(lo, top, buckets + 1), False
    n_log = max(1, round(LOG_SHARE * buckets))
    linear = np.linspace(lo, body, buckets - n_log + 1)
    tail = np.geomspace(body, top, n_log + 1)[1:]
    return np.concatenate([linear, tail]), True


def chosen_edges(lo: float, hi: float, buckets: int, log: bool) -> np.ndarray:
    """Edges over ``[lo, hi]``: equal steps, or equal ratios with ``log``."""
    return np.geomspace(lo, hi, buckets + 1) if log else np.linspace(lo, hi, buckets + 1)


def edges_of(
    fc: ForwardCurve, mean: float, var: float, buckets: int, tail_mass: float, span: Any, log: bool
) -> tuple[np.ndarray, bool]:
    """The edges asked (``span``, ``log``) or the default grid, and whether part of it is logarithmic."""
    if span is None:
        if log:
            raise ValueError("log=True needs range=(A, B): the default grid already has a logarithmic tail")
        return default_edges(fc, mean, var, buckets, tail_mass)
    if not isinstance(span, (tuple, list)) or len(span) != 2:
        raise ValueError(f"range must be a pair (A, B) with A < B: got {span!r}")
    lo, hi = (check_real("range", v) for v in span)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi) or (log and lo <= 0.0):
        need = "0 < A < B" if log else "A < B, both finite"
        raise ValueError(f"range must be a pair (A, B) with {need}: got {span!r}")
    return chosen_edges(lo, hi, buckets, log), log

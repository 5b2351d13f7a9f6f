"""Chernoff tails and quantiles of a :class:`~gpu_rs.engine.laws.SumLaw` from its exact MGF.

These bounds choose the inversion window and bound the mass outside it (SPEC §4,
truncation and wrap-around), and they answer outright where a tail is far below
the width asked. With ``K(θ)`` the log-MGF, ``P[Y >= x] <= exp(K(θ) − θx)`` for
every ``θ > 0`` (``P[Y <= x]`` likewise for ``θ < 0``); each bound is multiplied by
``exp(law.slack)`` for the float error of the probabilities.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from scipy.optimize import brentq

from gpu_rs.common.floats import EXP_LIMIT, FLOOR, TINY
from gpu_rs.engine.laws import SumLaw

SEARCH_START = -60.0
"""The root search starts at ``θ = e^SEARCH_START / spread`` ..."""
SEARCH_RANGE = 400.0
"""... and tries ``log θ`` up to ``SEARCH_RANGE`` above that."""
EDGE = 1e-12
"""Relative margin beyond the support's ends inside which no bound is claimed to vanish."""


def _root(law: SumLaw, f: Callable[[float], float]) -> float | None:
    """A root in ``log θ`` of the non-decreasing ``f``, bracketed upward; None if none in range."""
    lo = -math.log(max(law.max - law.min, FLOOR)) + SEARCH_START
    hi = lo + 4.0
    while f(hi) < 0:
        hi += 4.0
        if hi - lo > SEARCH_RANGE or hi > EXP_LIMIT:  # no root, or θ = e^hi beyond float64
            return None
    for _ in range(50):
        if f(lo) <= 0:
            break
        lo -= 20.0
    else:  # no sign change down to θ ≈ 0 (x within rounding of the mean, or θ underflowing)
        return None
    return brentq(f, lo, hi, xtol=1e-12, maxiter=200)


def _theta_for_level(law: SumLaw, level: float, sign: float) -> float | None:
    """``θ`` of the given sign with ``θK'(θ) − K(θ) = level``: the Chernoff exponent reaches ``level``."""

    def h(log_s: float) -> float:
        th = sign * math.exp(log_s)
        return th * law.tilted_mean(th) - law.log_mgf(th) - level

    root = _root(law, h)
    return None if root is None else sign * math.exp(root)


def upper_quantile(law: SumLaw, delta: float) -> float:
    """A point ``x`` with ``P[Y >= x] <= delta`` (as small as Chernoff allows)."""
    top = law.max * (1 + EDGE) + FLOOR
    theta = _theta_for_level(law, math.log(1.0 / delta) + law.slack, 1.0)
    return top if theta is None else min(law.tilted_mean(theta), top)


def lower_quantile(law: SumLaw, delta: float) -> float:
    """A point ``x`` with ``P[Y <= x] <= delta``."""
    bottom = law.min * (1 - EDGE) - FLOOR
    theta = _theta_for_level(law, math.log(1.0 / delta) + law.slack, -1.0)
    return bottom if theta is None else max(law.tilted_mean(theta), bottom)


def upper_tail(law: SumLaw, x: float) -> float:
    """Chernoff bound on ``P[Y >= x]``."""
    if x > law.max * (1 + EDGE):
        return 0.0
    if x <= law.mean:
        return 1.0
    return _tail_at(law, x, 1.0)


def lower_tail(law: SumLaw, x: float) -> float:
    """Chernoff bound on ``P[Y <= x]``."""
    if x < law.min * (1 - EDGE):
        return 0.0
    if x >= law.mean:
        return 1.0
    return _tail_at(law, x, -1.0)


def _tail_at(law: SumLaw, x: float, sign: float) -> float:
    """``exp(K(θ) − θx + slack)`` at the θ of the given sign where ``K'(θ) = x``.

    Any θ of that sign gives a valid bound; the root gives the best one. Where no
    root is bracketed (``x`` at the edge of the support) the largest θ tried is used.
    """

    def g(log_s: float) -> float:
        return sign * (law.tilted_mean(sign * math.exp(log_s)) - x)

    root = _root(law, g)
    if root is None:
        root = min(-math.log(max(law.max - law.min, FLOOR)) + SEARCH_START + SEARCH_RANGE, EXP_LIMIT)
    theta = sign * math.exp(root)
    # Never 0: a bound that underflows still stands for a positive probability.
    return min(1.0, max(TINY, math.exp(min(0.0, law.log_mgf(theta) - theta * x) + law.slack)))

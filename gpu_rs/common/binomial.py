"""The binomial law's log-probabilities from log-gamma: the one spelling of the formula in gpu_rs.

``log P(Bin(n, p) = j) = log Γ(n + 1) − log Γ(j + 1) − log Γ(n − j + 1) + j log p + (n − j) log(1 − p)``,
its five terms added in that order (callers rely on the same floats wherever it is evaluated).
"""

from __future__ import annotations

import math
from typing import Any

from scipy.special import gammaln

from gpu_rs.common.floats import UNIT


def log_pmf_terms(n: Any, j: Any, log_p: float, log_1mp: float) -> tuple[Any, Any, Any, Any, Any]:
    """The five terms of ``log P(Bin(n, p) = j)`` (broadcast over ``n`` and ``j``), for a caller that also
    bounds the error from their magnitudes."""
    return gammaln(n + 1.0), gammaln(j + 1.0), gammaln(n - j + 1.0), j * log_p, (n - j) * log_1mp


def log_pmf(n: Any, j: Any, log_p: float, log_1mp: float) -> Any:
    """``log P(Bin(n, p) = j)`` (module docstring), ``log_p = log p`` and ``log_1mp = log(1 − p)``."""
    whole, first, rest, hits, misses = log_pmf_terms(n, j, log_p, log_1mp)
    return whole - first - rest + hits + misses


def log_lower_tail(n: int, k: int, p: float) -> float:
    """The log of an upper bound on ``P(Bin(n, p) <= k)`` for ``0 <= k`` with ``ρ < 1`` below (else 0).

    Below ``k`` the masses fall at least geometrically: ``P(j − 1)/P(j) = j(1 − p)/((n − j + 1)p) <= ρ``,
    ``ρ`` the ratio at ``j = k``, so the tail is at most ``P(k)/(1 − ρ)``. ``log P(k)`` errs by at most
    ``8u`` times the sum of its terms' magnitudes (each library function accurate to a few ulp).
    """
    if k >= n:
        return 0.0
    rho = k * (1.0 - p) / ((n - k + 1.0) * p) * (1.0 + 8.0 * UNIT)
    if rho >= 1.0:
        return 0.0
    terms = log_pmf_terms(float(n), float(k), math.log(p), math.log1p(-p))
    whole, first, rest, hits, misses = (float(t) for t in terms)
    log_pk = whole - first - rest + hits + misses
    err = 8.0 * UNIT * (abs(whole) + abs(first) + abs(rest) + abs(hits) + abs(misses) + 1.0)
    return min(0.0, log_pk + err - math.log1p(-rho) * (1.0 + 8.0 * UNIT) + 8.0 * UNIT)

"""The binomial law: its log-probabilities from log-gamma, and its exact probabilities (rationals, or rounded once).

``log P(Bin(n, p) = j) = log Γ(n + 1) − log Γ(j + 1) − log Γ(n − j + 1) + j log p + (n − j) log(1 − p)``,
its five terms added in that order (callers rely on the same floats wherever it is evaluated): the one
spelling of the formula in gpu_rs. For small ``n`` (up to about a thousand), :func:`pmf_exact` and
:func:`pmf_float` give every probability exactly, or correctly rounded.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
from scipy.special import gammaln

from gpu_rs.common.floats import UNIT
from gpu_rs.common.logspace import comb_row


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


def exact_terms(m: int, success: Fraction) -> tuple[list[int], int]:
    """Integers ``c_i`` and ``D`` with ``P[Bin(m, success) = i] = c_i / D`` exactly, ``i = 0 … m``: with
    ``success = a / b``, ``c_i = C(m, i) a^i (b − a)^(m − i)`` and ``D = b^m``."""
    a, b = success.as_integer_ratio()
    hits, misses = [1], [1]
    for _ in range(m):
        hits.append(hits[-1] * a)
        misses.append(misses[-1] * (b - a))
    return [c * hits[i] * misses[m - i] for i, c in enumerate(comb_row(m))], b**m


@lru_cache(maxsize=4096)
def pmf_exact(m: int, success: Fraction) -> tuple[Fraction, ...]:
    """``P[Bin(m, success) = i]``, ``i = 0 … m``, exactly (in Fractions: at ``m = 1024`` 1.5 times faster than
    reducing each ratio of :func:`exact_terms` to lowest terms)."""
    fail = 1 - success
    return tuple(c * success**i * fail ** (m - i) for i, c in enumerate(comb_row(m)))


@lru_cache(maxsize=4096)
def pmf_float(m: int, q: float, flipped: bool) -> np.ndarray:
    """``P[Bin(m, p) = i]`` (``flipped=False``, ``p = 1 − q`` exactly) or ``P[Bin(m, q) = i]``, ``i = 0 … m``, each
    the exact rational correctly rounded to float64 (an integer ratio: Python's ``int / int`` rounds correctly).

    So each errs by at most ``u`` relative where it is a normal float, and by at most ``2^-1075`` where it is not
    (subnormal or 0). Read-only (cached).
    """
    terms, scale = exact_terms(m, Fraction(q) if flipped else 1 - Fraction(q))
    out = np.array([c / scale for c in terms])
    out.setflags(write=False)
    return out

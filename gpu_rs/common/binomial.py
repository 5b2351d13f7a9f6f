"""The binomial law's log-probabilities from log-gamma: the one spelling of the formula in gpu_rs.

``log P(Bin(n, p) = j) = log Γ(n + 1) − log Γ(j + 1) − log Γ(n − j + 1) + j log p + (n − j) log(1 − p)``,
its five terms added in that order (callers rely on the same floats wherever it is evaluated).
"""

from __future__ import annotations

from typing import Any

from scipy.special import gammaln


def log_pmf_terms(n: Any, j: Any, log_p: float, log_1mp: float) -> tuple[Any, Any, Any, Any, Any]:
    """The five terms of ``log P(Bin(n, p) = j)`` (broadcast over ``n`` and ``j``), for a caller that also
    bounds the error from their magnitudes."""
    return gammaln(n + 1.0), gammaln(j + 1.0), gammaln(n - j + 1.0), j * log_p, (n - j) * log_1mp


def log_pmf(n: Any, j: Any, log_p: float, log_1mp: float) -> Any:
    """``log P(Bin(n, p) = j)`` (module docstring), ``log_p = log p`` and ``log_1mp = log(1 − p)``."""
    whole, first, rest, hits, misses = log_pmf_terms(n, j, log_p, log_1mp)
    return whole - first - rest + hits + misses

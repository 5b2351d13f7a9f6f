"""Sums and binomials in log space, for values far outside the float64 range."""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache


@lru_cache(maxsize=65536)
def log_comb(n: int, j: int) -> float:
    """``log C(n, j)`` (``-inf`` outside ``0 <= j <= n``), accurate for any ``n``.

    ``math.comb`` is exact and ``math.log`` of a Python int is correctly computed even for
    ints beyond float range, so this has relative error ~1e-16 also for ``n = 1e10``
    (``lgamma`` differences would lose ~1e-5 there).
    """
    if j < 0 or j > n:
        return -math.inf
    return math.log(math.comb(n, j))


@lru_cache(maxsize=256)
def comb_row(n: int) -> tuple[int, ...]:
    """``C(n, j)`` for ``j = 0 … n``, exact (each from the one before: ``C(n, j + 1) = C(n, j) (n − j) / (j + 1)``)."""
    row = [1]
    for j in range(n):
        row.append(row[-1] * (n - j) // (j + 1))
    return tuple(row)


def logsumexp(xs: Iterable[float]) -> float:
    """``log Σ e^x`` over the finite terms (``-inf`` for an empty or all ``-inf`` sum)."""
    finite = [x for x in xs if x != -math.inf]
    if not finite:
        return -math.inf
    top = max(finite)
    return top + math.log(math.fsum(math.exp(x - top) for x in finite))


def log_expm1(x: float) -> float:
    """``log(e^x − 1)`` for ``x > 0`` without overflow or cancellation (``-inf`` for ``x <= 0``)."""
    if x <= 0.0:
        return -math.inf
    if x > 30.0:
        return x + math.log1p(-math.exp(-x))
    return math.log(math.expm1(x))


def log_softplus(x: float) -> float:
    """``log(1 + e^x)``."""
    if x > 30.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))

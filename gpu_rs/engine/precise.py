"""Atom logs and thresholds to about 30 digits: which atoms cross, and where ``y`` lies.

A float64 log of an atom near ``e^580`` errs by about ``1e-13`` relative once
exponentiated, as much as may separate an atom from a threshold ``n e^ε`` set near it;
then no float method can tell which side the atom is on, and the interval stays wide
however long it runs. Here ``log r = log q − log(1 − q)`` is computed in decimal
arithmetic (``q`` is a float, so ``Decimal(q)`` is exact), each atom's log
``power (L − 2l) log r`` is kept as a pair ``hi + lo`` of floats (double-double), and
the threshold ``log t = log n ± ε`` likewise. An atom and the threshold are never equal
(``e^ε`` is transcendental for a float ``ε ≠ 0``, the atoms rational), so 30 digits
decide almost every comparison; those they cannot decide stay ambiguous.
"""

from __future__ import annotations

import decimal
from decimal import Decimal
from functools import lru_cache

import numpy as np

from gpu_rs.common.floats import UNIT

CONTEXT = decimal.Context(prec=40, Emin=-(10**8), Emax=10**8)
"""Decimal arithmetic: 40 digits, an exponent range far beyond any atom."""
LOG_ERROR = 1e-28
"""Absolute error bound, per unit of ``1 + |x|``, of a double-double log ``x`` here."""
VALUE_ERROR = 10.0 * UNIT
"""Relative error bound of :func:`scaled_gaps` (exp, the product and ``expm1``, each a few ulp)."""


@lru_cache(maxsize=64)
def log_r(q: float) -> Decimal:
    """``log(q / (1 − q))`` to 40 digits."""
    dq = Decimal(q)
    return CONTEXT.subtract(CONTEXT.ln(dq), CONTEXT.ln(CONTEXT.subtract(Decimal(1), dq)))


@lru_cache(maxsize=256)
def log_values(bits: int, q: float, power: int) -> tuple[np.ndarray, np.ndarray]:
    """``(hi, lo)`` with ``hi + lo = power (L − 2l) log r`` for ``l = 0..L``."""
    lr = log_r(q)
    exact = [CONTEXT.multiply(Decimal(power * (bits - 2 * l)), lr) for l in range(bits + 1)]
    hi = np.array([float(x) for x in exact])
    lo = np.array([float(CONTEXT.subtract(x, Decimal(h))) for x, h in zip(exact, hi, strict=True)])
    for a in (hi, lo):
        a.flags.writeable = False
    return hi, lo


def to_decimal(hi: float, lo: float) -> Decimal:
    """``hi + lo`` as a Decimal."""
    return CONTEXT.add(Decimal(hi), Decimal(lo))


def log_threshold(log_t: float, exact: tuple[int, float] | None) -> Decimal:
    """``log t``: ``log n + x`` to 40 digits where ``t = n e^x`` is given, else the float ``log_t``."""
    if exact is None:
        return Decimal(log_t)
    n, x = exact
    return CONTEXT.add(CONTEXT.ln(Decimal(n)), Decimal(x))


def exp(x: Decimal) -> Decimal:
    """``e^x`` to 40 digits."""
    return CONTEXT.exp(x)


def _two_sum(a: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
    """``s + e = a + b`` exactly (Knuth's TwoSum, elementwise)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def minus(hi: np.ndarray, lo: np.ndarray, x: Decimal) -> tuple[np.ndarray, np.ndarray]:
    """``(hi + lo) − x`` as a double-double pair (error within :data:`LOG_ERROR`)."""
    x_hi = float(x)
    x_lo = float(CONTEXT.subtract(x, Decimal(x_hi)))
    s, e = _two_sum(hi, -x_hi)
    return s, e + (lo - x_lo)


def scaled_gaps(hi: np.ndarray, lo: np.ndarray, log_s: Decimal) -> np.ndarray:
    """``(w_l − w_0) / s`` from the logs ``hi + lo`` of ``w_l``; relative error :data:`VALUE_ERROR`.

    ``e^(x_hi) (1 + x_lo)`` is ``e^x`` to a few ulp (``|x_lo|`` is below an ulp of ``x``), and
    ``w_l − w_0 = w_l (−expm1(−d))`` with ``d = log w_l − log w_0`` has no cancellation.
    Values beyond float64 are ``inf`` (they are never kept).
    """
    x_hi, x_lo = minus(hi, lo, log_s)
    d = (hi - hi[0]) + (lo - lo[0])
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.exp(x_hi) * (1.0 + x_lo) * -np.expm1(-d)
    out[0] = 0.0
    return out


def crosses(hi: np.ndarray, lo: np.ndarray, log_t: Decimal, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """``(kept, ambiguous)``: atoms certainly not above ``t`` or within ``margin`` of it, and those within."""
    s, e = minus(hi, lo, log_t)
    diff = s + e
    ambiguous = np.abs(diff) <= margin
    return (diff < 0.0) | ambiguous, ambiguous


def log_margin(log_t: Decimal, log_t_error: float) -> float:
    """How far (in log) an atom must be from ``log t`` to be decided: the threshold's and the logs' error."""
    return log_t_error + 4.0 * LOG_ERROR * (1.0 + abs(float(log_t)))

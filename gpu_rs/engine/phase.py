"""Phases ``2π k x mod 2π`` for large ``k`` without losing accuracy.

``x`` is split into ``hi + lo`` with ``hi`` carrying 26 significant bits, so
``k * hi`` is exact in float64 for ``k < 2**27`` and so is its fractional
part. The rounding left is about ``u (1 + k |lo|)`` turns, ``|lo| ≤ 2**-26 |x|``,
instead of ``u k |x|`` for the naive product.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from gpu_rs.common.floats import UNIT

MAX_K = 1 << 27
SPLIT_BITS = 26


def split(x: Fraction | float) -> tuple[float, float]:
    """``(hi, lo)`` with ``hi`` of 26 significant bits and ``hi + lo`` within ``u |lo|`` of ``x``."""
    x = Fraction(x)
    approx = float(x)
    if approx == 0.0:
        return 0.0, 0.0
    mant, exp = math.frexp(approx)
    hi = math.ldexp(round(math.ldexp(mant, SPLIT_BITS)), exp - SPLIT_BITS)
    return hi, float(x - Fraction(hi))


def turns(xp: Any, k: Any, parts: tuple[float, float], k_max: float) -> tuple[Any, Any]:
    """``k x`` reduced to ``[-1/2, 1/2]`` turns, and a bound on its error (in turns).

    ``k`` holds integers below ``2**27`` as float64; ``k_max`` bounds them.
    Where ``k_max |x| <= 1/2`` no reduction is needed and ``k x`` is returned
    directly, with a relative error of a few ``u``.
    """
    hi, lo = parts
    if k_max * abs(hi + lo) <= 0.5:
        direct = k * (hi + lo)
        return direct, (4.0 * UNIT) * xp.abs(direct)
    whole = k * hi  # exact: 26 x 27 significant bits
    frac = whole - xp.round(whole)  # exact
    total = frac + k * lo
    wraps = xp.round(total)
    reduced = total - wraps  # exact
    err = (2.0 * UNIT) * (xp.abs(reduced) + xp.abs(wraps) + k_max * abs(lo))
    return reduced, err

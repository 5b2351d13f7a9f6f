"""Named floating-point constants and the one exact-to-float split the engine uses.

Every bound in gpu_rs charges float64 rounding in units of :data:`UNIT`; these
names replace the literals (``1e-300``, ``700.0``, ...) that would otherwise be
repeated through the engine.
"""

from __future__ import annotations

import math
from fractions import Fraction

UNIT = 2.0**-53
"""Unit round-off of float64: every correctly rounded operation errs by at most ``UNIT`` relative."""
TINY = 2.0**-1074
"""The smallest positive float64 (subnormal)."""
SMALLEST_NORMAL = 2.0**-1022
"""The smallest normal float64; below it relative accuracy is lost."""
FLOOR = 1e-300
"""A positive floor for probabilities used as divisors or widths, far below any target."""
EXP_LIMIT = 700.0
"""``exp(±EXP_LIMIT)`` stays inside the float64 range: the largest ``eps`` and log-argument used."""
LOG_ZERO = -800.0
"""A log-modulus standing for a value that is zero to float64 precision."""


def split_exact(x: Fraction) -> tuple[float, float, float]:
    """``(hi, lo, rel)``: ``hi + lo`` approximates ``x`` with relative error at most ``rel``.

    ``hi`` is the nearest float to ``x`` and ``lo`` the nearest float to ``x - hi``,
    so the pair carries about 106 bits; ``rel`` is infinite where ``hi`` underflows to 0.
    """
    hi = float(x)
    if hi == 0.0:
        return 0.0, 0.0, math.inf
    lo = float(x - Fraction(hi))
    return hi, lo, 2.0 * UNIT * UNIT + TINY / hi

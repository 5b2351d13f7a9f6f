"""The exact binomial law of gpu_rs.common.binomial: every probability exactly, or correctly rounded.

Checked against exact rationals (``math.comb`` and ``Fraction``): the float of each term is the nearest
double, down to subnormals and 0 (``m = 400``, ``q = 0.1``: ``0.1^400`` is far below the float range).

Expected cost: ~5 s.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from gpu_rs.common.binomial import pmf_exact, pmf_float


def _nearest(x: Fraction) -> float:
    """The double nearest ``x`` (ties to even), from the neighbours of a float within an ulp of it."""
    guess = float(x)
    near = (float(np.nextafter(guess, -1.0)), guess, float(np.nextafter(guess, 2.0)))
    return min(near, key=lambda f: (abs(Fraction(f) - x), int(np.float64(f).view(np.int64)) & 1))


@pytest.mark.parametrize(("m", "q"), [(0, 0.3), (7, 0.2446), (60, 0.01798620996209156), (300, 0.4999999), (400, 0.1)])
def test_every_term_exact_and_correctly_rounded(m, q):
    qf = Fraction(q)
    for flipped, success in ((False, 1 - qf), (True, qf)):
        a, b = success.as_integer_ratio()
        exact = [Fraction(math.comb(m, i) * a**i * (b - a) ** (m - i), b**m) for i in range(m + 1)]
        assert list(pmf_exact(m, success)) == exact
        got = pmf_float(m, q, flipped)
        assert not got.flags.writeable  # cached: shared by every caller
        assert got.tolist() == [_nearest(e) for e in exact]

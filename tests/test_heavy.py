"""The heavy-atom conditioning (gpu_rs/heavy.py) against the conditioning oracle.

In these cases a kept atom is a large, rare fraction of the threshold and one window
on a small budget does not reach the width, so the engine splits on the heavy vectors
(method "conditioned") instead of spanning the bulk and the jumps with one window.
Tails run from 4e-9 to 0.3.
"""

from __future__ import annotations

import math

import oracles as O
import pytest
from conftest import check_bracket

HEAVY_CASES = [
    (10**5, 3, 0.0192118, math.e),
    (3000, 4, 0.1709, 2.604),
    (10000, 5, 0.1221, 6.489),
    (3000, 4, 0.1402, 6.243),
    (10**5, 5, 0.0937, 5.614),
    (10000, 4, 0.0994, 7.387),
    (3000, 3, 0.0834, 6.657),
]


@pytest.mark.parametrize("n,bits,q,lam", HEAVY_CASES)
def test_conditioned_tail_brackets_the_exact_tail(gpu_rs, backend, n, bits, q, lam):
    lo, hi = O.tail_condition(n, bits, q, lam, tol=1e-14)
    b = gpu_rs.tail(n, bits, q, ratio=lam, backend=backend, scope="forward")
    assert b.method == "conditioned", b
    check_bracket(b, lo, hi)


def test_conditioning_matches_monte_carlo_at_scale(gpu_rs):
    """L = 40, N = 10^7 near calibration's answer, where an atom is 0.87 of the threshold."""
    n, bits, q, eps = 10**7, 40, 0.3544928739120966, 2.0
    b = gpu_rs.tail(n, bits, q, eps, backend="numpy", scope="forward")
    assert b.method == "conditioned" and b.met, b
    _est, lo, hi = O.monte_carlo_tail(n, bits, q, math.exp(eps), samples=200_000, seed=7)
    assert lo <= b.upper and b.lower <= hi, (b, lo, hi)

"""The near-lattice method (``gpu_rs.engine.nearlattice``): L = 2–3 at small q.

Oracles: the exact L = 2 sums of ``oracles`` (conditioning on the two-bit count, SciPy's
binomial sf), both orders, and the level-by-level conditioning oracle for L = 3. These are
the cases that took 5–35 s in Vaaler's majorants (up to 4.5e6 terms); the method must apply
(method "nearlattice") and the interval contain the exact value.
"""

from __future__ import annotations

import math

import numpy as np
import oracles as O
import pytest
from conftest import check_bracket

import gpu_rs
from gpu_rs.common.validation import Problem
from gpu_rs.engine import crossing, nearlattice
from gpu_rs.engine.atoms import ZERO
from gpu_rs.engine.crossing import Query
from gpu_rs.engine.nearlattice import binomial_tail_bound, window
from gpu_rs.engine.pipeline import Plan, tail_bounds
from gpu_rs.pairs import scopes

L2 = [
    # (n, q, eps): forward tails from 1e-13 to 0.07
    (10**4, 0.03, 1.0),
    (10**5, 0.03, 0.5),
    (10**5, 0.03, 1.0),
    (10**5, 0.01, 0.5),
]


@pytest.mark.parametrize("n,q,eps", L2)
def test_forward_l2(n, q, eps):
    lam = math.exp(eps)
    assert O.l2_lattice_distance(n, q, lam) > 1e-6  # the oracle's float threshold is safe
    exact = O.tail_L2(n, q, lam)
    b = gpu_rs.tail(n, 2, q, eps, scope="forward")
    assert b.method in ("nearlattice", "chernoff")  # not the Fourier inversion that took seconds
    check_bracket(b, exact, exact)


@pytest.mark.parametrize("n,q,eps", L2[:2])
def test_reverse_l2(n, q, eps):
    """The reverse order: a lower tail of ``n`` zero vectors."""
    lam = math.exp(eps)
    exact = O.reverse_tail_L2(n, q, lam)
    b = tail_bounds(Query(2, q, ((ZERO, n),), math.log(n / lam), False), Plan(1e-3, 1e-12, 1 << 20), np)
    assert b.lower <= exact * (1 + 1e-12) and b.upper >= exact * (1 - 1e-12), (b, exact)
    assert b.width <= max(1e-12, 1e-3 * exact) * 1.01


@pytest.mark.parametrize("n,q,eps", [(10**4, 0.03, 2.0), (3000, 0.0834, math.log(6.657))])
def test_forward_l3(n, q, eps):
    """The method itself (not the first that applies in the table) on L = 3's forward order."""
    lam = math.exp(eps)
    lo, hi = O.tail_condition(n, 3, q, lam)
    prob = Problem(n, 3, q, eps)
    cross = crossing.split(scopes.seed_query(prob, False, True))
    inner = nearlattice.bound(cross.law, cross.cut, 1e-3 * lo, 1 << 20, np)
    b = cross.combine(inner)
    assert b.lower <= hi * (1 + 1e-12) and b.upper >= lo * (1 - 1e-12), (b, lo, hi)
    assert b.width <= 1e-3 * lo * 1.01


@pytest.mark.parametrize("n,p", [(10**5, 0.01), (10**6, 3e-4), (50, 0.3)])
def test_windows_hold_their_mass(n, p):
    """The binomial window's outside mass is below its Chernoff bound (SciPy's exact cdf)."""
    from scipy import stats

    a, b, out = window(n, p, 0.0, 1e-9)
    assert stats.binom.cdf(a - 1, n, p) + stats.binom.sf(b, n, p) <= out * (1 + 1e-9) + 1e-300
    assert out <= 1e-9
    for k in (b + 1, b + 10):
        assert stats.binom.sf(k - 1, n, p) <= binomial_tail_bound(n, p, 0.0, k, True) * (1 + 1e-9)

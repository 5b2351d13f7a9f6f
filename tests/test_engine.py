"""The generalized engine (``gpu_rs.engine.pipeline``): sums of any record kinds, both tails,
squared atoms, and error budgets that add up to the interval's width.

Oracles: exact enumeration of both count vectors (``oracles.tail_sum_enumerate``), and the
reverse order of the homogeneous pair in closed form for L = 1 (binomial cdf) and L = 2
(conditioning). Whole module: about 20 s per backend.
"""

from __future__ import annotations

import math

import numpy as np
import oracles as O
import pytest

from gpu_rs.common.backend import get_backend
from gpu_rs.engine.atoms import ONE, ZERO, Kind
from gpu_rs.engine.crossing import Query
from gpu_rs.engine.pipeline import Plan, tail_bounds

PLAN = Plan(rel_width=1e-3, abs_width=1e-12, max_terms=1 << 20)


def _bounds(backend, bits, q, parts, t, upper, inclusive=False):
    xp = get_backend(backend).xp
    return tail_bounds(Query(bits, q, parts, math.log(t), upper, inclusive), PLAN, xp)


def _check(b, exact):
    assert b.lower <= exact * (1 + 1e-12) + 1e-300 and b.upper >= exact * (1 - 1e-12), (b, exact)
    assert 0.0 <= b.lower <= b.upper <= 1.0
    assert b.width <= max(1e-12, 1e-3 * exact) * (1 + 2e-3) + 1e-15, (b, exact)
    assert abs(b.budget.total - b.width) <= 1e-9 * b.width + 1e-15


SUM_CASES = [
    # (bits, q, zeros, ones, power, t as a multiple of the mean, upper)
    (2, 0.2, 5, 2, 1, 1.7, True),
    (2, 0.2, 5, 2, 1, 0.8, False),
    (3, 0.3, 6, 3, 1, 1.3, True),
    (3, 0.3, 6, 3, 1, 0.9, False),
    (2, 0.25, 8, 2, 2, 1.5, True),
    (2, 0.25, 8, 2, 2, 0.6, False),
    (3, 0.15, 4, 2, 2, 2.0, True),
    (1, 0.3, 9, 3, 2, 1.4, True),
    (4, 0.35, 5, 0, 1, 0.7, False),
    (4, 0.35, 0, 4, 1, 1.1, True),
]


@pytest.mark.parametrize("bits,q,zeros,ones,power,scale,upper", SUM_CASES)
@pytest.mark.parametrize("inclusive", [False, True])
def test_sums_of_record_kinds(backend, bits, q, zeros, ones, power, scale, upper, inclusive):
    w, lpi0, lpi1 = O.atoms(bits, q)
    mean = zeros * float(np.exp(lpi0) @ w**power) + ones * float(np.exp(lpi1) @ w**power)
    t = scale * mean
    exact, gap = O.tail_sum_enumerate(bits, q, zeros, ones, t, upper, inclusive, power)
    assert gap > 1e-9
    parts = ((Kind(False, power), zeros), (Kind(True, power), ones))
    _check(_bounds(backend, bits, q, parts, t, upper, inclusive), exact)


REVERSE_L1 = [(1000, 0.1, 0.5), (1000, 0.1, 0.25), (10**5, 0.3, 0.02), (10**6, 0.2446, 0.003), (37, 0.2, 0.9)]


@pytest.mark.parametrize("n,q,eps", REVERSE_L1)
def test_reverse_order_L1(backend, n, q, eps):
    lam = math.exp(eps)
    assert O.reverse_lattice_distance_L1(n, q, lam) > 1e-6
    exact = O.reverse_tail_L1(n, q, lam)
    assert exact > 0
    _check(_bounds(backend, 1, q, ((ZERO, n),), n / lam, False), exact)


REVERSE_L2 = [(100, 0.2113, 1.9), (2000, 0.2, 1.31), (10**4, 0.1037, 1.2), (10**5, 0.3107, 1.01)]


@pytest.mark.parametrize("n,q,lam", REVERSE_L2)
def test_reverse_order_L2(backend, n, q, lam):
    exact = O.reverse_tail_L2(n, q, lam)
    exact_incl = O.reverse_tail_L2(n, q, lam, inclusive=True)
    assert exact == pytest.approx(exact_incl, rel=1e-12, abs=1e-300)  # away from lattice points
    _check(_bounds(backend, 2, q, ((ZERO, n),), n / lam, False), exact)


def test_the_seeds_pair_in_both_orders():
    """The issue's numbers: N = 1000, L = 1, q = 0.1: forward 1.84e-12 and reverse 2.05e-7 at
    eps = 0.5; 9.07e-4 and 3.76e-3 at eps = 0.25."""
    for eps, fwd, rev in [(0.5, 1.84e-12, 2.05e-7), (0.25, 9.07e-4, 3.76e-3)]:
        lam = math.exp(eps)
        f = _bounds("numpy", 1, 0.1, ((ZERO, 999), (ONE, 1)), 1000 * lam, True)
        r = _bounds("numpy", 1, 0.1, ((ZERO, 1000),), 1000 / lam, False)
        assert f.lower <= O.tail_L1(1000, 0.1, lam) <= f.upper
        assert r.lower <= O.reverse_tail_L1(1000, 0.1, lam) <= r.upper
        assert f.estimate if hasattr(f, "estimate") else True
        assert abs(0.5 * (f.lower + f.upper) / fwd - 1) < 0.01 and abs(0.5 * (r.lower + r.upper) / rev - 1) < 0.01


@pytest.mark.parametrize("abs_width", [1e-12, 0.0])
def test_tiny_lower_tails_are_never_rounded_away(abs_width):
    """A lower tail near 1e-18 must not be lost to ``1 - (1 - x)`` rounding (an upper bound of 0)."""
    n, q, lam = 2000, 0.2, 2.0
    exact = O.reverse_tail_L2(n, q, lam)
    assert 0 < exact < 1e-16
    plan = Plan(rel_width=1e-3, abs_width=abs_width, max_terms=1 << 16)
    b = tail_bounds(Query(2, q, ((ZERO, n),), math.log(n / lam), False), plan, np)
    assert b.lower <= exact <= b.upper
    assert b.upper <= max(abs_width, 1e-14)


def test_budget_rules_add_up():
    """Each combination rule's budget adds up to its width before any settling."""
    from gpu_rs.engine.bounds import Bounds, ErrorBudget

    inner = Bounds(0.25, 0.3, ErrorBudget(discretization=0.04, truncation=0.01), "test")
    for b in (
        inner.complement(),
        inner.scaled(0.5, 0.6),
        inner.crossed(0.7, 0.8, 0.2, 0.3),
        inner.widened(0.01, 0.02, "roundoff"),
        inner.intersect(Bounds(0.2, 0.28, ErrorBudget(truncation=0.08), "t")),
    ):
        assert b.budget.total == pytest.approx(b.width, rel=1e-12)

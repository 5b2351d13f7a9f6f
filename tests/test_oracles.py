"""Cross-checks of the independent oracles in ``oracles.py`` against each other.

Each oracle is checked against at least one other that is computed differently, so a bug
in one of them shows up here before it can hide an engine bug.  Nothing here imports
``gpu_rs``.  Whole module: ~15 s.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import oracles as O
import pytest
from scipy import stats

SMALL = [
    # (n, bits, q, lam)
    (1, 1, 0.3, 1.7),
    (2, 1, 0.1, 2.9),
    (7, 1, 0.35, 1.15),
    (1, 2, 0.2, 1.9),
    (2, 2, 0.45, 1.03),
    (9, 2, 0.25, 1.6),
    (15, 2, 0.05, 7.3),
    (3, 3, 0.2, 2.2),
    (12, 3, 0.3, 1.35),
    (20, 3, 0.12, 4.1),
    (1, 4, 0.33, 1.2),
    (6, 4, 0.2, 3.3),
    (14, 4, 0.27, 1.7),
    (18, 4, 0.4, 1.08),
]


def _rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


@pytest.mark.parametrize("n,bits,q,lam", SMALL)
@pytest.mark.parametrize("inclusive", [False, True])
def test_enumerate_vs_convolve(n, bits, q, lam, inclusive):
    assert O.lattice_gap(n, bits, q, lam) > 1e-9
    a = O.tail_enumerate(n, bits, q, lam, inclusive)
    b = O.tail_convolve(n, bits, q, lam, inclusive)
    assert 0.0 <= a <= 1.0
    assert abs(a - b) <= 1e-13 + 1e-12 * b


@pytest.mark.parametrize("n,bits,q,lam", SMALL)
def test_condition_exact_vs_enumerate(n, bits, q, lam):
    e = O.tail_enumerate(n, bits, q, lam)
    lo, hi = O.tail_condition(n, bits, q, lam, tol=0)
    assert lo - 1e-14 <= e <= hi + 1e-14
    lo2, hi2 = O.tail_condition(n, bits, q, lam)  # pruned version
    assert lo2 - 1e-14 <= e <= hi2 + 1e-14


@pytest.mark.parametrize("n,bits,q,lam", [c for c in SMALL if c[1] == 1])
@pytest.mark.parametrize("inclusive", [False, True])
def test_L1_vs_enumerate(n, bits, q, lam, inclusive):
    assert _rel(O.tail_L1(n, q, lam, inclusive), O.tail_enumerate(n, 1, q, lam, inclusive)) < 1e-12 or (
        O.tail_enumerate(n, 1, q, lam, inclusive) == O.tail_L1(n, q, lam, inclusive) == 0.0
    )


@pytest.mark.parametrize("n,bits,q,lam", [c for c in SMALL if c[1] == 2])
@pytest.mark.parametrize("inclusive", [False, True])
def test_L2_vs_enumerate(n, bits, q, lam, inclusive):
    a = O.tail_L2(n, q, lam, inclusive)
    b = O.tail_enumerate(n, 2, q, lam, inclusive)
    assert abs(a - b) <= 1e-14 + 1e-11 * b


def test_exact_rational_tie():
    """At a lattice point strict and inclusive differ by exactly P[X = t] (Fractions)."""
    q = Fraction(1, 4)  # r = 1/3, L = 1: X = n/3 + K * 8/3
    n = 4
    lam = Fraction(1)  # t = 4 = 4/3 + 1 * 8/3: hit at K = 1
    strict = O.tail_convolve(n, 1, q, lam)
    incl = O.tail_convolve(n, 1, q, lam, inclusive=True)
    # K = Bin(3, 1/4) + Bernoulli(3/4)
    pk1 = Fraction(3, 4) * Fraction(27, 64) + Fraction(1, 4) * 3 * Fraction(1, 4) * Fraction(9, 16)
    assert isinstance(strict, Fraction)
    assert incl - strict == pk1
    # away from the tie the float oracle agrees with the rational one
    lam2 = Fraction(3, 2)
    assert _rel(float(O.tail_convolve(n, 1, q, lam2)), O.tail_L1(n, 0.25, 1.5)) < 1e-14


def test_L1_direct_summation_deep_tail():
    """tail_L1 (binomial sf, i.e. the regularized incomplete beta) vs a direct sum of
    binomial pmfs (Boost's pdf, accurate to a few ulps; log-gamma differences are not
    accurate enough at n = 1e6), to 1e-10 relative, for tails down to ~1e-12, n <= 1e6."""
    for n, q, target in [(10**6, 0.3, 1e-12), (10**6, 0.05, 1e-9), (10**5, 0.45, 1e-3), (3000, 0.2, 1e-12)]:
        lam, k = O.l1_midpoint_lam(n, q, target)
        m = n - 1
        j = np.arange(max(k - 1, 0), min(k + 40000, m) + 1)
        pm = stats.binom.pmf(j, m, q)
        assert pm[-1] < 1e-250 or j[-1] == m  # the truncated terms are negligible

        def ge(kk, pm=pm, j=j):
            return math.fsum(pm[j >= kk])

        direct = (1 - q) * ge(k - 1) + q * ge(k)
        got = O.tail_L1(n, q, lam)
        assert got > 1e-14
        assert _rel(got, direct) < 1e-10, (n, q, got, direct)


@pytest.mark.parametrize("n,q,lam", [(2000, 0.2, 1.31), (10**4, 0.1037, 1.3), (10**4, 0.3, 1.05), (300, 0.4013, 1.2)])
def test_L2_vs_condition_large_n(n, q, lam):
    assert O.l2_lattice_distance(n, q, lam) > 1e-6
    a = O.tail_L2(n, q, lam)
    lo, hi = O.tail_condition(n, 2, q, lam)
    assert lo * (1 - 1e-10) <= a <= hi * (1 + 1e-10)
    assert a > 1e-12


@pytest.mark.parametrize("n,q,target", [(5000, 0.1, 1e-3), (10**5, 0.3, 0.2), (10**6, 0.2, 1e-8)])
def test_L1_vs_condition_large_n(n, q, target):
    lam, _ = O.l1_midpoint_lam(n, q, target)
    a = O.tail_L1(n, q, lam)
    lo, hi = O.tail_condition(n, 1, q, lam)
    assert lo * (1 - 1e-10) <= a <= hi * (1 + 1e-10)


def test_condition_pruned_vs_exact_L4():
    """The pruned conditioning oracle (band + quantile ranges) against the unpruned one."""
    for n, q, lam in [(60, 0.2, 2.5), (80, 0.3, 1.4), (120, 0.15, 4.2)]:
        e = O.tail_condition(n, 4, q, lam, tol=0)
        p = O.tail_condition(n, 4, q, lam)
        assert p[0] <= e[1] and e[0] <= p[1]
        assert p[1] - p[0] < 1e-10 * max(p[0], 1e-6)


def test_l1_midpoint():
    for n, q in [(1, 0.3), (5, 0.2), (1000, 0.45)]:
        lam, _k = O.l1_midpoint_lam(n, q, 0.5)
        assert abs(O.l1_lattice_distance(n, q, lam) - 0.5) < 1e-6
        assert O.tail_L1(n, q, lam) == O.tail_L1(n, q, lam, inclusive=True)


@pytest.mark.parametrize("n,bits,q", [(1, 1, 0.3), (5, 2, 0.2), (9, 3, 0.33), (12, 4, 0.1), (30, 2, 0.45)])
def test_moments_vs_enumeration(n, bits, q):
    vals, probs = O.pmf_enumerate(n, bits, q)
    assert abs(probs.sum() - 1.0) < 1e-12
    mean = float(probs @ vals)
    var = float(probs @ (vals - mean) ** 2)
    cm, cv = O.moments_X(n, bits, q)
    bm, bv = O.moments_X_brute(n, bits, q)
    assert _rel(cm, mean) < 1e-11 and _rel(bm, mean) < 1e-11
    assert _rel(cv, var) < 1e-9 and _rel(bv, var) < 1e-9
    rm, rv = O.moments_R(n, bits, q)
    assert _rel(rm, mean / n) < 1e-11 and _rel(rv, var / n**2) < 1e-9


@pytest.mark.parametrize("bits", [1, 5, 8, 20, 40])
@pytest.mark.parametrize("q", [0.05, 0.2446, 0.49])
def test_moments_closed_vs_brute(bits, q):
    cm, cv = O.moments_X(1000, bits, q)
    bm, bv = O.moments_X_brute(1000, bits, q)
    assert _rel(cm, bm) < 1e-9
    assert _rel(cv, bv) < 1e-7


def test_seed_facts():
    """The project's seed facts (shared/seeds/README.md): about 0.00707 and 0.043."""
    lo, hi = O.tail_condition(1000, 5, 0.2446, 2.0)
    assert hi - lo < 1e-12 and abs(lo - 0.00707) < 5e-5
    lo, hi = O.tail_condition(5000, 5, 0.1778, 2.0)
    assert hi - lo < 1e-12 and abs(lo - 0.043) < 5e-4


@pytest.mark.parametrize(
    "n,bits,q,lam,samples",
    [(1000, 5, 0.2446, 2.0, 400_000), (15, 4, 0.27, 1.7, 200_000), (10**4, 2, 0.1, 1.9, 200_000)],
)
def test_monte_carlo_vs_exact(n, bits, q, lam, samples):
    if bits == 2:
        exact = O.tail_L2(n, q, lam)
        lo = hi = exact
    else:
        lo, hi = O.tail_condition(n, bits, q, lam)
    est, clo, chi = O.monte_carlo_tail(n, bits, q, lam, samples, seed=12345)
    assert clo <= est <= chi
    assert clo <= hi and lo <= chi, (est, clo, chi, lo, hi)
    # the interval is not vacuous
    assert chi - clo < 0.05 * max(hi, 1e-3) + 5e-3


def test_clopper_pearson_coverage_edges():
    assert O.clopper_pearson(0, 100) == (0.0, pytest.approx(1 - 0.0005 ** (1 / 100)))
    lo, hi = O.clopper_pearson(50, 100)
    assert lo < 0.5 < hi
    assert O.clopper_pearson(100, 100)[1] == 1.0

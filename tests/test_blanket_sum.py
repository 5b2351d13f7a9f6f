"""The graded blanket at every count, with no report cap and no rounding floor (issue 29, item 3).

Checked against tests/oracles_pairs.py (which never imports gpu_rs): the exact δ of the reduced blanket
pair (multisets enumerated, the sum over the counts exact), Monte Carlo estimates of the reduced pairs'
δ with their confidence intervals where the counts are too many to enumerate, and exact rational
binomial tails; and against the homogeneous pair's certified δ, a lower end of the every-pair maximum,
far below the lattice's old floor of about 1e-15.

Expected cost: ~15 s.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import oracles_pairs as op
import pytest

import gpu_rs
from gpu_rs.common.binomial import log_lower_tail
from gpu_rs.pairs import blanket, blanket_sum, counts, every_pair, reduction

Z = 4.0
"""Standard errors of a Monte Carlo estimate allowed below a certified upper end (a 99.99 % interval)."""


def _hinge_only(n, bits, q, d, eps, enough):
    """The bound of the whole sum alone: every count below ``m0`` charged 1 (no lattice rows, no bound to beat)."""
    gamma = blanket.blanket_probability(bits, q)
    c_law = counts.binomial(n - 1, gamma)
    h, w = blanket.report_values(bits, q, d, eps)
    return blanket_sum.delta(n, gamma, h, w, c_law, np.ones(c_law.pmf.shape[0]), (enough, 2.0), np)


@pytest.mark.parametrize(
    ("n", "bits", "d", "q", "eps"),
    [(100, 2, 2, 0.3, 0.6), (60, 3, 2, 0.25, 0.4), (30, 3, 3, 0.25, 0.3), (12, 3, 2, 0.2, 0.3), (300, 3, 3, 0.3, 1.0)],
)
def test_hinge_of_the_whole_sum_contains_the_exact_reduced_pair(n, bits, d, q, eps):
    lo, _ = op.reduced_delta(n, bits, d, q, [eps], kind="blanket")
    spectral = _hinge_only(n, bits, q, d, eps, -1.0)
    chernoff = _hinge_only(n, bits, q, d, eps, 2.0)  # any bound is enough: Chernoff's hinge alone
    assert lo[0] <= spectral <= chernoff, (lo, spectral, chernoff)
    assert spectral < 3.0 * lo[0]  # the hinge-only bound loses at most a few times here (measured: < 2.1)


def test_below_the_lattice_floor_the_bound_follows_the_exact_pair():
    """The exact δ is 1.29e-49; the lattice alone stops at its floor of about 4e-16."""
    lo, hi = op.reduced_delta(600, 2, 2, 0.3, [1.2], kind="blanket", tol=1e-70)
    got = blanket.blanket_delta(600, 2, 0.3, 2, 1.2)
    assert lo[0] <= got <= 1e3 * hi[0], (lo, hi, got)


@pytest.mark.parametrize(
    ("n", "bits", "d", "q", "eps"),
    [
        (10**4, 12, 12, 0.45, 0.01),  # about 2,800 blanket users: past the lattice, the hinge alone
        (10**4, 12, 12, 0.45, 0.03),
        (10**4, 12, 6, 0.42, 0.05),  # about 1,200: the lattice
        (3000, 8, 8, 0.4, 0.1),
    ],
)
def test_monte_carlo_of_the_reduced_pairs_lies_below_the_upper_ends(n, bits, d, q, eps):
    """Both reduced pairs (blanket and clone) by Monte Carlo, 3,000 samples: each estimate's 99.99 %
    interval reaches the certified bound of its reduction; where the hinge answers alone, the bound is
    within 1.6 times the interval's top (it is a bound of the reduced pair, not of a looser one)."""
    est, se = op.reduced_delta_mc(n, bits, d, q, [eps], kind="blanket", samples=3000, seed=11)
    got = blanket.blanket_delta(n, bits, q, d, eps)
    assert est[0] - Z * se[0] <= got, (est, se, got)
    if not blanket.reaches(n, bits, q, blanket.SIGMAS):
        assert got <= 1.6 * (est[0] + Z * se[0]), (est, se, got)
    est, se = op.reduced_delta_mc(n, bits, d, q, [eps], kind="clone", samples=3000, seed=12)
    graded = float(reduction.graded_delta(n, bits, q, d, np.array([eps]))[0])
    assert est[0] - Z * se[0] <= graded, (est, se, graded)


def test_no_report_cap_at_the_settings_of_the_issue():
    """(N, L, q) = (1e5, 40, 0.475): about 12,850 blanket users, once charged the 2,000th report's value
    (δ(0.06) was 4.05e-4, the tail at 0.1 2.6e-3). (1e4, 5, 0.3): δ(1) is 1.64e-174 for the homogeneous
    pair (certified), and the every-pair bound was 9.1e-16, the lattice's floor."""
    big = every_pair.Curve(10**5, 40, 0.475)
    assert float(big.deltas(np.array([0.06]))[0]) < 1e-20
    assert big.tail(0.1).bound < 1e-9
    homogeneous = gpu_rs.privacy_profile(10**4, 5, 0.3, scope="homogeneous", abs_width=1e-300, backend="numpy")
    truth_below = homogeneous.delta(1.0).lower
    assert truth_below > 1e-175
    assert truth_below <= float(every_pair.Curve(10**4, 5, 0.3).deltas(np.array([1.0]))[0]) < 1e-40


@pytest.mark.parametrize(
    ("n", "bits", "q", "d", "old"),
    [(30, 3, 0.25, 2, (1.69e-9, 4.44e-16)), (8000, 2, 0.3, 1, (1.0, 1.0)), (8000, 2, 0.3, 2, (1.0, 1.0))],
)
def test_beyond_the_largest_loss_the_bound_is_zero_exactly(n, bits, q, d, old):
    """At ``ε >= d log(p/q)`` every pair's loss is at most ``ε``: the reduced pair's δ is 0 exactly (multisets
    enumerated at ``N = 30``; at ``N = 8000`` every Monte Carlo sample is 0). On 2d396b0 the blanket gave ``old``
    (just above the top, then 0.5 above): the lattice's slack and floor, or 1 where the hinge of the whole sum
    answers alone and finds no saddle point. Just below the top the bound still contains the oracle."""

    def truth(eps):
        if n <= 100:  # few enough counts to enumerate: a bracket, here a point
            return op.reduced_delta(n, bits, d, q, [eps])
        est, _ = op.reduced_delta_mc(n, bits, d, q, [eps], samples=300)
        return est, est

    top = d * math.log((1.0 - q) / q)
    for eps, was in zip((top * (1.0 + 1e-12), top + 0.5), old, strict=True):
        lo, hi = truth(eps)
        assert lo[0] == hi[0] == 0.0 and was > 0.0
        assert blanket.blanket_delta(n, bits, q, d, eps) == 0.0
    got = blanket.blanket_delta(n, bits, q, d, top - 0.05)
    assert got > 0.0 and truth(top - 0.05)[0][0] <= got


@pytest.mark.parametrize(("n", "p", "ks"), [(200, 0.3, [0, 5, 30, 50]), (2000, 0.0778, [0, 10, 60, 120])])
def test_binomial_lower_tail_against_exact_rationals(n, p, ks):
    pf = Fraction(p)
    for k in ks:
        exact = sum(math.comb(n, j) * pf**j * (1 - pf) ** (n - j) for j in range(k + 1))
        log_exact = math.log(exact.numerator) - math.log(exact.denominator)
        got = log_lower_tail(n, k, p)
        rho = k * (1 - p) / ((n - k + 1) * p)
        assert log_exact <= got <= log_exact - math.log1p(-rho) + 1e-9, (k, got, log_exact)
    assert log_lower_tail(n, n, p) == 0.0 and log_lower_tail(n, int(n * p) + 5, p) == 0.0

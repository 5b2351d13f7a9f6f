"""``ratio_distribution``: certified at every edge against exact oracles, mass adds up, refusals."""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
import pytest

import gpu_rs
from gpu_rs.common.errors import MemoryBudgetError
from tests import oracles as O


def exact_sf_l1(n: int, q: float, x: float) -> Fraction:
    """``P[X > n x]`` for one bit in exact rationals: ``j`` of the ``n − 1`` zero vectors set their bit."""
    qf = Fraction(q)
    pf = 1 - qf
    r = qf / pf
    t = n * Fraction(x)
    total = Fraction(0)
    for bit, p_out in ((1, pf), (0, qf)):  # the all-ones outlier keeps its bit with probability p
        w_out = 1 / r if bit else r
        for j in range(n):
            if (n - 1 - j) * r + j / r + w_out > t:
                total += p_out * math.comb(n - 1, j) * qf**j * pf ** (n - 1 - j)
    return total


def inside(lo: float, hi: float, truth: float, slack: float = 0.0) -> bool:
    return lo - slack <= truth <= hi + slack


@pytest.mark.parametrize("n,q", [(1, 0.2), (7, 0.3), (40, 0.1), (200, 0.35)])
def test_l1_every_edge_against_exact_rationals(n, q):
    d = gpu_rs.ratio_distribution(n, 1, q, backend="numpy", buckets=24)
    for x, lo, hi in zip(d.edges, d.sf_lower, d.sf_upper, strict=True):
        truth = exact_sf_l1(n, q, float(x))
        assert lo <= truth <= hi, (x, lo, hi, float(truth))


@pytest.mark.parametrize("n,q", [(10, 0.2), (300, 0.25), (5000, 0.4)])
def test_l2_every_edge_against_the_binomial_sum(n, q):
    d = gpu_rs.ratio_distribution(n, 2, q, backend="numpy", buckets=24)
    for x, lo, hi in zip(d.edges, d.sf_lower, d.sf_upper, strict=True):
        if O.l2_lattice_distance(n, q, float(x)) < 1e-6:
            continue  # the float oracle cannot tell which side of an atom the edge is
        truth = O.tail_L2(n, q, float(x))
        assert inside(lo, hi, truth, 1e-12 * truth + 1e-300), (x, lo, hi, truth)


@pytest.mark.parametrize("args", [(1, 5, 0.2), (100, 3, 0.2), (10**5, 1, 0.3113), (1000, 5, 0.2446)])
def test_mass_adds_up_to_one_within_the_certified_error(args):
    d = gpu_rs.ratio_distribution(*args, backend="numpy", buckets=32)
    assert d.total_lower <= 1.0 <= d.total_upper
    assert np.all(d.probs_lower <= d.probs) and np.all(d.probs <= d.probs_upper)
    assert np.all(d.probs_lower >= 0.0)
    estimates = math.fsum([*d.probs.tolist(), 0.5 * sum(d.below), 0.5 * sum(d.above)])
    assert estimates == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.diff(d.edges) > 0) and np.all(np.diff(d.sf_lower) <= 0) and np.all(np.diff(d.sf_upper) <= 0)
    assert d.scope == "forward" and "seed's order" in d.guarantee


def test_seed_example_matches_tail():
    """The issue's example: L = 40, N = 1e7, q = 0.351 at x = e^2, against tail(scope='forward')."""
    d = gpu_rs.ratio_distribution(10**7, 40, 0.351, backend="numpy", buckets=8)
    b = gpu_rs.tail(10**7, 40, 0.351, 2.0, scope="forward", backend="numpy")
    lo, hi = d.sf(math.exp(2.0))
    assert lo <= b.upper and b.lower <= hi
    assert hi - lo <= 10 * (b.upper - b.lower)
    assert 0.99 < d.total_lower <= 1.0 <= d.total_upper < 1.01


@pytest.mark.parametrize(
    "n,bits,q,eps",
    [
        (50, 64, 0.05, 3.0),
        (1000, 32, 0.2, 1.5),
        (200, 8, 0.05, 0.5),
        (1, 5, 0.2, 1.0),
        (3000, 12, 0.3, 1.0),
        # few users with small q: atoms the curve cannot resolve; the point query still matches tail
        (10, 5, 0.01, 1.0),
        (30, 12, 0.02, 2.0),
        (2, 40, 0.1, 4.0),
    ],
)
def test_heavy_tailed_settings_match_tail(n, bits, q, eps):
    d = gpu_rs.ratio_distribution(n, bits, q, backend="numpy", buckets=4)
    b = gpu_rs.tail(n, bits, q, eps, scope="forward", backend="numpy")
    lo, hi = d.sf(math.exp(eps))
    assert lo <= b.upper and b.lower <= hi
    assert hi - lo <= 10 * (b.upper - b.lower) + 1e-15


def test_buckets_beyond_the_budget_are_refused_at_once():
    start = time.perf_counter()
    with pytest.raises(MemoryBudgetError, match=r"buckets must be at most \d+ .* got 16777216"):
        gpu_rs.ratio_distribution(10**7, 64, 0.3, buckets=1 << 24)
    with pytest.raises(ValueError, match="buckets must be at most"):
        gpu_rs.ratio_distribution(1000, 5, 0.2, buckets=100_000, max_memory=1 << 20)
    assert time.perf_counter() - start < 5.0  # refused before any work (the work would take minutes)


def test_range_and_log():
    d = gpu_rs.ratio_distribution(1000, 5, 0.2446, backend="numpy", buckets=10, range=(0.5, 3.0), log=True)
    assert d.edges[0] == pytest.approx(0.5) and d.edges[-1] == pytest.approx(3.0)
    assert np.allclose(np.diff(np.log(d.edges)), math.log(6.0) / 10)
    assert d.total_lower <= 1.0 <= d.total_upper
    lin = gpu_rs.ratio_distribution(1000, 5, 0.2446, backend="numpy", buckets=10, range=(0.5, 3.0))
    assert np.allclose(np.diff(lin.edges), 0.25)
    for bad in [(3.0, 0.5), (0.0, 1.0), "x", (1.0,)]:
        with pytest.raises(ValueError, match="range"):
            gpu_rs.ratio_distribution(1000, 5, 0.2446, buckets=10, range=bad, log=True)
    with pytest.raises(ValueError, match="log=True needs range"):
        gpu_rs.ratio_distribution(1000, 5, 0.2446, log=True)
    with pytest.raises(ValueError, match="scope must be 'forward'"):
        gpu_rs.ratio_distribution(1000, 5, 0.2446, scope="all")


def test_sf_refuses_bad_x():
    d = gpu_rs.ratio_distribution(100, 3, 0.2, backend="numpy", buckets=4)
    for x in ("2", None):
        with pytest.raises((TypeError, ValueError), match="x must be a number"):
            d.sf(x)
    with pytest.raises(ValueError, match="x must be a number"):
        d.sf(math.nan)
    assert d.sf(math.inf) == (0.0, 0.0) and d.sf(-math.inf) == (1.0, 1.0)


@pytest.mark.parametrize("n,bits,q,refined", [(1000, 5, 0.2446, 2), (50, 64, 0.05, 0)])
def test_every_edge_is_as_tight_as_tail_there(n, bits, q, refined):
    """Edges the curve leaves wider than ``tail`` would are asked of ``tail``'s engine and intersected:
    each edge above ``R = 1`` is then no wider than ``tail`` at that threshold or than the edges' width."""
    d = gpu_rs.ratio_distribution(n, bits, q, backend="numpy", buckets=6)
    assert d.refined == refined  # (1000, 5): two deep edges the curve leaves wider than 1e-2
    for x, lo, hi in zip(d.edges, d.sf_lower, d.sf_upper, strict=True):
        if x <= 1.0:
            continue
        b = gpu_rs.tail(n, bits, q, math.log(x), scope="forward", backend="numpy")
        assert lo <= b.upper and b.lower <= hi  # both contain the truth
        asked = max(1e-2 * min(lo, 1.0 - hi), 1e-10)
        assert hi - lo <= max(b.upper - b.lower, asked) * (1 + 1e-9), (x, lo, hi, b.lower, b.upper)
    widths = d.sf_upper - d.sf_lower
    assert d.met == bool(np.all(widths <= np.maximum(1e-2 * np.minimum(d.sf_lower, 1 - d.sf_upper), 1e-10)))


@pytest.mark.parametrize("j", [8, 12])
def test_an_edge_on_an_atom_is_still_certified(j):
    """An edge placed on (the float nearest) an atom of R: the curve cannot resolve it, the edge is
    asked of tail at thresholds just below and above it, and the bracket holds the exact
    P[R > x] for that float x (exact rationals)."""
    n, q = 40, 0.1
    r = Fraction(q) / (1 - Fraction(q))
    atom = ((n - 1 - j) * r + j / r + 1 / r) / n  # j of the zero vectors and the outlier report 1
    x = float(atom)
    assert x > 1.0
    d = gpu_rs.ratio_distribution(n, 1, q, backend="numpy", range=(x, 1.5 * x), buckets=2)
    exact = exact_sf_l1(n, q, x)
    assert d.sf_lower[0] <= exact <= d.sf_upper[0], (d.sf_lower[0], float(exact), d.sf_upper[0], d.refined)

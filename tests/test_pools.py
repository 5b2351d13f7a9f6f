"""The cross-cloned homogeneous pools (gpu_rs.pairs.pools, docs/worst-case.md §8.9).

Checked against the oracles of tests/oracles_pairs.py (which never import gpu_rs): the exact δ of
every neighbouring pair of small populations in both orders, of homogeneous members and of two-type
backgrounds; the linear program and Hoeffding's step against the exact Poisson-binomial expectation
over every background of a small population; Hoeffding's inequality itself against exact laws.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import oracles_pairs as op
import pytest
from scipy.stats import binom

import gpu_rs
from gpu_rs.pairs import blanket, every_pair, family_delta, pool_counts, pools
from gpu_rs.pairs.family import Member


def _vectors(bits):
    return ["".join(v) for v in itertools.product("01", repeat=bits)]


def _change(bits, d):
    return "0" * bits, "1" * d + "0" * (bits - d)


@pytest.mark.parametrize(
    ("n", "bits", "q", "reports", "ceiling"),
    [
        *[(3, 3, 0.2, 500, 1.0), (4, 3, 0.3, 500, 1.0), (4, 2, 0.3, 500, 1.0), (6, 2, 0.1, 500, 1.0)],
        *[(3, 4, 0.15, 500, 1.0), (6, 2, 0.1, 2, 1.0), (6, 2, 0.2, 1, 0.05), (5, 3, 0.2, 2, 1.0)],
        *[(5, 3, 0.1, 1, 0.2), (4, 3, 0.3, 2, 0.01)],
    ],
)
def test_pools_cover_every_pair_of_a_small_population(n, bits, q, reports, ceiling, monkeypatch):
    """Also with the lattice stopped after ``reports`` reports, so that the larger counts take the engine's
    members on the grid beyond (:mod:`gpu_rs.pairs.pool_counts`), from several ceilings."""
    monkeypatch.setattr(pools, "REPORTS", reports)
    eps = (0.1, 0.8)
    for d in range(1, bits + 1):
        x, xp = _change(bits, d)
        bound = [pools.pools_delta(n, bits, q, d, e, ceiling=ceiling) for e in eps]
        for bg in itertools.combinations_with_replacement(_vectors(bits), n - 1):
            stats = op.pair_stats([*bg, x], [*bg, xp], q, np.exp(eps), np.array(eps))
            exact = np.maximum(stats["delta_fwd"], stats["delta_rev"])
            assert np.all(exact <= np.array(bound) + 1e-12), (bg, d, exact, bound)


@pytest.mark.parametrize(("bits", "d", "star"), [(3, 2, "101"), (3, 3, "011"), (2, 1, "01"), (3, 1, "011")])
def test_member_lattice_against_exact_homogeneous_members(bits, d, star):
    q, eps = 0.2, 0.4
    x, xp = _change(bits, d)
    a, b = star[:d].count("1"), star[d:].count("1")
    got = pools.member_deltas(bits, q, d, a, b, eps, 5)
    for m in range(1, 6):
        bg = [star] * (m - 1)
        exact = op.pair_delta([*bg, x], [*bg, xp], q, eps)
        assert exact <= got[m - 1] <= exact + 5e-3, (m, exact, got[m - 1])
    assert np.all(np.diff(got) <= 0.0)


def _exact_law(m, success):
    """Integers ``c_i`` and ``D`` with ``P[Bin(m, success) = i] = c_i / D`` (``success`` a Fraction)."""
    a, b = success.as_integer_ratio()
    return [math.comb(m, i) * a**i * (b - a) ** (m - i) for i in range(m + 1)], b**m


@pytest.mark.parametrize(
    ("bits", "q", "d", "a", "b"), [(1024, 0.49, 1, 0, 1023), (40, 0.3, 5, 2, 20), (64, 0.1, 4, 1, 60)]
)
def test_member_weights_are_upper_bounds_on_the_exact_probabilities(bits, q, d, a, b):
    """Each weight against the exact product ``P[i1] P[i0] P[j1]`` (integers): never below it, and at most ``16u``
    relative plus ``2^-1000`` (and its rounding) above. At ``L = 1024, q = 0.49`` the weights built from float
    powers (on 2d396b0) fell short of 16 exact ones, by up to 6e-9 relative (``0.49^1013`` subnormal)."""
    qf = Fraction(q)
    laws = [_exact_law(a, 1 - qf), _exact_law(d - a, qf), _exact_law(b, 1 - qf)]
    scale = laws[0][1] * laws[1][1] * laws[2][1]
    _, w = pools.member_values(bits, q, d, a, b, 0.5)
    exact = (x * y * z for x in laws[0][0] for y in laws[1][0] for z in laws[2][0])
    for got, num in zip(w.tolist(), exact, strict=True):
        top, bottom = Fraction(got).as_integer_ratio()
        assert top * scale >= num * bottom  # got >= num / scale, in integers
        above = (Fraction(got) - Fraction(2) ** -1000 - Fraction(2) ** -1050) / (1 + 16 * Fraction(2) ** -53)
        assert above * scale <= num, (got, num / scale)  # the sum's rounding: half an ulp of 2^-1000


def _pool_expectation(bg, star, q, g):
    """``E[g(C + 1)]`` with ``C`` the exact Poisson-binomial count of clones of ``M(star)`` (float)."""
    r = q / (1.0 - q)
    law = np.ones(1)
    for y in bg:
        kappa = r ** op.hamming(y, star)
        law = np.convolve(law, [1.0 - kappa, kappa])
    return float(np.dot(law, g[np.minimum(np.arange(law.shape[0]), g.shape[0] - 1)]))


@pytest.mark.parametrize(("n", "bits", "q", "eps"), [(7, 3, 0.2, 0.5), (9, 2, 0.15, 1.0), (6, 3, 0.3, 0.2)])
def test_linear_program_covers_every_background_of_a_small_population(n, bits, q, eps):
    """The certified value is at least ``min_{y*} E[g_{y*}(C_{y*} + 1)]`` of every background, computed with
    the exact law of each clone count, every ``y*`` and the Hamming distances themselves (no classes, no
    Hoeffding): what the linear program and Hoeffding's step must cover."""
    for d in range(1, bits + 1):
        stars = _vectors(bits)
        g = {s: pools.member_deltas(bits, q, d, s[:d].count("1"), s[d:].count("1"), eps, n) for s in stars}
        worst = max(
            min(_pool_expectation(bg, s, q, g[s]) for s in stars)
            for bg in itertools.combinations_with_replacement(stars, n - 1)
        )
        got = pools.pools_delta(n, bits, q, d, eps)
        assert worst <= got * (1.0 + 1e-12), (d, worst, got)


def test_pools_beat_the_blanket_and_cover_two_type_backgrounds():
    """At N = 20, L = 2 the pools are below the graded blanket at d = 2 and above the exact δ of every
    background on at most two vectors, in both orders."""
    n, bits, q, eps, d = 20, 2, 0.15, 1.0, 2
    got = pools.pools_delta(n, bits, q, d, eps)
    assert got < blanket.blanket_delta(n, bits, q, d, eps)
    x, xp = _change(bits, d)
    for y1, y2 in itertools.combinations_with_replacement(_vectors(bits), 2):
        for k in (0, 7, 13, n - 1) if y1 != y2 else (0,):
            bg = [y1] * k + [y2] * (n - 1 - k)
            D, Dp = [*bg, x], [*bg, xp]
            assert max(op.pair_delta(D, Dp, q, eps), op.pair_delta(Dp, D, q, eps)) <= got, (y1, y2, k)


@pytest.mark.parametrize("sweep", [8, 1])
@pytest.mark.parametrize(("bits", "d", "star", "q"), [(2, 2, "01", 0.2), (3, 3, "001", 0.3), (3, 2, "110", 0.15)])
def test_members_beyond_the_lattice_against_exact_homogeneous_members(bits, d, star, q, sweep, monkeypatch):
    """The grid's values are nonincreasing, at most the value they start from, and at or above the exact δ of
    the homogeneous member at each count, wherever the band of the ceiling puts the evaluations (and with the
    sweep's gaps doubling after one step)."""
    monkeypatch.setattr(pool_counts, "SWEEP_STEPS", sweep)
    eps = 0.3
    x, xp = _change(bits, d)
    member = Member(bits, d, star[:d].count("1"), star[d:].count("1"))
    counts = (3, 4, 5, 6, 7)
    exact = [op.pair_delta([star] * (m - 1) + [x], [star] * (m - 1) + [xp], q, eps) for m in counts]
    for ceiling in (1.0, 0.3, 0.05, 1e-3):
        got = pool_counts.beyond(member, q, eps, counts, 0.9, ceiling)
        assert np.all(np.diff(got) <= 0.0) and np.all(got <= 0.9)
        assert np.all(np.array(exact) <= got * (1.0 + 1e-12)), (ceiling, exact, got)


def test_staircase_step_covers_poisson_binomial_counts():
    """``E[g̃(C + 1)] <= Ψ(μ_j)`` for Poisson-binomial counts ``C`` of mean at least ``μ_j``, with ``g̃`` the staircase
    of random nonincreasing values on a sparse grid of counts, the exact law of ``C`` by convolution."""
    rng = np.random.default_rng(11)
    n, reports = 60, 4
    counts = pool_counts.points(n + 1, reports)
    means = tuple(pools.clone_means(n).tolist())
    for _ in range(40):
        g = np.sort(rng.random(len(counts)))[::-1][None, :]
        psi = pool_counts.pool_bounds(g, n, counts, means)[0]
        probs = rng.choice([0.0, 0.05, 0.3, 0.7, 1.0], n)
        law = np.ones(1)
        for pi in probs:
            law = np.convolve(law, [1.0 - pi, pi])
        at = np.searchsorted(np.array(counts), np.arange(n + 1) + 1, side="right") - 1
        expected = float(np.dot(law, g[0, at]))  # g̃(c + 1): the value at the last count not beyond c + 1
        j = np.searchsorted(np.array(means), probs.sum(), side="right") - 1  # the grid's mean below E C
        assert expected <= psi[j] + 1e-12, (expected, psi[j])


def test_few_atoms_at_many_users_do_not_enumerate():
    """A member with two atoms at 10⁵ users takes the hinge (the enumerated sum would build a table of 10¹⁰ floats),
    and its certified interval holds the same δ from below and above."""
    member = Member(4, 1, 0, 0)
    lo, hi = family_delta.member_delta(member, 100_000, 0.2, 0.05)
    assert 0.0 < lo <= hi < 1.0
    assert family_delta.member_delta(member, 100_000, 0.2, 0.05, lower=False) == (0.0, hi)


def test_tiny_members_are_not_lost_to_underflow():
    """At 1000 users and one bit the member's δ(ln 2) is about 1e-82: its count vectors are few, but their weights
    ``q^k`` underflow, which the enumerated sum would not charge (its upper end was 0). It now takes the hinge,
    whose interval holds the exact value (exact rationals: ``Bin(999, q)`` plus the changing user)."""
    n, q, eps = 1000, 0.2, math.log(2)
    qf = Fraction(q)
    pf, lam = 1 - qf, Fraction(2)
    base = [math.comb(n - 1, k) * qf**k * pf ** (n - 1 - k) for k in range(n)]
    after = [(base[k] * qf if k < n else 0) + (base[k - 1] * pf if k > 0 else 0) for k in range(n + 1)]
    before = [(base[k] * pf if k < n else 0) + (base[k - 1] * qf if k > 0 else 0) for k in range(n + 1)]
    exact = sum(max(a - lam * b, Fraction(0)) for a, b in zip(after, before, strict=True))
    lo, hi = family_delta.member_delta(Member(1, 1, 0, 0), n, q, eps)
    assert 0.0 < exact < 1e-70
    assert Fraction(lo) <= exact <= Fraction(hi), (lo, float(exact), hi)


def test_hoeffding_lower_tail_against_exact_poisson_binomials():
    """Hoeffding (1956, Theorem 4): ``P(C <= k) <= P(Bin(n, μ/n) <= k)`` for ``k <= μ − 1``, exactly, on
    random and extreme (0/1-heavy) Poisson binomials; and the bound fails just above ``μ − 1``."""
    rng = np.random.default_rng(7)
    fails_above = 0
    for _ in range(300):
        n = int(rng.integers(2, 12))
        probs = [Fraction(int(v), 16) for v in rng.choice([0, 1, 2, 8, 15, 16], n)]
        law = [Fraction(1)]
        for pi in probs:
            law = [
                (law[k] if k < len(law) else 0) * (1 - pi) + (law[k - 1] * pi if k > 0 else 0)
                for k in range(len(law) + 1)
            ]
        mu = sum(probs)
        for k in range(n + 1):
            exact = sum(law[: k + 1])
            comparison = sum(math.comb(n, j) * (mu / n) ** j * (1 - mu / n) ** (n - j) for j in range(k + 1))
            if k <= mu - 1:
                assert exact <= comparison, (probs, k)
            elif k < mu and exact > comparison:
                fails_above += 1
    assert fails_above > 0  # the condition k <= μ − 1 is needed


@pytest.mark.parametrize(("n", "reports"), [(5, 60), (40, 60), (999, 60), (10**6, 100)])
def test_capped_distribution_functions_are_upper_bounds(n, reports):
    """Every weight of the staircase's steps at or above the binomial distribution function where Hoeffding's
    comparison holds (``k <= μ − 1``), and 0 beyond; on the dense counts and on the grid beyond them."""
    counts = pool_counts.points(n + 1, reports)
    means = tuple(pools.clone_means(n).tolist())
    table = pool_counts.capped_cdfs(n, counts, means)
    ks = np.array(counts[1:]) - 2
    for j, mu in enumerate(means):
        use = ks <= int(mu) - 1
        assert np.all(table[j, use] >= binom.cdf(ks[use], n, mu / n) * (1.0 - 1e-12))
        assert np.all(table[j, ~use] == 0.0)


def test_curve_takes_the_pools_into_the_minimum():
    """With ``pools`` the curve's tail and δ are below the default's where the pools win, and name them."""
    n, bits, q, eps = 1000, 5, 0.1692, 2.0
    plain, pooled = every_pair.Curve(n, bits, q), every_pair.Curve(n, bits, q, pools=True)
    got = pooled.tail(eps)
    assert got.method == "cross-cloned pools"
    assert got.bound < 0.6 * plain.tail(eps).bound
    grid = np.array([eps])
    assert np.all(pooled.deltas(grid) < plain.deltas(grid))


@pytest.mark.parametrize(("n", "bits", "q", "eps"), [(5, 3, 0.1, 1.0), (6, 2, 0.2, 0.5)])
def test_curve_tail_with_pools_covers_every_enumerated_pair(n, bits, q, eps):
    search = gpu_rs.worst_pairs(n, bits, q, eps)
    got = every_pair.Curve(n, bits, q, pools=True).tail(eps).bound
    assert search.upper <= got <= every_pair.Curve(n, bits, q).tail(eps).bound


def test_the_default_tail_takes_the_pools_where_it_searches():
    """``gpu_rs.tail`` under the default scope tries the pools at small settings when its search has the
    time (``search_seconds >= POOLS_SECONDS``), and not when it only decides (a calibration's queries)."""
    n, bits, q, eps = 1000, 5, 0.1692, 2.0
    full, quick = gpu_rs.tail(n, bits, q, eps), gpu_rs.tail(n, bits, q, eps, search_seconds=0.0)
    assert full.upper < 0.6 * quick.upper
    assert full.upper == every_pair.curve(n, bits, q, pools=True).tail(eps).bound
    assert quick.upper == every_pair.curve(n, bits, q).tail(eps).bound
    assert quick.lower <= full.lower <= full.upper  # the search only raises the lower end


def test_the_tail_takes_the_pools_at_every_size_from_a_minute(monkeypatch):
    """Beyond ``POOLS_USERS`` the default tail leaves the pools out (40–50 s a tail at ``N = 10⁵`` to ``10⁷``,
    ``L = 8``), and takes them again from ``search_seconds >= POOLS_ALL_SECONDS``."""
    from gpu_rs.pairs.scopes import all_bound

    n, bits, q, eps = 1000, 5, 0.1692, 2.0
    monkeypatch.setattr(all_bound, "POOLS_USERS", n - 1)
    default, minute = gpu_rs.tail(n, bits, q, eps), gpu_rs.tail(n, bits, q, eps, search_seconds=60.0)
    assert default.upper == every_pair.curve(n, bits, q).tail(eps).bound
    assert minute.upper == every_pair.curve(n, bits, q, pools=True).tail(eps).bound < 0.6 * default.upper


def test_pools_at_every_count_lower_the_bound_at_many_users():
    """At ``N = 10⁴``, ``L = 5`` the clone counts pass the lattice's 500 reports: the members beyond them lower the
    tail by about a fifth (0.00101 → 0.00080 when measured), and it stays above the best pair known's tail."""
    n, bits, q, eps = 10_000, 5, 0.2245, 0.6931
    plain, pooled = every_pair.Curve(n, bits, q).tail(eps), every_pair.Curve(n, bits, q, pools=True).tail(eps)
    assert pooled.method == "cross-cloned pools" and pooled.bound < 0.9 * plain.bound
    assert gpu_rs.tail(n, bits, q, eps, search_seconds=0.0).lower <= pooled.bound

"""Scopes (SPEC §1.1): both orders of the homogeneous pair, every pair for one bit, the proven
bound for more bits, and the exact small-collection tools ``pair_tail`` and ``worst_pairs``.

Every check compares gpu_rs with an oracle of tests/oracles.py or tests/oracles_pairs.py, which
never import gpu_rs.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import oracles
import oracles_pairs as op
import pytest

import gpu_rs
from gpu_rs.common.errors import TimeBudgetError
from gpu_rs.pairs.clones import collapsed_tail


def pair(result, name):
    return next(p for p in result.pairs if p.pair == name)


# --- both orders of the homogeneous pair ----------------------------------------------------


@pytest.mark.parametrize(
    ("n", "q", "eps"), [(1000, 0.1, 0.5), (1000, 0.1, 0.25), (50, 0.2, 0.4), (10**4, 0.05, 0.2), (7, 0.3, 0.1)]
)
def test_l1_both_orders_against_binomial_sums(n, q, eps):
    lam = math.exp(eps)
    b = gpu_rs.tail(n, 1, q, eps, scope="homogeneous", backend="numpy")
    fwd, rev = oracles.tail_L1(n, q, lam), oracles.reverse_tail_L1(n, q, lam)
    assert pair(b, "forward").lower <= fwd <= pair(b, "forward").upper
    assert pair(b, "reverse").lower <= rev <= pair(b, "reverse").upper
    assert b.lower <= max(fwd, rev) <= b.upper
    assert b.scope == "homogeneous" and "conjecture" in b.guarantee
    assert b.worst == ("forward" if fwd > rev else "reverse") or math.isclose(fwd, rev, rel_tol=1e-3)


@pytest.mark.parametrize(("n", "q", "eps"), [(1000, 0.05, 0.5), (300, 0.15, 0.3), (20, 0.2, 0.9)])
def test_l2_reverse_order_against_exact_sum(n, q, eps):
    lam = math.exp(eps)
    b = gpu_rs.tail(n, 2, q, eps, backend="numpy")
    assert pair(b, "reverse").lower <= oracles.reverse_tail_L2(n, q, lam) <= pair(b, "reverse").upper
    assert pair(b, "forward").lower <= oracles.tail_L2(n, q, lam) <= pair(b, "forward").upper


@pytest.mark.parametrize(
    ("n", "bits", "q", "eps"), [(5, 3, 0.2, 0.5), (4, 4, 0.15, 0.7), (3, 5, 0.25, 0.3), (3, 2, 0.1, 1.0)]
)
def test_both_orders_against_pair_enumeration(n, bits, q, eps):
    zeros = ["0" * bits] * n
    outlier = ["0" * bits] * (n - 1) + ["1" * bits]
    lam = Fraction(math.exp(eps))  # within an ulp of e^eps: no histogram ratio lies between
    fwd = op.pair_tail(zeros, outlier, Fraction(q), lam, exact=True)
    rev = op.pair_tail(outlier, zeros, Fraction(q), lam, exact=True)
    b = gpu_rs.tail(n, bits, q, eps, backend="numpy")
    assert pair(b, "forward").lower <= fwd <= pair(b, "forward").upper
    assert pair(b, "reverse").lower <= rev <= pair(b, "reverse").upper
    assert gpu_rs.tail(n, bits, q, eps, scope="forward", backend="numpy").upper == pair(b, "forward").upper


@pytest.mark.parametrize(("n", "bits", "q", "eps"), [(1000, 5, 0.2446, math.log(2)), (200, 3, 0.1, 0.6)])
def test_reverse_order_against_monte_carlo(n, bits, q, eps):
    rng = np.random.default_rng(7)
    w, lpi0, _ = oracles.atoms(bits, q)
    samples = 400_000
    counts = rng.multinomial(n, np.exp(lpi0), size=samples)
    hits = int(np.count_nonzero(counts @ w < n * math.exp(-eps)))
    lo, hi = oracles.clopper_pearson(hits, samples, 0.9999)
    b = gpu_rs.tail(n, bits, q, eps, backend="numpy")
    assert pair(b, "reverse").lower <= hi and lo <= pair(b, "reverse").upper


def test_reverse_dominates_where_the_issue_says():
    b = gpu_rs.tail(1000, 1, 0.1, 0.5, scope="homogeneous", backend="numpy")
    assert b.worst == "reverse"
    assert pair(b, "reverse").lower > 1e4 * pair(b, "forward").upper


# --- every pair, one bit ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "q", "eps"), [(1000, 0.1, 0.5), (1000, 0.1, 0.25), (200, 0.3, 0.2), (40, 0.05, 1.0), (2, 0.2, 0.3)]
)
def test_l1_all_pairs_against_brute_scan(n, q, eps):
    lam = math.exp(eps)
    brute = op.l1_all_pairs(n, q, lam)
    b = gpu_rs.tail(n, 1, q, eps, scope="all", backend="numpy")
    assert b.lower <= brute["max"] <= b.upper
    assert b.met and b.guarantee == "proven for every neighbouring collection"
    assert f"{brute['argmax']} zeros" in b.worst or (
        b.upper - b.lower > 0 and math.isclose(brute["tails"][int(b.worst.split()[2])], brute["max"], rel_tol=2e-3)
    )
    assert math.isclose(sum(b.budget.to_dict().values()), b.upper - b.lower, rel_tol=1e-6, abs_tol=1e-300)


@pytest.mark.parametrize(("n", "q", "eps"), [(6, 0.2, 0.3), (5, 0.1, 0.9), (4, 0.35, 0.1)])
def test_l1_all_pairs_against_every_pair(n, q, eps):
    search = gpu_rs.worst_pairs(n, 1, q, eps)
    b = gpu_rs.tail(n, 1, q, eps, scope="all", backend="numpy")
    assert b.lower <= search.upper and search.lower <= b.upper


@pytest.mark.parametrize(("n", "q", "eps", "inclusive"), [(2000, 0.004, 1.0, False), (1500, 0.03, 0.5, True)])
def test_l1_interval_bound_covers_every_background_inside(n, q, eps, inclusive):
    """The bound of an interval of backgrounds from its two ends (docs/worst-case.md §3,
    ``T(a) <= P'_{a2}[K >= k*(a1) − (a2 − a1)]``) is at least the exact tail of every background
    inside it, for nested intervals from the whole range down to a few backgrounds; small ``q``
    (the first case) is where ``k*`` moves by a whole count between neighbours."""
    from gpu_rs.pairs.backgrounds import WorstBackground

    brute = op.l1_all_pairs(n, q, math.exp(eps), inclusive)["tails"]
    search = WorstBackground(n, q, math.exp(eps), inclusive)
    rng = np.random.default_rng(7)
    for _ in range(40):
        a1, a2 = sorted(int(a) for a in rng.integers(0, n, size=2))
        if a2 - a1 < 2:
            continue
        search.evaluate(a1)
        search.evaluate(a2)
        assert search.interval_upper(a1, a2) >= brute[a1 : a2 + 1].max()
    search.evaluate(0)
    search.evaluate(n - 1)
    assert search.interval_upper(0, n - 1) >= brute.max()


@pytest.mark.parametrize(("n", "q", "eps"), [(3000, 0.003, 0.5), (2000, 0.02, 0.2), (800, 0.1, 1.0)])
def test_l1_tail_rises_along_each_tooth(n, q, eps):
    """On a run of backgrounds with the same ``k*(a) + a`` the exact tail is nondecreasing in ``a``
    (docs/worst-case.md §3, the search's exact bound for one tooth); oracle tails and thresholds."""
    brute = op.l1_all_pairs(n, q, math.exp(eps))
    tooth = brute["kstar"] + brute["a"]
    same = tooth[1:] == tooth[:-1]
    assert same.sum() > n // 4 and (~same).sum() > 2  # several teeth, most of them wide
    tails = brute["tails"]
    assert np.all(tails[1:][same] >= tails[:-1][same] * (1.0 - 1e-9))


@pytest.mark.parametrize(("n", "q", "eps"), [(6000, 0.002, 0.4), (3000, 0.05, 0.15)])
def test_l1_search_splits_wide_teeth_and_stops_on_time(n, q, eps):
    """Wide teeth (small ``q``) are split, not evaluated whole, and the interval still holds the
    brute-force maximum; a search stopped at once bounds the rest from interval ends."""
    from gpu_rs.pairs.backgrounds import WorstBackground

    brute = op.l1_all_pairs(n, q, math.exp(eps))
    search = WorstBackground(n, q, math.exp(eps), False)
    search.evaluate(0)
    found = search.search(1e-3 * search.evaluated[0].lower, n + 2)
    assert found.complete and found.lower <= brute["max"] <= found.upper
    assert found.upper - found.lower <= 2e-3 * brute["max"]
    if q < 0.01:
        assert found.evaluated < n // 4
    stopped = WorstBackground(n, q, math.exp(eps), False).search(1e-3 * brute["max"], n + 2, seconds=0.0)
    assert not stopped.complete and stopped.lower <= brute["max"] <= stopped.upper


def test_l1_all_pairs_falls_back_to_the_proven_bound_where_the_search_would_not_finish():
    b = gpu_rs.tail(10**9, 1, 0.1, 0.5, scope="all")
    assert "would take about" in b.worst
    assert b.guarantee.startswith("proven upper bound for every neighbouring collection")
    assert b.lower == max(p.lower for p in b.pairs) and b.upper >= max(p.upper for p in b.pairs)


# --- every pair, more bits: the proven bound ------------------------------------------------


@pytest.mark.parametrize("bits", [2, 3])
@pytest.mark.parametrize(("n", "q", "eps"), [(4, 0.2, 0.5), (5, 0.1, 1.0), (6, 0.3, 0.2)])
def test_clone_bound_covers_every_enumerated_pair(n, bits, q, eps):
    if bits == 3 and n == 6:
        n = 5  # the bits=3, n=6 search is covered by the search test below
    search = gpu_rs.worst_pairs(n, bits, q, eps)
    bound, _, _ = collapsed_tail(n, bits, q, eps)
    assert bound >= search.upper
    b = gpu_rs.tail(n, bits, q, eps, scope="all", backend="numpy")
    assert b.upper >= search.upper and b.lower <= search.upper
    assert b.guarantee.startswith("proven upper bound for every neighbouring collection")


def test_clone_bound_is_a_bound_at_moderate_n():
    # the worst pair found at small n for bits = 2 is the homogeneous pair at distance 2 or a
    # background of mixed vectors; the bound must exceed both orders of the homogeneous pair
    b = gpu_rs.tail(1000, 2, 0.1, 0.5, scope="all", backend="numpy")
    h = gpu_rs.tail(1000, 2, 0.1, 0.5, backend="numpy")
    assert b.upper >= h.upper and b.lower <= h.upper


# --- pair_tail and worst_pairs ---------------------------------------------------------------


CASES = [
    (["0", "0", "1"], ["0", "1", "1"]),
    (["00", "01", "11"], ["00", "01", "10"]),
    (["000", "110", "011", "000"], ["000", "110", "011", "111"]),
    (["10", "10"], ["01", "01"]),  # not neighbours: any two collections of one size
]


@pytest.mark.parametrize(("D", "D_m"), CASES)
@pytest.mark.parametrize("q", [0.1, 0.3, Fraction(1, 5)])
def test_pair_tail_against_dictionary_enumeration(D, D_m, q):
    lam = Fraction(3, 2)
    exact = op.pair_tail(D, D_m, Fraction(q), lam, exact=True)
    got = gpu_rs.pair_tail(D, D_m, q, ratio=lam)
    assert got.exact == exact
    assert got.lower <= exact <= got.upper and got.undecided == 0.0
    f = gpu_rs.pair_tail(D, D_m, q, eps=0.4)
    assert f.lower <= op.pair_tail(D, D_m, float(q), math.exp(0.4)) * (1 + 1e-12) and f.upper >= op.pair_tail(
        D, D_m, float(q), math.exp(0.4)
    ) * (1 - 1e-12)


def test_pair_tail_decides_ties_exactly_with_a_rational_ratio():
    # L = 1, N = 2: the ratio takes the rational values p/q, 1, q/p; at lam = p/q strict and
    # inclusive differ by the mass of the tie
    q = Fraction(1, 4)
    lam = (1 - q) / q
    D, D_m = ["0", "0"], ["0", "1"]
    strict = gpu_rs.pair_tail(D, D_m, q, ratio=lam)
    incl = gpu_rs.pair_tail(D, D_m, q, ratio=lam, inclusive=True)
    assert strict.exact == op.pair_tail(D, D_m, q, lam, exact=True)
    assert incl.exact == op.pair_tail(D, D_m, q, lam, inclusive=True, exact=True)
    assert incl.exact > strict.exact


def test_pair_tail_leaves_float_ties_undecided_but_covered():
    q = Fraction(1, 4)
    D, D_m = ["0", "0"], ["0", "1"]
    got = gpu_rs.pair_tail(D, D_m, q, eps=math.log(3))  # the ratio p/q = 3 is within rounding
    strict = op.pair_tail(D, D_m, q, Fraction(3), exact=True)
    incl = op.pair_tail(D, D_m, q, Fraction(3), inclusive=True, exact=True)
    assert got.exact is None and got.undecided > 0
    assert got.lower <= strict and incl <= got.upper


def test_pair_tail_matches_the_homogeneous_pair_of_tail():
    n, bits, q, eps = 6, 3, 0.2, 0.5
    zeros, outlier = ["000"] * n, ["000"] * (n - 1) + ["111"]
    b = gpu_rs.tail(n, bits, q, eps, backend="numpy")
    fwd, rev = gpu_rs.pair_tail(zeros, outlier, q, eps), gpu_rs.pair_tail(outlier, zeros, q, eps)
    assert pair(b, "forward").lower <= fwd.upper and fwd.lower <= pair(b, "forward").upper
    assert pair(b, "reverse").lower <= rev.upper and rev.lower <= pair(b, "reverse").upper


@pytest.mark.parametrize(
    ("n", "bits", "q", "eps"), [(4, 2, 0.2, 0.5), (6, 3, 0.2, 0.5), (5, 2, 0.1, 1.0), (6, 1, 0.25, 0.2)]
)
def test_worst_pairs_against_the_oracle_search(n, bits, q, eps):
    lam = math.exp(eps)
    want = op.search_pairs(n, bits, q, lam)
    got = gpu_rs.worst_pairs(n, bits, q, eps)
    assert len(got.pairs) == len(want["pairs"])
    best = max(max(r["tail_fwd"], r["tail_rev"]) for r in want["pairs"])
    assert got.lower * (1 - 1e-12) <= best <= got.upper * (1 + 1e-12)
    h = want["homogeneous"]
    assert math.isclose(got.homogeneous.forward.upper, h["tail_fwd"], rel_tol=1e-12)
    assert math.isclose(got.homogeneous.reverse.upper, h["tail_rev"], rel_tol=1e-12)
    for d, rec in got.by_distance().items():
        assert math.isclose(rec.upper, want["max_by_d"][d]["tail"], rel_tol=1e-12)


def test_a_pair_beyond_both_orders_of_the_homogeneous_pair():
    # issue 9: enumeration finds pairs above both orders of the homogeneous pair
    s = gpu_rs.worst_pairs(6, 3, 0.2, 0.5)
    assert s.lower > s.homogeneous.upper
    assert s.pairs[0].distance < 3  # and the worst change is not at the largest distance


def test_worst_pairs_refuses_large_sizes_with_an_estimate():
    with pytest.raises(TimeBudgetError, match=r"about .* s"):
        gpu_rs.worst_pairs(30, 3, 0.2, 0.5)
    with pytest.raises(ValueError, match="bits"):
        gpu_rs.worst_pairs(4, 5, 0.2, 0.5)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"D": ["0", "1"], "D_m": ["0"], "q": 0.1, "eps": 0.5}, "same number"),
        ({"D": ["01", "1"], "D_m": ["00", "11"], "q": 0.1, "eps": 0.5}, "one length"),
        ({"D": ["02"], "D_m": ["00"], "q": 0.1, "eps": 0.5}, "entries 0 or 1"),
        ({"D": ["0"], "D_m": ["1"], "q": 0.6, "eps": 0.5}, "q must be"),
        ({"D": ["0"], "D_m": ["1"], "q": 0.1, "eps": -1.0}, "eps must be"),
        ({"D": ["0"], "D_m": ["1"], "q": 0.1, "ratio": Fraction(1, 2)}, "ratio must be"),
        ({"D": ["000"] * 40, "D_m": ["111"] * 40, "q": 0.1, "eps": 0.5}, "about"),
    ],
)
def test_pair_tail_rejects_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        gpu_rs.pair_tail(**kwargs)


def test_worst_pairs_at_every_attained_threshold():
    # issue 9 item 5: the search at every threshold the ratio attains, strict and inclusive,
    # against a brute force over every pair (no symmetry reduction), all in exact rationals
    n, bits, q = 3, 2, Fraction(1, 5)
    vectors = ["00", "01", "10", "11"]
    pairs = [
        ([*list(bg), x], [*list(bg), y])
        for bg in itertools.combinations_with_replacement(vectors, n - 1)
        for x, y in itertools.permutations(vectors, 2)
    ]
    zeros, outlier = ["00"] * n, ["00"] * (n - 1) + ["11"]
    p0, p1 = op.pair_distribution(zeros, q), op.pair_distribution(outlier, q)
    thresholds = sorted({p1[s] / p0[s] for s in p1} | {p0[s] / p1[s] for s in p1})
    thresholds = [lam for lam in thresholds if lam > 1]
    assert len(thresholds) >= 4
    for lam in thresholds:
        for inclusive in (False, True):
            brute = max(op.pair_tail(D, D_m, q, lam, inclusive=inclusive) for D, D_m in pairs)
            got = gpu_rs.worst_pairs(n, bits, q, ratio=lam, inclusive=inclusive)
            top = max(max(r.forward.exact, r.reverse.exact) for r in got.pairs)
            assert top == brute, (lam, inclusive)
            assert got.lower <= brute <= got.upper


def test_l1_all_pairs_where_every_tail_is_below_the_width():
    # tails far below abs_width: the search ends on the clone bound instead of visiting every
    # background, and the interval must still hold the brute-force maximum
    n, q, eps = 3000, 0.1, 0.5
    brute = op.l1_all_pairs(n, q, math.exp(eps))
    b = gpu_rs.tail(n, 1, q, eps, scope="all", backend="numpy")
    assert b.met and b.upper <= 1e-12
    assert b.lower <= brute["max"] <= b.upper


def test_l1_background_search_where_the_guess_lies_beyond_n():
    """n = 1000, q = 0.0215, ε = 2: the normal guess of ``k*`` for the first background lies above
    ``n``, which gave an empty span ("negative dimensions are not allowed") during a calibration."""
    q = 0.02148255136522028
    every = gpu_rs.tail(1000, 1, q, 2.0, scope="all")
    seed = gpu_rs.tail(1000, 1, q, 2.0, scope="homogeneous")
    assert every.upper >= seed.lower
    assert every.lower <= every.upper <= 1.0
    assert every.upper - every.lower <= 1e-3 * every.upper + 1e-15


@pytest.mark.parametrize(("n", "a0", "m"), [(10**5, 10**5 - 1, 1), (10**5, 0, 1), (5000, 2000, 3)])
def test_block_masses_cut_to_the_windows_still_bracket(n, a0, m):
    """A span of every count (the search's last resort) is cut to the binomials' windows; the
    brackets there contain the exact masses of B_a = Bin(a, q) + Bin(n − 1 − a, p) (SciPy in log
    space, independent of the product's convolution), and the cut columns carry no mass."""
    from scipy import stats

    from gpu_rs.pairs.counts import block_masses

    q = 0.3
    got = block_masses(n, q, a0, m, (0, n))
    assert got.ks.shape[0] < min(n, 20_000)  # not the whole 0 … n
    for j in range(m):
        a = a0 + j
        lo, hi = a * q + (n - 1 - a) * (1 - q) - 12_000, a * q + (n - 1 - a) * (1 - q) + 12_000
        k = np.arange(max(0, int(lo)), min(n, int(hi)))
        xs = stats.binom.pmf(np.arange(a + 1), a, q)
        ys = stats.binom.pmf(np.arange(n - a), n - 1 - a, 1 - q)
        exact = np.convolve(xs, ys)
        sf = np.cumsum(exact[::-1])[::-1]
        cols = np.searchsorted(got.ks, k)
        ok = (cols < got.ks.shape[0]) & (got.ks[np.minimum(cols, got.ks.shape[0] - 1)] == k)
        big = exact[k] > 1e-250  # SciPy's own relative accuracy holds there
        c, kk = cols[ok & big], k[ok & big]
        assert c.shape[0] > 100
        slack = 1e-9 * exact[kk]
        assert np.all(got.point_lo[j, c] <= exact[kk] + slack) and np.all(exact[kk] - slack <= got.point_hi[j, c])
        assert np.all(got.tail_lo[j, c] <= sf[kk] * (1 + 1e-9)) and np.all(sf[kk] * (1 - 1e-9) <= got.tail_hi[j, c])
        assert exact[k[~ok]].sum() <= 1e-30  # columns not computed: nothing resolvable there


def test_one_bit_all_pairs_at_a_million_users():
    """N = 1e6, L = 1 over every background used to convolve across all N counts (112 s); the
    answer still covers both orders of the seed's pair."""
    b = gpu_rs.tail(10**6, 1, 0.3, 0.05, backend="numpy")
    h = gpu_rs.tail(10**6, 1, 0.3, 0.05, scope="homogeneous", backend="numpy")
    assert b.scope == "all" and b.upper >= h.lower and b.lower <= b.upper


@pytest.mark.parametrize(
    ("n", "bits", "q", "eps"), [(10**9, 1, 0.01, 0.05), (10**5, 1, 0.01, 0.3), (1000, 3, 0.2, 0.7)]
)
def test_one_scope_decides_what_every_quantity_covers(n, bits, q, eps):
    """``scope_for`` is the one place that decides how a scope is computed and whether it is exact: the tail's
    and the profile's guarantee sentences are the scope's, for every scope (issue 29: the one-bit tail, the
    profile and calibrate(delta=...) decided "exact over every pair" in three places that disagreed)."""
    from gpu_rs.pairs.scopes import scope_for

    for name in ("forward", "homogeneous", "all"):
        covers = scope_for(name, n, bits, q)
        assert gpu_rs.tail(n, bits, q, eps, scope=name, search_seconds=0).guarantee == covers.guarantee("tail")
        assert gpu_rs.privacy_profile(n, bits, q, scope=name).guarantee == covers.guarantee("delta")
    covers = scope_for("all", n, bits, q)
    # at N = 1e9 the one-bit searches are not started: both quantities are proven bounds, and say so
    assert covers.exact("tail") == covers.exact("delta") == (bits == 1 and n < 10**9)

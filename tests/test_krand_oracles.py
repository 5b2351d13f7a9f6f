"""k-randomization (SPEC §1.3, docs/k-randomization.md): oracles, exact moments, tail bounds.

* the law of the shuffled output from its definition, and the ratio ``e_k(w)/C(kN, k)``;
* the closed-form exact moments (``gpu_rs/quantities/krand_moments.py``) against brute force, exactly;
* the seed's (6.1), (6.2) against brute force: where and by how much they fail;
* the tail-bound inequalities of docs/k-randomization.md §5 outcome by outcome, and the
  certified brackets they give;
* the 3σ rules and σ(d̂).

``gpu_rs/quantities/krand_moments.py`` is standalone (it imports nothing from the rest of ``gpu_rs``); it is
loaded by path so that these checks do not depend on the rest of the package importing.
Whole module without the slow cases: ~30 s (the two slow cases: ~2 min).
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction as F

import oracles as O
import oracles_krand as K
import pytest

from gpu_rs.quantities import krand_moments
from gpu_rs.quantities.closed_forms import precision_sigma
from gpu_rs.reference import seed_krand

km = krand_moments

TINY = [  # (n, bits, k): every ordered output can be enumerated
    (1, 1, 1),
    (2, 1, 2),
    (3, 1, 2),
    (2, 1, 3),
    (4, 1, 3),
    (2, 2, 2),
    (3, 2, 2),
    (1, 2, 3),
    (2, 2, 3),
    (2, 3, 2),
    (3, 2, 1),
]
QS = [F(1, 20), F(1, 10), F(1, 5), F(1, 4), F(3, 10), F(2, 5), F(9, 20)]


def _phi(q):
    p = 1 - q
    return (p**3 + q**3) / (p * q)


# --------------------------------------------------------------------------------------
# the model and the ratio
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,bits,k", TINY)
def test_shuffled_law_two_ways(n, bits, k):
    q = F(1, 5)
    a = K.shuffled_law_sequences(n, bits, q, k)
    b = K.shuffled_law(n, bits, q, k)
    assert a == b
    assert sum(pm for pm, _ in a.values()) == 1
    assert sum(p0 for _, p0 in a.values()) == 1


@pytest.mark.parametrize("n,bits,k", TINY)
@pytest.mark.parametrize("q", [F(1, 5), F(2, 7)])
def test_ratio_is_ek_over_binomial(n, bits, k, q):
    law = K.shuffled_law_sequences(n, bits, q, k)
    for multiset, (pm, p0) in law.items():
        assert pm / p0 == K.ratio_formula(multiset, bits, q, k)


@pytest.mark.parametrize("n,bits,k", [(2, 1, 2), (2, 2, 2), (2, 1, 3), (3, 1, 2)])
def test_seed_normalisation_misses_k_factorial(n, bits, k):
    """(8.21): (kN − k)!/(kN)! · Σ_subsets Π w equals R_k / k!, not R_k."""
    q = F(1, 4)
    M = k * n
    w, _, _ = K.levels(bits, q)
    law = K.shuffled_law(n, bits, q, k)
    for multiset, (pm, p0) in law.items():
        ws = [w[bin(x).count("1")] for x in multiset]
        seed = F(math.factorial(M - k), math.factorial(M)) * sum(math.prod(c) for c in itertools.combinations(ws, k))
        assert seed * math.factorial(k) == pm / p0
        if k > 1:
            assert seed != pm / p0


def test_k1_is_x_over_n():
    n, bits, q = 3, 2, F(1, 5)
    w, _, _ = K.levels(bits, q)
    for multiset, (pm, p0) in K.shuffled_law(n, bits, q, 1).items():
        assert pm / p0 == sum(w[bin(x).count("1")] for x in multiset) / n


# --------------------------------------------------------------------------------------
# exact moments
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,bits,k", [*TINY, (4, 2, 3), (3, 2, 3), (4, 1, 2), (2, 3, 1)])
@pytest.mark.parametrize("q", [F(1, 5), F(3, 7)])
def test_closed_form_moments_equal_brute_force(n, bits, k, q):
    brute = K.moments_brute(n, bits, q, k)
    assert km.k_moments(n, bits, q, k) == brute  # Fractions: exact equality


@pytest.mark.parametrize("n,bits,k", [(2, 1, 2), (3, 2, 3), (4, 2, 2), (2, 3, 3)])
def test_mean_formula_of_the_brief(n, bits, k):
    """E R_k = Σ_r C(k,r) C(kN−k, k−r) φ^(rL) / C(kN, k), written out independently."""
    q = F(2, 9)
    M = k * n
    phi = _phi(q)
    mean = sum(math.comb(k, r) * math.comb(M - k, k - r) * phi ** (r * bits) for r in range(k + 1))
    assert mean / math.comb(M, k) == K.moments_brute(n, bits, q, k)[0]


@pytest.mark.parametrize("n,bits", [(1, 1), (3, 2), (10, 5), (1000, 3)])
def test_k1_moments_are_spec_closed_forms(n, bits):
    q = F(3, 11)
    phi = _phi(q)
    mean = (n - 1 + phi**bits) / n
    var = ((n - 1) * (phi**bits - 1) + (phi**2 + phi - 1) ** bits - phi ** (2 * bits)) / n**2
    assert km.k_moments(n, bits, q, 1) == (mean, var)


@pytest.mark.parametrize(
    "n,bits,q,k",
    [
        (1, 1, 0.3, 1),
        (2, 2, 0.1, 3),
        (1000, 5, 0.2446, 2),
        (10**6, 40, 0.35, 3),
        (10**9, 40, 0.35, 5),
        (10**9, 1, 0.4999999, 4),
        (7, 120, 0.45, 4),
        (3, 3, 0.01, 8),
        (10**5, 64, 0.3, 6),
    ],
)
def test_float_moments_match_exact(n, bits, q, k):
    mean, var = km.k_moments(n, bits, q, k)
    emean, evar = km.k_moments(n, bits, q, k, exact=True)
    assert abs(mean - float(emean)) <= 1e-12 * float(emean)
    assert abs(var - float(evar)) <= 1e-12 * float(evar)
    lm, lv = km.k_log_moments(n, bits, q, k)
    assert abs(lm - math.log(emean)) <= 1e-12 * max(1.0, abs(lm))
    assert abs(lv - math.log(evar)) <= 1e-12 * max(1.0, abs(lv))


def test_moments_overflow_is_inf_with_a_warning():
    with pytest.warns(RuntimeWarning, match="overflows float64"):
        mean, var = km.k_moments(10**9, 1024, 0.01, 10)
    assert mean == math.inf and var == math.inf
    lm, lv = km.k_log_moments(10**9, 1024, 0.01, 10)
    assert 700 < lm < lv < math.inf


def test_moments_decrease_in_q():
    """The 3σ bisection relies on both moments decreasing in q (docs §4)."""
    prev = None
    for i in range(1, 50):
        cur = km.k_log_moments(50, 7, i / 100.0, 3)
        if prev is not None:
            assert cur[0] < prev[0] and cur[1] < prev[1]
        prev = cur


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(n=0, bits=1, q=0.2, k=1), "n"),
        (dict(n=5, bits=0, q=0.2, k=1), "bits"),
        (dict(n=5, bits=1, q=0.5, k=1), "q"),
        (dict(n=5, bits=1, q=0.2, k=0), "k"),
        (dict(n=5, bits=1, q=0.2, k=1.5), "k"),
    ],
)
def test_bad_arguments_are_named(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        km.k_moments(**kwargs)


# --------------------------------------------------------------------------------------
# the seed's (6.1) and (6.2)
# --------------------------------------------------------------------------------------
def test_seed_bounds_transcription():
    """(6.1)/(6.2) written with p and q as the seed prints them, against the module."""
    for n, bits, k, q in [(2, 1, 2, F(1, 5)), (4, 2, 3, F(1, 10)), (1000, 5, 2, F(1, 4))]:
        p = 1 - q
        M = k * n
        a = ((q**3 + p**3) / (q * p)) ** bits
        b = ((q**5 + p**5) / (q * p) ** 2) ** bits
        mean_b = (1 + a / M) ** k
        var_b = (a / M + b / M**2) ** k - (F(1, M) + a * a / M**2) ** k
        assert seed_krand.seed_k_moment_bounds(n, bits, q, k) == (mean_b, var_b)
        fm, fv = seed_krand.seed_k_moment_bounds(n, bits, float(q), k)
        assert abs(fm - float(mean_b)) <= 1e-13 * float(mean_b)
        assert abs(fv - float(var_b)) <= 1e-12 * float(var_b)


def _seed_ratios(Ns):
    out = {}
    for bits in (1, 2):
        for n in Ns:
            for k in (1, 2, 3):
                for q in QS:
                    mean, var = K.moments_brute(n, bits, q, k)
                    mb, vb = seed_krand.seed_k_moment_bounds(n, bits, q, k)
                    out[(bits, n, k, q)] = (mean / mb, var / vb)
    return out


def test_seed_moment_bounds_fail_as_documented():
    """Brute force, L <= 2, N = 2..4, k <= 3, q in QS (docs/k-randomization.md §4)."""
    r = _seed_ratios((2, 3, 4))
    for (_bits, _n, k, q), (rm, rv) in r.items():
        if k == 1:  # the seed's k = 1 bounds do hold
            assert rm <= 1 and rv <= 1
            continue
        assert rv > 5  # (6.2) fails everywhere for k >= 2, by a factor > 5
        if q <= F(1, 4):
            assert rm > 1  # (6.1) fails for q <= 1/4 ...
        if q >= F(2, 5):
            assert rm < 1  # ... and holds near q = 1/2
    var2 = [float(rv) for (b, n, k, q), (rm, rv) in r.items() if k == 2]
    var3 = [float(rv) for (b, n, k, q), (rm, rv) in r.items() if k == 3]
    assert 5.1 < min(var2) < 5.3 and 12.5 < max(var2) < 12.7
    assert 70 < min(var3) < 71 and 340 < max(var3) < 341
    means = [float(rm) for (b, n, k, q), (rm, rv) in r.items()]
    assert 10.5 < max(means) < 10.6  # L = 2, N = 2, k = 3, q = 1/20
    # the seeds/README "7.6x": L = 2, N = 3, k = 3, q = 1/10
    assert round(float(r[(2, 3, 3, F(1, 10))][0]), 1) == 7.6


def test_seed_moment_bounds_n1():
    r = _seed_ratios((1,))
    assert all(rv > 1 for (b, n, k, q), (rm, rv) in r.items() if k > 1)
    assert 26 < max(float(rm) for rm, rv in r.values()) < 27
    assert 665 < max(float(rv) for rm, rv in r.values()) < 666


# --------------------------------------------------------------------------------------
# exact tails
# --------------------------------------------------------------------------------------
TAIL_CASES = [
    (2, 1, 2, F(1, 5), F(3, 2)),
    (3, 2, 2, F(1, 4), F(2)),
    (3, 1, 3, F(1, 5), F(2)),
    (2, 2, 3, F(3, 10), F(3, 2)),
    (4, 2, 2, F(1, 5), F(5, 2)),
]


@pytest.mark.parametrize("n,bits,k,q,lam", TAIL_CASES)
@pytest.mark.parametrize("inclusive", [False, True])
def test_tails_agree(n, bits, k, q, lam, inclusive):
    a = K.tail_brute(n, bits, q, k, lam, inclusive)
    assert a == K.tail_joint(n, bits, q, k, lam, inclusive)
    assert a == K.tail_counts(n, bits, q, k, lam, inclusive, exact=True)
    assert abs(K.tail_counts(n, bits, q, k, lam, inclusive) - float(a)) <= 1e-13
    assert 0 < a < 1


@pytest.mark.parametrize("n,bits,k,q", [(3, 2, 2, F(1, 4)), (4, 1, 3, F(1, 5)), (2, 2, 3, F(1, 3))])
def test_strict_and_inclusive_at_a_tie(n, bits, k, q):
    law = K.shuffled_law(n, bits, q, k)
    values = sorted({pm / p0 for pm, p0 in law.values()})
    lam = values[len(values) // 2]
    at = sum(pm for pm, p0 in law.values() if pm / p0 == lam)
    strict = K.tail_brute(n, bits, q, k, lam, False, law=law)
    incl = K.tail_brute(n, bits, q, k, lam, True, law=law)
    assert at > 0 and incl - strict == at
    if bits <= 2:
        assert K.tail_counts(n, bits, q, k, lam, False, exact=True) == strict
        assert K.tail_counts(n, bits, q, k, lam, True, exact=True) == incl
        assert abs(K.tail_counts(n, bits, q, k, lam, False) - float(strict)) <= 1e-13
        assert abs(K.tail_counts(n, bits, q, k, lam, True) - float(incl)) <= 1e-13


@pytest.mark.parametrize("n,bits,k,q,lam", [(40, 2, 2, F(1, 5), F(13, 10)), (60, 1, 3, F(1, 6), F(7, 5))])
def test_count_tail_float_vs_exact(n, bits, k, q, lam):
    exact = K.tail_counts(n, bits, q, k, lam, exact=True)
    assert 1e-6 < exact < 1
    assert abs(K.tail_counts(n, bits, q, k, lam) - float(exact)) <= 1e-12 * float(exact)


@pytest.mark.parametrize("n,q,lam", [(1000, 0.3, 1.25), (400, 0.1, 3.1)])
def test_count_tail_k1_matches_k1_oracles(n, q, lam):
    assert O.l1_lattice_distance(n, q, lam) > 1e-6
    assert abs(K.tail_counts(n, 1, q, 1, lam) - O.tail_L1(n, q, lam)) <= 1e-11 * O.tail_L1(n, q, lam)
    assert O.l2_lattice_distance(n, q, lam) > 1e-6
    assert abs(K.tail_counts(n, 2, q, 1, lam) - O.tail_L2(n, q, lam)) <= 1e-11 * O.tail_L2(n, q, lam)


def test_count_tail_vs_monte_carlo():
    exact = K.tail_counts(1000, 2, 0.2, 3, 1.5)
    _, lo, hi = K.monte_carlo_tail_k(1000, 2, 0.2, 3, 1.5, samples=200_000, seed=11)
    assert lo <= exact <= hi


def test_readme_k_tails_l5():
    """seeds/README: P[R_k > 2] at L = 5, N = 1000, q = 0.2446 is 0.0072, 0.057, 0.114."""
    for k, quoted in [(1, 0.0072), (2, 0.057), (3, 0.114)]:
        est, lo, hi = K.monte_carlo_tail_k(1000, 5, 0.2446, k, 2.0, samples=300_000, seed=k)
        assert lo <= quoted <= hi, (k, est, lo, hi)
    # k = 1 against the k = 1 oracle (seeds/README: 7.07e-3)
    lo, hi = O.tail_condition(1000, 5, 0.2446, 2.0)
    assert abs(lo - 0.00707) < 5e-5 and hi - lo < 1e-9


# --------------------------------------------------------------------------------------
# tail-bound inequalities, outcome by outcome
# --------------------------------------------------------------------------------------
INEQ_CASES = [(3, 2, 2), (2, 2, 3), (3, 1, 3), (2, 3, 2), (4, 1, 3), (1, 2, 3), (3, 3, 3)]


@pytest.mark.parametrize("n,bits,k", INEQ_CASES)
def test_inequalities_outcome_by_outcome(n, bits, k):
    q = F(1, 4)
    M = k * n
    n0 = M - k
    w, _, _ = K.levels(bits, q)
    outl, zero = K.joint_law(n, bits, q, k)
    assert sum(p for _, p in outl) == 1 and sum(p for _, p in zero) == 1
    umin = w[0]
    for u, _ in outl:
        uw = [w[l] for l in u]
        eu = K.esym(uw, k)
        U = sum(uw)
        # Schur-concavity: e_j(u) >= e_j(U - (k-1) w_0, w_0, ..., w_0); Maclaurin on u
        spread = K.esym([U - (k - 1) * umin] + [umin] * (k - 1), k)
        for j in range(k + 1):
            assert spread[j] <= eu[j] <= math.comb(k, j) * (U / k) ** j
        for c, _ in zero:
            vw = [w[l] for l, cl in enumerate(c) for _ in range(cl)]
            ev = K.esym(vw, k)
            allw = uw + vw
            e = K.esym(allw, k)
            p1, p2 = sum(allw), sum(x * x for x in allw)
            P1, P2 = sum(vw), sum(x * x for x in vw)
            # Vandermonde split
            assert e[k] == sum(eu[j] * ev[k - j] for j in range(k + 1))
            # Maclaurin, unconditional and conditional on u (the latter is sharper)
            mac = math.comb(M, k) * (p1 / M) ** k
            cmac = sum(
                eu[j] * (math.comb(n0, k - j) * (P1 / n0) ** (k - j) if k - j else 1)
                for j in range(k + 1)
                if k - j == 0 or n0 >= k - j
            )
            assert e[k] <= cmac <= mac
            # Bonferroni: m! e_m >= p1^m - C(m,2) p2 p1^(m-2), all records and zero records
            for m in range(k + 1):
                assert e[m] >= K.ell(m, p1, p2)
                assert ev[m] >= K.ell(m, P1, P2)
            # conditional lower bound for every b >= P2 (and the truncated form)
            tau = max(vw) if vw else w[0]
            for b in [P2, P2 * 2, P2 * 10]:
                H = sum(eu[j] * K.ell(k - j, P1, min(b, tau * P1)) for j in range(k + 1))
                assert e[k] >= H
            # light/heavy split at every cut
            for cut in range(bits + 1):
                light = [x for x in vw if x <= w[cut]]
                heavy = [x for x in vw if x > w[cut]]
                E = K.esym(uw + heavy, k)
                el = K.esym(light, k)
                S1 = sum(light)
                assert e[k] == sum(E[j] * el[k - j] for j in range(k + 1))
                nl = len(light)
                for m in range(k + 1):
                    assert el[m] >= K.ell_trunc(m, S1, w[cut])
                    if nl and m:
                        assert el[m] <= math.comb(nl, m) * (S1 / nl) ** m
                # conditional Maclaurin given outliers and heavy records: between e_k and U2
                gcut = E[k] + sum(E[j] * math.comb(nl, k - j) * (S1 / nl) ** (k - j) for j in range(k) if nl)
                assert e[k] <= gcut <= cmac


def test_ell_monotone():
    for m in range(5):
        for b in [F(0), F(1), F(5), F(40)]:
            vals = [K.ell(m, F(s, 2), b) for s in range(60)]
            assert vals == sorted(vals)
        for s in [F(1), F(7), F(30)]:
            vals = [K.ell(m, s, F(b, 3)) for b in range(60)]
            assert vals == sorted(vals, reverse=True)


def test_bonferroni_random_vectors():
    rng = random.Random(5)
    for _ in range(300):
        size = rng.randint(1, 9)
        ws = [F(rng.randint(1, 10**4), rng.randint(1, 10**3)) for _ in range(size)]
        p1, p2 = sum(ws), sum(x * x for x in ws)
        e = K.esym(ws, 6)
        for m in range(7):
            assert math.factorial(m) * e[m] >= p1**m - math.comb(m, 2) * p2 * p1 ** max(m - 2, 0)
            assert e[m] >= K.ell(m, p1, p2)
            if m <= size:
                assert e[m] <= math.comb(size, m) * (p1 / size) ** m


@pytest.mark.parametrize("k", [3, 4, 5])
def test_bonferroni_constant_is_sharp(k):
    """sup (p1^k - k! e_k) / (p2 p1^(k-2)) = C(k,2): approached by many equal atoms."""
    c = math.comb(k, 2)
    M = 2000
    gap = F(M**k - math.perm(M, k), M ** (k - 1))  # equal atoms w = 1
    assert gap <= c
    assert gap > F(99, 100) * c  # any constant 1% smaller fails here


# --------------------------------------------------------------------------------------
# certified brackets
# --------------------------------------------------------------------------------------
BRACKET_CASES = [
    (3, 2, 2, F(1, 4), F(2)),
    (3, 1, 3, F(1, 5), F(2)),
    (2, 2, 3, F(3, 10), F(3, 2)),
    (4, 2, 2, F(1, 5), F(5, 2)),
    (3, 3, 2, F(1, 5), F(2)),
    (2, 1, 2, F(1, 5), F(3, 2)),
]


@pytest.mark.parametrize("n,bits,k,q,lam", BRACKET_CASES)
@pytest.mark.parametrize("inclusive", [False, True])
def test_bounds_bracket_the_exact_tail(n, bits, k, q, lam, inclusive):
    exact = K.tail_joint(n, bits, q, k, lam, inclusive)
    u1 = K.bound_maclaurin(n, bits, q, k, lam, inclusive)
    u2 = K.bound_maclaurin_conditional(n, bits, q, k, lam, inclusive)
    l1, _ = K.bound_bonferroni(n, bits, q, k, lam, inclusive)
    l2 = K.bound_bonferroni_conditional(n, bits, q, k, lam, inclusive)
    assert 0 <= l1 <= exact and 0 < l2 <= exact
    assert exact <= u2 <= u1 <= 1
    for cut in range(bits + 1):
        lo, up = K.bound_conditional(n, bits, q, k, lam, cut, inclusive)
        lo_nu, _ = K.bound_conditional(n, bits, q, k, lam, cut, inclusive, union=False)
        assert lo_nu <= lo <= exact <= up
        if cut == bits:
            assert up == u2  # conditioning on the outlier records only
            assert lo >= l2  # truncation never hurts


def test_bounds_exact_for_k1():
    n, bits, q, lam = 4, 2, F(1, 4), F(2)
    exact = K.tail_joint(n, bits, q, 1, lam)
    assert K.bound_maclaurin(n, bits, q, 1, lam) == exact
    assert K.bound_bonferroni(n, bits, q, 1, lam)[0] == exact


@pytest.mark.slow
@pytest.mark.parametrize("n,bits,k,q,lam", [(5, 2, 3, F(1, 5), F(2)), (3, 3, 2, F(1, 10), F(4))])
def test_bounds_bracket_larger(n, bits, k, q, lam):
    exact = K.tail_joint(n, bits, q, k, lam)
    assert K.bound_bonferroni_conditional(n, bits, q, k, lam) <= exact
    assert exact <= K.bound_maclaurin_conditional(n, bits, q, k, lam)
    for cut in range(bits + 1):
        lo, up = K.bound_conditional(n, bits, q, k, lam, cut)
        assert lo <= exact <= up


# --------------------------------------------------------------------------------------
# 3σ rules and σ(d̂)
# --------------------------------------------------------------------------------------
def _log_rule_312(n, bits, q):
    """(3.12): the exact k = 1 mean + 3σ, in logs (independent of k_moments)."""
    p = 1.0 - q
    lphi = math.log1p((1.0 - 2.0 * q) ** 2 / (p * q))
    phi = math.exp(lphi)
    a = math.exp(bits * lphi)
    var = ((n - 1) * math.expm1(bits * lphi) + a * a * math.expm1(bits * math.log1p((phi - 1) / phi**2))) / n**2
    return (n - 1 + a) / n + 3 * math.sqrt(var)


def test_three_sigma_k1_is_rule_312():
    n, bits, eps = 1000, 5, math.log(2)
    q = km.three_sigma_q_k(n, bits, eps, 1)
    assert _log_rule_312(n, bits, q) <= 2.0 * (1 + 1e-12)
    assert _log_rule_312(n, bits, q - 1e-9) > 2.0


def test_three_sigma_rules_l40():
    """L = 40, N = 1e7, λ = e²: the seed's (6.3) gives q = 0.351 at k = 1 and decreasing q;
    the exact moments need more noise as k grows (0.3509 → 0.3597 for k = 1 → 10)."""
    n, bits, eps = 10**7, 40, 2.0
    seed = [seed_krand.seed_three_sigma_q_k(n, bits, eps, k) for k in (1, 2, 3, 5, 10)]
    exact = [km.three_sigma_q_k(n, bits, eps, k) for k in (1, 2, 3, 5, 10)]
    assert abs(seed[0] - 0.351) < 5e-4 and abs(exact[0] - 0.3509) < 1e-4
    assert seed == sorted(seed, reverse=True)
    assert exact == sorted(exact)
    assert abs(exact[-1] - 0.3597) < 1e-4
    for k, q in zip((1, 2, 3, 5, 10), exact, strict=True):
        mean, var = km.k_moments(n, bits, q, k)
        assert mean + 3 * math.sqrt(var) <= math.exp(eps) * (1 + 1e-12)
        mean, var = km.k_moments(n, bits, q - 1e-9, k)
        assert mean + 3 * math.sqrt(var) > math.exp(eps)


def test_three_sigma_impossible_names_eps():
    with pytest.raises(ValueError, match="eps"):
        km.three_sigma_q_k(10, 3, 1e-15, 2)
    with pytest.raises(ValueError, match="eps"):
        seed_krand.seed_three_sigma_q_k(10, 3, 1e-15, 2)
    with pytest.raises(ValueError, match=r"^eps must"):
        km.three_sigma_q_k(10, 3, -1.0, 2)


@pytest.mark.parametrize("n,k,d,q", [(3, 2, 1, F(1, 5)), (4, 3, 2, F(1, 3)), (5, 1, 0, F(2, 7))])
def test_precision_sigma_k_exact(n, k, d, q):
    """Var d̂ from the exact law of the reported set-bit count M (two binomials)."""
    p = 1 - q
    law = {0: F(1)}
    for prob, count in [(p, k * d), (q, k * (n - d))]:
        for _ in range(count):
            new = {}
            for m, pr in law.items():
                new[m + 1] = new.get(m + 1, 0) + pr * prob
                new[m] = new.get(m, 0) + pr * (1 - prob)
            law = new
    dhat = {m: (F(m, k) - q * n) / (p - q) for m in law}
    mean = sum(law[m] * dhat[m] for m in law)
    var = sum(law[m] * (dhat[m] - mean) ** 2 for m in law)
    assert mean == d
    assert var == n * p * q / (k * (p - q) ** 2)
    assert abs(precision_sigma(n, float(q), k) - math.sqrt(float(var))) <= 1e-14 * math.sqrt(float(var))
    # the seed's printed σ(d̂) = sqrt((N/k) sqrt(qp)/(p − q)) is a different number
    seed = math.sqrt(n / k * math.sqrt(float(q * p)) / float(p - q))
    assert abs(seed - math.sqrt(float(var))) > 1e-3

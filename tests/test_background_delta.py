"""One-bit ``δ(ε)`` over every background, pruned (``gpu_rs.pairs.background_delta``), against exact sums.

Oracle: the exact one-bit ``δ_a(ε)`` of the background of ``a`` zeros and ``N − 1 − a`` ones,
``Σ_k (P'(k) − λ P(k))_+`` with ``P'(k) = p f(k − 1) + q f(k)``, ``P(k) = q f(k − 1) + p f(k)`` and
``f`` the background count's pmf from log-space binomial sums (``oracles_pairs._L1``), not gpu_rs.
"""

from __future__ import annotations

import math
import random

import numpy as np
import oracles_pairs as op
import pytest

import gpu_rs
from gpu_rs.pairs import background_delta as bd


def exact_deltas(law: op._L1, a: int, eps: np.ndarray) -> np.ndarray:
    """``δ_a(ε)`` for ``law.N`` users at each ``ε``, summed over every count that can carry a positive term."""
    n, q, p = law.N, law.q, law.p
    mean, sd = a * q + (n - 1 - a) * p, math.sqrt((n - 1) * p * q)
    ks = np.arange(max(0, math.floor(mean - 2 * sd - 3)), min(n, math.ceil(mean + 40 * sd + 40)) + 1)
    f = np.exp(law.logf(a, n - 1 - a, np.concatenate([[ks[0] - 1], ks])))
    prev, cur = f[:-1], f[1:]
    terms = (p * prev + q * cur)[None, :] - np.exp(eps)[:, None] * (q * prev + p * cur)[None, :]
    return np.where(terms > 0, terms, 0.0).sum(axis=1)


def exact_delta(law: op._L1, a: int, eps: float) -> float:
    return float(exact_deltas(law, a, np.array([eps]))[0])


@pytest.mark.parametrize(("n", "q"), [(40, 0.3), (150, 0.1), (400, 0.02)])
def test_interval_bound_is_above_every_background_inside_nested_intervals(n, q):
    """``δ_G`` of an interval (the ``w`` users removed) bounds ``δ_a`` for every ``a`` inside it."""
    rng = random.Random(n)
    law = op._L1(n, q)
    rows = bd.Rows(n, q)
    eps = np.array([0.05, 0.3, 1.0, 2.0])
    exact = np.array([exact_deltas(law, a, eps) for a in range(n)])
    for _ in range(6):
        a1, a2 = sorted(rng.sample(range(n), 2))
        while a2 - a1 >= 1:  # nested: each interval inside the one before
            bound = bd.delta_rows(rows.masses(n - (a2 - a1), a1), q, eps)[1][0]
            for i, e in enumerate(eps):
                worst = exact[a1 : a2 + 1, i].max()
                assert worst <= bound[i] * (1 + 1e-12) + 1e-300, (n, q, e, a1, a2, worst, bound[i])
            a1, a2 = sorted(rng.sample(range(a1, a2 + 1), 2)) if a2 - a1 > 1 else (a1, a1)


@pytest.mark.parametrize(("n", "q"), [(300, 0.05), (500, 0.2), (1500, 0.01799)])
def test_search_contains_the_maximum_over_every_background(n, q):
    law = op._L1(n, q)
    eps = np.array([0.02, 0.1, 0.3, 0.8])
    found = bd.worst_deltas(bd.Rows(n, q), eps, 1e-3, 1e-15)
    exact = np.array([exact_deltas(law, a, eps) for a in range(n)])
    for e, w, every in zip(eps, found, exact.T, strict=True):
        assert w.complete
        assert w.lower <= exact_delta(law, w.zeros, e) * (1 + 1e-9) and max(every) <= w.upper * (1 + 1e-12)
        assert w.upper - w.lower <= max(1e-15, 1e-3 * w.lower), (e, w)


def test_search_out_of_rows_is_covered_by_the_proven_bound():
    """A budget of a few rows leaves intervals unresolved: the proven clone bound covers them."""
    n, q = 600, 0.1
    law = op._L1(n, q)
    eps = np.array([0.05, 0.2])
    exact = np.array([exact_deltas(law, a, eps) for a in range(n)]).max(axis=0)
    for w, worst in zip(bd.worst_deltas(bd.Rows(n, q), eps, 1e-6, 1e-15, budget=3), exact, strict=True):
        assert not w.complete
        assert worst <= w.upper * (1 + 1e-12)


def test_search_at_n_1e5_contains_exact_backgrounds():
    """Where the old search took about 44 s per ε (N = 1e5): the background found is certified and
    the upper end lies above every background checked exactly (both ends of the range, and a spread)."""
    n, q = 10**5, 0.01799
    law = op._L1(n, q)
    eps = np.array([0.0847, 0.05])
    checked = [*range(40), *range(0, n, 9973), *range(n - 10, n)]
    exact = np.array([exact_deltas(law, a, eps) for a in checked]).max(axis=0)
    for e, w, worst in zip(eps, bd.worst_deltas(bd.Rows(n, q), eps, 1e-3, 1e-12), exact, strict=True):
        assert w.complete and w.upper - w.lower <= 1e-3 * w.lower
        assert w.lower <= exact_delta(law, w.zeros, e) * (1 + 1e-9)
        assert worst <= w.upper * (1 + 1e-12)


def test_profile_scope_all_one_bit_at_n_1e6_is_the_search_not_the_clone_bound():
    """At N = 1e6 (refused before) ``scope="all"`` is the pruned search: ε(1e-6) within 1e-3 of the
    homogeneous pair's, where the clone bound gave 0.0343."""
    n, q = 10**6, 0.01799
    p = gpu_rs.privacy_profile(n, 1, q, scope="all", backend="numpy")
    assert p.guarantee == "proven for every neighbouring collection"
    e = p.epsilon(1e-6)
    h = gpu_rs.privacy_profile(n, 1, q, scope="homogeneous", backend="numpy").epsilon(1e-6)
    assert e.met and e.lower <= h.upper * (1 + 1e-3) and e.upper >= h.lower
    assert e.upper <= 1.002 * h.upper


@pytest.mark.parametrize("zeros", ["none", "all"])
def test_row_at_n_1e7_is_narrow_and_contains_scipy_binomial_sums(zeros):
    """At N = 1e7 a row's masses share the log-gamma anchor's error (3e-7): kept as one factor of the
    sum (not amplified by the cancellation in δ), the row is 1e-5 wide relative, and contains the
    exact δ of the two single-binomial backgrounds (B = Bin(N − 1, p) or Bin(N − 1, q), scipy's pmf)."""
    from scipy import stats

    n, q = 10**7, 0.01799
    a = 0 if zeros == "none" else n - 1
    eps = np.array([0.005, 0.0068, 0.02])
    lo, hi = bd.delta_rows(bd.Rows(n, q).masses(n, a), q, eps)
    pi = 1.0 - q if a == 0 else q
    mean, sd = (n - 1) * pi, math.sqrt((n - 1) * q * (1 - q))
    ks = np.arange(math.floor(mean - 3), math.ceil(mean + 40 * sd))
    f = stats.binom.pmf(np.concatenate([[ks[0] - 1], ks]), n - 1, pi)
    prev, cur = f[:-1], f[1:]
    for i, e in enumerate(eps):
        terms = (1 - q) * prev + q * cur - math.exp(e) * (q * prev + (1 - q) * cur)
        exact = terms[terms > 0].sum()
        assert lo[0, i] <= exact * (1 + 1e-8) and exact * (1 - 1e-8) <= hi[0, i], (e, lo[0, i], exact, hi[0, i])
        assert hi[0, i] - lo[0, i] <= 1e-5 * exact

"""The certified floors of scripts/pool_floor.py (docs/worst-case.md §10.4) against exact rationals.

A floor must stay below what it floors: each member's statistic below the member's exact δ; the
cross-cloned and blanket floors below the exact pooled bound E[g(C + 1)] of a small background
(g by enumerating every output histogram, C's law in exact rationals), in each order; the two-type
floor below the exact δ of a background on {x, x′}; the certified count laws on the right side of
their exact values; the float floor within 1e-12 below the same statistic computed in exact
rationals; and the tail floors below the tails gpu_rs certifies.
"""

from __future__ import annotations

import functools
import itertools
import math
import pathlib
import sys
from fractions import Fraction

import numpy as np
import oracles_pairs as op
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "scripts"))

import pool_floor as pf


def bits(v: int, L: int) -> str:
    return format(v, f"0{L}b")


@functools.cache
def distribution(D: tuple[str, ...], q: float) -> dict:
    return op.pair_distribution(list(D), Fraction(q))


def exact_delta(D: list[str], Dp: list[str], q: float, lam: float) -> Fraction:
    """δ_{Dp‖D} at e^ε = ``lam`` in exact rationals (every output histogram)."""
    P0 = distribution(tuple(sorted(D)), q)
    P1 = distribution(tuple(sorted(Dp)), q)
    lam_f = Fraction(lam)
    return sum((max(p1 - lam_f * P0[key], Fraction(0)) for key, p1 in P1.items()), Fraction(0))


def member_delta(ys: str, c: int, q: float, lam: float, forward: bool) -> Fraction:
    """g of the pool: c users at ``ys`` and the changing user 0…0 → 1…1 (forward: S from x′)."""
    L = len(ys)
    x, xp = "0" * L, "1" * L
    D, Dp = [ys] * c + [x], [ys] * c + [xp]
    return exact_delta(D, Dp, q, lam) if forward else exact_delta(Dp, D, q, lam)


def exact_count(probs: list[Fraction]) -> list[Fraction]:
    law = [Fraction(1)]
    for pr in probs:
        law = [(law[k] if k < len(law) else 0) * (1 - pr) + (law[k - 1] * pr if k else 0) for k in range(len(law) + 1)]
    return law


@pytest.mark.parametrize(("L", "q", "w"), [(3, 0.2, 0), (3, 0.2, 1), (3, 0.3, 2), (2, 0.15, 2)])
def test_member_statistics_stay_below_the_exact_member(L, q, w):
    ys = "1" * w + "0" * (L - w)
    cls = pf.classes(L, q, w)
    for lam, forward in itertools.product((0.9, 1.5, 3.0), (True, False)):
        first, second = (cls.xp, cls.x) if forward else (cls.x, cls.xp)
        k = pf.test_values(first, second, cls.ystar, lam, 64)
        low = pf.statistic_deltas([cls.ystar] * 4, range(5), k, first, second, lam)
        for c, val in low.items():
            exact = member_delta(ys, c, q, lam, forward)
            assert Fraction(val) <= exact
            assert val >= 0.9 * float(exact) - 1e-9  # the likelihood-ratio test, nearly: not vacuous


def exact_statistic(cls: pf.Classes, c: int, k: np.ndarray, lam: float, forward: bool) -> Fraction:
    """max over θ of P′(S + k(z) > θ) − λ P(S + k(z) > θ), S the sum of k over c pool reports, exactly."""
    pool, x, xp = cls.exact["ystar"], cls.exact["x"], cls.exact["xp"]
    first, second = (xp, x) if forward else (x, xp)
    law = {0: Fraction(1)}
    for _ in range(c):
        new: dict[int, Fraction] = {}
        for s, pr in law.items():
            for t, pt in enumerate(pool):
                new[s + int(k[t])] = new.get(s + int(k[t]), Fraction(0)) + pr * pt
        law = new
    lam_f = Fraction(lam)
    sums = {s + int(k[t]) for s in law for t in range(len(pool))}
    best = Fraction(0)
    for theta in sorted(sums | {min(sums) - 1}):
        a = sum((pr * first[t] for s, pr in law.items() for t in range(len(pool)) if s + k[t] > theta), Fraction(0))
        b = sum((pr * second[t] for s, pr in law.items() for t in range(len(pool)) if s + k[t] > theta), Fraction(0))
        best = max(best, a - lam_f * b)
    return best


def test_float_statistic_is_certified_against_exact_rationals():
    """The certified value is below the same test computed exactly, and within 1e-12 of it."""
    L, q = 3, 0.27
    for w, lam, forward in itertools.product((0, 1, 3), (1.2, 2.0), (True, False)):
        cls = pf.classes(L, q, w)
        first, second = (cls.xp, cls.x) if forward else (cls.x, cls.xp)
        k = pf.test_values(first, second, cls.ystar, lam, 16)
        low = pf.statistic_deltas([cls.ystar] * 6, [0, 3, 6], k, first, second, lam)
        for c, val in low.items():
            exact = exact_statistic(cls, c, k, lam, forward)
            assert Fraction(val) <= exact
            assert float(exact) - val <= 1e-12


def test_count_laws_are_charged_outwards():
    """Lower masses below the exact Poisson-binomial masses, upper tails above the exact tails."""
    probs = [Fraction(1, 3)] * 5 + [Fraction(0.2) ** 3] * 7 + [Fraction(1)] * 2
    law = pf.poisson_binomial([Fraction(1, 3), Fraction(0.2) ** 3, Fraction(1)], [5, 7, 2])
    exact = exact_count(probs)
    lower = law.lower()
    for c, m in enumerate(exact):
        assert Fraction(float(lower[c])) <= m
        assert float(m) - lower[c] <= 1e-14
        tail = sum(exact[c + 1 :], Fraction(0))
        assert Fraction(law.upper_tail(c)) >= tail
        assert law.upper_tail(c) <= float(tail) * (1 + 1e-12) + 1e-239


def ideal_cross_cloned(users: list[str], q: float, lam: float, forward: bool) -> Fraction:
    """min over every y* of E[g_{y*}(C + 1)], C ~ Σ Ber(r^{h(y_i, y*)}), exactly (one order)."""
    L = len(users[0])
    r = Fraction(q) / (1 - Fraction(q))
    best = None
    for ys in range(2**L):
        y = bits(ys, L)
        law = exact_count([r ** sum(a != b for a, b in zip(u, y, strict=True)) for u in users])
        val = sum((m * member_delta(y, c, q, lam, forward) for c, m in enumerate(law) if m), Fraction(0))
        best = val if best is None else min(best, val)
    return best


@pytest.mark.parametrize("users", [{0: 2, 7: 2}, {0: 2, 3: 1, 5: 1}, {6: 3, 1: 1}])
def test_cross_cloned_floor_is_below_the_exact_pooled_bound(users):
    """At N = 5, L = 3: the floor at each grid point is below max over orders of the least over every
    y* of the exact E[g(C + 1)] (what the computed pooled bound is never below, §10.4)."""
    N, L, q, ratio = 5, 3, 0.25, 2.0
    bg = pf.Background(L, users)
    vecs = [bits(v, L) for v, n in users.items() for _ in range(n)]
    lams = pf.lam_grid(ratio, 3)
    low, _ = pf.cross_cloned_floor(N, q, lams, bg, ratio, levels=(16, 64))
    for lam, val in zip(lams, low, strict=True):
        ideal = max(ideal_cross_cloned(vecs, q, float(lam), fwd) for fwd in (True, False))
        assert Fraction(val) <= ideal
        assert val >= 0.5 * float(ideal)


def exact_blanket(N: int, L: int, q: float, lam: float) -> Fraction:
    """Σ_c P(C = c) δ_c, C ~ Bin(N − 1, (2q)^L), δ_c of one report of M(x) or M(x′) among c uniform
    ones (the same in both orders), every ordered tuple of report classes enumerated exactly."""
    cls = pf.classes(L, q, 0)
    uni, x, xp = cls.exact["uniform"], cls.exact["x"], cls.exact["xp"]
    count = exact_count([(2 * Fraction(q)) ** L] * (N - 1))
    total = Fraction(0)
    for c, m in enumerate(count):
        P1: dict[tuple[int, ...], Fraction] = {}
        P0: dict[tuple[int, ...], Fraction] = {}
        for tup in itertools.product(range(L + 1), repeat=c + 1):
            base = math.prod((uni[t] for t in tup[:-1]), start=Fraction(1))
            key = tuple(sorted(tup))
            P1[key] = P1.get(key, Fraction(0)) + base * xp[tup[-1]]
            P0[key] = P0.get(key, Fraction(0)) + base * x[tup[-1]]
        total += m * sum((max(P1[s] - Fraction(lam) * P0[s], Fraction(0)) for s in P1), Fraction(0))
    return total


def test_blanket_floor_is_below_the_exact_blanket():
    N, L, q = 6, 2, 0.3
    lams = pf.lam_grid(2.0, 3)
    low = pf.blanket_floor(N, L, q, lams)
    for lam, val in zip(lams, low, strict=True):
        exact = exact_blanket(N, L, q, float(lam))
        assert Fraction(val) <= exact
        assert val >= 0.9 * float(exact)


def test_two_type_floor_is_below_the_exact_delta_on_two_vectors():
    """On {x, x′} the two-type pool with α = 1 at x and β = 1 at x′ is the pair itself, so every
    floor of the two-type bound is at most the pair's exact δ (both orders)."""
    N, L, q = 6, 3, 0.2
    bg = pf.Background(L, {0: 3, 7: 2})
    lams = pf.lam_grid(2.0, 2)
    low = pf.two_type_floor(N, q, lams, bg, cells=64)
    D, Dp = ["000"] * 4 + ["111"] * 2, ["000"] * 3 + ["111"] * 3
    for lam, val in zip(lams, low, strict=True):
        assert Fraction(val) <= max(exact_delta(D, Dp, q, float(lam)), exact_delta(Dp, D, q, float(lam)))


def test_tail_floor_is_below_the_best_step():
    """The grid floor is at most min over every ε of δ(ε)/(1 − e^{ε − ε′}) for a nonincreasing δ known
    everywhere, and it refuses a grid that does not end at e^ε′."""
    e1 = math.log(2.0)

    def delta(lam):
        return np.asarray(lam, dtype=float) ** -6.0

    dense = np.linspace(-3.0, e1, 200_001)[:-1]
    truth = float(np.min(delta(np.exp(dense)) / (1 - np.exp(dense - e1))))
    grid = pf.lam_grid(2.0, 20)
    floor = pf.tail_floor(delta(grid), grid, 2.0)
    assert floor <= truth
    assert floor >= 0.5 * truth
    with pytest.raises(ValueError, match="grid"):
        pf.tail_floor(delta(grid[:-1]), grid[:-1], 2.0)


@pytest.mark.parametrize(("N", "q", "users"), [(40, 0.22, {0: 15, 3: 3, 5: 3, 6: 3, 7: 15}), (40, 0.3, {0: 39})])
def test_floor_is_below_the_library_bounds(N, q, users):
    """The pooled tail floor at one background stays below the tail that gpu_rs certifies with the
    pools of §8.9 (L = 3, λ = 2), and the blanket's below the default curve's."""
    from gpu_rs.pairs import every_pair

    bg = pf.Background(3, users)
    fl = pf.floors(N, q, pf.lam_grid(2.0, 20), bg, 2.0, ("blanket", "cross-cloned"), levels=(32, 128)).tails()
    pooled = every_pair.Curve(N, 3, q, pools=True).tail(math.log(2.0)).bound
    default = every_pair.curve(N, 3, q).tail(math.log(2.0)).bound
    assert 0 < fl["pooled (least)"] <= pooled
    assert fl["blanket"] <= default
